//! The delay-spike process of a link (ns-2 `Delayer` semantics): alternating spike-free
//! intervals and spikes. The interval is drawn from the end of one spike to the start of the
//! next (paper 003's renewal period T is interval + spike length); with `at`, spikes start at
//! the given instants instead.

use super::LinkDir;
use crate::engine::{Event, EventQueue};
use super::spike_spec::{SpikeDirection, SpikeHold, SpikeSpec};
use crate::time::{SimDuration, SimTime};
use crate::units::RvSampler;
use rand_xoshiro::Xoshiro256PlusPlus;

pub struct SpikeProcess {
    pub link: u32,
    pub direction: SpikeDirection,
    /// Whether the spike holds packets on the wire too (`SpikeHold::All`).
    pub holds_wire: bool,
    interval: Option<RvSampler>,
    at: Vec<SimTime>,
    next_at: usize,
    length: RvSampler,
    start: SimTime,
    rng: Xoshiro256PlusPlus,
}

impl SpikeProcess {
    pub fn new(link: u32, spec: &SpikeSpec, rng: Xoshiro256PlusPlus) -> Self {
        let mut at: Vec<SimTime> = spec.at.iter().flatten().map(|d| SimTime::ZERO + d.sim()).collect();
        at.sort();
        SpikeProcess {
            link,
            direction: spec.direction,
            holds_wire: spec.hold == SpikeHold::All,
            interval: spec.interval.as_ref().map(|rv| RvSampler::new(rv.0.clone())),
            at,
            next_at: 0,
            length: RvSampler::new(spec.length.0.clone()),
            start: SimTime::ZERO + spec.start.map(|d| d.sim()).unwrap_or(SimDuration::ZERO),
            rng,
        }
    }

    fn draw(sampler: &mut RvSampler, rng: &mut Xoshiro256PlusPlus) -> SimDuration {
        SimDuration::from_secs_f64(sampler.sample(rng))
    }

    /// When the first spike starts.
    pub fn first_start(&mut self) -> Option<SimTime> {
        self.next_start(self.start)
    }

    /// A spike starts now: how long it lasts.
    pub fn spike_length(&mut self) -> SimDuration {
        Self::draw(&mut self.length, &mut self.rng)
    }

    /// Spike process `index` starts a spike at `now`: the directions it covers hold, and the
    /// spike's end is scheduled.
    pub fn begin(&mut self, index: u32, now: SimTime, links: &mut [LinkDir], events: &mut EventQueue) {
        for d in self.dirs() {
            links[d].hold(now, self.holds_wire);
        }
        let length = self.spike_length();
        events.schedule(now + length, Event::SpikeEnd(index));
    }

    /// The spike that began earlier ended at `end`: when the next one starts.
    pub fn next_start(&mut self, end: SimTime) -> Option<SimTime> {
        match &mut self.interval {
            Some(interval) => Some(end + Self::draw(interval, &mut self.rng)),
            None => {
                while self.next_at < self.at.len() && self.at[self.next_at] < end {
                    self.next_at += 1; // a fixed start inside a running spike is absorbed by it
                }
                let t = self.at.get(self.next_at).copied();
                self.next_at += 1;
                t
            }
        }
    }

    /// The link directions (by index, see `build::links`) this process holds.
    pub fn dirs(&self) -> impl Iterator<Item = usize> {
        let base = 2 * self.link as usize;
        [(base, self.holds_forward()), (base + 1, self.holds_reverse())].into_iter().filter(|x| x.1).map(|x| x.0)
    }

    pub fn holds_forward(&self) -> bool {
        matches!(self.direction, SpikeDirection::Forward | SpikeDirection::Both)
    }
    pub fn holds_reverse(&self) -> bool {
        matches!(self.direction, SpikeDirection::Reverse | SpikeDirection::Both)
    }
}
