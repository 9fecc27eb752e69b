//! Builds a scenario's link directions, spike processes and routes. The simulator and the
//! real-time emulator (`rtolab-emu`) both call these, so a link behaves the same in either.
//!
//! Invariant: link `i` of the scenario owns directions `2i` (forward) and `2i + 1` (reverse);
//! every random stream is derived from (seed, the link's name, purpose), as in the simulator.

use super::{DirConfig, LinkDir, SpikeProcess};
use crate::pcap::Capture;
use crate::rng::stream;
use crate::spec::Scenario;

const DIRECTIONS: [&str; 2] = ["forward", "reverse"];

/// Every link direction of `scenario`, in the order of the invariant above.
pub fn link_dirs(scenario: &Scenario, seed: u64, record_queue: bool) -> Vec<LinkDir> {
    let mut links = Vec::with_capacity(2 * scenario.links.len());
    for (i, l) in scenario.links.iter().enumerate() {
        for (d, way) in DIRECTIONS.iter().enumerate() {
            let rev = l.reverse.clone().filter(|_| d == 1).unwrap_or_default();
            let cfg = DirConfig {
                name: format!("{}.{way}", l.name),
                rate_bps: rev.rate.unwrap_or(l.rate).bps().round().max(1.0) as u64,
                delay: rev.delay.unwrap_or(l.delay).sim(),
                queue: rev.queue.unwrap_or_else(|| l.queue.clone()),
                loss: rev.loss.or(l.loss).map(|p| p.0).unwrap_or(0.0),
                drop_packets: if d == 0 { l.drop_packets.clone() } else { rev.drop_packets.unwrap_or_default() },
            };
            let rng = stream(seed, &format!("links/{}/{way}", l.name), "queue-and-loss");
            links.push(LinkDir::new((2 * i + d) as u32, cfg, rng, record_queue));
        }
    }
    links
}

/// The spike process of every link that has one.
pub fn spike_processes(scenario: &Scenario, seed: u64) -> Vec<SpikeProcess> {
    scenario
        .links
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let s = l.spikes.as_ref()?;
            Some(SpikeProcess::new(i as u32, s, stream(seed, &format!("links/{}", l.name), "spikes")))
        })
        .collect()
}

/// The directions a route crosses: data forward over the named links in order, ACKs back
/// over their reverse directions in the opposite order. The route must be validated.
pub fn route_dirs(scenario: &Scenario, route: &[String]) -> (Vec<u32>, Vec<u32>) {
    let index = |name: &String| scenario.links.iter().position(|l| &l.name == name).expect("validated route") as u32;
    let fwd: Vec<u32> = route.iter().map(|n| 2 * index(n)).collect();
    let rev: Vec<u32> = fwd.iter().rev().map(|d| d + 1).collect();
    (fwd, rev)
}

/// A capture for each direction `output.pcap` names (`"l"` is its forward direction).
pub fn captures(scenario: &Scenario, links: &[LinkDir]) -> Vec<Option<Capture>> {
    links
        .iter()
        .map(|l| {
            let wanted = scenario.output.pcap.iter().any(|p| {
                let base = l.cfg.name.rsplit_once('.').map(|(b, _)| b).unwrap_or(&l.cfg.name);
                *p == l.cfg.name || (p == base && l.cfg.name.ends_with(".forward"))
            });
            wanted.then(|| Capture::new(l.cfg.name.clone()))
        })
        .collect()
}
