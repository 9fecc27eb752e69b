//! Westwood+ as Linux 6.x runs it (`net/ipv4/tcp_westwood.c`): Reno's growth, and after a
//! loss a window from the measured bandwidth instead of a blind halving.
//!
//! Bandwidth: the bytes acknowledged are summed (`bk`) over a window of at least one RTT and
//! never shorter than 50 ms (`TCP_WESTWOOD_RTT_MIN`); when it closes, bk / length is one
//! sample, smoothed twice by x ← (7x + s)/8 (`westwood_do_filter`; the first sample fills both
//! filters). Counted per ACK (`tcp_westwood_ack`): normally the advance of SND.UNA; on an ACK
//! the kernel handles in its slow path (here: one carrying SACK information) by
//! `westwood_acked_count` — a duplicate ACK counts one segment and is remembered
//! (`accounted`), a cumulative ACK of more than a segment counts what it acknowledged less
//! what duplicates already counted. The RTT is the last sample, in jiffies; RTT_min its
//! minimum, restarted by the first sample after a timeout; both start at 20 s
//! (`TCP_WESTWOOD_INIT_RTT`).
//!
//! Window: Reno's (`tcp_reno_cong_avoid`, `tcp_reno_ssthresh` on entering recovery), except
//! that ssthresh = max(BWE·RTT_min/mss, 2) segments when fast recovery completes
//! (`CA_EVENT_COMPLETE_CWR`, cwnd too) and on a timeout (`CA_EVENT_LOSS`). Integer
//! arithmetic as the kernel's: BWE in bytes per jiffy (HZ = 1000: bytes/ms), on the Linux
//! packet window whatever the stack's `window_arith` says.
//!
//! Linux 2.6.24's module (`tcp_westwood.c` of the 2.6.24 tree) estimates the same way; its
//! `cong_avoid` is 2.6.24's `tcp_reno_cong_avoid`, which counts ACKs (`tcp_abc` 0): the
//! window's `ack_counting`. It sets ssthresh = BWE·RTT_min on a timeout through
//! `CA_EVENT_FRTO`, which 2.6.24 sends when a timeout starts F-RTO (`tcp_enter_frto`), and
//! ignores `CA_EVENT_LOSS`: a timeout that does not start F-RTO (`tcp_use_frto` false) kept
//! `tcp_reno_ssthresh` there, where rtolab sets BWE·RTT_min on every first timeout.

use crate::tcp::jiffies::{self, HZ};
use super::{AckSample, CongestionControl, Growth, WindowCore};
use crate::time::SimTime;

/// `TCP_WESTWOOD_RTT_MIN`: a bandwidth sample spans at least 50 ms.
const RTT_MIN: u32 = HZ / 20;
/// `TCP_WESTWOOD_INIT_RTT`: 20 s.
const INIT_RTT: u32 = 20 * HZ;

/// Westwood+'s state (`struct westwood`) and its window.
#[derive(Clone, Debug)]
pub struct Westwood {
    core: WindowCore,
    /// First filter stage, bytes per jiffy (`bw_ns_est`).
    bw_ns_est: u32,
    /// The bandwidth estimate, bytes per jiffy (`bw_est`).
    bw_est: u32,
    /// Jiffies when the current sampling window began (`rtt_win_sx`).
    rtt_win_sx: u32,
    /// Bytes counted in the current window (`bk`).
    bk: u32,
    /// SND.UNA when last counted (`snd_una`).
    snd_una: u64,
    /// Segments' worth of bytes counted for duplicate ACKs, not yet taken off a cumulative
    /// ACK (`accounted`).
    accounted: u32,
    /// Last RTT sample and its minimum, jiffies (`rtt`, `rtt_min`).
    rtt: u32,
    rtt_min: u32,
    /// The next count starts from the SND.UNA it sees (`first_ack`).
    first_ack: bool,
    /// The next RTT sample replaces RTT_min (`reset_rtt_min`).
    reset_rtt_min: bool,
    /// Bytes SACKed above SND.UNA: while there are any, the receiver's ACKs carry SACK blocks
    /// and the kernel handles them in its slow path.
    sacked_above_una: u64,
    /// The connection has sent data (`tcp_westwood_init` ran).
    started: bool,
}

impl Westwood {
    pub fn new(core: WindowCore) -> Self {
        Westwood {
            core: core.into_linux(),
            bw_ns_est: 0,
            bw_est: 0,
            rtt_win_sx: 0,
            bk: 0,
            snd_una: 0,
            accounted: 0,
            rtt: INIT_RTT,
            rtt_min: INIT_RTT,
            first_ack: true,
            reset_rtt_min: true,
            sacked_above_una: 0,
            started: false,
        }
    }

    /// The bandwidth estimate in bytes per second.
    pub fn bandwidth(&self) -> u64 {
        self.bw_est as u64 * HZ as u64
    }

    /// `westwood_filter`.
    fn filter(&mut self, delta: u32) {
        let sample = self.bk / delta;
        if self.bw_ns_est == 0 && self.bw_est == 0 {
            self.bw_ns_est = sample;
            self.bw_est = sample;
        } else {
            self.bw_ns_est = smooth(self.bw_ns_est, sample);
            self.bw_est = smooth(self.bw_est, self.bw_ns_est);
        }
    }

    /// `westwood_update_window`: closes the sampling window once it is longer than both the
    /// RTT and 50 ms.
    fn update_window(&mut self, now_j: u32, snd_una: u64) {
        let delta = now_j.wrapping_sub(self.rtt_win_sx);
        if self.first_ack {
            self.snd_una = snd_una;
            self.first_ack = false;
        }
        if self.rtt != 0 && delta > self.rtt.max(RTT_MIN) {
            self.filter(delta);
            self.bk = 0;
            self.rtt_win_sx = now_j;
        }
    }

    /// `westwood_acked_count`: the bytes an ACK in the slow path stands for.
    fn acked_count(&mut self, snd_una: u64) -> u32 {
        let mss = self.core.mss as u32;
        let mut cumul_ack = snd_una.wrapping_sub(self.snd_una) as u32;
        if cumul_ack == 0 {
            self.accounted = self.accounted.wrapping_add(mss);
            cumul_ack = mss;
        }
        if cumul_ack > mss {
            if self.accounted >= cumul_ack {
                self.accounted -= cumul_ack;
                cumul_ack = mss;
            } else {
                cumul_ack -= self.accounted;
                self.accounted = 0;
            }
        }
        self.snd_una = snd_una;
        cumul_ack
    }

    /// `update_rtt_min`.
    fn update_rtt_min(&mut self) {
        if self.reset_rtt_min {
            self.rtt_min = self.rtt;
            self.reset_rtt_min = false;
        } else {
            self.rtt_min = self.rtt_min.min(self.rtt);
        }
    }

    /// `tcp_westwood_bw_rttmin`: BWE·RTT_min in segments, at least 2.
    fn bw_rttmin(&self) -> u32 {
        (self.bw_est.wrapping_mul(self.rtt_min) / self.core.mss as u32).max(2)
    }
}

/// `westwood_do_filter`: (7a + b)/8.
fn smooth(a: u32, b: u32) -> u32 {
    (7u32.wrapping_mul(a).wrapping_add(b)) >> 3
}

impl CongestionControl for Westwood {
    fn core(&self) -> &WindowCore {
        &self.core
    }
    fn core_mut(&mut self) -> &mut WindowCore {
        &mut self.core
    }
    /// In the kernel's order: `tcp_westwood_pkts_acked` (the RTT sample), then
    /// `tcp_westwood_ack` (the count, slow path when SACK information is on the ACK), then
    /// `tcp_reno_cong_avoid` when `tcp_may_raise_cwnd` and `tcp_is_cwnd_limited` allow: by
    /// the segments delivered, or with `ack_counting` once per ACK as Linux 2.6.24's module
    /// (its `cong_avoid` is 2.6.24's `tcp_reno_cong_avoid`, `tcp_abc` 0). Reno's growth:
    /// every congestion-avoidance ACK is linear.
    fn on_ack(&mut self, ack: &AckSample) -> Growth {
        if let Some(rtt_us) = ack.rtt_us().filter(|&r| r > 0) {
            self.rtt = jiffies::usecs_to_jiffies(rtt_us);
        }
        let flight_after = ack.snd_max.saturating_sub(ack.snd_una);
        self.sacked_above_una = (self.sacked_above_una + ack.delivered).saturating_sub(ack.acked_bytes).min(flight_after);
        let slow_path = ack.sacked_bytes > 0 || self.sacked_above_una > 0;
        let now_j = jiffies::jiffies(ack.now);
        self.update_window(now_j, ack.snd_una);
        let counted = if slow_path { self.acked_count(ack.snd_una) } else { ack.snd_una.wrapping_sub(self.snd_una) as u32 };
        self.snd_una = ack.snd_una;
        self.bk = self.bk.wrapping_add(counted);
        self.update_rtt_min();
        if !(ack.acked_bytes > 0 && ack.cwnd_limited && ack.state.grows_window()) {
            return Growth::Held;
        }
        if self.core.counts_acks() {
            self.core.reno_cong_avoid_per_ack()
        } else {
            self.core.reno_cong_avoid(ack.delivered_packets(self.core.mss))
        }
    }
    /// `tcp_init_cwnd_reduction` with `tcp_reno_ssthresh`.
    fn on_congestion_event(&mut self, _now: SimTime, flight: u64) {
        self.core.begin_reduction();
        self.core.halve(flight);
    }
    /// `tcp_enter_loss`: when the sender reduces (`first_timeout`), `tcp_reno_ssthresh` and
    /// then `CA_EVENT_LOSS`, which sets ssthresh = BWE·RTT_min and restarts RTT_min; cwnd
    /// one segment.
    fn on_rto(&mut self, _now: SimTime, flight: u64, first_timeout: bool) {
        if first_timeout {
            self.core.halve(flight);
            let ssthresh = self.bw_rttmin();
            self.core.set_ssthresh_packets(ssthresh);
            self.reset_rtt_min = true;
        }
        self.core.loss_window();
    }
    /// Linux 2.6.24's `min_cwnd` hook, `tcp_westwood_bw_rttmin`: rate halving goes down to
    /// BWE·RTT_min.
    fn min_cwnd(&self) -> u64 {
        self.bw_rttmin() as u64 * self.core.mss
    }
    /// `CA_EVENT_COMPLETE_CWR`: ssthresh = cwnd = BWE·RTT_min.
    fn on_recovery_exit(&mut self, _now: SimTime) {
        let w = self.bw_rttmin();
        self.core.set_ssthresh_packets(w);
        self.core.set_cwnd_packets(w);
    }
    /// The connection's first data: `tcp_westwood_init` starts the first sampling window.
    fn on_tx_start(&mut self, now: SimTime, _last_send: SimTime) {
        if !self.started {
            self.started = true;
            self.rtt_win_sx = jiffies::jiffies(now);
        }
    }
}

#[cfg(test)]
#[path = "westwood_tests.rs"]
mod tests;
