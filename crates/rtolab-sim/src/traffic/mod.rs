//! Traffic generators as parts: each kind of traffic (`kind = "burst"`, `"web"`, `"voip"`) is
//! one file holding what users write for it and how it plans its traffic
//! (`GeneratorKind`), and one line of the registry (`registry.rs`). The simulator and the
//! emulator both start what a generator plans: flows known before the run (`PlannedFlow`),
//! and users who start transfers as the run goes (`User`), driven by the same code in both.
//!
//! Invariant: a generator's plan is a function of its table, its name and the run's seed
//! alone (every draw from its own random streams), so a flow has the same name, size, start
//! and transport in the simulator and the emulator.

pub mod burst;
mod kind;
mod planned;
mod registry;
pub mod voip;
pub mod web;
#[cfg(test)]
mod toy;

pub use kind::{GeneratorKind, Traffic};
pub use planned::{DatagramPlan, Origin, PlannedFlow, PlannedUsers, User};
pub use registry::GeneratorSpec;
