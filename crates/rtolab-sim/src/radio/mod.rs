//! The HSDPA radio access network (paper 000, Sec. 3.1): hexagonal cells with wrap-around,
//! mobile users, path loss and shadowing, SIR, link adaptation, per-user buffers and the
//! schedulers of the shared channel, one TTI event per cell.

pub mod buffer;
pub mod cell;
pub mod geometry;
pub mod link_adaptation;
pub mod mobility;
pub mod network;
pub mod scheduler;
pub mod shadowing;
pub mod sir;
pub mod ue;

pub use network::{RadioNetwork, RadioRecording};

use crate::net::build::{radio_hops, LinkRecording};
use crate::net::{DirId, LinkDir};
use crate::spec::{Scenario, SeriesMetric};

/// The radio network of `scenario` for `ues` mobile users, numbered in the order the caller
/// assigns them: its own hops (`net::build::radio_hops`: the wired path, then one uplink per
/// user) are appended to `links`, and the network records the per-user series that
/// `output.series` asks for. None without `[radio]`. The simulator and the emulator both
/// build it here, so a user's uplink is the same direction in either.
pub fn build(scenario: &Scenario, ues: usize, links: &mut Vec<LinkDir>, seed: u64, record: LinkRecording) -> Option<RadioNetwork> {
    let r = scenario.radio.as_ref()?;
    let first = DirId(links.len() as u32);
    links.extend(radio_hops(r, ues, first, seed, record));
    let series = &scenario.output.series;
    let recording = RadioRecording { sir: series.contains(&SeriesMetric::Sir), rate: series.contains(&SeriesMetric::Rate) };
    Some(RadioNetwork::new(r, ues, DirId(first.0 + 2), seed, recording))
}
