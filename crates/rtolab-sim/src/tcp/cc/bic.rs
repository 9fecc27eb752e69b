//! BIC as Linux 6.x runs it (`net/ipv4/tcp_bic.c`): binary search towards the window of the
//! last loss, W_max, then probing beyond it.
//!
//! In congestion avoidance `bictcp_update` sets `cnt`, the segments to acknowledge per
//! segment of growth (`tcp_cong_avoid_ai` applies it):
//! - cwnd ≤ `low_window` (14): Reno, cnt = cwnd.
//! - below W_max: the distance d = (W_max − cwnd)/`BICTCP_B` (B = 4, the search's midpoint
//!   step); d > `max_increment` (16): linear, cnt = cwnd/16 (at most 16 segments per RTT);
//!   d ≤ 1: cnt = cwnd·`smooth_part`/B = 5·cwnd (creep); else cnt = cwnd/d (d per RTT).
//! - from W_max on (max probing): below W_max + B, cnt = 5·cwnd; below W_max + 16·(B − 1),
//!   cnt = cwnd·(B − 1)/(cwnd − W_max) (slow start away from W_max); then cwnd/16.
//! - before any loss (W_max = 0), cnt ≤ 20 (5 % per RTT).
//! - then cnt is scaled by 2/(segments per ACK): cnt·16/`delayed_ack`, where `delayed_ack`
//!   is 16 × the moving average (1/16 gain) of segments per ACK, taken in Open only
//!   (`bictcp_acked`), starting at 2.
//!
//! On a loss W_max = cwnd, or with fast convergence, when cwnd fell short of the previous
//! W_max, cwnd·(1 + β)/2 with β = 819/1024; ssthresh = β·cwnd, or cwnd/2 at or below
//! `low_window`, at least 2. A timeout resets everything (`bictcp_state`); an undo restores
//! cwnd and ssthresh only (`tcp_reno_undo_cwnd`). Integer arithmetic as the kernel's, on the
//! Linux packet window whatever the stack's `window_arith` says. The kernel's `epoch_start`
//! is kept but never read by BIC, so it is left out.
//!
//! Linux 2.6.24's module (`tcp_bic.c` of the 2.6.24 tree), selected by the window's
//! `ack_counting`, has the same `bictcp_update`, `bictcp_recalc_ssthresh` and delayed-ACK
//! average, and differs in three places:
//! - `bictcp_cong_avoid` counts ACKs: slow start while cwnd ≤ ssthresh is 2.6.24's
//!   `tcp_slow_start` (one segment per ACK), and beyond it `snd_cwnd_cnt` counts ACKs, cwnd
//!   gaining a segment on the ACK that finds `snd_cwnd_cnt` ≥ cnt, so one per cnt + 1 ACKs
//!   (`WindowCore::cong_avoid_per_ack`). Above `low_window` `cnt` is scaled by
//!   16/`delayed_ack` all the same, which with one ACK per two segments makes it one per
//!   cnt/2 + 1 ACKs, about cnt segments: the scaling made up for counting ACKs. Today's
//!   module counts segments (`tcp_cong_avoid_ai`) and still scales, growing about twice as
//!   fast; at or below `low_window` (no scaling) 2.6.24's is Reno counting ACKs.
//! - `bictcp_acked` runs only for ACKs that acknowledge new data (`tcp_clean_rtx_queue`
//!   calls `pkts_acked` under `FLAG_ACKED`), so duplicate ACKs in Open leave `delayed_ack`
//!   alone; today's kernel calls it for every ACK, a duplicate counting 0 segments.
//! - the cap of 20 before a loss reads `loss_cwnd` (cwnd at the last reduction, 0 before any
//!   and after a timeout), where today's reads `last_max_cwnd`. They differ only when fast
//!   convergence at cwnd 1 makes W_max 0.
//!
//! Not modelled from 2.6.24: `bictcp_undo_cwnd` (max(cwnd, W_max)), since the undo around it
//! is today's kernel's in rtolab's sender.

use crate::tcp::jiffies::{self, HZ};
use super::ack_ratio::AckRatio;
use super::cubic_curve::at_loss;
use super::ssthresh_hook::SsthreshHook;
use super::{AckSample, CongestionControl, Growth, WindowCore};
use crate::time::SimTime;

/// `beta`: β = 819/1024 ≈ 0.8.
const BETA: u32 = 819;
/// `BICTCP_B`: the binary search goes to (max + min)/B.
const B: u32 = 4;
/// `max_increment`: at most 16 segments of growth per RTT.
const MAX_INCREMENT: u32 = 16;
/// `low_window`: Reno at or below 14 segments.
const LOW_WINDOW: u32 = 14;
/// `smooth_part`: RTTs from W_max − B to W_max.
const SMOOTH_PART: u32 = 20;
/// The cap on `cnt` before any loss.
const CNT_BEFORE_LOSS: u32 = 20;

/// BIC's state (`struct bictcp`) and its window.
#[derive(Clone, Debug)]
pub struct Bic {
    core: WindowCore,
    /// Segments to acknowledge per segment of growth (`cnt`).
    cnt: u32,
    /// W_max, segments; 0 before the first loss (`last_max_cwnd`).
    last_max_cwnd: u32,
    /// cwnd at the last reduction; 0 before any and after a timeout (`loss_cwnd`, Linux
    /// 2.6.24's module; today's has none).
    loss_cwnd: u32,
    /// cwnd and jiffies when `cnt` was last computed (`last_cwnd`, `last_time`).
    last_cwnd: u32,
    last_time: u32,
    /// `delayed_ack` and the state `bictcp_acked` reads it in.
    acks: AckRatio,
}

impl Bic {
    pub fn new(core: WindowCore) -> Self {
        Bic {
            core: core.into_linux(),
            cnt: 0,
            last_max_cwnd: 0,
            loss_cwnd: 0,
            last_cwnd: 0,
            last_time: 0,
            acks: AckRatio::new(),
        }
    }


    /// `bictcp_update`: `cnt` for `cwnd`, at most every HZ/32 jiffies while cwnd stays.
    fn update(&mut self, now_j: u32, cwnd: u32) {
        if self.last_cwnd == cwnd && jiffies::elapsed(now_j, self.last_time) <= (HZ / 32) as i32 {
            return;
        }
        self.last_cwnd = cwnd;
        self.last_time = now_j;
        if cwnd <= LOW_WINDOW {
            self.cnt = cwnd;
            return;
        }
        let w_max = self.last_max_cwnd;
        self.cnt = if cwnd < w_max {
            let dist = (w_max - cwnd) / B;
            if dist > MAX_INCREMENT {
                cwnd / MAX_INCREMENT
            } else if dist <= 1 {
                cwnd.wrapping_mul(SMOOTH_PART) / B
            } else {
                cwnd / dist
            }
        } else if cwnd < w_max + B {
            cwnd.wrapping_mul(SMOOTH_PART) / B
        } else if cwnd < w_max + MAX_INCREMENT * (B - 1) {
            cwnd.wrapping_mul(B - 1) / (cwnd - w_max)
        } else {
            cwnd / MAX_INCREMENT
        };
        // Before any loss: 2.6.24 `loss_cwnd == 0`, today `last_max_cwnd == 0`.
        let before_loss = if self.core.counts_acks() { self.loss_cwnd == 0 } else { w_max == 0 };
        if before_loss && self.cnt > CNT_BEFORE_LOSS {
            self.cnt = CNT_BEFORE_LOSS;
        }
        self.cnt = self.acks.scale(self.cnt);
    }

}

impl CongestionControl for Bic {
    fn core(&self) -> &WindowCore {
        &self.core
    }
    fn core_mut(&mut self) -> &mut WindowCore {
        &mut self.core
    }
    /// `bictcp_acked` with the segments this ACK acknowledged cumulatively, in the state it
    /// arrived in (2.6.24: only for an ACK of new data); then `bictcp_cong_avoid` when
    /// `tcp_may_raise_cwnd` and `tcp_is_cwnd_limited` allow, by the segments delivered or,
    /// with `ack_counting`, once per ACK as 2.6.24's. Congestion avoidance is linear growth
    /// when cwnd ≤ `low_window`, where `cnt` = cwnd is Reno's (the `cnt` in force is always
    /// the current cwnd's: `update` keeps it only while cwnd stays).
    fn on_ack(&mut self, ack: &AckSample) -> Growth {
        let mss = self.core.mss;
        let per_ack = self.core.counts_acks();
        if !per_ack || ack.acked_bytes > 0 {
            self.acks.count(ack.acked_packets(mss));
        }
        self.acks.ack_done(ack.state);
        if ack.acked_bytes == 0 || !ack.cwnd_limited || !ack.state.grows_window() {
            return Growth::Held;
        }
        if per_ack {
            // 2.6.24 `bictcp_cong_avoid`.
            let cwnd = self.core.cwnd_packets();
            if cwnd <= self.core.ssthresh_packets() {
                self.core.slow_start_per_ack();
                return Growth::SlowStart;
            }
            self.update(jiffies::jiffies(ack.now), cwnd);
            self.core.cong_avoid_per_ack(self.cnt);
            return Growth::Avoidance { linear: cwnd <= LOW_WINDOW };
        }
        let mut acked = ack.delivered_packets(mss);
        if self.core.in_slow_start() {
            acked = self.core.slow_start_packets(acked);
            if acked == 0 {
                return Growth::SlowStart;
            }
        }
        let cwnd = self.core.cwnd_packets();
        self.update(jiffies::jiffies(ack.now), cwnd);
        self.core.cong_avoid_ai(self.cnt, acked);
        Growth::Avoidance { linear: cwnd <= LOW_WINDOW }
    }
    /// `tcp_init_cwnd_reduction` with `bictcp_recalc_ssthresh`.
    fn on_congestion_event(&mut self, _now: SimTime, _flight: u64) {
        self.reduce_for_recovery();
    }
    /// `tcp_enter_loss`: ssthresh when the sender reduces (`first_timeout`), cwnd one
    /// segment, then `bictcp_state(TCP_CA_Loss)` resets BIC.
    fn on_rto(&mut self, _now: SimTime, _flight: u64, first_timeout: bool) {
        self.reduce_for_loss(first_timeout);
    }
    /// `CA_EVENT_COMPLETE_CWR`: BIC has no `cwnd_event`; the next ACK finds Open.
    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.acks.recovery_exit();
    }
}

impl SsthreshHook for Bic {
    /// `bictcp_recalc_ssthresh`: W_max as CUBIC's (`cubic_curve::at_loss`, with fast
    /// convergence), `loss_cwnd` = cwnd; ssthresh = β·cwnd, or cwnd/2 at or below
    /// `low_window`, at least 2.
    fn ssthresh_hook(&mut self) -> u32 {
        let cwnd = self.core.cwnd_packets();
        let ssthresh;
        (self.last_max_cwnd, ssthresh) = at_loss(self.last_max_cwnd, cwnd, BETA);
        self.loss_cwnd = cwnd;
        if cwnd <= LOW_WINDOW {
            (cwnd >> 1).max(2)
        } else {
            ssthresh
        }
    }
    /// `bictcp_reset`; the next ACK finds Loss.
    fn reset_state(&mut self) {
        self.cnt = 0;
        self.last_max_cwnd = 0;
        self.loss_cwnd = 0;
        self.last_cwnd = 0;
        self.last_time = 0;
        self.acks.enter_loss();
    }
}

#[cfg(test)]
#[path = "bic_tests.rs"]
mod tests;
