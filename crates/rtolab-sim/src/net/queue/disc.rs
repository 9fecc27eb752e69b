//! The queue discipline of a link direction: the FIFO (DropTail, RED) or one registered AQM,
//! with the counters every queue has (drops by cause, the time integral of the length, the
//! largest backlog) and, on request, the length on every change and each departing packet's
//! sojourn time.
//!
//! Two paths: the FIFO path (`fifo_*`), which a direction takes when it knows its queue is
//! the FIFO (`is_fifo`) and runs the instructions DropTail ran before any AQM existed, and
//! the general path (`judge`, `push`, `pop`, …), which serves either and is the AQMs' only
//! one.

use super::aqm::{Queued, Refusal};
use super::fifo::Fifo;
use super::red::{Red, RedVerdict};
use super::{AnyAqm, QueueSpec};
use crate::net::ids::{FlowId, PacketId};
use crate::net::notices::Dropper;
use crate::time::{SimDuration, SimTime};
use crate::units::Limit;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// What a direction's queue runs (`QueueSpec::runtime`).
pub enum Runtime {
    Fifo(Fifo),
    Aqm(AnyAqm),
}

/// Counters of the queue for the `links` table.
#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    /// Arrivals refused at the limit, and packets an AQM dropped from inside to make room
    /// (FQ-CoDel's from its fattest flow).
    pub queue_drops: u64,
    /// RED's early drops.
    pub early_drops: u64,
    /// An AQM's own drops: at dequeue (CoDel, FQ-CoDel's per-flow CoDel) or early (PIE).
    pub aqm_drops: u64,
    /// ∫ queue length dt, in packet·nanoseconds.
    area: u128,
    last_change: SimTime,
    pub max_packets: u64,
    pub max_bytes: u64,
}

impl QueueStats {
    /// Time-averaged length in packets over [0, end].
    pub fn mean(&self, end: SimTime) -> f64 {
        if end.0 == 0 {
            0.0
        } else {
            self.area as f64 / end.0 as f64
        }
    }
}

/// What a direction's queue records besides its counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueRecording {
    /// The length on every change (`series` metric `queue`).
    pub length: bool,
    /// Each departing packet's time in the queue (`sojourn`; the AQMs only).
    pub sojourn: bool,
}

/// Invariant: when `aqm` is `Some`, `fifo` is empty and unused.
pub struct QueueDisc {
    fifo: Fifo,
    /// The AQM, when the queue is one (boxed: a FIFO's direction stays as small as before).
    aqm: Option<Box<AqmState>>,
    pub stats: QueueStats,
    /// (time, length in packets) on every change, when recording.
    pub series: Option<Vec<(SimTime, u32)>>,
}

/// An AQM and what only an AQM's queue keeps.
struct AqmState {
    queue: AnyAqm,
    /// The AQM's drops of the call at hand, before they join the direction's notices (a
    /// reused buffer).
    inside: Vec<PacketId>,
    /// (departure time, time in the queue) of each packet sent, when recording.
    sojourns: Option<Vec<(SimTime, SimDuration)>>,
}

impl QueueDisc {
    pub fn new(spec: &QueueSpec, rate_bps: u64, record: QueueRecording) -> Self {
        let (fifo, aqm) = match spec.runtime(rate_bps) {
            Runtime::Fifo(f) => (f, None),
            Runtime::Aqm(queue) => {
                let state = AqmState { queue, inside: Vec::new(), sojourns: record.sojourn.then(Vec::new) };
                (Fifo::new(Limit::Packets(0), None), Some(Box::new(state)))
            }
        };
        QueueDisc { fifo, aqm, stats: QueueStats::default(), series: record.length.then(Vec::new) }
    }

    /// The queue is the FIFO (DropTail or RED): the `fifo_*` path may be taken.
    #[inline]
    pub fn is_fifo(&self) -> bool {
        self.aqm.is_none()
    }

    pub fn red(&self) -> Option<&Red> {
        self.fifo.red.as_ref()
    }

    /// RED judges every arrival, even one that will go straight to an idle transmitter (it
    /// updates the average; ns-2 enqueues such a packet before the link takes it, and RED
    /// never drops with at most one packet waiting). `rng` is the link direction's stream,
    /// shared with its channel so draws keep their order. RED's hard limit counts as the
    /// queue's own drop.
    #[inline]
    pub fn fifo_judge(&mut self, now: SimTime, bytes: u32, rng: &mut Xoshiro256PlusPlus) -> Result<(), Refusal> {
        if let Some(red) = &mut self.fifo.red {
            let u: f64 = rng.random();
            match red.on_arrival(now, bytes, self.fifo.packets.len(), self.fifo.bytes, u) {
                RedVerdict::Enqueue => {}
                RedVerdict::Full => {
                    self.stats.queue_drops += 1;
                    return Err(Refusal::Full);
                }
                RedVerdict::EarlyDrop | RedVerdict::ForcedDrop => {
                    self.stats.early_drops += 1;
                    return Err(Refusal::Early);
                }
            }
        }
        Ok(())
    }

    #[inline]
    pub fn fifo_is_empty(&self) -> bool {
        self.fifo.packets.is_empty()
    }

    /// Appends an arrival RED already accepted, within the limit.
    #[inline]
    pub fn fifo_push(&mut self, now: SimTime, pkt: PacketId, bytes: u32) -> Result<(), Refusal> {
        if self.fifo.is_full(bytes) {
            self.stats.queue_drops += 1;
            return Err(Refusal::Full);
        }
        let before = self.fifo.packets.len();
        self.fifo.packets.push_back((pkt, bytes));
        self.fifo.bytes += bytes as u64;
        self.note_change(now, before, before + 1, self.fifo.bytes);
        Ok(())
    }

    /// The head of the FIFO, for the transmitter. When the queue is found empty, RED's idle
    /// period starts (ns-2: when the link finds nothing to send).
    #[inline]
    pub fn fifo_pop(&mut self, now: SimTime) -> Option<(PacketId, u32)> {
        let before = self.fifo.packets.len();
        match self.fifo.packets.pop_front() {
            Some((pkt, bytes)) => {
                self.fifo.bytes -= bytes as u64;
                self.note_change(now, before, before - 1, self.fifo.bytes);
                Some((pkt, bytes))
            }
            None => {
                if let Some(red) = &mut self.fifo.red {
                    red.on_idle(now);
                }
                None
            }
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        match &self.aqm {
            None => self.fifo.packets.len(),
            Some(a) => a.queue.len(),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    fn bytes(&self) -> u64 {
        match &self.aqm {
            None => self.fifo.bytes,
            Some(a) => a.queue.bytes(),
        }
    }

    /// `fifo_judge`, or the AQM's judgement of every arrival (PIE's early drop).
    #[inline]
    pub fn judge(&mut self, now: SimTime, bytes: u32, rng: &mut Xoshiro256PlusPlus) -> Result<(), Refusal> {
        if self.aqm.is_none() {
            return self.fifo_judge(now, bytes, rng);
        }
        self.judge_aqm(now, bytes, rng)
    }

    /// `judge`'s AQM part, out of line.
    #[inline(never)]
    fn judge_aqm(&mut self, now: SimTime, bytes: u32, rng: &mut Xoshiro256PlusPlus) -> Result<(), Refusal> {
        let Some(aqm) = &mut self.aqm else { return self.fifo_judge(now, bytes, rng) };
        let verdict = aqm.queue.judge(now, bytes, rng);
        self.count_refusal(verdict);
        verdict
    }

    /// `fifo_push`, or the AQM takes an arrival of `flow` that `judge` accepted; the packets
    /// it drops from inside to make room (perhaps this one) go to `dropped`.
    #[inline]
    pub fn push(&mut self, now: SimTime, pkt: PacketId, bytes: u32, flow: FlowId, dropped: &mut Vec<(PacketId, Dropper)>) -> Result<(), Refusal> {
        if self.aqm.is_none() {
            return self.fifo_push(now, pkt, bytes);
        }
        self.push_aqm(now, pkt, bytes, flow, dropped)
    }

    /// `push`'s AQM part, out of line.
    #[inline(never)]
    fn push_aqm(&mut self, now: SimTime, pkt: PacketId, bytes: u32, flow: FlowId, dropped: &mut Vec<(PacketId, Dropper)>) -> Result<(), Refusal> {
        let Some(aqm) = &mut self.aqm else { return self.fifo_push(now, pkt, bytes) };
        let AqmState { queue, inside, .. } = &mut **aqm;
        let before = queue.len();
        let taken = queue.enqueue(Queued { pkt, bytes, since: now }, flow, inside);
        let (len, total) = (queue.len(), queue.bytes());
        self.stats.queue_drops += inside.len() as u64;
        dropped.extend(inside.drain(..).map(|p| (p, Dropper::Queue)));
        self.count_refusal(taken);
        if taken.is_ok() || len != before {
            self.note_change(now, before, len, total);
        }
        taken
    }

    /// `fifo_pop`, or the AQM's next packet after the drops it decides, which go to
    /// `dropped`; its sojourn time is recorded when asked for.
    #[inline]
    pub fn pop(&mut self, now: SimTime, dropped: &mut Vec<(PacketId, Dropper)>) -> Option<(PacketId, u32)> {
        if self.aqm.is_none() {
            return self.fifo_pop(now);
        }
        self.pop_aqm(now, dropped)
    }

    /// `pop`'s AQM part, out of line.
    #[inline(never)]
    fn pop_aqm(&mut self, now: SimTime, dropped: &mut Vec<(PacketId, Dropper)>) -> Option<(PacketId, u32)> {
        let Some(aqm) = &mut self.aqm else { return self.fifo_pop(now) };
        let AqmState { queue, inside, sojourns } = &mut **aqm;
        let before = queue.len();
        let sent = queue.dequeue(now, inside);
        let (len, total) = (queue.len(), queue.bytes());
        self.stats.aqm_drops += inside.len() as u64;
        dropped.extend(inside.drain(..).map(|p| (p, Dropper::Queue)));
        if let (Some(s), Some(p)) = (sojourns, &sent) {
            s.push((now, now.since(p.since)));
        }
        if len != before {
            self.note_change(now, before, len, total);
        }
        sent.map(|p| (p.pkt, p.bytes))
    }

    /// Counts an AQM's refusal by its kind.
    fn count_refusal(&mut self, verdict: Result<(), Refusal>) {
        match verdict {
            Err(Refusal::Early) => self.stats.aqm_drops += 1,
            Err(Refusal::Full) => self.stats.queue_drops += 1,
            Ok(()) => {}
        }
    }

    /// Removes every waiting packet into `out` (a link-layer flush of the whole buffer).
    pub fn drain_into(&mut self, now: SimTime, out: &mut Vec<PacketId>) {
        let before = self.len();
        match &mut self.aqm {
            None => {
                out.extend(self.fifo.packets.drain(..).map(|(p, _)| p));
                self.fifo.bytes = 0;
            }
            Some(a) => a.queue.drain_into(out),
        }
        self.note_change(now, before, 0, 0);
    }

    /// The sojourn times recorded (an AQM's, when asked for), taken out.
    pub fn take_sojourns(&mut self) -> Option<Vec<(SimTime, SimDuration)>> {
        self.aqm.as_mut()?.sojourns.take()
    }

    /// Records a change of length from `before` packets to `len` packets and `bytes` bytes
    /// at `now`.
    #[inline]
    fn note_change(&mut self, now: SimTime, before: usize, len: usize, bytes: u64) {
        let st = &mut self.stats;
        st.area += now.since(st.last_change).as_nanos() as u128 * before as u128;
        st.last_change = now;
        st.max_packets = st.max_packets.max(len as u64);
        st.max_bytes = st.max_bytes.max(bytes);
        if let Some(s) = &mut self.series {
            s.push((now, len as u32));
        }
    }

    /// Closes the time integral at the end of the run.
    pub fn finish(&mut self, end: SimTime) {
        let (len, bytes) = (self.len(), self.bytes());
        self.note_change(end, len, len, bytes);
    }
}
