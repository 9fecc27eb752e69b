//! Rate halving as Linux 2.6.24 ran it (`net/ipv4/tcp_input.c`): `tcp_cwnd_down`, called by
//! `tcp_fastretrans_alert` on every ACK in Recovery, and `tcp_complete_cwr` at its end.
//!
//! On entering recovery cwnd stays and the count `snd_cwnd_cnt` restarts at 0 (ssthresh is
//! the controller's). Then on each ACK that shows progress — it advanced SND.UNA, SACKed new
//! data or carried a DSACK (`FLAG_ANY_PROGRESS | FLAG_DSACKING_ACK`) — `decr = cnt + 1;
//! cnt = decr & 1; decr >>= 1`: every second such ACK takes one segment off cwnd while cwnd is
//! above `tcp_cwnd_min` (the controller's `min_cwnd`: ssthresh/2 for Reno, BWE·RTT_min for
//! Westwood+, else ssthresh), and every such ACK clamps cwnd to the packets in flight + 1
//! (`tcp_packets_in_flight`, here the scoreboard's pipe after loss marking). The entry ACK is
//! one of them, so it only clamps. The window thus falls by half a segment per ACK, sending
//! one segment per two ACKs until it reaches its floor, and never allows a burst. When the
//! recovery point is acknowledged cwnd = min(cwnd, ssthresh). What is sent is chosen as in
//! RFC 6675 (the scoreboard's NextSeg), nothing forces the fast retransmit: as
//! `tcp_xmit_retransmit_queue`, it goes when pipe < cwnd.
//!
//! Counted in segments, as the kernel. Read in Linux 2.6.24's `tcp_input.c` (annotated tree
//! `0x88888888/Linux2.6.24-comments`), and compared with a later 2.6 tree (2.6.28 or later:
//! `tcp_try_keep_open`, `tcp_update_scoreboard(sk, fast_rexmit)`), which has the same
//! `tcp_cwnd_down`, `tcp_cwnd_min`, `tcp_complete_cwr` and call order in
//! `tcp_fastretrans_alert`. Linux 3.2 replaced them by PRR (`prr.rs`).
//!
//! Needs SACK (without it 2.6.24 counted every duplicate ACK as progress, `tcp_is_reno`).
//! Not modelled: `tcp_moderate_cwnd` (cwnd ≤ in flight + 3 on the ACK that ends recovery and on
//! later dubious ACKs in Open and Disorder), a stack-wide 2.6.24 rule; the count left at the
//! end (0 or 1), which 2.6.24 shares with congestion avoidance's `snd_cwnd_cnt`; CWR (ECN,
//! and 2.6.24's answer to a spurious timeout), which rtolab has no state for.

use super::by_delivery::ByDelivery;
use super::{Reduction, Window};

#[derive(Clone, Copy, Debug, Default)]
pub struct RateHalving {
    /// Progress ACKs counted since the last decrement, 0 or 1 (`snd_cwnd_cnt`).
    cnt: u64,
}

/// Duplicate ACKs, partial ACKs and the choice of segments are RFC 6675's
/// (`by_delivery.rs`); the window per ACK and at the exit are 2.6.24's.
impl ByDelivery for RateHalving {
    /// `tcp_fastretrans_alert` entering Recovery: `snd_cwnd_cnt` = 0, cwnd as it was.
    fn begin(&mut self, _w: Window) {
        self.cnt = 0;
    }
    /// `tcp_complete_cwr`: cwnd = min(cwnd, ssthresh).
    fn window_at_exit(&self, w: Window) -> Option<u64> {
        Some(w.cwnd.min(w.ssthresh))
    }
    /// `tcp_cwnd_down`.
    fn window_after(&mut self, w: Window, r: Reduction) -> Option<u64> {
        if r.delivered == 0 && !r.una_advanced && !r.dsack {
            return None;
        }
        let mss = w.mss;
        let decr = self.cnt + 1;
        self.cnt = decr & 1;
        let decr = decr >> 1;
        let mut cwnd = w.cwnd / mss;
        if decr > 0 && cwnd > r.cwnd_min / mss {
            cwnd -= decr;
        }
        cwnd = cwnd.min(r.pipe.div_ceil(mss) + 1);
        Some(cwnd * mss)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_windows::{reduction, w, MSS};
    use super::super::{Entry, LossRecovery};
    use super::*;

    /// An ACK that SACKs one new segment, with `pipe` segments in flight after it and the
    /// controller's floor at `floor`.
    fn ack(pipe: u64, floor: u64) -> Reduction {
        reduction(1, pipe, floor)
    }

    /// Runs `n` progress ACKs from cwnd `cwnd` (pipe large enough not to clamp); the windows.
    fn halve(r: &mut RateHalving, cwnd: u64, ssthresh: u64, floor: u64, n: usize) -> Vec<u64> {
        let mut c = cwnd;
        (0..n)
            .map(|_| {
                c = r.reduce(w(c, ssthresh), ack(100, floor)).unwrap() / MSS;
                c
            })
            .collect()
    }

    /// CUBIC 2.6.24 (no `min_cwnd`: the floor is ssthresh): cwnd 20, ssthresh ⌊20·819/1024⌋
    /// = 15. The entry ACK counts 1 and takes nothing; then one segment per second ACK:
    /// 19 after the 2nd, 18 after the 4th … 15 after the 10th, and no lower.
    #[test]
    fn every_second_ack_takes_a_segment_down_to_ssthresh() {
        let mut r = RateHalving::default();
        assert_eq!(r.enter(w(20, 15), 3), Entry::Cwnd(20 * MSS));
        let cwnd = halve(&mut r, 20, 15, 15, 14);
        assert_eq!(cwnd, [20, 19, 19, 18, 18, 17, 17, 16, 16, 15, 15, 15, 15, 15]);
    }

    /// Reno (`tcp_reno_min_cwnd`, floor ssthresh/2): from cwnd 20, ssthresh 10, a recovery
    /// longer than a round goes on halving past ssthresh — 10 after 20 ACKs, 5 after 30 —
    /// and `tcp_complete_cwr` leaves min(cwnd, ssthresh) = 5 at the end. A shorter one that
    /// ends at cwnd 14 ends at 10.
    #[test]
    fn reno_halves_down_to_half_of_ssthresh() {
        let mut r = RateHalving::default();
        r.enter(w(20, 10), 3);
        let cwnd = halve(&mut r, 20, 10, 5, 40);
        assert_eq!((cwnd[19], cwnd[29], cwnd[39]), (10, 5, 5));
        assert_eq!(r.exit_cwnd(w(5, 10)), Some(5 * MSS));
        assert_eq!(r.exit_cwnd(w(14, 10)), Some(10 * MSS));
    }

    /// Every progress ACK clamps cwnd to in flight + 1: with 6 segments in flight cwnd 20
    /// becomes 7 on the entry ACK (one segment may go: the fast retransmit), whatever the
    /// count says.
    #[test]
    fn clamped_to_packets_in_flight_plus_one() {
        let mut r = RateHalving::default();
        r.enter(w(20, 15), 3);
        assert_eq!(r.reduce(w(20, 15), ack(6, 15)), Some(7 * MSS));
        assert_eq!(r.reduce(w(7, 15), ack(3, 15)), Some(4 * MSS));
    }

    /// An ACK with no progress (a duplicate that SACKs nothing new) changes nothing and is
    /// not counted; one that carries only a DSACK, or only moves SND.UNA over SACKed data,
    /// is progress.
    #[test]
    fn only_progress_counts() {
        let mut r = RateHalving::default();
        r.enter(w(20, 15), 3);
        let none = Reduction { delivered: 0, ..ack(100, 15) };
        assert_eq!(r.reduce(w(20, 15), none), None);
        assert_eq!(r.reduce(w(20, 15), none), None);
        assert_eq!(r.reduce(w(20, 15), Reduction { dsack: true, ..none }), Some(20 * MSS));
        assert_eq!(r.reduce(w(20, 15), Reduction { una_advanced: true, ..none }), Some(19 * MSS));
    }
}
