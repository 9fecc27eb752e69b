//! The congestion controls a flow's `cc` names; the scenario schema (`spec`) uses this enum
//! as it is, and `controller()` turns a name into the simulator's controller.

use super::{ControllerKind, CubicParams, CUBIC_2_6_24_BETA};
use schemars::JsonSchema;
use serde::Deserialize;

/// Congestion control: how the window grows and shrinks. `"newreno"` is the older spelling
/// of Reno growth with NewReno loss recovery (RFC 6582) unless `sack` or `recovery` says
/// otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    /// RFC 5681 Reno (Linux `reno` under `rtolab emulate`).
    Reno,
    /// Reno growth; the name selects NewReno loss recovery.
    Newreno,
    /// CUBIC with HyStart as Linux 6.x runs it (RFC 9438).
    Cubic,
    /// CUBIC as Linux 2.6.24 ran it (module 2.1): counted per ACK, `max_increment`,
    /// cnt = 50 before the first loss, β = 0.8, no HyStart.
    #[serde(rename = "cubic-2.6.24")]
    Cubic2624,
    /// Linux's BIC.
    Bic,
    /// Linux's Westwood+.
    Westwood,
}

impl CcKind {
    /// The name the Linux kernel gives this congestion control (`TCP_CONGESTION`).
    pub fn kernel_name(self) -> &'static str {
        match self {
            CcKind::Reno | CcKind::Newreno => "reno",
            CcKind::Cubic | CcKind::Cubic2624 => "cubic",
            CcKind::Bic => "bic",
            CcKind::Westwood => "westwood",
        }
    }

    /// The simulator's controller: "reno" and "newreno" both grow as Reno (they differ in
    /// loss recovery only).
    pub fn controller(self) -> ControllerKind {
        match self {
            CcKind::Reno | CcKind::Newreno => ControllerKind::Reno,
            CcKind::Cubic => ControllerKind::Cubic(CubicParams::default()),
            CcKind::Cubic2624 => ControllerKind::Cubic2624 { beta: CUBIC_2_6_24_BETA },
            CcKind::Bic => ControllerKind::Bic,
            CcKind::Westwood => ControllerKind::Westwood,
        }
    }
}
