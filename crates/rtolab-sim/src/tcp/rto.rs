//! The retransmission timeout: the RFC 6298 estimator and the ways real stacks depart from it.
//!
//! RFC 6298 (2.2) first sample R: SRTT = R, RTTVAR = R/2.
//! (2.3) later samples R': RTTVAR = (1 - beta)·RTTVAR + beta·|SRTT - R'|, then
//!       SRTT = (1 - alpha)·SRTT + alpha·R'.
//! RTO = SRTT + max(G, K·RTTVAR), then (2.4) RTO = max(RTO, min_rto) and (2.5) a maximum.
//! (5.5) each expiry doubles the RTO up to the maximum; a new sample clears the back-off.
//!
//! Invariant: `current()` is always within [min_rto, max_rto] (for the `Variance` floor, the
//! minimum applies to the variance term instead, so RTO ≥ SRTT + min_rto).
//! The estimator state is kept in f64 nanoseconds; the RTO it yields is whole nanoseconds.

use super::rto_linux::{LinuxRtt, Round};
use super::rto_ns2::{Ns2Clock, Ns2Rto};
use crate::time::{SimDuration, SimTime};
use schemars::JsonSchema;
use serde::Deserialize;
use std::sync::Arc;

/// Named RTO behaviours of real stacks and simulators (see `RtoConfig::preset`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RtoPreset {
    #[default]
    Rfc6298,
    Linux,
    Freebsd,
    Ns2,
    Ns3,
}

/// Where the minimum RTO applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RtoFloor {
    /// To the whole RTO, RFC 6298 (2.4).
    Rto,
    /// To the variance term: RTO = SRTT + max(K·RTTVAR, min_rto), as Linux does
    /// (`tcp_set_rto`: rttvar is floored at `tcp_rto_min`).
    Variance,
}

/// Parameters of the estimator; `preset` gives the named behaviours.
#[derive(Clone, Debug, PartialEq)]
pub struct RtoConfig {
    pub min_rto: SimDuration,
    pub max_rto: SimDuration,
    pub initial_rto: SimDuration,
    /// Clock granularity G of RFC 6298 (2.3).
    pub granularity: SimDuration,
    pub k: u32,
    pub alpha: f64,
    pub beta: f64,
    pub floor: RtoFloor,
    /// Added to every computed RTO (FreeBSD: two ticks).
    pub extra: SimDuration,
    /// Coarse timer tick: samples are rounded to whole ticks (at least one), and the RTO is a
    /// whole number of ticks (ns-2 `tcpTick_`).
    pub tick: Option<SimDuration>,
    /// RFC 6298 (5.7): after a SYN timeout, data transfer starts with RTO = 3 s.
    pub syn_fallback: SynFallback,
    /// ns-2's integer arithmetic and coarse clock instead of the f64 estimator above
    /// (`min_rto`, `max_rto` and `initial_rto` still apply).
    pub ns2: Option<Ns2Clock>,
    /// SYN timeouts that do not back off the timer (Linux `tcp_syn_linear_timeouts`: the
    /// first four SYN retransmissions follow the initial RTO, one second apart).
    pub syn_linear_timeouts: u32,
    /// Linux's estimator (`rto_linux.rs`: per-round variance decay, integer µs, whole
    /// jiffies) instead of the f64 RFC 6298 one; `min_rto`, `max_rto` and `initial_rto` apply.
    pub linux: bool,
    /// The back-off multiplier stops doubling at this value whatever the timeout: ns-1's
    /// `rtt_backoff` (`if (t_backoff_ < 64) t_backoff_ <<= 1`, no timer cap) and ns-2's with
    /// `rfc2988_` false. `None`: it doubles while the timeout is below `max_rto` (RFC 6298
    /// (5.5), and ns-2.35's `rfc2988_` true past 64).
    pub max_backoff: Option<u32>,
}

/// When RFC 6298 (5.7)'s 3 s fallback applies after a retransmitted SYN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SynFallback {
    Never,
    /// RFC 6298 (5.7) read literally.
    Always,
    /// Only when the handshake gave no RTT sample (Linux `tcp_init_transfer`: a timestamped
    /// SYN-ACK gives one).
    WithoutSample,
}

impl RtoConfig {
    /// The named presets. Sources:
    /// - `rfc6298`: RFC 6298 (2.1) initial 1 s, (2.4) minimum 1 s, (2.5) maximum 60 s.
    /// - `linux`: `TCP_RTO_MIN` 200 ms applied to the variance term, `TCP_RTO_MAX` 120 s,
    ///   `TCP_TIMEOUT_INIT` 1 s; first sample gives SRTT + 2·SRTT = 3·RTT (mdev = R/2, ×4);
    ///   Linux's own estimator (`rto_linux.rs`); SYNs at 0, 1, 2, 3, 4, 5, 7, 11 s
    ///   (`tcp_syn_linear_timeouts` 4).
    /// - `freebsd`: `TCPTV_MIN` 30 ms floor, `tcp_rexmit_slop` 200 ms added to every RTO
    ///   (`TCPT_RANGESET`), `TCPTV_REXMTMAX` 64 s, initial 1 s (`TCPTV_RTOBASE`), 1 ms clock.
    /// - `ns2`: `minrto_` 0.2 s, `maxrto_` 60 s, `rtxcur_init_` 3 s, `tcpTick_` 10 ms, with
    ///   ns-2's integer arithmetic (`rto_ns2.rs`).
    /// - `ns3`: `MinRto` 1 s, `ClockGranularity` 1 ms, maximum 60 s, `InitialEstimation` 1 s,
    ///   no RFC 6298 (5.7) fallback (ns-3.44 keeps the SYN-ACK's sample).
    pub fn preset(p: RtoPreset) -> Self {
        let ms = SimDuration::from_millis;
        let s = SimDuration::from_secs;
        let base = RtoConfig {
            min_rto: s(1),
            max_rto: s(60),
            initial_rto: s(1),
            granularity: ms(1),
            k: 4,
            alpha: 0.125,
            beta: 0.25,
            floor: RtoFloor::Rto,
            extra: SimDuration::ZERO,
            tick: None,
            syn_fallback: SynFallback::Always,
            ns2: None,
            linux: false,
            syn_linear_timeouts: 0,
            max_backoff: None,
        };
        match p {
            RtoPreset::Rfc6298 => base,
            RtoPreset::Ns3 => RtoConfig { syn_fallback: SynFallback::Never, ..base },
            RtoPreset::Linux => RtoConfig {
                min_rto: ms(200),
                max_rto: s(120),
                granularity: SimDuration::ZERO,
                floor: RtoFloor::Variance,
                syn_fallback: SynFallback::WithoutSample,
                linux: true,
                syn_linear_timeouts: 4,
                ..base
            },
            RtoPreset::Freebsd => RtoConfig { min_rto: ms(30), max_rto: s(64), extra: ms(200), ..base },
            RtoPreset::Ns2 => RtoConfig {
                min_rto: ms(200),
                initial_rto: s(3),
                granularity: SimDuration::ZERO,
                tick: Some(ms(10)),
                syn_fallback: SynFallback::Never,
                ns2: Some(Ns2Clock { tick: ms(10), boot: SimDuration::ZERO, timestamps: false }),
                ..base
            },
        }
    }
}

/// `x.round() as u64` (half away from zero, saturating, NaN to 0) without a call to libm's
/// `round`: the integer part by the native conversion, then the exact fraction `x - t`
/// (exact because `t` is `x` truncated) decides. Every RTT sample and ACK reads one.
#[inline]
fn round_to_u64(x: f64) -> u64 {
    let t = x as u64;
    if x - t as f64 >= 0.5 {
        t.saturating_add(1)
    } else {
        t
    }
}

/// RTO estimator state of one connection.
///
/// Layout: `repr(C, align(64))`, one cache line: every sample reads which estimator applies
/// and the RFC 6298 state, so ns-2's and Linux's estimators, which few flows use, are boxed
/// rather than inline (they would spread a sample over three lines).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct RtoEstimator {
    srtt: Option<f64>,
    rttvar: f64,
    base: SimDuration,
    /// Shared by every flow with the same configuration.
    cfg: Arc<RtoConfig>,
    ns2: Option<Box<Ns2Rto>>,
    linux: Option<Box<LinuxRtt>>,
    backoff: u32,
}

impl RtoEstimator {
    pub fn new(cfg: impl Into<Arc<RtoConfig>>) -> Self {
        let cfg = cfg.into();
        let base = cfg.initial_rto;
        let ns2 = cfg.ns2.map(|c| Box::new(Ns2Rto::new(c, cfg.initial_rto, cfg.min_rto, cfg.max_rto).with_max_backoff(cfg.max_backoff)));
        let linux = cfg.linux.then(|| Box::new(LinuxRtt::new(cfg.min_rto)));
        RtoEstimator { cfg, srtt: None, rttvar: 0.0, base, backoff: 0, ns2, linux }
    }

    pub fn config(&self) -> &RtoConfig {
        &self.cfg
    }

    /// Feeds one RTT measurement `rtt` taken at `now` (RFC 6298 (2.2)/(2.3)) and clears the
    /// back-off.
    pub fn on_sample(&mut self, now: SimTime, rtt: SimDuration, round: Round) {
        if let Some(n) = &mut self.ns2 {
            return n.on_sample(now, rtt);
        }
        if let Some(l) = &mut self.linux {
            l.on_sample(rtt, round);
            self.base = l.rto().min(self.cfg.max_rto);
            self.backoff = 0;
            return;
        }
        let r = match self.cfg.tick {
            Some(t) if t.as_nanos() > 0 => {
                let ticks = ((rtt.as_nanos() as f64 / t.as_nanos() as f64) + 0.5).floor().max(1.0);
                ticks * t.as_nanos() as f64
            }
            _ => rtt.as_nanos() as f64,
        };
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(srtt) => {
                self.rttvar = (1.0 - self.cfg.beta) * self.rttvar + self.cfg.beta * (srtt - r).abs();
                self.srtt = Some((1.0 - self.cfg.alpha) * srtt + self.cfg.alpha * r);
            }
        }
        self.base = self.compute();
        self.backoff = 0;
    }

    fn compute(&self) -> SimDuration {
        let srtt = self.srtt.unwrap_or(0.0);
        let var = self.cfg.k as f64 * self.rttvar;
        let g = self.cfg.granularity.as_nanos() as f64;
        let min = self.cfg.min_rto.as_nanos() as f64;
        let mut rto = match self.cfg.floor {
            RtoFloor::Rto => (srtt + var.max(g)).max(min),
            RtoFloor::Variance => srtt + var.max(g).max(min),
        } + self.cfg.extra.as_nanos() as f64;
        if let Some(t) = self.cfg.tick.filter(|t| t.as_nanos() > 0) {
            let t = t.as_nanos() as f64;
            rto = (rto / t).ceil() * t;
        }
        SimDuration(round_to_u64(rto)).min(self.cfg.max_rto)
    }

    /// The timeout to arm now: the base RTO doubled per back-off, capped at the maximum
    /// (RFC 6298 (5.5) and (2.5)).
    pub fn current(&self) -> SimDuration {
        if let Some(n) = &self.ns2 {
            return n.current();
        }
        let shift = self.backoff.min(32);
        SimDuration(self.base.as_nanos().saturating_mul(1u64 << shift)).min(self.cfg.max_rto)
    }

    /// RFC 6298 (5.5): the timer expired; double the RTO.
    pub fn back_off(&mut self) {
        if let Some(n) = &mut self.ns2 {
            return n.back_off();
        }
        let doubles = match self.cfg.max_backoff {
            Some(limit) => (1u64 << self.backoff.min(32)) < u64::from(limit),
            None => self.current() < self.cfg.max_rto,
        };
        if doubles {
            self.backoff += 1;
        }
    }

    pub fn backoff(&self) -> u32 {
        self.ns2.as_ref().map_or(self.backoff, |n| n.backoff())
    }

    /// RFC 6298 (5.7): after a SYN timeout, the RTO is re-initialised to 3 s when data
    /// transmission begins (if it is below that and the preset follows the rule; Linux only
    /// when the handshake gave no sample), and the back-off is cleared.
    ///
    /// ns-2's timer keeps its back-off: `newack` (tcp/tcp.cc) resets `t_backoff_` only when
    /// an ACK ends a timed segment, and nothing is timed after a SYN timeout
    /// (`reset_rtx_timer(0, 1)` clears `rtt_active_`; `output` times only `seqno > maxseq_`,
    /// so not the resent SYN). The first data segment's timer is the SYN's backed-off one
    /// until that segment's ACK brings a sample (`Ns2Rto::on_sample`).
    pub fn apply_syn_fallback(&mut self, had_sample: bool) {
        let applies = match self.cfg.syn_fallback {
            SynFallback::Never => false,
            SynFallback::Always => true,
            SynFallback::WithoutSample => !had_sample,
        };
        if applies && self.base < SimDuration::from_secs(3) {
            self.base = SimDuration::from_secs(3).min(self.cfg.max_rto);
        }
        if self.ns2.is_none() {
            self.clear_backoff();
        }
    }

    /// Clears the back-off without a new sample (e.g. when the handshake completes).
    pub fn clear_backoff(&mut self) {
        self.backoff = 0;
        if let Some(n) = &mut self.ns2 {
            n.clear_backoff();
        }
    }

    /// RFC 4015 3.2 step (8): restarts the estimator from given SRTT and RTTVAR.
    pub fn reinitialise(&mut self, srtt: SimDuration, rttvar: SimDuration) {
        if self.ns2.is_some() {
            return;
        }
        if let Some(l) = &mut self.linux {
            l.reinitialise(srtt, rttvar);
            self.base = l.rto().min(self.cfg.max_rto);
            self.backoff = 0;
            return;
        }
        self.srtt = Some(srtt.as_nanos() as f64);
        self.rttvar = rttvar.as_nanos() as f64;
        self.base = self.compute();
        self.backoff = 0;
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        match (&self.ns2, &self.linux) {
            (Some(n), _) => n.srtt(),
            (None, Some(l)) => l.srtt(),
            (None, None) => self.srtt.map(|s| SimDuration(round_to_u64(s))),
        }
    }

    pub fn rttvar(&self) -> SimDuration {
        match (&self.ns2, &self.linux) {
            (Some(n), _) => n.rttvar(),
            (None, Some(l)) => l.rttvar(),
            (None, None) => SimDuration(round_to_u64(self.rttvar)),
        }
    }
}

#[cfg(test)]
#[path = "rto_tests.rs"]
mod tests;
