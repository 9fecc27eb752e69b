//! The initial congestion window a flow's `iw` names: a number of segments or an RFC's rule.
//! The scenario schema (`spec`) uses these as they are.

use schemars::JsonSchema;
use serde::Deserialize;

/// Initial congestion window: a number of segments or the RFC rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum InitialWindow {
    Segments(u32),
    Rule(IwRule),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IwRule {
    /// min(4·MSS, max(2·MSS, 4380 B)), RFC 3390 (1).
    Rfc3390,
    /// min(10·MSS, max(2·MSS, 14600 B)), RFC 6928 (2).
    Rfc6928,
}

impl InitialWindow {
    /// The initial window in bytes for a given MSS, in whole segments (the byte bound of
    /// the RFC rounded down to full-sized segments, as segment-counting stacks do).
    pub fn bytes(self, mss: u32) -> u64 {
        let mss = mss as u64;
        let bound = match self {
            InitialWindow::Segments(n) => return n.max(1) as u64 * mss,
            InitialWindow::Rule(IwRule::Rfc3390) => (4 * mss).min((2 * mss).max(4380)),
            InitialWindow::Rule(IwRule::Rfc6928) => (10 * mss).min((2 * mss).max(14600)),
        };
        (bound / mss).max(1) * mss
    }
}
