//! Traffic generators as parts: each kind of traffic (`kind = "burst"`, `"web"`, `"voip"`) is
//! one file holding what users write for it and how it plans its traffic
//! (`GeneratorKind`), then a `mod` line and one entry in `generators!` below
//! (`registry.rs`), which makes its `kind`, reads and checks its table, lists it in the
//! schema and has the simulator and the emulator start it. A plan is flows known before the
//! run (`PlannedFlow`), or users who start transfers as the run goes (`User`), driven by the
//! same code in both.
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
pub use planned::{start_time, DatagramPlan, Origin, PlannedFlow, PlannedUsers, User};

// The registry: each kind's `kind` and table, in the schema's order.
registry::generators! {
    /// `kind = "burst"`: flows that start together and share a number of bytes.
    Burst("burst", burst::BurstSpec),
    /// `kind = "web"`: users that fetch files and think in between.
    Web("web", web::WebSpec),
    /// `kind = "voip"`: voice calls, one per user, scored by the E-model.
    Voip("voip", voip::VoipSpec),
    /// `kind = "toy"`: the registry's own example of a new kind (tests only).
    #[cfg(test)]
    Toy("toy", toy::ToySpec),
}

