//! A trace-driven transmitter: the link direction may deliver only at the delivery
//! opportunities of a packet-delivery trace, in the format and with the semantics of
//! Mahimahi's `mm-link` (Netravali et al., USENIX ATC 2015; `src/frontend/link_queue.cc`).
//!
//! The trace is one line per opportunity, its time in integer milliseconds from the start of
//! the run, non-decreasing; a time repeated k times is k opportunities in that millisecond.
//! The rules, each from `LinkQueue` in `link_queue.cc`:
//!
//! - An opportunity carries [`OPPORTUNITY_BYTES`] = 1504 bytes (`link_queue.hh`,
//!   `PACKET_SIZE`, "default max TUN payload size"). mm-link reads each datagram from a TUN
//!   device opened with `IFF_TUN` and without `IFF_NO_PI` (`src/util/netdevice.cc`,
//!   `TunDevice::TunDevice`), so what it charges is the IP datagram plus the 4-byte packet
//!   information header; rtolab charges each IP datagram its bytes plus [`FRAMING_BYTES`] = 4,
//!   the same count. A full-size 1500-byte datagram therefore takes exactly one opportunity.
//! - A packet's bytes that do not fit in one opportunity carry over to the next ones; an
//!   opportunity's bytes left after a packet ends go to the next waiting packet in the same
//!   opportunity; what no waiting packet uses is lost (`LinkQueue::rationalize`, the loop
//!   over `bytes_left_in_this_delivery`).
//! - A packet leaves at the time of the opportunity that carries its last byte
//!   (`record_departure( this_delivery_time, … )`).
//! - A packet cannot leave in the millisecond it arrived: `LinkQueue::read_packet` first runs
//!   `rationalize( now )`, which spends every opportunity at or before `now` (integer
//!   milliseconds), and only then enqueues the packet. A packet arriving at time t may use
//!   opportunities at ⌊t / 1 ms⌋ + 1 ms and later.
//! - After the last line the trace starts again, shifted by its last timestamp
//!   (`use_a_delivery_opportunity`: `base_timestamp_ += schedule_.back()`); with `loop =
//!   false` the link stops delivering (`finished_`) and holds what it has.
//!
//! Engine rule: as the fixed-rate transmitter, at most one pending event, the end of the
//! current packet; opportunities nobody uses are skipped arithmetically when the next packet
//! starts, never scheduled.

use crate::time::SimTime;
use std::fmt;
use std::sync::Arc;

/// Bytes one delivery opportunity carries (mm-link's `PACKET_SIZE`, `link_queue.hh`).
pub const OPPORTUNITY_BYTES: u32 = 1504;
/// Bytes mm-link counts with each IP datagram: the TUN packet-information header.
pub const FRAMING_BYTES: u32 = 4;
/// Nanoseconds per trace millisecond.
const MS: u64 = 1_000_000;

/// A packet-delivery trace: opportunity times in milliseconds, non-decreasing, the last one
/// positive (mm-link's `LinkQueue` constructor refuses an empty trace and one whose last
/// timestamp is 0).
#[derive(Clone, PartialEq, Eq)]
pub struct Trace {
    times_ms: Vec<u64>,
}

/// Why a text is not a trace; `line` counts from 1.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    #[error("line {line}: got {text:?}, expected a whole number of milliseconds")]
    NotAnInteger { line: usize, text: String },
    #[error("line {line}: got {got} after {before}, expected non-decreasing times")]
    Decreasing { line: usize, got: u64, before: u64 },
    #[error("no delivery opportunities, expected one time in milliseconds per line")]
    Empty,
    #[error("the last time is 0 ms, expected a trace that lasts a positive time")]
    ZeroLength,
}

impl Trace {
    /// Reads a trace in mm-link's format: one decimal integer per line (`myatoi` in
    /// `src/util/util.cc` takes the whole line); a final newline ends the last line, an empty
    /// line anywhere else is refused, as `LinkQueue`'s constructor does.
    pub fn parse(text: &str) -> Result<Trace, TraceError> {
        let mut times_ms: Vec<u64> = Vec::new();
        let lines = text.strip_suffix('\n').unwrap_or(text).split('\n').filter(|_| !text.is_empty());
        for (i, raw) in lines.enumerate() {
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            let ms = (!line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
                .then(|| line.parse::<u64>().ok())
                .flatten()
                .filter(|&ms| ms <= u64::MAX / MS / 4)
                .ok_or_else(|| TraceError::NotAnInteger { line: i + 1, text: line.to_string() })?;
            if let Some(&before) = times_ms.last() {
                if ms < before {
                    return Err(TraceError::Decreasing { line: i + 1, got: ms, before });
                }
            }
            times_ms.push(ms);
        }
        Trace::from_times(times_ms)
    }

    /// A trace of the given opportunity times (milliseconds), checked as `parse` checks them.
    pub fn from_times(times_ms: Vec<u64>) -> Result<Trace, TraceError> {
        match times_ms.last() {
            None => Err(TraceError::Empty),
            Some(0) => Err(TraceError::ZeroLength),
            Some(_) if times_ms.windows(2).any(|w| w[1] < w[0]) => {
                let i = times_ms.windows(2).position(|w| w[1] < w[0]).expect("found");
                Err(TraceError::Decreasing { line: i + 2, got: times_ms[i + 1], before: times_ms[i] })
            }
            Some(_) => Ok(Trace { times_ms }),
        }
    }

    /// The opportunity times of one period, in milliseconds.
    pub fn times_ms(&self) -> &[u64] {
        &self.times_ms
    }

    /// The opportunities of one period.
    pub fn opportunities(&self) -> usize {
        self.times_ms.len()
    }

    /// The period: the last timestamp, in milliseconds.
    pub fn period_ms(&self) -> u64 {
        *self.times_ms.last().expect("a trace is never empty")
    }

    /// The mean rate in bit/s of full-size 1500-byte IP datagrams, one per opportunity.
    pub fn mean_rate_bps(&self) -> f64 {
        let ip_bytes = (OPPORTUNITY_BYTES - FRAMING_BYTES) as f64;
        self.opportunities() as f64 * ip_bytes * 8.0 / (self.period_ms() as f64 / 1e3)
    }
}

impl fmt::Debug for Trace {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Trace({} opportunities over {} ms)", self.opportunities(), self.period_ms())
    }
}

/// A direction's trace and whether it repeats, as the spec resolved them.
#[derive(Clone, Debug)]
pub struct TraceLink {
    pub trace: Arc<Trace>,
    pub looped: bool,
}

/// When each packet of a trace-driven direction ends (the direction's `Transmitter` holds
/// the packet).
pub struct TraceClock {
    trace: Arc<Trace>,
    looped: bool,
    /// Index of the next unused opportunity, counted over all periods (period k's
    /// opportunity i is k·n + i).
    next: u64,
    /// Bytes left in the last opportunity a packet ended in, and that opportunity's time:
    /// the next packet may use them if it was waiting then (mm-link's surplus).
    left: u32,
    left_at: SimTime,
    /// The last instant a packet joined the queue, and how many joined then: those are the
    /// last ones in the FIFO, so the head taken at that instant is one of them exactly when
    /// no more than that many wait.
    queued_at: SimTime,
    queued_then: usize,
}

impl TraceClock {
    pub fn new(trace: Arc<Trace>, looped: bool) -> Self {
        TraceClock { trace, looped, next: 0, left: 0, left_at: SimTime::ZERO, queued_at: SimTime::MAX, queued_then: 0 }
    }

    /// A packet joined the direction's queue at `now`.
    #[inline]
    pub fn note_queued(&mut self, now: SimTime) {
        if self.queued_at != now {
            (self.queued_at, self.queued_then) = (now, 0);
        }
        self.queued_then += 1;
    }

    /// Whether a packet taken at `now` from a FIFO of `waiting` packets (0: it came straight
    /// from its arrival) entered the direction at `now`.
    fn fresh(&self, now: SimTime, waiting: usize) -> bool {
        waiting == 0 || (self.queued_at == now && waiting <= self.queued_then)
    }

    /// When a packet of `bytes` (an IP datagram) started at `now` ends, taken from a queue of
    /// `waiting` packets (0: straight from its arrival); `None` when the trace has ended
    /// (`loop = false`).
    pub fn end_of(&mut self, now: SimTime, bytes: u32, waiting: usize) -> Option<SimTime> {
        let fresh = self.fresh(now, waiting);
        self.end(now, bytes, fresh)
    }

    /// The time of opportunity `index`, or `None` past the end of a trace that does not
    /// loop. Period k is shifted by k times the last timestamp.
    fn time_of(&self, index: u64) -> Option<SimTime> {
        let n = self.trace.times_ms.len() as u64;
        let (period, i) = (index / n, (index % n) as usize);
        if period > 0 && !self.looped {
            return None;
        }
        Some(SimTime((period * self.trace.period_ms() + self.trace.times_ms[i]) * MS))
    }

    /// The first opportunity at or after `next` whose time is at least `earliest`.
    fn first_from(&self, earliest: SimTime) -> Option<u64> {
        if self.time_of(self.next)? >= earliest {
            return Some(self.next);
        }
        let (n, period) = (self.trace.times_ms.len() as u64, self.trace.period_ms());
        let at_ms = earliest.0.div_ceil(MS);
        // Period k ends at (k + 1)·period ≥ at_ms and every earlier period ends before at_ms
        // (the last opportunity of a period is at its end, so not at_ms / period).
        let k = at_ms.saturating_sub(1) / period;
        let i = self.trace.times_ms.partition_point(|&t| k * period + t < at_ms) as u64;
        let found = (k * n + i).max(self.next);
        self.time_of(found).map(|_| found)
    }

    /// When a packet of `bytes` started at `now` ends; `fresh` says it entered the direction
    /// at `now` (then it may not use an opportunity of the current millisecond).
    fn end(&mut self, now: SimTime, bytes: u32, fresh: bool) -> Option<SimTime> {
        let earliest = if fresh { SimTime((now.0 / MS + 1) * MS) } else { now };
        let mut need = bytes + FRAMING_BYTES;
        // The surplus of the opportunity the previous packet ended in, if still usable.
        if self.left > 0 && self.left_at >= earliest {
            if need <= self.left {
                self.left -= need;
                return Some(self.left_at);
            }
            need -= self.left;
        }
        self.left = 0;
        let mut index = self.first_from(earliest)?;
        while need > OPPORTUNITY_BYTES {
            need -= OPPORTUNITY_BYTES;
            index += 1;
            self.next = index;
            self.time_of(index)?;
        }
        let at = self.time_of(index)?;
        self.next = index + 1;
        self.left = OPPORTUNITY_BYTES - need;
        self.left_at = at;
        Some(at)
    }
}

#[cfg(test)]
#[path = "trace_tests.rs"]
mod tests;
