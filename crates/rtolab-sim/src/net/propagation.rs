//! Propagation: a one-way delay, as a FIFO of packets on the wire. A delay spike that
//! holds the wire (`hold = "all"`) keeps every packet at the far end until it ends; packets
//! whose delay is over then leave back to back (ns-2 `Delayer` without its queue hold).
//!
//! With jitter, each packet's delay is the fixed delay plus a draw from the jitter's law,
//! but no packet arrives before the one sent ahead of it: a packet is due at
//! max(sent + delay + X, the previous packet's due time). This is a channel that delivers in
//! sequence (a dedicated radio channel whose RLC delivers in order), so jitter delays
//! packets without reordering them.
//!
//! Engine rule: at most one pending arrival event, for the head of the FIFO; due times never
//! decrease along the FIFO, so arrivals leave in the order they entered.

use super::ids::{DirId, PacketId};
use crate::engine::{Event, EventQueue};
use crate::time::{SimDuration, SimTime};
use crate::units::{RandomVar, RvSampler};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// Random extra delay per packet, from the direction's own stream.
struct Jitter {
    law: RvSampler,
    rng: Xoshiro256PlusPlus,
    /// Due time of the packet sent last (no later packet is due before it).
    last_due: SimTime,
}

pub struct Propagation {
    pub delay: SimDuration,
    pipe: VecDeque<(SimTime, PacketId)>,
    arrival_pending: bool,
    held: bool,
    jitter: Option<Box<Jitter>>,
}

impl Propagation {
    pub fn new(delay: SimDuration) -> Self {
        Propagation { delay, pipe: VecDeque::new(), arrival_pending: false, held: false, jitter: None }
    }

    /// Adds a random delay drawn from `law` (seconds) per packet, from `rng`.
    pub fn set_jitter(&mut self, law: RandomVar, rng: Xoshiro256PlusPlus) {
        self.jitter = Some(Box::new(Jitter { law: RvSampler::new(law), rng, last_due: SimTime::ZERO }));
    }

    fn due(&mut self, now: SimTime) -> SimTime {
        let fixed = now + self.delay;
        match &mut self.jitter {
            None => fixed,
            Some(j) => {
                let extra = SimDuration::from_secs_f64(j.law.sample(&mut j.rng));
                j.last_due = (fixed + extra).max(j.last_due);
                j.last_due
            }
        }
    }

    /// Packets on the wire (held ones included).
    pub fn in_flight(&self) -> usize {
        self.pipe.len()
    }

    /// The packet `i`-th in line to arrive (0: the next), if that many are on the wire.
    #[inline]
    pub fn upcoming(&self, i: usize) -> Option<PacketId> {
        self.pipe.get(i).map(|&(_, p)| p)
    }

    /// `pkt` is on the wire from `now`.
    #[inline]
    pub fn send(&mut self, now: SimTime, pkt: PacketId, dir: DirId, events: &mut EventQueue) {
        let due = self.due(now);
        self.pipe.push_back((due, pkt));
        self.arm(dir, events);
    }

    fn arm(&mut self, dir: DirId, events: &mut EventQueue) {
        if !self.arrival_pending && !self.held {
            if let Some(&(t, _)) = self.pipe.front() {
                self.arrival_pending = true;
                events.schedule(t, Event::Arrive(dir));
            }
        }
    }

    /// The arrival event fired: packets whose propagation ended by `now` leave into `out`.
    pub fn on_arrival(&mut self, now: SimTime, dir: DirId, events: &mut EventQueue, out: &mut Vec<PacketId>) {
        self.arrival_pending = false;
        if self.held {
            return;
        }
        self.release_due(now, out);
        self.arm(dir, events);
    }

    fn release_due(&mut self, now: SimTime, out: &mut Vec<PacketId>) {
        while let Some(&(t, pkt)) = self.pipe.front() {
            if t > now {
                break;
            }
            self.pipe.pop_front();
            out.push(pkt);
        }
    }

    /// A spike that holds the wire begins.
    pub fn hold(&mut self) {
        self.held = true;
    }

    /// A spike (of either kind) ends: what is due leaves now, the rest at its time.
    pub fn release(&mut self, now: SimTime, dir: DirId, events: &mut EventQueue, out: &mut Vec<PacketId>) {
        self.held = false;
        self.release_due(now, out);
        self.arm(dir, events);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    const MS: u64 = 1_000_000;

    /// Sends one packet every `gap_ms` (n of them) and returns (sent, arrived) in ns.
    fn run(jitter: RandomVar, n: u32, gap_ms: u64) -> Vec<(u64, u64)> {
        let mut wire = Propagation::new(SimDuration(10 * MS));
        wire.set_jitter(jitter, stream(1, "test", "jitter"));
        let mut events = EventQueue::default();
        let mut sent = Vec::new();
        let mut arrived = Vec::new();
        let mut out = Vec::new();
        for p in 0..n {
            let now = SimTime(p as u64 * gap_ms * MS);
            while events.peek_time().is_some_and(|t| t <= now) {
                let (t, _) = events.pop().expect("peeked");
                wire.on_arrival(t, DirId(0), &mut events, &mut out);
                arrived.extend(out.drain(..).map(|p: PacketId| (p.0, t.0)));
            }
            wire.send(now, PacketId(p), DirId(0), &mut events);
            sent.push(now.0);
        }
        while let Some((t, _)) = events.pop() {
            wire.on_arrival(t, DirId(0), &mut events, &mut out);
            arrived.extend(out.drain(..).map(|p: PacketId| (p.0, t.0)));
        }
        assert!(arrived.iter().enumerate().all(|(i, &(p, _))| p == i as u32), "packets leave in the order sent");
        sent.into_iter().zip(arrived).map(|(s, (_, a))| (s, a)).collect()
    }

    /// Packets 30 ms apart never wait for one another: the extra delay is the law's, mean
    /// 10 ms for uniform(0, 20 ms) (sd 5.77 ms; over 4000 draws the standard error is 0.09 ms,
    /// tolerance 0.4 ms), always within [10, 30] ms in all.
    #[test]
    fn sparse_packets_get_the_laws_delay() {
        let trips = run(RandomVar::Uniform { lo: 0.0, hi: 0.020 }, 4000, 30);
        assert_eq!(trips.len(), 4000);
        let delays: Vec<f64> = trips.iter().map(|(s, a)| (a - s) as f64 / MS as f64).collect();
        assert!(delays.iter().all(|&d| (10.0..=30.0).contains(&d)));
        let mean = delays.iter().sum::<f64>() / delays.len() as f64;
        assert!((mean - 20.0).abs() < 0.4, "mean one-way delay {mean} ms, expected 20 ms");
    }

    /// Packets 1 ms apart with exp(5 ms) jitter would overtake one another; they leave in the
    /// order sent, each at least 10 ms after it was sent and never before its predecessor.
    #[test]
    fn dense_packets_keep_their_order() {
        let trips = run(RandomVar::Exp { mean: 0.005 }, 2000, 1);
        assert_eq!(trips.len(), 2000);
        assert!(trips.windows(2).all(|w| w[0].1 <= w[1].1));
        assert!(trips.iter().all(|(s, a)| a - s >= 10 * MS));
        let waited = trips.windows(2).filter(|w| w[1].1 == w[0].1).count();
        assert!(waited > 0, "some packets are due before their predecessor and wait for it");
    }
}
