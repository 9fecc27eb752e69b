//! The queue discipline in front of a transmitter: a FIFO with a packet or byte limit
//! (DropTail), optionally judged by RED on every arrival. It keeps its own time integral of
//! the length and, on request, the length on every change.

use super::ids::PacketId;
use super::red::{Red, RedVerdict};
use super::queue_spec::QueueSpec;
use crate::time::SimTime;
use crate::units::Limit;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// Why an arrival was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// RED's early (or forced) drop.
    Early,
    /// The FIFO is at its limit.
    Full,
}

/// Counters of the queue for the `links` table.
#[derive(Clone, Debug, Default)]
pub struct QueueStats {
    pub queue_drops: u64,
    pub early_drops: u64,
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

pub struct QueueDisc {
    limit: Limit,
    red: Option<Red>,
    fifo: VecDeque<(PacketId, u32)>,
    bytes: u64,
    pub stats: QueueStats,
    /// (time, length in packets) on every change, when recording.
    pub series: Option<Vec<(SimTime, u32)>>,
}

impl QueueDisc {
    pub fn new(spec: &QueueSpec, rate_bps: u64, record: bool) -> Self {
        let (limit, red) = match spec {
            QueueSpec::Droptail(d) => (d.limit, None),
            QueueSpec::Red(r) => (r.limit, Some(Red::new(r, rate_bps as f64))),
        };
        QueueDisc { limit, red, fifo: VecDeque::new(), bytes: 0, stats: QueueStats::default(), series: record.then(Vec::new) }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.fifo.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    pub fn red(&self) -> Option<&Red> {
        self.red.as_ref()
    }

    /// RED judges every arrival, even one that will go straight to an idle transmitter (its
    /// average lags, so it may drop at an empty queue, as ns-2 does). `rng` is the link
    /// direction's stream, shared with its channel so draws keep their order.
    #[inline]
    pub fn judge(&mut self, now: SimTime, bytes: u32, rng: &mut Xoshiro256PlusPlus) -> Result<(), Refusal> {
        if let Some(red) = &mut self.red {
            let u: f64 = rng.random();
            if red.on_arrival(now, bytes, self.fifo.len(), self.bytes, u) != RedVerdict::Enqueue {
                self.stats.early_drops += 1;
                return Err(Refusal::Early);
            }
        }
        Ok(())
    }

    /// Appends an arrival RED already accepted, within the limit.
    #[inline]
    pub fn push(&mut self, now: SimTime, pkt: PacketId, bytes: u32) -> Result<(), Refusal> {
        let full = match self.limit {
            Limit::Packets(p) => self.fifo.len() as u64 >= p,
            Limit::Bytes(b) => self.bytes + bytes as u64 > b,
        };
        if full {
            self.stats.queue_drops += 1;
            return Err(Refusal::Full);
        }
        let before = self.fifo.len();
        self.fifo.push_back((pkt, bytes));
        self.bytes += bytes as u64;
        self.note_change(now, before);
        Ok(())
    }

    /// The head of the FIFO, for the transmitter. When the queue is found empty, RED's idle
    /// period starts (ns-2: when the link finds nothing to send).
    #[inline]
    pub fn pop(&mut self, now: SimTime) -> Option<(PacketId, u32)> {
        let before = self.fifo.len();
        match self.fifo.pop_front() {
            Some((pkt, bytes)) => {
                self.bytes -= bytes as u64;
                self.note_change(now, before);
                Some((pkt, bytes))
            }
            None => {
                if let Some(red) = &mut self.red {
                    red.on_idle(now);
                }
                None
            }
        }
    }

    /// Removes every waiting packet into `out` (a link-layer flush of the whole buffer).
    pub fn drain_into(&mut self, now: SimTime, out: &mut Vec<PacketId>) {
        let before = self.fifo.len();
        out.extend(self.fifo.drain(..).map(|(p, _)| p));
        self.bytes = 0;
        self.note_change(now, before);
    }

    #[inline]
    fn note_change(&mut self, now: SimTime, before: usize) {
        let st = &mut self.stats;
        st.area += now.since(st.last_change).as_nanos() as u128 * before as u128;
        st.last_change = now;
        st.max_packets = st.max_packets.max(self.fifo.len() as u64);
        st.max_bytes = st.max_bytes.max(self.bytes);
        if let Some(s) = &mut self.series {
            s.push((now, self.fifo.len() as u32));
        }
    }

    /// Closes the time integral at the end of the run.
    pub fn finish(&mut self, end: SimTime) {
        let before = self.fifo.len();
        self.note_change(end, before);
    }
}
