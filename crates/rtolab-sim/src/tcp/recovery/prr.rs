//! Proportional Rate Reduction (RFC 6937, as Linux `tcp_cwnd_reduction` runs it): during
//! fast recovery the window follows the data delivered, so that by the end of recovery the
//! sender has sent ssthresh/RecoverFS of what was delivered (proportional part), and once
//! the data in flight is at or below ssthresh it climbs back no faster than slow start
//! (PRR-SSRB). What is sent is chosen as in RFC 6675 (the scoreboard's NextSeg).
//!
//! Counted in segments, as Linux does (`prior_cwnd`, `prr_delivered`, `prr_out`):
//! - pipe > ssthresh: sndcnt = ⌈ssthresh · prr_delivered / prior_cwnd⌉ − prr_out;
//! - otherwise: sndcnt = min(ssthresh − pipe, max(prr_delivered − prr_out, delivered) + 1),
//!   the + 1 only when SND.UNA advanced and the ACK revealed no new loss;
//! - at least 1 while nothing was sent yet (the fast retransmit), then cwnd = pipe + sndcnt.
//!
//! At the end of recovery cwnd = ssthresh (`tcp_end_cwnd_reduction`).

use super::by_delivery::ByDelivery;
use super::{Reduction, Window};

#[derive(Clone, Copy, Debug, Default)]
pub struct Prr {
    prior_cwnd: u64,
    delivered: u64,
    out: u64,
}

/// Everything but the window per ACK is RFC 6675's (`by_delivery.rs`), the exit window
/// included.
impl ByDelivery for Prr {
    /// Linux `tcp_init_cwnd_reduction`: the window stays; `prior_cwnd` is remembered.
    fn begin(&mut self, w: Window) {
        *self = Prr { prior_cwnd: (w.cwnd / w.mss).max(1), delivered: 0, out: 0 };
    }
    fn count_sent(&mut self, bytes: u64, mss: u64) {
        self.out += bytes.div_ceil(mss);
    }
    /// Linux `tcp_ack`: `tcp_fastretrans_alert` leaves Recovery (`tcp_try_undo_recovery`,
    /// `tcp_end_cwnd_reduction`) before `tcp_cong_control`, which then grows the window in
    /// Open (`tcp_may_raise_cwnd`) by what the ACK delivered (kernel 6.18: CUBIC's cwnd 7
    /// becomes 8 on the ACK that ends a recovery from 10).
    fn grows_when_done(&self) -> bool {
        true
    }
    fn window_after(&mut self, w: Window, r: Reduction) -> Option<u64> {
        let mss = w.mss;
        let delivered = r.delivered.div_ceil(mss);
        if delivered == 0 {
            return None;
        }
        self.delivered += delivered;
        let ssthresh = w.ssthresh / mss;
        let pipe = r.pipe.div_ceil(mss);
        let mut sndcnt = if pipe > ssthresh {
            (ssthresh * self.delivered).div_ceil(self.prior_cwnd) as i64 - self.out as i64
        } else {
            let bound = (self.delivered as i64 - self.out as i64).max(delivered as i64) + (r.una_advanced && !r.newly_lost) as i64;
            bound.min((ssthresh - pipe) as i64)
        };
        if self.out == 0 {
            sndcnt = sndcnt.max(1);
        }
        Some((pipe + sndcnt.max(0) as u64) * mss)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_windows::{reduction, w, MSS};
    use super::super::LossRecovery;
    use super::*;

    /// An ACK that delivers `delivered` segments, with `pipe` segments in flight after it.
    fn ack(delivered: u64, pipe: u64) -> Reduction {
        reduction(delivered, pipe, 0)
    }

    /// RFC 6937 appendix-style example by hand: cwnd 20, ssthresh 14 (β 0.7), one loss.
    /// Entry ACK delivers 1, pipe 18 (19 outstanding, 1 lost): ⌈14·1/20⌉ − 0 = 1 → cwnd 19;
    /// the fast retransmit goes (out 1). Next ACK: delivered 2, pipe 18: ⌈28/20⌉ − 1 = 1 →
    /// cwnd 19. After 10 ACKs delivered 10: ⌈140/20⌉ = 7 sent in all: the ratio 14/20.
    #[test]
    fn proportional_part_sends_ssthresh_over_prior_cwnd_of_what_is_delivered() {
        let mut p = Prr::default();
        p.enter(w(20, 14), 3);
        assert_eq!(p.reduce(w(20, 14), ack(1, 18)), Some(19 * MSS));
        p.sent_in_recovery(MSS, MSS);
        let mut sent = 1;
        for _ in 1..10 {
            let cwnd = p.reduce(w(20, 14), ack(1, 18)).unwrap() / MSS;
            let n = cwnd - 18;
            p.sent_in_recovery(n * MSS, MSS);
            sent += n;
        }
        assert_eq!(sent, 7);
    }

    /// Below ssthresh (pipe 4, ssthresh 10) after losing many: PRR-SSRB sends
    /// max(prr_delivered − prr_out, delivered) + 1 when SND.UNA advanced: 2 delivered, 2 out
    /// before → max(0, 2) + 1 = 3 → cwnd 7; without the advance, 2 → cwnd 6.
    #[test]
    fn slow_start_reduction_bound_below_ssthresh() {
        let mut p = Prr::default();
        p.enter(w(20, 10), 3);
        p.sent_in_recovery(2 * MSS, MSS);
        let mut p2 = p;
        assert_eq!(p.reduce(w(20, 10), Reduction { una_advanced: true, ..ack(2, 4) }), Some(7 * MSS));
        assert_eq!(p2.reduce(w(20, 10), ack(2, 4)), Some(6 * MSS));
    }
}
