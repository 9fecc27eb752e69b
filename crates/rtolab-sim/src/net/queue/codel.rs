//! CoDel, controlled delay (RFC 8289), as Linux runs it: the control state of one queue
//! (`struct codel_vars`, `codel_should_drop` and `codel_dequeue` of
//! `include/net/codel_impl.h`), shared with FQ-CoDel's per-flow queues (`fq_codel.rs`), and
//! the single-queue discipline of `net/sched/sch_codel.c` (`Codel`).
//!
//! Arithmetic as Linux's, and so as ns-3's `CoDelQueueDisc`, which follows it:
//! - CoDel's clock counts units of 1024 ns (`codel_get_time`: nanoseconds >> `CODEL_SHIFT`
//!   10) in a wrapping `u32`, compared by signed difference (`codel_time_after` and kin);
//!   the sojourn time is the difference of the two readings, target and interval are
//!   converted once (`(us * 1000) >> 10`, `fq_codel_change`).
//! - The control law `t + interval / sqrt(count)` (RFC 8289 Sec. 4.2) is chosen by
//!   `control_law`. `"linux"` (the default, and ns-3's) is `codel_control_law`:
//!   `interval · rec_inv_sqrt / 2^32`, with `rec_inv_sqrt` a Q0.16 estimate of
//!   `1/sqrt(count)` refined by one Newton step each time `count` changes
//!   (`codel_Newton_step`). One step from 1 is a poor estimate at small counts: the
//!   spacings after the first drops are 0.99998, 0.50002, 0.5625, 0.4878, 0.4415 intervals
//!   against 1, 0.7071, 0.5774, 0.5, 0.4472 (within 1.3 % from count 5 on, 0.1 % from 20 to
//!   1000, 0.26 % up to 10000: `test_codel_spacing_is_interval_over_sqrt_count`).
//!   `"exact"` is RFC 8289's pseudocode, `floor(interval / sqrt(count))` in CoDel units (an
//!   IEEE double square root, correctly rounded, so deterministic).
//! - The threshold below which CoDel never drops is Linux's `backlog <= mtu` (RFC 8289's
//!   `bytes() <= MAXPACKET`), the backlog being what remains after the packet at hand left;
//!   ns-3 compares `< MinBytes`.
//!
//! One departure, for a clock that starts at 0: Linux zeroes a queue's state, so
//! `rec_inv_sqrt` starts at 0 (a kernel's clock is never near 0 when a queue starts); here
//! it starts at `0xFFFF`, the value `codel_dequeue` sets on every fresh dropping state, as
//! ns-3 does.

use super::aqm::{Aqm, Queued, Refusal};
use crate::net::field_error::FieldError;
use crate::net::ids::{FlowId, PacketId};
use crate::time::SimTime;
use crate::units::{Bytes, Duration, Limit};
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

/// `queue = { kind = "codel", … }`: CoDel over one FIFO, with Linux's `sch_codel`
/// defaults.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodelSpec {
    /// Most packets ("1000p", Linux's default) or bytes the queue holds; arrivals beyond it
    /// are dropped.
    #[serde(default = "codel_limit")]
    pub limit: Limit,
    /// Acceptable standing queue delay (RFC 8289 TARGET; Linux and ns-3: 5 ms).
    #[serde(default = "codel_target")]
    pub target: Duration,
    /// Sliding window over which the minimum delay must exceed `target` before the first
    /// drop, and the base of the drop spacing (RFC 8289 INTERVAL; Linux and ns-3: 100 ms).
    #[serde(default = "codel_interval")]
    pub interval: Duration,
    /// CoDel does not drop while the bytes left in the queue are at most this (RFC 8289
    /// MAXPACKET, Linux's `mtu`). rtolab counts IP bytes, so the default is the IP MTU,
    /// 1500 B (Linux's 1514 counts the Ethernet header too; ns-3's `MinBytes` is 1500).
    #[serde(default = "codel_mtu")]
    pub mtu: Bytes,
    /// How the spacing interval/sqrt(count) is computed: "linux" (Newton steps in fixed
    /// point, as Linux and ns-3) or "exact" (RFC 8289's square root).
    #[serde(default)]
    pub control_law: ControlLaw,
}

/// The arithmetic of CoDel's control law (see the module's notes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ControlLaw {
    /// `codel_control_law` with `codel_Newton_step` (Linux, ns-3).
    #[default]
    Linux,
    /// `interval / sqrt(count)` (RFC 8289 Sec. 5.5, `control_law`).
    Exact,
}

fn codel_limit() -> Limit {
    Limit::Packets(1000)
}
pub(super) fn codel_target() -> Duration {
    Duration(crate::time::SimDuration::from_millis(5))
}
pub(super) fn codel_interval() -> Duration {
    Duration(crate::time::SimDuration::from_millis(100))
}
pub(super) fn codel_mtu() -> Bytes {
    Bytes(1500)
}

/// CoDel's clock counts 1024 ns units in a wrapping 32-bit number compared by signed
/// difference (Linux `codel_time_t`): target and interval must be at least one unit, and 16
/// intervals (`codel_dequeue`'s re-entry test) must stay below 2^31 units, so at most 137 s.
pub(super) fn check_times(target: Duration, interval: Duration) -> Result<(), FieldError> {
    const UNIT_NS: u64 = 1 << CODEL_SHIFT;
    const MOST_NS: u64 = 137_000_000_000;
    for (name, d) in [("target", target), ("interval", interval)] {
        let ns = d.sim().as_nanos();
        if !(UNIT_NS..=MOST_NS).contains(&ns) {
            return Err(FieldError::new(name, format!("got {}s, expected a duration from 1.024us to 137s", d.sim().as_secs_f64())));
        }
    }
    Ok(())
}

/// A reading of CoDel's clock (`codel_time_t`): nanoseconds >> 10, wrapping.
pub type CodelTime = u32;

/// Linux `CODEL_SHIFT`.
const CODEL_SHIFT: u32 = 10;
/// Linux `REC_INV_SQRT_SHIFT`: `rec_inv_sqrt` keeps the top 16 bits of a Q0.32 number.
const REC_INV_SQRT_SHIFT: u32 = 16;
/// `~0U >> REC_INV_SQRT_SHIFT`: 1/sqrt(1) in Q0.16, as `codel_dequeue` sets it.
const REC_INV_SQRT_ONE: u16 = 0xFFFF;

/// CoDel's clock at `t` (Linux `codel_get_time`).
#[inline]
pub fn codel_time(t: SimTime) -> CodelTime {
    (t.0 >> CODEL_SHIFT) as u32
}

#[inline]
fn after(a: CodelTime, b: CodelTime) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}
#[inline]
fn after_eq(a: CodelTime, b: CodelTime) -> bool {
    (a.wrapping_sub(b) as i32) >= 0
}
#[inline]
fn before(a: CodelTime, b: CodelTime) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// CoDel's parameters in its own units (Linux `struct codel_params`, ECN off).
#[derive(Clone, Copy, Debug)]
pub struct CodelParams {
    pub target: CodelTime,
    pub interval: CodelTime,
    /// Bytes.
    pub mtu: u64,
    pub law: ControlLaw,
}

impl CodelParams {
    pub fn new(target: Duration, interval: Duration, mtu: Bytes, law: ControlLaw) -> Self {
        CodelParams { target: (target.sim().as_nanos() >> CODEL_SHIFT) as u32, interval: (interval.sim().as_nanos() >> CODEL_SHIFT) as u32, mtu: mtu.0, law }
    }
}

/// One Newton step toward `1/sqrt(count)` from `rec_inv_sqrt` (Q0.16), as
/// `codel_Newton_step`: `x ← x · (3 − count · x²) / 2`, in Q0.32 with Linux's shifts.
#[inline]
pub fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let invsqrt = (rec_inv_sqrt as u32) << REC_INV_SQRT_SHIFT;
    let invsqrt2 = ((invsqrt as u64 * invsqrt as u64) >> 32) as u32;
    let mut val = (3u64 << 32).wrapping_sub(count as u64 * invsqrt2 as u64);
    val >>= 2;
    val = (val.wrapping_mul(invsqrt as u64)) >> (32 - 2 + 1);
    (val >> REC_INV_SQRT_SHIFT) as u16
}

/// The FIFO a CoDel state controls, as `codel_dequeue` reaches it through `dequeue_func`.
pub trait CodelQueue {
    /// Takes the head packet off the queue (every counter updated).
    fn dequeue(&mut self) -> Option<Queued>;
    /// The backlog CoDel compares with `mtu`, in bytes, after the last `dequeue` (Linux:
    /// the qdisc's whole backlog, for FQ-CoDel too).
    fn backlog(&self) -> u64;
}

/// The control state of one CoDel queue (Linux `struct codel_vars`).
///
/// Invariants: `count ≥ lastcount` except after FQ-CoDel's overflow drops raised `count`;
/// `first_above_time == 0` means "not above target"; in the dropping state `drop_next` is
/// the time of the next drop.
#[derive(Clone, Debug)]
pub struct CodelVars {
    pub count: u32,
    pub lastcount: u32,
    pub dropping: bool,
    pub rec_inv_sqrt: u16,
    pub first_above_time: CodelTime,
    pub drop_next: CodelTime,
}

impl Default for CodelVars {
    fn default() -> Self {
        CodelVars { count: 0, lastcount: 0, dropping: false, rec_inv_sqrt: REC_INV_SQRT_ONE, first_above_time: 0, drop_next: 0 }
    }
}

impl CodelVars {
    /// `count` changed: Linux refines its estimate of 1/sqrt(count) by one Newton step.
    #[inline]
    fn recount(&mut self, p: &CodelParams) {
        if p.law == ControlLaw::Linux {
            self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, self.count);
        }
    }

    /// `t + interval / sqrt(count)` (RFC 8289 `control_law`; Linux `codel_control_law`).
    #[inline]
    pub fn control_law(&self, p: &CodelParams, t: CodelTime) -> CodelTime {
        let spacing = match p.law {
            ControlLaw::Linux => ((p.interval as u64 * ((self.rec_inv_sqrt as u64) << REC_INV_SQRT_SHIFT)) >> 32) as u32,
            ControlLaw::Exact => (p.interval as f64 / (self.count as f64).sqrt()) as u32,
        };
        t.wrapping_add(spacing)
    }

    /// Whether the packet just dequeued may be dropped: its sojourn time has been at or above
    /// target for more than an interval (`codel_should_drop`; RFC 8289 Sec. 5.4, `dodequeue`).
    fn should_drop(&mut self, p: &CodelParams, pkt: Option<&Queued>, now: CodelTime, backlog: u64) -> bool {
        let Some(pkt) = pkt else {
            self.first_above_time = 0;
            return false;
        };
        let sojourn = now.wrapping_sub(codel_time(pkt.since));
        if before(sojourn, p.target) || backlog <= p.mtu {
            self.first_above_time = 0;
            return false;
        }
        if self.first_above_time == 0 {
            self.first_above_time = now.wrapping_add(p.interval);
            false
        } else {
            after(now, self.first_above_time)
        }
    }

    /// The packet to send from `q` at `now`, after the drops CoDel decides, which go to
    /// `dropped` (`codel_dequeue` with ECN off; RFC 8289 Sec. 5.5).
    pub fn dequeue(&mut self, p: &CodelParams, now: SimTime, q: &mut impl CodelQueue, dropped: &mut Vec<PacketId>) -> Option<Queued> {
        let Some(mut pkt) = q.dequeue() else {
            self.dropping = false;
            return None;
        };
        let now = codel_time(now);
        let drop = self.should_drop(p, Some(&pkt), now, q.backlog());
        if self.dropping {
            if !drop {
                self.dropping = false;
            } else {
                // Drops due now, each followed by the next at interval/sqrt(count) after the
                // previous one's due time (RFC 8289 Sec. 5.5; the `while` of `codel_dequeue`).
                while self.dropping && after_eq(now, self.drop_next) {
                    self.count = self.count.wrapping_add(1);
                    self.recount(p);
                    dropped.push(pkt.pkt);
                    let next = q.dequeue();
                    if !self.should_drop(p, next.as_ref(), now, q.backlog()) {
                        self.dropping = false;
                    } else {
                        self.drop_next = self.control_law(p, self.drop_next);
                    }
                    match next {
                        Some(n) => pkt = n,
                        None => return None,
                    }
                }
            }
        } else if drop {
            dropped.push(pkt.pkt);
            let next = q.dequeue();
            self.should_drop(p, next.as_ref(), now, q.backlog());
            self.dropping = true;
            // Re-entering soon after the last dropping state: resume near its drop rate
            // (RFC 8289 Sec. 5.6, Linux's `16 * interval`).
            let delta = self.count.wrapping_sub(self.lastcount);
            if delta > 1 && before(now.wrapping_sub(self.drop_next), p.interval.wrapping_mul(16)) {
                self.count = delta;
                self.recount(p);
            } else {
                self.count = 1;
                self.rec_inv_sqrt = REC_INV_SQRT_ONE;
            }
            self.lastcount = self.count;
            self.drop_next = self.control_law(p, now);
            pkt = next?;
        }
        Some(pkt)
    }
}

/// CoDel over one FIFO (Linux `sch_codel`): tail drop at the limit on arrival, CoDel's drops
/// at dequeue.
#[derive(Debug)]
pub struct Codel {
    limit: Limit,
    params: CodelParams,
    vars: CodelVars,
    fifo: Fifo,
}

/// The FIFO under `Codel`, with its byte count.
#[derive(Debug, Default)]
struct Fifo {
    packets: VecDeque<Queued>,
    bytes: u64,
}

impl CodelQueue for Fifo {
    fn dequeue(&mut self) -> Option<Queued> {
        let p = self.packets.pop_front()?;
        self.bytes -= p.bytes as u64;
        Some(p)
    }
    fn backlog(&self) -> u64 {
        self.bytes
    }
}

impl Aqm for Codel {
    type Spec = CodelSpec;

    fn validate(spec: &CodelSpec) -> Result<(), FieldError> {
        check_times(spec.target, spec.interval)
    }

    fn new(spec: &CodelSpec) -> Self {
        Codel { limit: spec.limit, params: CodelParams::new(spec.target, spec.interval, spec.mtu, spec.control_law), vars: CodelVars::default(), fifo: Fifo::default() }
    }

    fn len(&self) -> usize {
        self.fifo.packets.len()
    }

    fn bytes(&self) -> u64 {
        self.fifo.bytes
    }

    /// Appends an arrival, or refuses it at the limit (`codel_qdisc_enqueue`: `qlen <
    /// limit`; in bytes, as ns-3, when the arrival would exceed it).
    fn enqueue(&mut self, arrival: Queued, _flow: FlowId, _dropped: &mut Vec<PacketId>) -> Result<(), Refusal> {
        let full = match self.limit {
            Limit::Packets(p) => self.fifo.packets.len() as u64 >= p,
            Limit::Bytes(b) => self.fifo.bytes + arrival.bytes as u64 > b,
        };
        if full {
            return Err(Refusal::Full);
        }
        self.fifo.packets.push_back(arrival);
        self.fifo.bytes += arrival.bytes as u64;
        Ok(())
    }

    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<PacketId>) -> Option<Queued> {
        self.vars.dequeue(&self.params, now, &mut self.fifo, dropped)
    }

    fn drain_into(&mut self, out: &mut Vec<PacketId>) {
        out.extend(self.fifo.packets.drain(..).map(|q| q.pkt));
        self.fifo.bytes = 0;
    }
}

#[cfg(test)]
impl Codel {
    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
}

#[cfg(test)]
#[path = "codel_tests.rs"]
mod tests;
