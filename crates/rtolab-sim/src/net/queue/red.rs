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
        Fifo::new(self.limit, Some(Red::new(self, rate_bps as f64)))
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
    avg: f64,
    count: i64,
    idle_since: Option<SimTime>,
    pub early_drops: u64,
    pub forced_drops: u64,
}

/// RED's verdict on an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedVerdict {
    Enqueue,
    EarlyDrop,
    ForcedDrop,
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
            avg: 0.0,
            count: 0,
            idle_since: Some(SimTime::ZERO),
            early_drops: 0,
            forced_drops: 0,
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
    /// `qlen_bytes` bytes; `u` is a uniform draw in [0, 1).
    pub fn on_arrival(&mut self, now: SimTime, size: u32, qlen_pkts: usize, qlen_bytes: u64, u: f64) -> RedVerdict {
        let q = if self.queue_in_bytes { qlen_bytes as f64 / self.mean_pktsize } else { qlen_pkts as f64 };
        // Average: after an idle period, as if m packets of mean size had left an empty
        // queue: avg ← (1 − w)^m · avg (ns-2 `estimator` with idle decay).
        if let Some(since) = self.idle_since.take() {
            let m = (self.ptc * now.since(since).as_secs_f64()).floor();
            self.avg *= (1.0 - self.q_weight).powf(m);
        }
        self.avg = (1.0 - self.q_weight) * self.avg + self.q_weight * q;
        let upper = if self.gentle { 2.0 * self.maxthresh } else { self.maxthresh };
        if self.avg < self.thresh {
            self.count = -1;
            return RedVerdict::Enqueue;
        }
        if self.avg >= upper {
            self.count = 0;
            self.forced_drops += 1;
            return RedVerdict::ForcedDrop;
        }
        self.count += 1;
        let pb = if self.avg >= self.maxthresh {
            // gentle region: max_p .. 1 between maxthresh and 2·maxthresh
            self.max_p + (1.0 - self.max_p) * (self.avg - self.maxthresh) / self.maxthresh
        } else {
            self.max_p * (self.avg - self.thresh) / (self.maxthresh - self.thresh)
        };
        let pb = if self.bytes_mode { pb * size as f64 / self.mean_pktsize } else { pb };
        let count = self.count as f64;
        let pa = if self.wait {
            if count * pb < 1.0 {
                0.0
            } else if count * pb < 2.0 {
                pb / (2.0 - count * pb)
            } else {
                1.0
            }
        } else if count * pb < 1.0 {
            pb / (1.0 - count * pb)
        } else {
            1.0
        };
        if u < pa.min(1.0) {
            self.count = 0;
            self.early_drops += 1;
            RedVerdict::EarlyDrop
        } else {
            RedVerdict::Enqueue
        }
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

    /// avg = 10 (half-way between thresholds): pb = 0.1 · 5/10 = 0.05; first count = 0 gives
    /// pa = pb / (1 − 0) = 0.05 (without `wait`).
    #[test]
    fn early_drop_probability_between_thresholds() {
        let mut r = Red::new(&spec(), 1e6);
        r.avg = 10.0;
        r.count = -1;
        r.idle_since = None;
        assert_eq!(r.on_arrival(SimTime::ZERO, 500, 10, 5000, 0.049), RedVerdict::EarlyDrop);
        r.avg = 10.0;
        r.count = -1;
        assert_eq!(r.on_arrival(SimTime::ZERO, 500, 10, 5000, 0.051), RedVerdict::Enqueue);
    }

    #[test]
    fn above_twice_maxthresh_forces_drop_in_gentle_mode() {
        let mut r = Red::new(&spec(), 1e6);
        r.avg = 31.0;
        r.idle_since = None;
        assert_eq!(r.on_arrival(SimTime::ZERO, 500, 31, 0, 0.99), RedVerdict::ForcedDrop);
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
