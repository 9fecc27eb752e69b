//! The queue discipline in front of a transmitter: a FIFO with a packet or byte limit
//! (DropTail), optionally judged by RED on every arrival, or one of the active queue
//! managements that timestamp their packets: CoDel (`codel.rs`), PIE (`pie.rs`) and
//! FQ-CoDel (`fq_codel.rs`). It keeps its own time integral of the length and, on request,
//! the length on every change and each departing packet's sojourn time.

use super::codel::Codel;
use super::fq_codel::FqCodel;
use super::ids::{FlowId, PacketId};
use super::pie::Pie;
use super::red::{Red, RedVerdict};
use super::queue_spec::QueueSpec;
use crate::time::{SimDuration, SimTime};
use crate::units::Limit;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// Why an arrival was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// RED's or PIE's early (or forced) drop.
    Early,
    /// The queue is at its limit.
    Full,
}

/// A packet waiting in a timestamping queue: its id, its bytes and when it arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued {
    pub pkt: PacketId,
    pub bytes: u32,
    pub since: SimTime,
}

/// Counters of the queue for the `links` table.
#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    /// Arrivals refused at the limit, and FQ-CoDel's overflow drops from its fattest flow.
    pub queue_drops: u64,
    /// RED's early drops.
    pub early_drops: u64,
    /// CoDel's drops at dequeue (FQ-CoDel's per-flow CoDel included) and PIE's early drops.
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
    /// Each departing packet's time in the queue (`sojourn`; the timestamping queues only).
    pub sojourn: bool,
}

/// DropTail, with RED when given: the FIFO of ns-2's queues.
struct Fifo {
    limit: Limit,
    red: Option<Red>,
    packets: VecDeque<(PacketId, u32)>,
    bytes: u64,
}

/// The discipline a queue runs; each keeps its own packets.
enum Discipline {
    Fifo(Fifo),
    Stamped(Stamped),
}

/// The disciplines that timestamp their packets and may drop at dequeue.
enum Stamped {
    Codel(Codel),
    Pie(Pie),
    FqCodel(Box<FqCodel>),
}

impl Stamped {
    fn len(&self) -> usize {
        match self {
            Stamped::Codel(c) => c.len(),
            Stamped::Pie(p) => p.len(),
            Stamped::FqCodel(f) => f.len(),
        }
    }

    fn bytes(&self) -> u64 {
        match self {
            Stamped::Codel(c) => c.bytes(),
            Stamped::Pie(p) => p.bytes(),
            Stamped::FqCodel(f) => f.bytes(),
        }
    }

    fn drain_into(&mut self, out: &mut Vec<PacketId>) {
        match self {
            Stamped::Codel(c) => c.drain_into(out),
            Stamped::Pie(p) => p.drain_into(out),
            Stamped::FqCodel(f) => f.drain_into(out),
        }
    }
}

pub struct QueueDisc {
    discipline: Discipline,
    /// Arrivals are judged (RED or PIE): one test on the path of every arrival.
    judges: bool,
    pub stats: QueueStats,
    /// (time, length in packets) on every change, when recording.
    pub series: Option<Vec<(SimTime, u32)>>,
    /// (departure time, time in the queue) of each packet sent, when recording.
    pub sojourns: Option<Vec<(SimTime, SimDuration)>>,
}

impl QueueDisc {
    pub fn new(spec: &QueueSpec, rate_bps: u64, record: QueueRecording) -> Self {
        let fifo = |limit, red| Discipline::Fifo(Fifo { limit, red, packets: VecDeque::new(), bytes: 0 });
        let discipline = match spec {
            QueueSpec::Droptail(d) => fifo(d.limit, None),
            QueueSpec::Red(r) => fifo(r.limit, Some(Red::new(r, rate_bps as f64))),
            QueueSpec::Codel(c) => Discipline::Stamped(Stamped::Codel(Codel::new(c))),
            QueueSpec::Pie(p) => Discipline::Stamped(Stamped::Pie(Pie::new(p))),
            QueueSpec::FqCodel(f) => Discipline::Stamped(Stamped::FqCodel(Box::new(FqCodel::new(f)))),
        };
        let stamps = matches!(discipline, Discipline::Stamped(_));
        let judges = matches!(spec, QueueSpec::Red(_) | QueueSpec::Pie(_));
        QueueDisc { discipline, judges, stats: QueueStats::default(), series: record.length.then(Vec::new), sojourns: (record.sojourn && stamps).then(Vec::new) }
    }

    #[inline]
    pub fn len(&self) -> usize {
        match &self.discipline {
            Discipline::Fifo(f) => f.packets.len(),
            Discipline::Stamped(q) => q.len(),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn bytes(&self) -> u64 {
        match &self.discipline {
            Discipline::Fifo(f) => f.bytes,
            Discipline::Stamped(q) => q.bytes(),
        }
    }

    pub fn red(&self) -> Option<&Red> {
        match &self.discipline {
            Discipline::Fifo(f) => f.red.as_ref(),
            _ => None,
        }
    }

    /// RED and PIE judge every arrival, even one that will go straight to an idle
    /// transmitter (RED's average lags, so it may drop at an empty queue, as ns-2 does; PIE
    /// never drops below two MTUs of backlog). `rng` is the link direction's stream, shared
    /// with its channel so draws keep their order.
    #[inline]
    pub fn judge(&mut self, now: SimTime, bytes: u32, rng: &mut Xoshiro256PlusPlus) -> Result<(), Refusal> {
        if self.judges { self.judge_arrival(now, bytes, rng) } else { Ok(()) }
    }

    /// `judge` for RED and PIE.
    #[inline(never)]
    fn judge_arrival(&mut self, now: SimTime, bytes: u32, rng: &mut Xoshiro256PlusPlus) -> Result<(), Refusal> {
        match &mut self.discipline {
            Discipline::Fifo(Fifo { red: Some(red), packets, bytes: queued, .. }) => {
                let u: f64 = rng.random();
                if red.on_arrival(now, bytes, packets.len(), *queued, u) != RedVerdict::Enqueue {
                    self.stats.early_drops += 1;
                    return Err(Refusal::Early);
                }
                Ok(())
            }
            Discipline::Stamped(Stamped::Pie(p)) => {
                let verdict = p.judge(now, bytes, rng);
                match verdict {
                    Err(Refusal::Early) => self.stats.aqm_drops += 1,
                    Err(Refusal::Full) => self.stats.queue_drops += 1,
                    Ok(()) => {}
                }
                verdict
            }
            _ => Ok(()),
        }
    }

    /// Appends an arrival of `flow` that `judge` accepted, within the limit. FQ-CoDel
    /// accepts every arrival and drops from its fattest flow on overflow: those packets
    /// (perhaps this one) go to `dropped`.
    #[inline]
    pub fn push(&mut self, now: SimTime, pkt: PacketId, bytes: u32, flow: FlowId, dropped: &mut Vec<PacketId>) -> Result<(), Refusal> {
        let Discipline::Fifo(f) = &mut self.discipline else { return self.push_stamped(now, pkt, bytes, flow, dropped) };
        let before = f.packets.len();
        let full = match f.limit {
            Limit::Packets(p) => before as u64 >= p,
            Limit::Bytes(b) => f.bytes + bytes as u64 > b,
        };
        if full {
            self.stats.queue_drops += 1;
            return Err(Refusal::Full);
        }
        f.packets.push_back((pkt, bytes));
        f.bytes += bytes as u64;
        let total = f.bytes;
        self.note_change(now, before, before + 1, total);
        Ok(())
    }

    /// `push` for the timestamping queues.
    #[inline(never)]
    fn push_stamped(&mut self, now: SimTime, pkt: PacketId, bytes: u32, flow: FlowId, dropped: &mut Vec<PacketId>) -> Result<(), Refusal> {
        let Discipline::Stamped(q) = &mut self.discipline else { return Ok(()) };
        let before = q.len();
        match q {
            Stamped::Codel(c) => {
                if let Err(r) = c.enqueue(now, pkt, bytes) {
                    self.stats.queue_drops += 1;
                    return Err(r);
                }
            }
            Stamped::Pie(p) => p.enqueue(now, pkt, bytes),
            Stamped::FqCodel(f) => {
                let n = dropped.len();
                f.enqueue(now, pkt, bytes, flow, dropped);
                self.stats.queue_drops += (dropped.len() - n) as u64;
            }
        }
        let (len, total) = (q.len(), q.bytes());
        self.note_change(now, before, len, total);
        Ok(())
    }

    /// The next packet for the transmitter. When the queue is found empty, RED's idle
    /// period starts (ns-2: when the link finds nothing to send). CoDel's drops at dequeue
    /// go to `dropped`.
    #[inline]
    pub fn pop(&mut self, now: SimTime, dropped: &mut Vec<PacketId>) -> Option<(PacketId, u32)> {
        let Discipline::Fifo(f) = &mut self.discipline else { return self.pop_stamped(now, dropped) };
        let before = f.packets.len();
        match f.packets.pop_front() {
            Some((pkt, bytes)) => {
                f.bytes -= bytes as u64;
                let total = f.bytes;
                self.note_change(now, before, before - 1, total);
                Some((pkt, bytes))
            }
            None => {
                if let Some(red) = &mut f.red {
                    red.on_idle(now);
                }
                None
            }
        }
    }

    /// `pop` for the timestamping queues: their drops at dequeue, and the sojourn series.
    #[inline(never)]
    fn pop_stamped(&mut self, now: SimTime, dropped: &mut Vec<PacketId>) -> Option<(PacketId, u32)> {
        let Discipline::Stamped(q) = &mut self.discipline else { return None };
        let before = q.len();
        let sent = match q {
            Stamped::Codel(c) => Self::count_drops(&mut self.stats, dropped, |d| c.dequeue(now, d)),
            Stamped::Pie(p) => p.dequeue(now),
            Stamped::FqCodel(f) => Self::count_drops(&mut self.stats, dropped, |d| f.dequeue(now, d)),
        };
        let (len, total) = (q.len(), q.bytes());
        if len != before {
            self.note_change(now, before, len, total);
        }
        let sent = sent?;
        if let Some(s) = &mut self.sojourns {
            s.push((now, now.since(sent.since)));
        }
        Some((sent.pkt, sent.bytes))
    }

    /// Runs a dequeue that may drop into `dropped`, counting its drops as the AQM's.
    fn count_drops(stats: &mut QueueStats, dropped: &mut Vec<PacketId>, dequeue: impl FnOnce(&mut Vec<PacketId>) -> Option<Queued>) -> Option<Queued> {
        let n = dropped.len();
        let q = dequeue(dropped);
        stats.aqm_drops += (dropped.len() - n) as u64;
        q
    }

    /// Removes every waiting packet into `out` (a link-layer flush of the whole buffer).
    pub fn drain_into(&mut self, now: SimTime, out: &mut Vec<PacketId>) {
        let before = self.len();
        match &mut self.discipline {
            Discipline::Fifo(f) => {
                out.extend(f.packets.drain(..).map(|(p, _)| p));
                f.bytes = 0;
            }
            Discipline::Stamped(q) => q.drain_into(out),
        }
        self.note_change(now, before, 0, 0);
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
