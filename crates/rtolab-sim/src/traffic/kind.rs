//! What every kind of generator answers to.

use super::planned::{PlannedFlow, PlannedUsers};
use crate::quic::QuicSpec;
use crate::tcp::settings::TcpSpec;

/// What a generator starts: flows planned before the run (a burst, calls), or users who
/// start transfers as it goes (web users).
pub enum Traffic<'a> {
    Flows(Vec<PlannedFlow<'a>>),
    Users(PlannedUsers<'a>),
}

/// One kind of traffic generator: its table's checks and its plan. Implemented by the table
/// type users write (`BurstSpec`, `WebSpec`, `VoipSpec`), registered once in `registry.rs`.
pub trait GeneratorKind {
    /// The generator's `name`, if the table gives one (else "<kind><index>").
    fn name(&self) -> Option<&str>;
    /// Its route and whether its mobile users send (`uplink`), checked like a flow's.
    fn route(&self) -> (&[String], bool);
    /// The TCP table its connections take, if they run TCP.
    fn tcp(&self) -> Option<&TcpSpec>;
    /// The QUIC table its connections take, if they run QUIC (a generator gives at most one
    /// of `tcp` and `quic`).
    fn quic(&self) -> Option<&QuicSpec> {
        None
    }
    /// The checks types cannot express: `Err((field, message))`, the field relative to the
    /// generator's table ("" for the table itself). `has_duration`: the run has a stop time
    /// (traffic that never ends needs one).
    fn check(&self, has_duration: bool) -> Result<(), (String, String)>;
    /// What it starts in a run under `seed`, as generator `name` of kind `kind`.
    fn plan(&self, kind: &'static str, name: String, seed: u64) -> Traffic<'_>;
}
