//! rtolab-sim: a discrete-event simulator of TCP over wireless and cellular links.
//!
//! Layers, lowest first (`layers::ORDER`, held by its test): values and helpers, `engine`,
//! `results`, the components (`tcp`, `net`, `radio`, `pcap`), `spec` (what users write, naming
//! the components' settings), `build` (a scenario's network parts), `fabric` (the network
//! that carries packets between hosts: simulator and emulator both drive it), `world` (the
//! simulation built from a scenario and driven by `engine`). See DESIGN.md for the rules every part
//! follows.

pub mod bench;
pub mod build;
pub mod control;
pub mod drill;
pub mod engine;
pub mod fabric;
pub mod ids;
pub mod intervals;
pub mod layers;
pub mod net;
pub mod pcap;
pub mod quic;
pub mod prefetch;
pub mod radio;
pub mod results;
pub mod rng;
pub mod spec;
pub mod tcp;
pub mod time;
pub mod traffic;
pub mod transport;
pub mod units;
pub mod voice;
pub mod world;

pub use results::{CellRow, EventKind, EventRow, FlowRow, LinkRow, RunMeta, RunResult, SeriesMetric, SeriesTable};
pub use spec::{Scenario, SpecError};
pub use time::{SimDuration, SimTime};
pub use world::{SimError, Simulation};

/// Runs a validated scenario with `seed` (or the scenario's own, or 1).
pub fn run(scenario: &Scenario, seed: Option<u64>) -> Result<RunResult, SimError> {
    run_with(scenario, seed, &control::RunControl::default())
}

/// `run`, watched and stoppable from another thread through `control`.
pub fn run_with(scenario: &Scenario, seed: Option<u64>, control: &control::RunControl) -> Result<RunResult, SimError> {
    let seed = seed.or(scenario.seed).unwrap_or(1);
    control.set_end(scenario.duration.map(|d| SimTime::ZERO + d.sim()));
    Simulation::new(scenario, seed).run_controlled(control)
}
