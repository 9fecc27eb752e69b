//! The part of CUBIC's `struct bictcp` that every Linux module version keeps
//! (`net/ipv4/tcp_cubic.c`), and what every version does with it alike: `bictcp_update`'s
//! rate limit and epoch start, the TCP-friendly cap, the delay sample's 1 s guard,
//! `bictcp_recalc_ssthresh` and `bictcp_reset`. `cubic.rs` (today's module) and
//! `cubic_2_6_24.rs` (module 2.1) hold one each and differ around it: in what they count
//! (segments or ACKs), the floors and caps on `cnt`, and the fields of their own.

use super::cubic_curve::{at_loss, epoch, reno_estimate};
use crate::tcp::jiffies::{self, HZ};

/// The fields of `struct bictcp` common to every module version; all 0 (`None`) after
/// `bictcp_reset`.
#[derive(Clone, Debug, Default)]
pub(super) struct Bictcp {
    /// Units (segments or ACKs) to count per segment of growth (`cnt`).
    pub(super) cnt: u32,
    /// W_max, segments (`last_max_cwnd`); 0 before the first reduction.
    pub(super) last_max_cwnd: u32,
    /// cwnd and jiffies when `cnt` was last computed (`last_cwnd`, `last_time`).
    pub(super) last_cwnd: u32,
    pub(super) last_time: u32,
    /// W_max of the curve (`bic_origin_point`).
    pub(super) origin_point: u32,
    /// K, 1/1024 s (`bic_K`).
    pub(super) k: u32,
    /// Smallest RTT sample, in the module's unit; 0 before any (`delay_min`).
    pub(super) delay_min: u32,
    /// Jiffies when the epoch began; `None` between a reduction and the next congestion
    /// avoidance (the kernel's `epoch_start == 0`).
    pub(super) epoch_start: Option<u32>,
    /// Units counted towards Reno's estimate (`ack_cnt`).
    pub(super) ack_cnt: u32,
    /// Reno's estimate of its window, segments (`tcp_cwnd`).
    pub(super) tcp_cwnd: u32,
    /// Reno's estimate paces the `cnt` in force (`friendly_cap`): rtolab's, not the kernel's,
    /// what `on_ack` reports as linear growth.
    pub(super) friendly: bool,
}

impl Bictcp {
    /// `bictcp_update`'s first step: `units` (segments or one ACK) counted in `ack_cnt`;
    /// true when `cnt` stays as it is, cwnd being unchanged since it was computed at most
    /// HZ/32 jiffies ago.
    pub(super) fn count_and_hold(&mut self, now_j: u32, cwnd: u32, units: u32) -> bool {
        self.ack_cnt = self.ack_cnt.wrapping_add(units);
        self.last_cwnd == cwnd && jiffies::elapsed(now_j, self.last_time) <= (HZ / 32) as i32
    }

    /// `bictcp_update` recomputing `cnt` for `cwnd` at `now_j`: returns the epoch's start,
    /// beginning one now if none runs. A new epoch counts `units` towards Reno's estimate,
    /// which starts from cwnd; the curve passes through cwnd and has its plateau at W_max,
    /// K on (or starts there if cwnd ≥ W_max).
    pub(super) fn recompute(&mut self, now_j: u32, cwnd: u32, units: u32) -> u32 {
        self.last_cwnd = cwnd;
        self.last_time = now_j;
        if let Some(e) = self.epoch_start {
            return e;
        }
        self.epoch_start = Some(now_j);
        self.ack_cnt = units;
        self.tcp_cwnd = cwnd;
        (self.k, self.origin_point) = epoch(self.last_max_cwnd, cwnd);
        now_j
    }

    /// The TCP-friendly bound: Reno's estimate `tcp_cwnd` gains a segment per
    /// cwnd·`beta_scale`/8 units counted; when it is ahead of cwnd, `cnt` is at most
    /// cwnd / (tcp_cwnd − cwnd); then `cnt` is at least `floor`.
    ///
    /// Returns whether Reno's estimate paces the window: its cap (after the floor) is below
    /// the `cnt` asked for, counting an estimate level with cwnd as the cap its next step
    /// sets, cwnd / 1. Level with cwnd it caps nothing yet, but the units counted meanwhile
    /// under a flatter curve stay in `snd_cwnd_cnt` and are paid out as growth as soon as it
    /// steps ahead, so cwnd keeps to the estimate's pace: only the ACK of each step would see
    /// `cnt` lowered, most of the regime's ACKs would not.
    pub(super) fn friendly_cap(&mut self, cwnd: u32, friendly_scale: u32, floor: u32) -> bool {
        let asked = self.cnt;
        let cap = reno_estimate(&mut self.ack_cnt, &mut self.tcp_cwnd, cwnd, friendly_scale);
        if let Some(max_cnt) = cap {
            self.cnt = self.cnt.min(max_cnt);
        }
        self.cnt = self.cnt.max(floor);
        cap.or((self.tcp_cwnd == cwnd).then_some(cwnd)).is_some_and(|c| c.max(floor) < asked)
    }

    /// The delay sample of `*_acked`: ignored within 1 s of an epoch's start (right after a
    /// reduction the queue is still draining), else `delay_min` keeps the smallest. Whether
    /// the sample was taken.
    pub(super) fn delay_sample(&mut self, now_j: u32, delay: u32) -> bool {
        if self.epoch_start.is_some_and(|e| jiffies::elapsed(now_j, e) < HZ as i32) {
            return false;
        }
        if self.delay_min == 0 || self.delay_min > delay {
            self.delay_min = delay;
        }
        true
    }

    /// `bictcp_recalc_ssthresh` at the window `cwnd`: the epoch ends, W_max and ssthresh as
    /// `cubic_curve::at_loss` says for `beta`; returns ssthresh.
    pub(super) fn at_loss(&mut self, cwnd: u32, beta: u32) -> u32 {
        self.epoch_start = None;
        let ssthresh;
        (self.last_max_cwnd, ssthresh) = at_loss(self.last_max_cwnd, cwnd, beta);
        ssthresh
    }

    /// `bictcp_reset`: every field 0.
    pub(super) fn reset(&mut self) {
        *self = Bictcp::default();
    }
}
