//! The whole-simulation tests, the snapshot matrix included, in one test binary: each
//! integration-test binary is one more crate to compile and link in `make test`, so the files
//! of `scenarios/` are modules of this one (a test crate's root finds its modules beside it,
//! hence the paths). The property tests are `fuzz` (`make fuzz` runs
//! them long: `--test scenarios -- fuzz::`).

mod common;

#[path = "scenarios/aqm.rs"]
mod aqm;
#[path = "scenarios/control.rs"]
mod control;
#[path = "scenarios/datagram_flows.rs"]
mod datagram_flows;
#[path = "scenarios/quic_flows.rs"]
mod quic_flows;
#[path = "scenarios/fuzz.rs"]
mod fuzz;
#[path = "scenarios/hsdpa.rs"]
mod hsdpa;
#[path = "scenarios/radio_links.rs"]
mod radio_links;
#[path = "scenarios/schema_docs.rs"]
mod schema_docs;
#[path = "scenarios/snapshot_matrix.rs"]
mod snapshot_matrix;
#[path = "scenarios/spurious_profiles.rs"]
mod spurious_profiles;
#[path = "scenarios/tcp_scenarios.rs"]
mod tcp_scenarios;
#[path = "scenarios/voice_calls.rs"]
mod voice_calls;
#[path = "scenarios/web_sessions.rs"]
mod web_sessions;
