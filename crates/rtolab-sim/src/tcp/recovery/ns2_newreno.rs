//! ns-2.35's `Agent/TCP/Newreno` fast recovery (`tcp/tcp-newreno.cc`, with `tcp-reno.cc`):
//! window inflation kept apart from cwnd in `dupwnd_`.
//!
//! - Entry (`dupack_action`): cwnd = min(cwnd, window_)/2 as a double
//!   (`slowdown(CLOSE_CWND_HALF)`), `dupwnd_ = 3`; the sender may have
//!   int(cwnd_) + `dupwnd_` packets outstanding (`window()`).
//! - Each further duplicate ACK: `dupwnd_ += 1`.
//! - Partial ACK (`partialnewack`, `partial_window_deflation_` 1): with d the packets
//!   acknowledged, `dupwnd_ −= d − 1` if `dupwnd_ > d`, else cwnd −= d − `dupwnd_` and
//!   `dupwnd_ = 1`; the next hole is resent; only the first partial ACK restarts the timer
//!   (`newreno_changes1_` 1, the "impatient" variant).
//! - While in recovery at most 2 packets go out per ACK (`send_much(0, 0, 2)`).
//! - Exit on an ACK of the recovery point: `dupwnd_ = 0`, cwnd left as it is
//!   (`exit_recovery_fix_` 0), and that ACK grows it (`opencwnd`).

use super::{Entry, LossRecovery, PartialAck, Transmit, Window};

#[derive(Clone, Copy, Debug, Default)]
pub struct Ns2NewReno {
    /// `dupwnd_`, in packets.
    dupwnd: u64,
    partial_ack_seen: bool,
}

impl LossRecovery for Ns2NewReno {
    fn enter(&mut self, _w: Window, dupthresh: u64) -> Entry {
        self.dupwnd = dupthresh;
        self.partial_ack_seen = false;
        Entry::HalveWindow
    }
    fn on_dupack(&mut self, _w: Window) -> Option<u64> {
        self.dupwnd += 1;
        None
    }
    fn on_partial_ack(&mut self, w: Window, acked: u64) -> PartialAck {
        let d = acked.div_ceil(w.mss);
        let mut shrink = 0;
        if self.dupwnd > d {
            self.dupwnd -= d - 1;
        } else {
            shrink = (d - self.dupwnd) * w.mss;
            self.dupwnd = 1;
        }
        let first = !self.partial_ack_seen;
        self.partial_ack_seen = true;
        PartialAck { exit: false, retransmit_una: true, cwnd: None, shrink, restart_timer: first, clear_backoff: false }
    }
    fn exit_cwnd(&self, _w: Window) -> Option<u64> {
        None
    }
    fn on_exit(&mut self) {
        self.dupwnd = 0;
    }
    fn extra_window(&self, mss: u64) -> u64 {
        self.dupwnd * mss
    }
    fn burst_limit(&self) -> Option<u32> {
        Some(2)
    }
    fn grows_on_exit(&self) -> bool {
        true
    }
    fn transmit(&self) -> Transmit {
        Transmit::Window
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: entry dupwnd 3; two more duplicates → 5; a partial ACK of 2 packets →
    /// dupwnd 5 − (2 − 1) = 4, cwnd untouched; a partial ACK of 6 packets → cwnd shrinks by
    /// 6 − 4 = 2 packets, dupwnd 1; only the first partial ACK restarts the timer.
    #[test]
    fn dupwnd_by_hand() {
        let mut r = Ns2NewReno::default();
        let w = Window { cwnd: 10_000, ssthresh: 5000, mss: 1000, flight: 20_000 };
        assert_eq!(r.enter(w, 3), Entry::HalveWindow);
        r.on_dupack(w);
        r.on_dupack(w);
        assert_eq!(r.extra_window(1000), 5000);
        let p = r.on_partial_ack(w, 2000);
        assert_eq!((p.shrink, p.restart_timer, r.extra_window(1000)), (0, true, 4000));
        let p = r.on_partial_ack(w, 6000);
        assert_eq!((p.shrink, p.restart_timer, r.extra_window(1000)), (2000, false, 1000));
        r.on_exit();
        assert_eq!(r.extra_window(1000), 0);
    }
}
