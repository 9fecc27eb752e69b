//! PIE, proportional integral controller enhanced (RFC 8033), as Linux 6.x runs it
//! (`net/sched/sch_pie.c`, `net/sched/pie.c` functions in `sch_pie.c`, `include/net/pie.h`)
//! with its defaults: the queue delay of a departing packet from its timestamp
//! (`dq_rate_estimator` off, Linux's default, the variant of RFC 8033 Sec. 5.2's note and
//! its Appendix A; not the departure-rate estimate of Sec. 5.3), derandomised drops
//! (`accu_prob`, RFC 8033 Sec. 5.1 and Appendix B, always on in Linux), and the
//! drop probability updated every `tupdate` (`pie_calculate_probability`, RFC 8033
//! Sec. 4.2 with the auto-tuning of alpha and beta of Sec. 4.2's note, the 2 % step cap
//! and the non-linear terms of Sec. 5).
//!
//! Arithmetic as Linux's: times in scheduler ticks of 64 ns (`PSCHED_NS2TICKS`), the
//! probability as a fixed-point fraction of `MAX_PROB` = 2^56 − 1, alpha and beta in
//! sixteenths (`alpha = 2` is 0.125, `beta = 20` is 1.25). Linux's first update runs
//! 500 ms after the queue is made (`pie_init`: `jiffies + HZ / 2`), the next every
//! `tupdate`; here the updates due by an event run before it, so the timer needs no event
//! of its own and every update sees the backlog it would have seen.

use super::aqm::{Aqm, Queued, Refusal};
use crate::net::field_error::FieldError;
use crate::net::ids::{FlowId, PacketId};
use crate::time::{SimDuration, SimTime};
use crate::units::{Bytes, Duration, Limit};
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

/// `queue = { kind = "pie", … }`: PIE with Linux's `sch_pie` defaults (ECN off).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PieSpec {
    /// Most packets ("1000p", Linux's default) or bytes the queue holds.
    #[serde(default = "pie_limit")]
    pub limit: Limit,
    /// Target queue delay (RFC 8033 QDELAY_REF; Linux: 15 ms).
    #[serde(default = "pie_target")]
    pub target: Duration,
    /// Period of the drop-probability update (RFC 8033 T_UPDATE; Linux: 15 ms).
    #[serde(default = "pie_tupdate")]
    pub tupdate: Duration,
    /// Weight of the delay's distance from target, in sixteenths (Linux: 2, 0.125).
    #[serde(default = "pie_alpha")]
    pub alpha: u32,
    /// Weight of the delay's change since the last update, in sixteenths (Linux: 20, 1.25).
    #[serde(default = "pie_beta")]
    pub beta: u32,
    /// Scale the drop probability by packet size / `mtu` (Linux `bytemode`; off).
    #[serde(default)]
    pub bytemode: bool,
    /// No random drop while fewer than two of these are queued, and `bytemode`'s unit
    /// (Linux: the device's MTU with its link header, 1514; rtolab counts IP bytes: 1500).
    #[serde(default = "pie_mtu")]
    pub mtu: Bytes,
}

fn pie_limit() -> Limit {
    Limit::Packets(1000)
}
fn pie_target() -> Duration {
    Duration(SimDuration::from_millis(15))
}
fn pie_tupdate() -> Duration {
    Duration(SimDuration::from_millis(15))
}
fn pie_alpha() -> u32 {
    2
}
fn pie_beta() -> u32 {
    20
}
fn pie_mtu() -> Bytes {
    Bytes(1500)
}

/// Linux `MAX_PROB`: probability 1.
pub const MAX_PROB: u64 = u64::MAX >> 8;
/// Linux `PSCHED_SHIFT`: a scheduler tick is 64 ns.
const PSCHED_SHIFT: u32 = 6;
/// Scheduler ticks per second (`PSCHED_TICKS_PER_SEC`).
const TICKS_PER_SEC: u64 = 1_000_000_000 >> PSCHED_SHIFT;
/// The first update's delay after the queue is made (`pie_init`).
const FIRST_UPDATE: SimDuration = SimDuration::from_millis(500);
/// Linux `DTIME_INVALID`: no departure yet.
const DTIME_INVALID: u64 = u64::MAX;

/// Scheduler ticks of `d` (`PSCHED_NS2TICKS`).
#[inline]
fn ticks(ns: u64) -> u64 {
    ns >> PSCHED_SHIFT
}

/// PIE's variables (Linux `struct pie_vars`), times in ticks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PieVars {
    pub qdelay: u64,
    pub qdelay_old: u64,
    pub burst_time: u64,
    pub dq_tstamp: u64,
    pub prob: u64,
    pub accu_prob: u64,
}

impl PieVars {
    /// `pie_vars_init`: a fresh burst allowance (150 ms) and no departure; `prob` and the
    /// delays are kept.
    fn restart(&mut self) {
        self.burst_time = ticks(150_000_000);
        self.dq_tstamp = DTIME_INVALID;
        self.accu_prob = 0;
    }
}

/// PIE over one FIFO.
///
/// Invariant: `next_update` is the time of the first probability update not yet run.
#[derive(Debug)]
pub struct Pie {
    limit: Limit,
    target: u64,
    tupdate: SimDuration,
    alpha: u64,
    beta: u64,
    bytemode: bool,
    mtu: u64,
    vars: PieVars,
    next_update: SimTime,
    fifo: VecDeque<Queued>,
    bytes: u64,
}

impl Aqm for Pie {
    type Spec = PieSpec;

    /// Alpha and beta within the 0 to 32 sixteenths `pie_calculate_probability` is written
    /// for (`pie_change` itself takes any value); a target above 0 and a period from 1 ms,
    /// both at most 10 s.
    fn validate(q: &PieSpec) -> Result<(), FieldError> {
        if q.target.sim() == SimDuration::ZERO || q.target.sim() > SimDuration::from_secs(10) {
            return Err(FieldError::new("target", format!("got {}s, expected a duration above 0 and at most 10s", q.target.sim().as_secs_f64())));
        }
        if q.tupdate.sim() < SimDuration::from_millis(1) || q.tupdate.sim() > SimDuration::from_secs(10) {
            return Err(FieldError::new("tupdate", format!("got {}s, expected a period from 1ms to 10s", q.tupdate.sim().as_secs_f64())));
        }
        for (name, v) in [("alpha", q.alpha), ("beta", q.beta)] {
            if v > 32 {
                return Err(FieldError::new(name, format!("got {v}, expected sixteenths from 0 to 32 (a weight from 0 to 2)")));
            }
        }
        if q.mtu.0 == 0 {
            return Err(FieldError::new("mtu", "got 0, expected a positive size"));
        }
        Ok(())
    }

    /// A PIE queue made at time 0.
    fn new(spec: &PieSpec) -> Self {
        let mut vars = PieVars::default();
        vars.restart();
        Pie {
            limit: spec.limit,
            target: ticks(spec.target.sim().as_nanos()),
            tupdate: spec.tupdate.sim(),
            alpha: spec.alpha as u64,
            beta: spec.beta as u64,
            bytemode: spec.bytemode,
            mtu: spec.mtu.0,
            vars,
            next_update: SimTime::ZERO + FIRST_UPDATE,
            fifo: VecDeque::new(),
            bytes: 0,
        }
    }

    fn len(&self) -> usize {
        self.fifo.len()
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Judges an arrival of `bytes` at `now`: refused at the limit, or by PIE's random early
    /// drop (`pie_qdisc_enqueue`: the limit first, then `pie_drop_early`; either resets
    /// `accu_prob`). `rng` is drawn from only when the decision is random.
    fn judge(&mut self, now: SimTime, bytes: u32, rng: &mut Xoshiro256PlusPlus) -> Result<(), Refusal> {
        self.catch_up(now);
        let full = match self.limit {
            Limit::Packets(p) => self.fifo.len() as u64 >= p,
            Limit::Bytes(b) => self.bytes + bytes as u64 > b,
        };
        if full {
            self.vars.accu_prob = 0;
            return Err(Refusal::Full);
        }
        if self.drop_early(bytes, rng) {
            self.vars.accu_prob = 0;
            return Err(Refusal::Early);
        }
        Ok(())
    }

    /// Appends an arrival `judge` accepted.
    fn enqueue(&mut self, arrival: Queued, _flow: FlowId, _dropped: &mut Vec<PacketId>) -> Result<(), Refusal> {
        self.fifo.push_back(arrival);
        self.bytes += arrival.bytes as u64;
        Ok(())
    }

    /// The head packet, with PIE's departure bookkeeping (`pie_process_dequeue` without the
    /// rate estimator): the queue delay is its sojourn (0 when it leaves the queue empty),
    /// and the time since the last departure comes off the burst allowance.
    fn dequeue(&mut self, now: SimTime, _dropped: &mut Vec<PacketId>) -> Option<Queued> {
        self.catch_up(now);
        let p = self.fifo.pop_front()?;
        self.bytes -= p.bytes as u64;
        let t = ticks(now.0);
        let v = &mut self.vars;
        v.qdelay = t - ticks(p.since.0);
        let dtime = if v.dq_tstamp != DTIME_INVALID { t - v.dq_tstamp } else { 0 };
        v.dq_tstamp = t;
        if self.bytes == 0 {
            v.qdelay = 0;
        }
        if dtime > 0 && v.burst_time > 0 {
            v.burst_time = v.burst_time.saturating_sub(dtime);
        }
        Some(p)
    }

    fn drain_into(&mut self, out: &mut Vec<PacketId>) {
        out.extend(self.fifo.drain(..).map(|q| q.pkt));
        self.bytes = 0;
    }
}

impl Pie {
    pub fn vars(&self) -> &PieVars {
        &self.vars
    }

    /// Runs the probability updates due by `now`, in order, each on the backlog of the time.
    #[inline]
    fn catch_up(&mut self, now: SimTime) {
        while self.next_update <= now {
            self.update_probability();
            self.next_update += self.tupdate;
        }
    }

    /// `pie_drop_early`: no drop within the burst allowance, at a low delay with a low
    /// probability, or below two MTUs of backlog; else the derandomised draw (RFC 8033
    /// Sec. 5.1, Appendix B): never below 0.85 of accumulated probability, always from 8.5.
    fn drop_early(&mut self, size: u32, rng: &mut Xoshiro256PlusPlus) -> bool {
        let v = &mut self.vars;
        if v.burst_time > 0 {
            return false;
        }
        if v.qdelay < self.target / 2 && v.prob < MAX_PROB / 5 {
            return false;
        }
        if self.bytes < 2 * self.mtu {
            return false;
        }
        let local_prob = if self.bytemode && size as u64 <= self.mtu { size as u64 * (v.prob / self.mtu) } else { v.prob };
        if local_prob == 0 {
            v.accu_prob = 0;
        } else {
            v.accu_prob = v.accu_prob.wrapping_add(local_prob);
        }
        if v.accu_prob < (MAX_PROB / 100) * 85 {
            return false;
        }
        if v.accu_prob >= (MAX_PROB / 2) * 17 {
            return true;
        }
        let rnd: u64 = rng.random();
        if (rnd >> 8) < local_prob {
            v.accu_prob = 0;
            return true;
        }
        false
    }

    /// One update of the drop probability (`pie_calculate_probability` without the rate
    /// estimator; RFC 8033 Sec. 4.2 and 5): `p += α·(qdelay − target) + β·(qdelay −
    /// qdelay_old)`, with α and β scaled down while p is small, steps above 2 % capped once
    /// p ≥ 10 %, 2 % more above 250 ms of delay, a decay of 1/64 after two updates at zero
    /// delay, and a fresh burst allowance once delay and probability have settled.
    pub fn update_probability(&mut self) {
        let backlog = self.bytes;
        let target = self.target;
        let v = &mut self.vars;
        let (qdelay, qdelay_old) = (v.qdelay, v.qdelay_old);
        let mut update_prob = !(qdelay == 0 && backlog != 0);
        let mut alpha = (self.alpha * (MAX_PROB / TICKS_PER_SEC)) >> 4;
        let mut beta = (self.beta * (MAX_PROB / TICKS_PER_SEC)) >> 4;
        if v.prob < MAX_PROB / 10 {
            alpha >>= 1;
            beta >>= 1;
            let mut power = 100u64;
            while v.prob < MAX_PROB / power && power <= 1_000_000 {
                alpha >>= 2;
                beta >>= 2;
                power *= 10;
            }
        }
        let mut delta = (alpha.wrapping_mul(qdelay.wrapping_sub(target)) as i64).wrapping_add(beta.wrapping_mul(qdelay.wrapping_sub(qdelay_old)) as i64);
        let oldprob = v.prob;
        if delta > (MAX_PROB / 50) as i64 && v.prob >= MAX_PROB / 10 {
            delta = ((MAX_PROB / 100) * 2) as i64;
        }
        if qdelay > ticks(250_000_000) {
            delta = delta.wrapping_add((MAX_PROB / 50) as i64);
        }
        v.prob = v.prob.wrapping_add(delta as u64);
        if delta > 0 {
            if v.prob < oldprob {
                v.prob = MAX_PROB;
                update_prob = false;
            }
        } else if v.prob > oldprob {
            v.prob = 0;
        }
        if qdelay == 0 && qdelay_old == 0 && update_prob {
            v.prob -= v.prob / 64;
        }
        v.qdelay = qdelay;
        if v.qdelay < target / 2 && v.qdelay_old < target / 2 && v.prob == 0 {
            v.restart();
        }
        v.qdelay_old = qdelay;
    }

    #[cfg(test)]
    pub fn vars_mut(&mut self) -> &mut PieVars {
        &mut self.vars
    }
}

#[cfg(test)]
#[path = "pie_tests.rs"]
mod tests;
