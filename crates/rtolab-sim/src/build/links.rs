//! Builds a scenario's link directions, spike processes and routes. The simulator and the
//! real-time emulator (`rtolab-emu`) both call these, so a link behaves the same in either.
//!
//! Invariant: link `i` of the scenario owns directions `2i` (forward) and `2i + 1` (reverse);
//! every random stream is derived from (seed, the link's name, purpose), as in the simulator.

use crate::net::arq::ArqConfig;
use crate::net::channel::{ChannelContext, ChannelModel};
use crate::net::ids::DirId;
use crate::net::{DirConfig, LinkDir, QueueRecording, SpikeProcess, Way};
use crate::pcap::Captures;
use crate::results::{LinkDirection, SeriesMetric};
use crate::rng::stream;
use crate::spec::{ArqOverride, ArqSpec, DroptailSpec, HopSpec, QueueSpec, RadioSpec, Scenario};
use crate::time::SimDuration;

/// What to record while the links run.
#[derive(Clone, Copy, Debug, Default)]
pub struct LinkRecording {
    pub queue: QueueRecording,
    pub channel: bool,
}

impl LinkRecording {
    /// What the series metrics `series` ask of the links.
    pub fn of(series: &[SeriesMetric]) -> Self {
        let queue = QueueRecording { length: series.contains(&SeriesMetric::Queue), sojourn: series.contains(&SeriesMetric::Sojourn) };
        LinkRecording { queue, channel: series.contains(&SeriesMetric::Channel) }
    }
}

/// Every link direction of `scenario`, in the order of the invariant above.
pub fn link_dirs(scenario: &Scenario, seed: u64, record: LinkRecording) -> Vec<LinkDir> {
    let mut links = Vec::with_capacity(2 * scenario.links.len());
    for (i, l) in scenario.links.iter().enumerate() {
        for (d, direction) in LinkDirection::BOTH.into_iter().enumerate() {
            let way = direction.label();
            let rev = l.reverse.clone().filter(|_| d == 1).unwrap_or_default();
            let arq = match rev.arq {
                Some(ArqOverride::Off) => None,
                Some(ArqOverride::On(a)) => Some(a),
                None => l.arq.clone(),
            };
            // The reverse direction's own rate or trace replaces both of the link's.
            let (rate, trace) = match (rev.rate, &rev.trace) {
                (None, None) => (l.rate, l.trace.as_ref()),
                (r, t) => (r, t.as_ref()),
            };
            let trace = trace.map(|t| t.link().expect("a validated scenario has read its traces"));
            let rate_bps = match &trace {
                Some(t) => t.trace.mean_rate_bps(),
                None => rate.expect("a validated link has a rate or a trace").bps(),
            };
            let cfg = DirConfig {
                rate_bps: rate_bps.round().max(1.0) as u64,
                trace,
                delay: rev.delay.unwrap_or(l.delay).sim(),
                queue: rev.queue.unwrap_or_else(|| l.queue.clone()),
                arq: arq.as_ref().map(arq_config),
                link: l.name.clone(),
                direction,
            };
            let loss = rev.loss.or_else(|| l.loss.clone());
            let name = format!("links/{}/{way}", l.name);
            let channel = ChannelModel::new(loss.as_ref(), &ChannelContext { seed, direction: &name, record: record.channel });
            let drop_packets = if d == 0 { l.drop_packets.clone() } else { rev.drop_packets.unwrap_or_default() };
            let rng = stream(seed, &name, "queue-and-loss");
            let mut dir = LinkDir::new(DirId((2 * i + d) as u32), cfg, channel, drop_packets, rng, record.queue);
            if let Some(jitter) = rev.jitter.as_ref().or(l.jitter.as_ref()) {
                dir.set_jitter(jitter.0.clone(), stream(seed, &name, "jitter"));
            }
            links.push(dir);
        }
    }
    links
}

/// The directions the links table reports: the scenario's links and the radio network's
/// wired path, which come first; not the mobile users' uplinks after them (one row per user
/// would swamp the table).
pub fn reported_links(scenario: &Scenario) -> usize {
    2 * scenario.links.len() + if scenario.radio.is_some() { 2 } else { 0 }
}

/// The hops a radio network builds for itself, numbered from `first`: the wired path's
/// forward and reverse directions, then one dedicated uplink per mobile user (`ues` of them).
/// Each is a plain DropTail direction without loss, with the hop's jitter if it has one.
pub fn radio_hops(radio: &RadioSpec, ues: usize, first: DirId, seed: u64, record: LinkRecording) -> Vec<LinkDir> {
    let hop = |k: usize, link: String, direction: LinkDirection, h: &HopSpec| {
        let cfg = DirConfig {
            rate_bps: h.rate.bps().round().max(1.0) as u64,
            trace: None,
            delay: h.delay.sim(),
            queue: QueueSpec::Droptail(DroptailSpec { limit: h.queue }),
            arq: None,
            link,
            direction,
        };
        let name = cfg.name();
        let rng = stream(seed, &format!("links/{name}"), "queue-and-loss");
        let mut dir = LinkDir::new(DirId(first.0 + k as u32), cfg, ChannelModel::Perfect, Vec::new(), rng, record.queue);
        if let Some(jitter) = &h.jitter {
            dir.set_jitter(jitter.0.clone(), stream(seed, &format!("links/{name}"), "jitter"));
        }
        dir
    };
    let wired = LinkDirection::BOTH.into_iter().enumerate().map(|(k, direction)| hop(k, format!("{}.wired", radio.name), direction, &radio.wired));
    let uplinks = (0..ues).map(|u| hop(2 + u, format!("{}.ue{u}", radio.name), LinkDirection::Uplink, &radio.uplink));
    wired.chain(uplinks).collect()
}

fn arq_config(a: &ArqSpec) -> ArqConfig {
    ArqConfig {
        window: a.window.0 as usize,
        attempts: a.attempts,
        in_order: a.in_order,
        feedback_delay: a.feedback_delay.map(|d| d.sim()).unwrap_or(SimDuration::ZERO),
        icmp: a.icmp,
        defer_backlog: a.defer_backlog as usize,
    }
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
///
/// A route into the radio network crosses its wired path (`2L` towards the base stations,
/// `2L + 1` away from them, for L scenario links): last on the way to a mobile receiver and
/// first on the way back; with `uplink` (the mobile sends, the radio named first) first on
/// the way out and last on the way back. The mobile user's own uplink is the caller's to
/// add (`fabric::FlowRoute::reach_mobile`).
pub fn route_dirs(scenario: &Scenario, route: &[String], uplink: bool) -> (Vec<DirId>, Vec<DirId>) {
    let index = |name: &String| scenario.links.iter().position(|l| &l.name == name).expect("validated route") as u32;
    let radio = scenario.reaches_radio(route, uplink);
    let links = match (radio, uplink) {
        (true, false) => &route[..route.len() - 1],
        (true, true) => &route[1..],
        (false, _) => route,
    };
    let towards_cells = DirId(2 * scenario.links.len() as u32);
    let mut fwd: Vec<DirId> = links.iter().map(|n| DirId(2 * index(n))).collect();
    match (radio, uplink) {
        (true, false) => fwd.push(towards_cells),
        (true, true) => fwd.insert(0, towards_cells.opposite()),
        (false, _) => {}
    }
    let rev: Vec<DirId> = fwd.iter().rev().map(|d| d.opposite()).collect();
    (fwd, rev)
}

/// Puts mobile user's own `uplink` into a route that reaches the radio network: first on the
/// way out when the user `sends`, else first on the way back (ahead of the wired path).
/// Returns the way whose packets finish the route at a base station and cross the shared
/// channel to the user.
pub fn add_uplink<R: Hops>(forward: &mut R, reverse: &mut R, uplink: DirId, sends: bool) -> Way {
    if sends {
        forward.insert_first(uplink);
        Way::Reverse
    } else {
        reverse.insert_first(uplink);
        Way::Forward
    }
}

/// A route one way, as a list of directions that can gain a first hop.
pub trait Hops {
    fn insert_first(&mut self, dir: DirId);
}

impl Hops for Vec<DirId> {
    fn insert_first(&mut self, dir: DirId) {
        self.insert(0, dir);
    }
}

/// The captures `output.pcap` names: `"l.forward"` or `"l.reverse"` one direction of link `l`,
/// `"l"` both of them in one file (time-ordered, so a reader sees data and ACKs together).
pub fn captures(scenario: &Scenario, links: &[LinkDir]) -> Captures {
    let mut captures = Captures::new(links.len());
    for wanted in &scenario.output.pcap {
        let dirs: Vec<usize> = links.iter().enumerate().filter(|(_, l)| *wanted == l.cfg.name() || *wanted == l.cfg.link).map(|(d, _)| d).collect();
        if !dirs.is_empty() {
            captures.add(wanted.clone(), &dirs);
        }
    }
    captures
}
