//! CUBIC as Linux 6.x runs it (`net/ipv4/tcp_cubic.c`, module version 2.3), HyStart
//! included (`hystart.rs`).
//!
//! The window follows W(t) = C·(t − K)³ + W_max from the start of an epoch (the first
//! congestion-avoidance ACK after a reduction), with C = `bic_scale`/1024·10 = 0.4,
//! K = ∛(W_max·(1 − β)/C) and β = 717/1024 (RFC 9438 4.1–4.6). Per ACK, `bictcp_update`
//! aims one RTT ahead — t includes `delay_min` — and sets `cnt`, the segments to acknowledge
//! per segment of growth; `tcp_cong_avoid_ai` applies it. Where Reno (AIMD with
//! α = 3(1 − β)/(1 + β)) would have a larger window, CUBIC grows at least as fast (the
//! TCP-friendly region); `cnt` is never below 2 (at most 1.5× per RTT), and at most 20 until
//! a first reduction (`last_max_cwnd == 0`, 5 % per RTT).
//!
//! All in the kernel's integer arithmetic: segments and u32 counts, jiffies at HZ = 1000
//! (`jiffies.rs`), time in 1/1024 s for the curve (`BICTCP_HZ`), the kernel's cube root
//! (`cube_root.rs`). The window is always in the Linux packet arithmetic
//! (`WindowArith::Linux`), whatever the stack's `window_arith` says: CUBIC's increments are
//! whole segments by construction.
//!
//! Hooks: `on_ack` is `cubictcp_acked` (RTT sample, HyStart) then, when `tcp_may_raise_cwnd`
//! and `tcp_is_cwnd_limited` allow, `cubictcp_cong_avoid`; `on_congestion_event` and the
//! first `on_rto` of an episode call `cubictcp_recalc_ssthresh`; `on_rto` is also
//! `cubictcp_state(TCP_CA_Loss)`, which resets everything; `on_tx_start` is
//! `cubictcp_cwnd_event(CA_EVENT_TX_START)`; `undo` is `tcp_reno_undo_cwnd`, which restores
//! cwnd and ssthresh only: the epoch and W_max stay as the reduction left them.

use super::bictcp::Bictcp;
use super::cubic_curve::{BICTCP_HZ, cnt_toward, friendly_scale, target};
use super::hystart::{self, HyStart};
use super::ssthresh_hook::SsthreshHook;
use super::{AckSample, CongestionControl, Growth, WindowCore};
use crate::tcp::jiffies::{self, HZ};
use crate::time::SimTime;

/// `beta` of Linux 6.x: the window after a reduction is 717/1024 ≈ 0.7 of the window
/// before (module 2.2 on; 819/1024 before it, as in Linux 2.6.24).
const BETA: u32 = 717;
/// The cap on `cnt` before any reduction (5 % per RTT).
const CNT_BEFORE_LOSS: u32 = 20;

/// The module parameters a spec may change (`/sys/module/tcp_cubic/parameters`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CubicParams {
    /// `hystart`: HyStart leaves slow start early (Linux 2.6.29 on; none in 2.6.24).
    pub hystart: bool,
    /// `beta`, in 1/1024: the window kept at a reduction; below 1024.
    pub beta: u32,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams { hystart: true, beta: BETA }
    }
}

/// CUBIC's state (`struct bictcp`) and its window.
#[derive(Clone, Debug)]
pub struct Cubic {
    core: WindowCore,
    params: CubicParams,
    /// `beta_scale` for `params.beta`.
    friendly_scale: u32,
    /// `struct bictcp`'s common fields: `cnt` counts segments, `delay_min` is in µs.
    bictcp: Bictcp,
    hystart: HyStart,
    /// The pacing rate the last ACK left (`sk_pacing_rate`, B/s); `u64::MAX` before any.
    pacing_rate: u64,
    /// SND.UNA after the last ACK (SND.MAX at a timeout is SND.UNA + flight).
    snd_una: u64,
    /// The connection has sent data (CUBIC's `init` ran).
    started: bool,
}

impl Cubic {
    pub fn new(core: WindowCore, params: CubicParams) -> Self {
        Cubic {
            core: core.into_linux(),
            params,
            friendly_scale: friendly_scale(params.beta),
            bictcp: Bictcp::default(),
            hystart: HyStart::new(),
            pacing_rate: u64::MAX,
            snd_una: 0,
            started: false,
        }
    }


    /// `cubictcp_acked`: the RTT sample of an ACK. Samples within 1 s of an epoch's start
    /// are ignored (right after a reduction the queue is still draining); HyStart turns its
    /// rounds over on the rest while in slow start and runs its detectors with cwnd ≥ 16.
    fn on_rtt_sample(&mut self, ack: &AckSample, now_j: u32, rtt_us: u32) {
        let delay = rtt_us.max(1);
        if !self.bictcp.delay_sample(now_j, delay) {
            return;
        }
        let cwnd = self.core.cwnd_packets();
        if self.params.hystart && !self.hystart.found() && self.core.in_slow_start() {
            let now_us = jiffies::micros(ack.now);
            self.hystart.new_round_if_due(now_us, ack.snd_una, ack.snd_max);
            if cwnd >= hystart::LOW_WINDOW {
                let ack_delay = hystart::ack_delay_us(self.pacing_rate);
                if self.hystart.update(now_us, delay, self.bictcp.delay_min, ack_delay) {
                    self.core.set_ssthresh_packets(cwnd);
                }
            }
        }
    }

    /// `cubictcp_cong_avoid` past `tcp_is_cwnd_limited`: linear growth when the TCP-friendly
    /// cap set the `cnt` it grows by.
    fn cong_avoid(&mut self, now_j: u32, acked: u32) -> Growth {
        let mut acked = acked;
        if self.core.in_slow_start() {
            acked = self.core.slow_start_packets(acked);
            if acked == 0 {
                return Growth::SlowStart;
            }
        }
        self.update(now_j, self.core.cwnd_packets(), acked);
        self.core.cong_avoid_ai(self.bictcp.cnt, acked);
        Growth::Avoidance { linear: self.bictcp.friendly }
    }

    /// `bictcp_update`: `cnt` for the window `cwnd`, at most once per jiffy, and when cwnd
    /// has not changed at most every HZ/32 jiffies.
    fn update(&mut self, now_j: u32, cwnd: u32, acked: u32) {
        if self.bictcp.count_and_hold(now_j, cwnd, acked) {
            return;
        }
        if self.bictcp.epoch_start.is_some() && now_j == self.bictcp.last_time {
            // The `cnt` of this jiffy, capped again: Reno's pace if it was or now is.
            self.bictcp.friendly |= self.tcp_friendliness(cwnd);
            return;
        }
        let epoch_start = self.bictcp.recompute(now_j, cwnd, acked);
        // t: time since the epoch began plus delay_min, in 1/1024 s (sign-extended as the
        // kernel's s32 → u64).
        let mut t = jiffies::elapsed(now_j, epoch_start) as i64 as u64;
        t = t.wrapping_add(jiffies::usecs_to_jiffies(self.bictcp.delay_min) as u64);
        t = (t << BICTCP_HZ) / HZ as u64;
        let b = &mut self.bictcp;
        b.cnt = cnt_toward(target(t, b.k, b.origin_point), cwnd);
        if b.last_max_cwnd == 0 && b.cnt > CNT_BEFORE_LOSS {
            b.cnt = CNT_BEFORE_LOSS;
        }
        self.bictcp.friendly = self.tcp_friendliness(cwnd);
    }

    /// The TCP-friendly region: Reno's estimate `tcp_cwnd` gains a segment per
    /// cwnd·`beta_scale`/8 segments acknowledged; if it is ahead of cwnd, `cnt` is at most
    /// cwnd / (tcp_cwnd − cwnd). Then `cnt` ≥ 2. Whether Reno's estimate paces the window
    /// (`Bictcp::friendly_cap`).
    fn tcp_friendliness(&mut self, cwnd: u32) -> bool {
        self.bictcp.friendly_cap(cwnd, self.friendly_scale, 2)
    }

}

impl CongestionControl for Cubic {
    fn core(&self) -> &WindowCore {
        &self.core
    }
    fn core_mut(&mut self) -> &mut WindowCore {
        &mut self.core
    }
    fn on_ack(&mut self, ack: &AckSample) -> Growth {
        let now_j = jiffies::jiffies(ack.now);
        self.snd_una = ack.snd_una;
        if let Some(rtt_us) = ack.rtt_us() {
            self.on_rtt_sample(ack, now_j, rtt_us);
        }
        let growth = if ack.acked_bytes > 0 && ack.cwnd_limited && ack.state.grows_window() {
            self.cong_avoid(now_j, ack.delivered_packets(self.core.mss))
        } else {
            Growth::Held
        };
        let mss = self.core.mss;
        let packets_out = ack.snd_max.saturating_sub(ack.snd_una).div_ceil(mss) as u32;
        self.pacing_rate = hystart::pacing_rate(mss, self.core.cwnd_packets(), self.core.ssthresh_packets(), packets_out, ack.srtt);
        growth
    }
    /// `tcp_init_cwnd_reduction` with `cubictcp_recalc_ssthresh`.
    fn on_congestion_event(&mut self, _now: SimTime, _flight: u64) {
        self.reduce_for_recovery();
    }
    /// `tcp_enter_loss`: ssthresh from `cubictcp_recalc_ssthresh` when the sender reduces
    /// (`first_timeout`), cwnd one segment, then `cubictcp_state(TCP_CA_Loss)`: the whole
    /// state reset (W_max, delay_min and HyStart's exit included) and a new HyStart round
    /// ending at SND.MAX.
    fn on_rto(&mut self, now: SimTime, flight: u64, first_timeout: bool) {
        self.reduce_for_loss(first_timeout);
        self.hystart.reset_round(jiffies::micros(now), self.snd_una + flight);
    }
    /// `CA_EVENT_TX_START`: after an idle or application-limited spell the epoch moves on by
    /// its length (not past now), so the curve resumes where it stopped. The first call, at
    /// the connection's first data, is where CUBIC's `init` takes its clocks: HyStart's first
    /// round starts.
    fn on_tx_start(&mut self, now: SimTime, last_send: SimTime) {
        if !self.started {
            self.started = true;
            self.hystart.reset_round(jiffies::micros(now), self.snd_una);
        }
        let now_j = jiffies::jiffies(now);
        let idle = jiffies::elapsed(now_j, jiffies::jiffies(last_send));
        if let Some(epoch) = self.bictcp.epoch_start.filter(|_| idle > 0) {
            let shifted = epoch.wrapping_add(idle as u32);
            self.bictcp.epoch_start = Some(if jiffies::after(shifted, now_j) { now_j } else { shifted });
        }
    }
}

impl SsthreshHook for Cubic {
    /// `cubictcp_recalc_ssthresh`: the epoch ends; W_max becomes cwnd, or with fast
    /// convergence, when cwnd fell short of the previous W_max, cwnd·(1 + β)/2; ssthresh is
    /// β·cwnd, at least 2.
    fn ssthresh_hook(&mut self) -> u32 {
        self.bictcp.at_loss(self.core.cwnd_packets(), self.params.beta)
    }
    /// `bictcp_reset`: everything but the HyStart round (which the caller resets).
    fn reset_state(&mut self) {
        self.bictcp.reset();
        self.hystart.clear_found();
    }
}

#[cfg(test)]
#[path = "cubic_tests.rs"]
mod tests;
