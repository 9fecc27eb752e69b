//! The loss recovery algorithms, by name: one enum for the scenario schema (`spec`'s
//! `recovery`) and for the sender (`SenderConfig::recovery`, `AnyRecovery::new`).
//!
//! The ns-2 agents' recoveries are chosen by their stack profiles only: they are not part
//! of the schema (`serde(skip)`), so a spec cannot name them and the schema does not list
//! them.

use schemars::JsonSchema;
use serde::Deserialize;

// The doc comments are the schema's descriptions; the schema keeps the name it had as the
// spec's own enum.
/// Loss recovery after a fast retransmit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(rename = "RecoverySpec")]
pub enum RecoveryKind {
    /// RFC 5681 3.2.
    Reno,
    /// RFC 6582.
    #[serde(rename = "newreno")]
    NewReno,
    /// RFC 6675 (needs `sack = true`).
    Sack,
    /// RFC 6937 PRR with RFC 6675's choice of segments, as Linux (needs `sack = true`).
    Prr,
    /// Linux 2.6.24's rate halving with RFC 6675's choice of segments (needs `sack = true`).
    #[serde(rename = "rate-halving")]
    RateHalving,
    /// ns-2.35's `Agent/TCP/Sack1` (stack `ns2-sack1` only).
    #[serde(skip)]
    Ns2Sack1,
    /// ns-2.35's `Agent/TCP/Newreno` (stack `ns2-newreno` only).
    #[serde(skip)]
    Ns2NewReno,
}

impl RecoveryKind {
    /// Needs SACK blocks from the receiver (RFC 6675's scoreboard).
    pub fn needs_sack(self) -> bool {
        matches!(self, RecoveryKind::Sack | RecoveryKind::Prr | RecoveryKind::RateHalving | RecoveryKind::Ns2Sack1)
    }

    /// The recovery that runs instead when SACK is off: a stack's SACK recovery becomes its
    /// NewReno (ns-2: the other agent).
    pub fn without_sack(self) -> RecoveryKind {
        match self {
            RecoveryKind::Sack | RecoveryKind::Prr | RecoveryKind::RateHalving => RecoveryKind::NewReno,
            RecoveryKind::Ns2Sack1 => RecoveryKind::Ns2NewReno,
            kind => kind,
        }
    }
}
