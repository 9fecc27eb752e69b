//! The radio network of a scenario, with its hops, for the simulator and the emulator alike.

use super::links::{radio_hops, LinkRecording};
use crate::net::{DirId, LinkDir};
use crate::radio::{RadioNetwork, RadioRecording};
use crate::spec::{Scenario, SeriesMetric};

/// The radio network of `scenario` for `ues` mobile users, numbered in the order the caller
/// assigns them: its own hops (`build::links::radio_hops`: the wired path, then one uplink per
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
