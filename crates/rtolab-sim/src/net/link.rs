//! One direction of a duplex link: a queue (DropTail or RED) in front of a transmitter at a
//! fixed rate, then a propagation pipe with a fixed delay, optional Bernoulli loss after
//! transmission, and delay spikes that hold packets.
//!
//! Engine rule: a direction has at most one pending transmit-done event (while a packet is
//! being serialised) and one pending arrival event (for the head of the pipe), so the event
//! heap holds O(links), not O(packets). Serialisation time keeps its sub-nanosecond remainder,
//! so long runs do not drift from the nominal rate.

use super::red::{Red, RedVerdict};
use crate::engine::{Event, EventQueue};
use crate::results::LinkRow;
use crate::spec::QueueSpec;
use crate::time::{SimDuration, SimTime};
use crate::units::Limit;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// Settings of one direction, resolved from the spec.
#[derive(Clone, Debug)]
pub struct DirConfig {
    pub name: String,
    pub rate_bps: u64,
    pub delay: SimDuration,
    pub queue: QueueSpec,
    pub loss: f64,
    /// Ordinals (from 1) of sent packets that are lost.
    pub drop_packets: Vec<u64>,
}

/// Counters for the `links` table.
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub queue_drops: u64,
    pub early_drops: u64,
    pub loss_drops: u64,
    pub busy: SimDuration,
    /// ∫ queue length dt, in packet·nanoseconds.
    queue_area: u128,
    last_change: SimTime,
    pub max_queue_packets: u64,
    pub max_queue_bytes: u64,
    pub spikes: u64,
    pub spike_time: SimDuration,
}

impl LinkStats {
    pub fn mean_queue(&self, end: SimTime) -> f64 {
        if end.0 == 0 {
            0.0
        } else {
            self.queue_area as f64 / end.0 as f64
        }
    }
}

/// What became of a packet offered to a link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    Accepted,
    Dropped,
}

pub struct LinkDir {
    pub id: u32,
    pub cfg: DirConfig,
    limit: Limit,
    red: Option<Red>,
    queue: VecDeque<(u32, u32)>,
    queue_bytes: u64,
    transmitting: Option<(u32, u32)>,
    tx_remainder: u64,
    pipe: VecDeque<(SimTime, u32)>,
    arrival_pending: bool,
    held_since: Option<SimTime>,
    /// The spike also holds packets on the wire (not only the transmitter).
    wire_held: bool,
    rng: Xoshiro256PlusPlus,
    pub stats: LinkStats,
    /// (time, queue length in packets) on every change, when recording.
    pub queue_series: Option<Vec<(SimTime, u32)>>,
}

impl LinkDir {
    pub fn new(id: u32, mut cfg: DirConfig, rng: Xoshiro256PlusPlus, record_queue: bool) -> Self {
        cfg.drop_packets.sort_unstable();
        let (limit, red) = match &cfg.queue {
            QueueSpec::Droptail(d) => (d.limit, None),
            QueueSpec::Red(r) => (r.limit, Some(Red::new(r, cfg.rate_bps as f64))),
        };
        LinkDir {
            id,
            limit,
            red,
            cfg,
            queue: VecDeque::new(),
            queue_bytes: 0,
            transmitting: None,
            tx_remainder: 0,
            pipe: VecDeque::new(),
            arrival_pending: false,
            held_since: None,
            wire_held: false,
            rng,
            stats: LinkStats::default(),
            queue_series: record_queue.then(Vec::new),
        }
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_held(&self) -> bool {
        self.held_since.is_some()
    }

    fn note_queue_change(&mut self, now: SimTime, before: usize) {
        let dt = now.since(self.stats.last_change).as_nanos() as u128;
        self.stats.queue_area += dt * before as u128;
        self.stats.last_change = now;
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(self.queue.len() as u64);
        self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(self.queue_bytes);
        if let Some(s) = &mut self.queue_series {
            s.push((now, self.queue.len() as u32));
        }
    }

    fn would_overflow(&self, bytes: u32) -> bool {
        match self.limit {
            Limit::Packets(p) => self.queue.len() as u64 >= p,
            Limit::Bytes(b) => self.queue_bytes + bytes as u64 > b,
        }
    }

    /// A packet of `bytes` on the wire arrives at this direction's queue. RED judges every
    /// arrival (its average lags, so it may drop even at an empty queue, as in ns-2); then the
    /// packet goes straight to an idle transmitter or waits in the queue within its limit.
    pub fn offer(&mut self, now: SimTime, pkt: u32, bytes: u32, events: &mut EventQueue) -> Offer {
        if let Some(red) = &mut self.red {
            let u: f64 = self.rng.random();
            if red.on_arrival(now, bytes, self.queue.len(), self.queue_bytes, u) != RedVerdict::Enqueue {
                self.stats.early_drops += 1;
                return Offer::Dropped;
            }
        }
        if self.transmitting.is_none() && self.queue.is_empty() && !self.is_held() {
            self.start_tx(now, pkt, bytes, events);
            return Offer::Accepted;
        }
        if self.would_overflow(bytes) {
            self.stats.queue_drops += 1;
            return Offer::Dropped;
        }
        let before = self.queue.len();
        self.queue.push_back((pkt, bytes));
        self.queue_bytes += bytes as u64;
        self.note_queue_change(now, before);
        Offer::Accepted
    }

    fn start_tx(&mut self, now: SimTime, pkt: u32, bytes: u32, events: &mut EventQueue) {
        let bits_ns = bytes as u128 * 8 * 1_000_000_000 + self.tx_remainder as u128;
        let rate = self.cfg.rate_bps as u128;
        let tx = SimDuration((bits_ns / rate) as u64);
        self.tx_remainder = (bits_ns % rate) as u64;
        self.transmitting = Some((pkt, bytes));
        self.stats.busy = self.stats.busy + tx;
        events.schedule(now + tx, Event::TxDone(self.id));
    }

    fn start_next(&mut self, now: SimTime, events: &mut EventQueue) {
        if self.is_held() || self.transmitting.is_some() {
            return;
        }
        let before = self.queue.len();
        match self.queue.pop_front() {
            Some((pkt, bytes)) => {
                self.queue_bytes -= bytes as u64;
                self.note_queue_change(now, before);
                self.start_tx(now, pkt, bytes, events);
            }
            // ns-2 RED: the idle period starts when the link finds nothing to send.
            None => {
                if let Some(red) = &mut self.red {
                    red.on_idle(now);
                }
            }
        }
    }

    /// The packet being serialised is on the wire. Returns it if the channel lost it.
    pub fn on_tx_done(&mut self, now: SimTime, events: &mut EventQueue) -> Option<u32> {
        let (pkt, bytes) = self.transmitting.take()?;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += bytes as u64;
        let listed = self.cfg.drop_packets.binary_search(&self.stats.packets_sent).is_ok();
        let lost = listed || (self.cfg.loss > 0.0 && self.rng.random::<f64>() < self.cfg.loss);
        if lost {
            self.stats.loss_drops += 1;
        } else {
            self.pipe.push_back((now + self.cfg.delay, pkt));
            self.arm_arrival(events);
        }
        self.start_next(now, events);
        lost.then_some(pkt)
    }

    fn arm_arrival(&mut self, events: &mut EventQueue) {
        if !self.arrival_pending && !self.wire_held {
            if let Some(&(t, _)) = self.pipe.front() {
                self.arrival_pending = true;
                events.schedule(t, Event::Arrive(self.id));
            }
        }
    }

    /// Packets whose propagation ended by `now` leave the link, in order, into `out`.
    pub fn on_arrival(&mut self, now: SimTime, events: &mut EventQueue, out: &mut Vec<u32>) {
        self.arrival_pending = false;
        if self.wire_held {
            return;
        }
        self.release_due(now, out);
        self.arm_arrival(events);
    }

    fn release_due(&mut self, now: SimTime, out: &mut Vec<u32>) {
        while let Some(&(t, pkt)) = self.pipe.front() {
            if t > now {
                break;
            }
            self.pipe.pop_front();
            out.push(pkt);
        }
    }

    /// A delay spike begins: the transmitter stops taking packets from the queue, and, with
    /// `wire`, packets on the wire are held at the far end too (without, they arrive as
    /// ns-2's `Delayer` lets them).
    pub fn hold(&mut self, now: SimTime, wire: bool) {
        if self.held_since.is_none() {
            self.held_since = Some(now);
            self.wire_held = wire;
            self.stats.spikes += 1;
        }
    }

    /// The spike ends: held packets whose propagation is over leave back to back, and the
    /// transmitter resumes with the queue.
    pub fn release(&mut self, now: SimTime, events: &mut EventQueue, out: &mut Vec<u32>) {
        if let Some(since) = self.held_since.take() {
            self.wire_held = false;
            self.stats.spike_time = self.stats.spike_time + now.since(since);
            self.release_due(now, out);
            self.arm_arrival(events);
            self.start_next(now, events);
        }
    }

    /// Closes the time integrals at the end of the run.
    pub fn finish(&mut self, end: SimTime) {
        let before = self.queue.len();
        self.note_queue_change(end, before);
        if let Some(since) = self.held_since {
            self.stats.spike_time = self.stats.spike_time + end.since(since);
        }
    }

    /// This direction's row of the `links` table for a run that ended at `end` (call
    /// `finish(end)` first).
    pub fn report(&self, end: SimTime) -> LinkRow {
        let st = &self.stats;
        let (link, direction) = self.cfg.name.rsplit_once('.').unwrap_or((&self.cfg.name, ""));
        let elapsed = end.0 as f64;
        LinkRow {
            link: link.into(),
            direction: direction.into(),
            rate_bps: self.cfg.rate_bps as f64,
            delay_s: self.cfg.delay.as_secs_f64(),
            packets_sent: st.packets_sent,
            bytes_sent: st.bytes_sent,
            drops: st.queue_drops + st.early_drops + st.loss_drops,
            queue_drops: st.queue_drops,
            red_drops: st.early_drops,
            loss_drops: st.loss_drops,
            utilisation: if elapsed > 0.0 { (st.busy.as_nanos() as f64 / elapsed).min(1.0) } else { 0.0 },
            mean_queue: st.mean_queue(end),
            max_queue: st.max_queue_packets,
            max_queue_bytes: st.max_queue_bytes,
            spikes: st.spikes,
            spike_time_s: st.spike_time.as_secs_f64(),
        }
    }

    pub fn red(&self) -> Option<&Red> {
        self.red.as_ref()
    }
}
