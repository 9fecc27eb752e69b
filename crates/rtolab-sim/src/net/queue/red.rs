//! RED active queue management with the semantics of ns-2's `Queue/RED` (Floyd & Jacobson,
//! "Random Early Detection Gateways for Congestion Avoidance", 1993, with ns-2's gentle mode,
//! `wait_` spacing, byte mode and idle-time decay of the average).

use super::fifo::{Fifo, FifoSpec};
use crate::net::field_error::FieldError;
use crate::time::SimTime;
use crate::units::{Bytes, Limit};
use schemars::JsonSchema;
use serde::Deserialize;

/// RED as in ns-2's `Queue/RED` (Floyd & Jacobson 1993; "gentle" variant of 2000).
/// Thresholds are in packets unless `queue_in_bytes`, in which case they are in units of
/// `mean_pktsize` bytes, as in ns-2.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RedSpec {
    /// Hard limit of the queue (packets or bytes).
    pub limit: Limit,
    /// EWMA weight of the average queue (ns-2 `q_weight_`).
    #[serde(default = "red_q_weight")]
    pub q_weight: f64,
    /// Minimum threshold (ns-2 `thresh_`).
    #[serde(default = "red_thresh")]
    pub thresh: f64,
    /// Maximum threshold (ns-2 `maxthresh_`).
    #[serde(default = "red_maxthresh")]
    pub maxthresh: f64,
    /// Drop probability at `maxthresh`; give this or `linterm` (= 1/max_p), not both.
    pub max_p: Option<f64>,
    /// ns-2's `linterm_`, 1/max_p (default 10, max_p = 0.1, when neither is given).
    pub linterm: Option<f64>,
    /// Average packet size used for idle-time decay and byte mode (ns-2 `mean_pktsize_`).
    #[serde(default = "red_mean_pktsize")]
    pub mean_pktsize: Bytes,
    /// Byte mode: drop probability scaled by packet size (ns-2 `bytes_`).
    #[serde(default)]
    pub bytes: bool,
    /// Measure the queue in bytes (ns-2 `queue_in_bytes_`).
    #[serde(default)]
    pub queue_in_bytes: bool,
    /// Gentle RED: probability rises from max_p to 1 between maxthresh and 2·maxthresh.
    #[serde(default = "yes")]
    pub gentle: bool,
    /// Space drops out more evenly (ns-2 `wait_`).
    #[serde(default = "yes")]
    pub wait: bool,
}

fn red_q_weight() -> f64 {
    0.002
}
fn red_thresh() -> f64 {
    5.0
}
fn red_maxthresh() -> f64 {
    15.0
}
fn red_mean_pktsize() -> Bytes {
    Bytes(500)
}
fn yes() -> bool {
    true
}

impl FifoSpec for RedSpec {
    /// The weight, thresholds and probability in their ranges, one of `max_p` and `linterm`.
    fn validate(&self) -> Result<(), FieldError> {
        if !(self.q_weight > 0.0 && self.q_weight <= 1.0) {
            return Err(FieldError::new("q_weight", format!("got {}, expected a weight in (0, 1]", self.q_weight)));
        }
        if !(self.thresh >= 0.0 && self.maxthresh > self.thresh) {
            return Err(FieldError::new("maxthresh", format!("got thresh = {}, maxthresh = {}; expected 0 <= thresh < maxthresh", self.thresh, self.maxthresh)));
        }
        match (self.max_p, self.linterm) {
            (Some(_), Some(_)) => Err(FieldError::new("linterm", "give max_p or linterm (= 1/max_p), not both")),
            (Some(m), None) if !(m > 0.0 && m <= 1.0) => Err(FieldError::new("max_p", format!("got {m}, expected a probability in (0, 1]"))),
            (None, Some(l)) if l < 1.0 => Err(FieldError::new("linterm", format!("got {l}, expected a number >= 1"))),
            _ if self.mean_pktsize.0 == 0 => Err(FieldError::new("mean_pktsize", "expected a positive size")),
            _ => Ok(()),
        }
    }

    fn fifo(&self, rate_bps: u64) -> Fifo {
        Fifo::new(Red::fifo_limit(self), Some(Red::new(self, rate_bps as f64)))
    }
}

/// The part of RED that decides; the queue itself is the caller's FIFO.
#[derive(Clone, Debug)]
pub struct Red {
    q_weight: f64,
    thresh: f64,
    maxthresh: f64,
    max_p: f64,
    mean_pktsize: f64,
    bytes_mode: bool,
    queue_in_bytes: bool,
    gentle: bool,
    wait: bool,
    /// Packets of mean size the link sends per second (ns-2 `ptc`), for idle decay.
    ptc: f64,
    /// The hard limit RED checks itself, on the queue before the arrival (ns-2's
    /// `qlen >= qlim`); `None` leaves it to the FIFO.
    hard_limit: Option<HardLimit>,
    avg: f64,
    /// Arrivals (and their bytes) since the last drop (ns-2 `count`, `count_bytes`).
    count: i64,
    count_bytes: u64,
    /// The average was above `thresh` with a busy queue at the previous arrival (ns-2 `old`).
    old: bool,
    idle_since: Option<SimTime>,
    pub early_drops: u64,
    pub forced_drops: u64,
}

/// ns-2's hard limit: `qlim_` packets, or `qlim_ · mean_pktsize_` bytes under
/// `queue_in_bytes_`, compared with the queue before the arrival joins it.
#[derive(Clone, Copy, Debug)]
enum HardLimit {
    Packets(u64),
    Bytes(u64),
}

/// RED's verdict on an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedVerdict {
    Enqueue,
    /// A random drop with probability below 1.
    EarlyDrop,
    /// The average is beyond the thresholds (maxthresh, 2·maxthresh when gentle): drop.
    ForcedDrop,
    /// The queue is at its hard limit.
    Full,
}

impl Red {
    pub fn new(spec: &RedSpec, link_bps: f64) -> Self {
        let max_p = spec.max_p.or(spec.linterm.map(|l| 1.0 / l)).unwrap_or(0.1);
        Red {
            q_weight: spec.q_weight,
            thresh: spec.thresh,
            maxthresh: spec.maxthresh,
            max_p,
            mean_pktsize: spec.mean_pktsize.0 as f64,
            bytes_mode: spec.bytes,
            queue_in_bytes: spec.queue_in_bytes,
            gentle: spec.gentle,
            wait: spec.wait,
            ptc: link_bps / (8.0 * spec.mean_pktsize.0 as f64),
            hard_limit: Self::hard_limit(spec),
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            idle_since: Some(SimTime::ZERO),
            early_drops: 0,
            forced_drops: 0,
        }
    }

    /// ns-2's hard limit as RED checks it: `qlim_` packets, or `qlim_ · mean_pktsize_` bytes
    /// under `queue_in_bytes_`; a byte limit without `queue_in_bytes` is ns-2-less and left to
    /// the FIFO.
    fn hard_limit(spec: &RedSpec) -> Option<HardLimit> {
        match (spec.limit, spec.queue_in_bytes) {
            (Limit::Packets(n), true) => Some(HardLimit::Bytes(n * spec.mean_pktsize.0)),
            (Limit::Bytes(b), true) => Some(HardLimit::Bytes(b)),
            (Limit::Packets(n), false) => Some(HardLimit::Packets(n)),
            (Limit::Bytes(_), false) => None,
        }
    }

    /// The limit the FIFO itself enforces: none where RED checks the hard limit (ns-2
    /// compares the queue before the arrival, so RED refuses first and resets its count),
    /// the spec's otherwise.
    fn fifo_limit(spec: &RedSpec) -> Limit {
        match Self::hard_limit(spec) {
            Some(_) => Limit::Bytes(u64::MAX),
            None => spec.limit,
        }
    }

    pub fn average(&self) -> f64 {
        self.avg
    }

    /// The queue became empty at `now`.
    pub fn on_idle(&mut self, now: SimTime) {
        self.idle_since = Some(now);
    }

    /// Decides on an arrival of `size` bytes at a queue holding `qlen_pkts` packets and
    /// `qlen_bytes` bytes (waiting; the one being sent is not in the queue, as in ns-2);
    /// `u` is a uniform draw in [0, 1).
    ///
    /// ns-2.35 `REDQueue::enque` (queue/red.cc) with its defaults (`use_mark_p_` true,
    /// `cautious_` 0, `drop_tail_`, `ns1_compat_` false): every arrival counts; RED acts
    /// only while the average is at least `thresh` **and** more than one packet (byte,
    /// under `queue_in_bytes`) waits; the first such arrival after the average crosses
    /// `thresh` (or after the queue drained) is never dropped and restarts the count at 1;
    /// later ones are dropped with `modify_p(calculate_p_new(avg))`. Beyond the thresholds
    /// that probability is 1 (`use_mark_p_` makes it a random drop of probability 1 rather
    /// than a forced one, so the busy-queue condition still applies). A drop of any kind
    /// clears the count.
    pub fn on_arrival(&mut self, now: SimTime, size: u32, qlen_pkts: usize, qlen_bytes: u64, u: f64) -> RedVerdict {
        let q = if self.queue_in_bytes { qlen_bytes as f64 / self.mean_pktsize } else { qlen_pkts as f64 };
        // Average: after an idle period, as if m packets of mean size had left an empty
        // queue: avg ← (1 − w)^m · avg (ns-2 `estimator` with idle decay).
        if let Some(since) = self.idle_since.take() {
            let m = (self.ptc * now.since(since).as_secs_f64()).floor();
            self.avg *= (1.0 - self.q_weight).powf(m);
        }
        self.avg = (1.0 - self.q_weight) * self.avg + self.q_weight * q;
        self.count += 1;
        self.count_bytes += u64::from(size);
        let waiting = if self.queue_in_bytes { qlen_bytes } else { qlen_pkts as u64 };
        let mut verdict = RedVerdict::Enqueue;
        if self.avg >= self.thresh && waiting > 1 {
            if !self.old {
                self.count = 1;
                self.count_bytes = u64::from(size);
                self.old = true;
            } else {
                let p = self.modify_p(self.calculate_p(), size);
                // ns-2 drops when its uniform draw is at most p: probability p, as u < p here.
                if u < p {
                    verdict = if self.avg >= self.upper() { RedVerdict::ForcedDrop } else { RedVerdict::EarlyDrop };
                }
            }
        } else {
            self.old = false;
        }
        let full = match self.hard_limit {
            Some(HardLimit::Packets(n)) => qlen_pkts as u64 >= n,
            Some(HardLimit::Bytes(b)) => qlen_bytes >= b,
            None => false,
        };
        if full {
            verdict = RedVerdict::Full;
        }
        match verdict {
            RedVerdict::Enqueue => {}
            RedVerdict::EarlyDrop => self.early_drops += 1,
            RedVerdict::ForcedDrop | RedVerdict::Full => self.forced_drops += 1,
        }
        if verdict != RedVerdict::Enqueue {
            self.count = 0;
            self.count_bytes = 0;
        }
        verdict
    }

    /// Where the drop probability reaches 1: `maxthresh`, or `2·maxthresh` when gentle.
    fn upper(&self) -> f64 {
        if self.gentle {
            2.0 * self.maxthresh
        } else {
            self.maxthresh
        }
    }

    /// ns-2 `calculate_p_new`: max_p·(avg − thresh)/(maxthresh − thresh) below maxthresh;
    /// above it, max_p rising to 1 at 2·maxthresh when gentle, 1 otherwise; at most 1.
    fn calculate_p(&self) -> f64 {
        let p = if self.avg >= self.maxthresh {
            if self.gentle {
                self.max_p + (1.0 - self.max_p) * (self.avg - self.maxthresh) / self.maxthresh
            } else {
                1.0
            }
        } else {
            self.max_p * (self.avg - self.thresh) / (self.maxthresh - self.thresh)
        };
        p.min(1.0)
    }

    /// ns-2 `modify_p`: uniform inter-drop spacing from the count (in byte mode the bytes
    /// since the last drop over `mean_pktsize`, in whole packets as ns-2's integer division
    /// gives), with `wait` the count must reach 1/p first; then, in byte mode, scaled by
    /// the packet's size over `mean_pktsize`; at most 1.
    fn modify_p(&self, p: f64, size: u32) -> f64 {
        let count = if self.bytes_mode { (self.count_bytes / self.mean_pktsize as u64) as f64 } else { self.count as f64 };
        let mut p = if self.wait {
            if count * p < 1.0 {
                0.0
            } else if count * p < 2.0 {
                p / (2.0 - count * p)
            } else {
                1.0
            }
        } else if count * p < 1.0 {
            p / (1.0 - count * p)
        } else {
            1.0
        };
        if self.bytes_mode && p < 1.0 {
            p = p * f64::from(size) / self.mean_pktsize;
        }
        p.min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{Bytes, Limit};

    fn spec() -> RedSpec {
        RedSpec {
            limit: Limit::Packets(100),
            q_weight: 0.5,
            thresh: 5.0,
            maxthresh: 15.0,
            max_p: Some(0.1),
            linterm: None,
            mean_pktsize: Bytes(500),
            bytes: false,
            queue_in_bytes: false,
            gentle: true,
            wait: false,
        }
    }

    #[test]
    fn below_min_threshold_never_drops() {
        let mut r = Red::new(&spec(), 1e6);
        for _ in 0..20 {
            assert_eq!(r.on_arrival(SimTime::ZERO, 500, 4, 2000, 0.0), RedVerdict::Enqueue);
        }
        assert!((r.average() - 4.0).abs() < 1e-4);
    }

    /// avg = 10 (half-way between thresholds): pb = 0.1 · 5/10 = 0.05. With the average
    /// already above thresh (`old`) and one arrival since the last drop, ns-2's count is 1
    /// at the decision: pa = pb / (1 − 1 · pb) = 0.05 / 0.95 = 0.05263 (without `wait`).
    #[test]
    fn early_drop_probability_between_thresholds() {
        let mut r = Red::new(&spec(), 1e6);
        for (u, want) in [(0.0526, RedVerdict::EarlyDrop), (0.0527, RedVerdict::Enqueue)] {
            r.avg = 10.0;
            r.count = 0;
            r.old = true;
            r.idle_since = None;
            assert_eq!(r.on_arrival(SimTime::ZERO, 500, 10, 5000, u), want, "u = {u}");
        }
    }

    /// ns-2's `old`: the first arrival after the average crosses thresh is never dropped,
    /// even beyond 2·maxthresh, and restarts the count at 1; the next one is.
    #[test]
    fn first_arrival_above_thresh_is_spared() {
        let mut r = Red::new(&spec(), 1e6);
        r.avg = 31.0;
        r.idle_since = None;
        assert_eq!(r.on_arrival(SimTime::ZERO, 500, 31, 0, 0.0), RedVerdict::Enqueue);
        assert_eq!(r.count, 1);
        assert_eq!(r.on_arrival(SimTime::ZERO, 500, 31, 0, 0.99), RedVerdict::ForcedDrop);
        assert_eq!(r.count, 0);
    }

    /// ns-2 acts only when more than one packet waits (`qlen > 1`): with one waiting, no
    /// drop whatever the average, and the next busy arrival counts as a new crossing.
    #[test]
    fn no_drop_while_at_most_one_packet_waits() {
        let mut r = Red::new(&spec(), 1e6);
        r.avg = 60.0;
        r.old = true;
        r.idle_since = None;
        assert_eq!(r.on_arrival(SimTime::ZERO, 500, 1, 500, 0.0), RedVerdict::Enqueue);
        assert!(!r.old);
        assert_eq!(r.on_arrival(SimTime::ZERO, 500, 40, 20_000, 0.0), RedVerdict::Enqueue);
        assert_eq!(r.on_arrival(SimTime::ZERO, 500, 40, 20_000, 0.99), RedVerdict::ForcedDrop);
    }

    /// Under `queue_in_bytes` the hard limit is limit · mean_pktsize bytes, compared with the
    /// bytes already waiting (ns-2 `qlen >= qlim`): 14 p of 1500 B is 21 000 B, so a 1500 B
    /// arrival behind 13 full packets and a 40 B SYN (19 540 B) joins, making 21 040 B, and
    /// the next arrival is refused.
    #[test]
    fn byte_hard_limit_is_checked_before_the_arrival() {
        let s = RedSpec { limit: Limit::Packets(14), mean_pktsize: Bytes(1500), queue_in_bytes: true, thresh: 100.0, maxthresh: 200.0, ..spec() };
        let mut r = Red::new(&s, 1e6);
        r.idle_since = None;
        assert_eq!(r.on_arrival(SimTime::ZERO, 1500, 14, 19_540, 0.5), RedVerdict::Enqueue);
        assert_eq!(r.on_arrival(SimTime::ZERO, 1500, 15, 21_040, 0.5), RedVerdict::Full);
        assert!(matches!(Red::fifo_limit(&s), Limit::Bytes(u64::MAX)));
    }

    /// Byte mode (ns-2 `modify_p`): the count is the bytes since the last drop over
    /// mean_pktsize in whole packets, and the result is scaled by size / mean_pktsize.
    /// avg 10 → p = 0.05; 1200 B since the last drop at mean 500 B is count 2:
    /// p/(1 − 2p) = 0.05/0.9 = 0.05556, times 1000/500 = 0.11111.
    #[test]
    fn byte_mode_counts_bytes_and_scales_by_size() {
        let s = RedSpec { bytes: true, ..spec() };
        let mut r = Red::new(&s, 1e6);
        for (u, want) in [(0.1111, RedVerdict::EarlyDrop), (0.1112, RedVerdict::Enqueue)] {
            r.avg = 10.0;
            r.old = true;
            r.count_bytes = 200;
            r.idle_since = None;
            assert_eq!(r.on_arrival(SimTime::ZERO, 1000, 10, 5000, u), want, "u = {u}");
        }
    }

    /// Idle decay: 1 Mb/s and 500 B mean packets give ptc = 250 packets/s; 40 ms idle is
    /// m = 10 packet times, so avg ← 0.5^10 · avg before the arrival's own update.
    #[test]
    fn average_decays_over_idle_time() {
        let mut r = Red::new(&spec(), 1e6);
        r.avg = 1024.0;
        r.on_idle(SimTime::ZERO);
        r.on_arrival(SimTime(40_000_000), 500, 0, 0, 0.5);
        assert!((r.average() - 0.5).abs() < 1e-9, "{}", r.average());
    }
}
