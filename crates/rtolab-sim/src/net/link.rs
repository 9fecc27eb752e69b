//! One direction of a duplex link: a chain of elements with one job each —
//! queue discipline (`queue.rs`) → optional link-layer ARQ (`arq.rs`) → transmitter
//! (`transmitter.rs`) → channel (`channel/`) → propagation (`propagation.rs`) — plus the
//! delay-spike hold that stops the transmitter (and, with `hold = "all"`, the wire).
//!
//! Engine rule: a direction has at most one pending transmit-done event, one pending arrival
//! event and, with an ARQ feedback delay, one pending feedback event; the heap holds
//! O(links), not O(packets). Packets leaving the far end go into the caller's buffer, in
//! order; a packet refused or lost is returned to the caller; the rarer outcomes of the ARQ
//! (drops of a whole buffer) and control messages wait in `LinkNotices` until the caller
//! takes them (`has_notices` is one comparison on the hot path).
//!
//! A direction at a fixed rate whose queue is the FIFO (DropTail, RED) is `plain`: `offer`
//! and `start_next` run it inline, as they did before trace-driven directions and AQMs
//! existed, with one test of `plain` each; every other direction takes their general,
//! out-of-line forms (`offer_general`, `start_next_general`).

use super::arq::{Arq, ArqConfig};
use super::channel::{Channel, ChannelModel};
use crate::tcp::icmp_signal::IcmpSignal;
use super::ids::{DirId, FlowId, PacketId};
use super::notices::LinkNotices;
use super::propagation::Propagation;
use super::queue::{QueueDisc, QueueRecording, QueueSpec, Red};
use super::trace::TraceLink;
use super::transmitter::Transmitter;
use crate::engine::{Event, EventQueue};
use crate::results::{LinkDirection, LinkRow, SeriesMetric, SeriesTable};
use crate::time::{SimDuration, SimTime};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Settings of one direction, resolved from the spec.
#[derive(Clone, Debug)]
pub struct DirConfig {
    /// The link this direction belongs to (a scenario link's name, `radio.wired`, or a
    /// mobile user's `radio.ueN`) and which direction of it this is.
    pub link: String,
    pub direction: LinkDirection,
    /// The rate; for a trace-driven direction, the trace's mean rate (`Trace::mean_rate_bps`),
    /// which RED's idle decay and the links table read.
    pub rate_bps: u64,
    /// The delivery trace that replaces the fixed rate, if any (`trace.rs`).
    pub trace: Option<TraceLink>,
    pub delay: SimDuration,
    pub queue: QueueSpec,
    pub arq: Option<ArqConfig>,
}

impl DirConfig {
    /// The direction's name: its link's name and the direction (`"radio.forward"`), as the
    /// series' entities and the captures call it.
    pub fn name(&self) -> String {
        format!("{}.{}", self.link, self.direction.label())
    }
}

/// Counters of the direction itself (its elements keep their own).
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Transmissions (ARQ attempts included).
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Packets the channel lost (without ARQ; with ARQ a lost attempt is retried).
    pub loss_drops: u64,
    pub spikes: u64,
    pub spike_time: SimDuration,
    /// ICMP DEFERs sent because the backlog reached the threshold (the ARQ counts the
    /// others: a DROP per flush, a DEFER per retry success, when it sends ICMP).
    pub backlog_defers: u64,
}

/// What became of a packet offered to a link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    Accepted,
    Dropped,
}

pub struct LinkDir {
    pub id: DirId,
    pub cfg: DirConfig,
    queue: QueueDisc,
    arq: Option<Arq>,
    tx: Transmitter,
    /// At a fixed rate, with the FIFO as queue: `offer` and `start_next` run inline.
    plain: bool,
    channel: Channel,
    wire: Propagation,
    held_since: Option<SimTime>,
    /// The backlog was at or above the DEFER threshold at the last arrival.
    backlog_high: bool,
    /// The direction's stream: RED's and the channel's per-packet draws, in event order.
    rng: Xoshiro256PlusPlus,
    /// Frames the ARQ released, on their way onto the wire (a reused buffer).
    to_wire: Vec<PacketId>,
    notices: LinkNotices,
    pub stats: LinkStats,
}

impl LinkDir {
    pub fn new(id: DirId, cfg: DirConfig, channel: ChannelModel, drop_packets: Vec<u64>, rng: Xoshiro256PlusPlus, record_queue: QueueRecording) -> Self {
        let queue = QueueDisc::new(&cfg.queue, cfg.rate_bps, record_queue);
        let tx = Transmitter::new(cfg.rate_bps, cfg.trace.as_ref());
        LinkDir {
            id,
            plain: queue.is_fifo() && !tx.is_traced(),
            queue,
            arq: cfg.arq.clone().map(Arq::new),
            tx,
            channel: Channel::new(channel, drop_packets),
            wire: Propagation::new(cfg.delay),
            cfg,
            held_since: None,
            backlog_high: false,
            rng,
            to_wire: Vec::new(),
            notices: LinkNotices::default(),
            stats: LinkStats::default(),
        }
    }

    /// Each packet's propagation gains a random delay drawn from `law` (seconds), without
    /// reordering (`propagation.rs`); `rng` is the direction's own jitter stream.
    pub fn set_jitter(&mut self, law: crate::units::RandomVar, rng: Xoshiro256PlusPlus) {
        self.wire.set_jitter(law, rng);
    }

    pub fn queue_len(&self) -> usize {
        self.queue.len()
    }

    /// Packets this direction holds, counted by its elements: the queue, then the ARQ
    /// buffer (which includes the frame being sent) or the transmitter, then the wire.
    /// Invariant: every packet accepted by `offer` and not yet returned (arrived, lost or
    /// dropped) is counted exactly once.
    pub fn packets_inside(&self) -> usize {
        let sending = match &self.arq {
            Some(arq) => arq.held(),
            None => usize::from(!self.tx.is_idle()),
        };
        self.queue.len() + sending + self.wire.in_flight()
    }

    /// The packet `i`-th in line to arrive at the far end (0: the next), if that many are on
    /// the wire.
    #[inline]
    pub fn upcoming_arrival(&self, i: usize) -> Option<PacketId> {
        self.wire.upcoming(i)
    }

    pub fn is_held(&self) -> bool {
        self.held_since.is_some()
    }

    pub fn red(&self) -> Option<&Red> {
        self.queue.red()
    }

    /// A packet of `bytes` arrives at this direction. The queue judges every arrival (RED,
    /// PIE); then the packet goes straight to an idle transmitter (or an ARQ buffer with
    /// room) or waits in the queue within its limit (an AQM's drops from inside, perhaps of
    /// this packet, wait in the notices). `flow` names the packet's flow, asked only by a
    /// direction that is not `plain` (FQ-CoDel sorts by it), so a plain one reads nothing
    /// more of the packet.
    #[inline]
    pub fn offer(&mut self, now: SimTime, pkt: PacketId, bytes: u32, flow: impl FnOnce() -> FlowId, events: &mut EventQueue) -> Offer {
        if !self.plain {
            return self.offer_general(now, pkt, bytes, flow(), events);
        }
        if self.queue.fifo_judge(now, bytes, &mut self.rng).is_err() {
            return Offer::Dropped;
        }
        let straight = self.queue.fifo_is_empty() && !self.is_held();
        match &mut self.arq {
            None if straight && self.tx.is_idle() => self.start_rate(now, pkt, bytes, events),
            Some(arq) if straight && arq.has_room() => {
                arq.admit(pkt, bytes);
                self.start_next(now, events);
            }
            _ => {
                if self.queue.fifo_push(now, pkt, bytes).is_err() {
                    return Offer::Dropped;
                }
            }
        }
        if self.arq.is_some() {
            self.check_backlog(pkt);
        }
        Offer::Accepted
    }

    /// `offer` on a direction that is not `plain` (trace-driven, or with an AQM), out of
    /// line: the same steps through the queue's general path; a packet that waits is counted
    /// by the trace, if any.
    #[inline(never)]
    fn offer_general(&mut self, now: SimTime, pkt: PacketId, bytes: u32, flow: FlowId, events: &mut EventQueue) -> Offer {
        if self.queue.judge(now, bytes, &mut self.rng).is_err() {
            return Offer::Dropped;
        }
        let straight = self.queue.is_empty() && !self.is_held();
        match &mut self.arq {
            None if straight && self.tx.is_idle() => self.start_tx(now, pkt, bytes, 0, events),
            Some(arq) if straight && arq.has_room() => {
                arq.admit(pkt, bytes);
                self.start_next(now, events);
            }
            _ => {
                if self.queue.push(now, pkt, bytes, flow, &mut self.notices.dropped).is_err() {
                    return Offer::Dropped;
                }
                self.tx.note_queued(now);
            }
        }
        if self.arq.is_some() {
            self.check_backlog(pkt);
        }
        Offer::Accepted
    }

    /// Drops and control messages are waiting for the caller.
    #[inline]
    pub fn has_notices(&self) -> bool {
        !(self.notices.dropped.is_empty() && self.notices.signals.is_empty())
    }

    /// Hands the waiting notices to the caller, which gives the buffers back with
    /// `return_notices` once it has acted on them.
    pub fn take_notices(&mut self) -> LinkNotices {
        std::mem::take(&mut self.notices)
    }

    pub fn return_notices(&mut self, mut emptied: LinkNotices) {
        emptied.dropped.clear();
        emptied.signals.clear();
        if !self.has_notices() {
            self.notices = emptied;
        }
    }

    /// Paper 001 Sec. II: ICMP DEFER when at least `defer_backlog` packets wait at the base
    /// station (queue and ARQ buffer), sent once each time the backlog reaches the threshold.
    fn check_backlog(&mut self, pkt: PacketId) {
        let Some(arq) = &self.arq else { return };
        if !arq.config().icmp {
            return;
        }
        let high = self.queue.len() + arq.waiting() >= arq.config().defer_backlog;
        if high && !self.backlog_high {
            self.notices.signals.push((pkt, IcmpSignal::Defer));
            self.stats.backlog_defers += 1;
        }
        self.backlog_high = high;
    }

    /// Starts `pkt` at the rate or, on a trace-driven direction, at the trace's
    /// opportunities; `waiting` is the number of packets at or behind it in the queue it was
    /// taken from, 0 if it came straight from its arrival (a trace may not send a packet in
    /// the millisecond it arrived).
    fn start_tx(&mut self, now: SimTime, pkt: PacketId, bytes: u32, waiting: usize, events: &mut EventQueue) {
        if self.tx.is_traced() {
            if let Some(done) = self.tx.start_traced(now, pkt, bytes, waiting) {
                events.schedule(done, Event::TxDone(self.id));
            }
            return;
        }
        self.start_rate(now, pkt, bytes, events);
    }

    #[inline]
    fn start_rate(&mut self, now: SimTime, pkt: PacketId, bytes: u32, events: &mut EventQueue) {
        let done = self.tx.start(now, pkt, bytes);
        events.schedule(done, Event::TxDone(self.id));
    }

    /// The transmitter takes its next packet, unless held or busy: from the ARQ buffer
    /// (refilled from the queue first) or straight from the queue.
    fn start_next(&mut self, now: SimTime, events: &mut EventQueue) {
        if self.is_held() || !self.tx.is_idle() {
            return;
        }
        if !self.plain {
            return self.start_next_general(now, events);
        }
        let next = match &mut self.arq {
            None => self.queue.fifo_pop(now),
            Some(arq) => {
                while arq.has_room() {
                    match self.queue.fifo_pop(now) {
                        Some((p, b)) => arq.admit(p, b),
                        None => break,
                    }
                }
                arq.next_frame()
            }
        };
        if let Some((pkt, bytes)) = next {
            self.start_rate(now, pkt, bytes, events);
        }
    }

    /// `start_next` on a direction that is not `plain`, out of line: through the queue's
    /// general path, whose drops at dequeue wait in the notices, to the rate or the trace.
    #[inline(never)]
    fn start_next_general(&mut self, now: SimTime, events: &mut EventQueue) {
        let next = match &mut self.arq {
            None => self.queue.pop(now, &mut self.notices.dropped).map(|(p, b)| (p, b, self.queue.len() + 1)),
            Some(arq) => {
                while arq.has_room() {
                    match self.queue.pop(now, &mut self.notices.dropped) {
                        Some((p, b)) => arq.admit(p, b),
                        None => break,
                    }
                }
                // Validation refuses ARQ on a trace-driven direction; a fixed rate does not
                // read `waiting`.
                arq.next_frame().map(|(p, b)| (p, b, usize::MAX))
            }
        };
        if let Some((pkt, bytes, waiting)) = next {
            self.start_tx(now, pkt, bytes, waiting, events);
        }
    }

    /// The packet being serialised is on the wire: the channel judges it; without ARQ a lost
    /// packet is dropped (and returned), with ARQ the attempt's outcome goes to the ARQ.
    #[inline]
    pub fn on_tx_done(&mut self, now: SimTime, events: &mut EventQueue) -> Option<PacketId> {
        let (pkt, bytes, start) = self.tx.finish()?;
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += bytes as u64;
        let lost = self.channel.lost(start, now, bytes, &mut self.rng);
        let mut dropped = None;
        if self.arq.is_some() {
            let dir = self.id;
            self.arq_step(now, events, |arq, events, to_wire, notices| arq.attempt_done(now, lost, dir, events, to_wire, notices));
        } else if lost {
            self.stats.loss_drops += 1;
            dropped = Some(pkt);
        } else {
            self.wire.send(now, pkt, self.id, events);
        }
        self.start_next(now, events);
        dropped
    }

    /// An ARQ feedback event: outcomes due now take effect.
    pub fn on_feedback(&mut self, now: SimTime, events: &mut EventQueue) {
        let dir = self.id;
        self.arq_step(now, events, |arq, events, to_wire, notices| arq.on_feedback(now, dir, events, to_wire, notices));
        self.start_next(now, events);
    }

    /// Runs `step` on the ARQ: the frames it releases go onto the wire, its drops and
    /// control messages into the notices.
    fn arq_step(&mut self, now: SimTime, events: &mut EventQueue, step: impl FnOnce(&mut Arq, &mut EventQueue, &mut Vec<PacketId>, &mut LinkNotices)) {
        let Some(arq) = &mut self.arq else { return };
        let mut to_wire = std::mem::take(&mut self.to_wire);
        step(arq, events, &mut to_wire, &mut self.notices);
        for p in to_wire.drain(..) {
            self.wire.send(now, p, self.id, events);
        }
        self.to_wire = to_wire;
    }

    /// Packets whose propagation ended by `now` leave the direction, in order.
    #[inline]
    pub fn on_arrival(&mut self, now: SimTime, events: &mut EventQueue, out: &mut Vec<PacketId>) {
        self.wire.on_arrival(now, self.id, events, out);
    }

    /// A delay spike begins: the transmitter stops taking packets, and, with `wire`, packets
    /// on the wire are held at the far end too (without, they arrive as ns-2's `Delayer`
    /// lets them).
    pub fn hold(&mut self, now: SimTime, wire: bool) {
        if self.held_since.is_none() {
            self.held_since = Some(now);
            if wire {
                self.wire.hold();
            }
            self.stats.spikes += 1;
        }
    }

    /// The spike ends: held packets whose propagation is over leave back to back, and the
    /// transmitter resumes with the queue.
    pub fn release(&mut self, now: SimTime, events: &mut EventQueue, out: &mut Vec<PacketId>) {
        if let Some(since) = self.held_since.take() {
            self.stats.spike_time = self.stats.spike_time + now.since(since);
            self.wire.release(now, self.id, events, out);
            self.start_next(now, events);
        }
    }

    /// Closes the time integrals at the end of the run (once).
    pub fn finish(&mut self, end: SimTime) {
        self.queue.finish(end);
        self.channel.finish(end);
        if let Some(since) = self.held_since {
            self.stats.spike_time = self.stats.spike_time + end.since(since);
            self.held_since = Some(end);
        }
    }

    /// Moves the recorded queue length, sojourn times and channel state into `series` as
    /// `entity`.
    pub fn take_series(&mut self, entity: u32, series: &mut SeriesTable) {
        if let Some(q) = self.queue.series.take() {
            for (t, n) in q {
                series.push(t.as_secs_f64(), entity, SeriesMetric::Queue, n as f64);
            }
        }
        if let Some(q) = self.queue.take_sojourns() {
            for (t, d) in q {
                series.push(t.as_secs_f64(), entity, SeriesMetric::Sojourn, d.as_secs_f64());
            }
        }
        if let Some(trace) = self.channel.trace() {
            for &(t, s) in trace {
                series.push(t.as_secs_f64(), entity, SeriesMetric::Channel, s as f64);
            }
        }
    }

    /// This direction's row of the `links` table for a run that ended at `end` (call
    /// `finish(end)` first).
    pub fn report(&self, end: SimTime) -> LinkRow {
        let st = &self.stats;
        let q = &self.queue.stats;
        let arq = self.arq.as_ref().map(|a| a.stats.clone()).unwrap_or_default();
        let icmp = self.arq.as_ref().is_some_and(|a| a.config().icmp);
        let elapsed = end.0 as f64;
        LinkRow {
            link: self.cfg.link.clone(),
            direction: self.cfg.direction,
            rate_bps: self.cfg.rate_bps as f64,
            delay_s: self.cfg.delay.as_secs_f64(),
            packets_sent: st.packets_sent,
            bytes_sent: st.bytes_sent,
            drops: q.queue_drops + q.early_drops + q.aqm_drops + st.loss_drops + arq.discards,
            queue_drops: q.queue_drops,
            red_drops: q.early_drops,
            aqm_drops: q.aqm_drops,
            loss_drops: st.loss_drops,
            channel_losses: self.channel.losses,
            bad_share: self.channel.bad_share(end),
            arq_attempts: arq.attempts,
            arq_successes: arq.successes,
            arq_discards: arq.discards,
            arq_flushes: arq.flushes,
            icmp_drop: if icmp { arq.flushes } else { 0 },
            icmp_defer: st.backlog_defers + if icmp { arq.retry_successes } else { 0 },
            utilisation: if elapsed > 0.0 { (self.tx.busy.as_nanos() as f64 / elapsed).min(1.0) } else { 0.0 },
            mean_queue: q.mean(end),
            max_queue: q.max_packets,
            max_queue_bytes: q.max_bytes,
            spikes: st.spikes,
            spike_time_s: st.spike_time.as_secs_f64(),
        }
    }
}
