//! Reno window growth and reduction (RFC 5681, 3.1–3.2), in the arithmetic its `WindowCore`
//! was built with; in the Linux arithmetic it is `tcp_reno_cong_avoid`, `tcp_reno_ssthresh`
//! and `tcp_reno_undo_cwnd` (`net/ipv4/tcp_cong.c`), growing by the segments delivered as
//! today's kernel, or with `ack_counting` per ACK as Linux 2.6.24's `tcp_reno_cong_avoid`
//! with `tcp_abc` 0 (`WindowCore::reno_cong_avoid_per_ack`). How fast recovery treats
//! partial ACKs (Reno, NewReno, SACK) is loss recovery's business, not this file's.

use super::{AckSample, CongestionControl, Growth, WindowCore};
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct Reno {
    core: WindowCore,
}

impl Reno {
    pub fn new(core: WindowCore) -> Self {
        Reno { core }
    }
}

impl CongestionControl for Reno {
    fn core(&self) -> &WindowCore {
        &self.core
    }
    fn core_mut(&mut self) -> &mut WindowCore {
        &mut self.core
    }
    /// Grows only on new data acknowledged outside fast recovery, and only while the window
    /// limits the sender (RFC 7661; stacks without that rule pass `cwnd_limited = true`).
    /// Linux (`tcp_cong_control` → `tcp_may_raise_cwnd` → `tcp_reno_cong_avoid`): the same
    /// conditions (`FLAG_DATA_ACKED`, not in CWR or Recovery, `tcp_is_cwnd_limited`), then
    /// growth by the segments newly delivered, SACKed or acknowledged; with `ack_counting`
    /// one count per such ACK (Linux 2.6.24's `tcp_ack` → `tcp_cong_avoid` →
    /// `tcp_reno_cong_avoid`, the same conditions). Every congestion-avoidance ACK is linear
    /// growth.
    fn on_ack(&mut self, ack: &AckSample) -> Growth {
        if ack.acked_bytes == 0 || !ack.cwnd_limited || !ack.state.grows_window() {
            return Growth::Held;
        }
        if self.core.is_linux() {
            return if self.core.counts_acks() {
                self.core.reno_cong_avoid_per_ack()
            } else {
                self.core.reno_cong_avoid(ack.delivered_packets(self.core.mss))
            };
        }
        if self.core.in_slow_start() {
            self.core.slow_start(ack.acked_bytes);
            Growth::SlowStart
        } else {
            self.core.congestion_avoidance(ack.acked_bytes);
            Growth::Avoidance { linear: true }
        }
    }
    fn on_congestion_event(&mut self, _now: SimTime, flight: u64) {
        self.core.begin_reduction();
        self.core.halve(flight);
    }
    /// Linux 2.6.24 `tcp_reno_min_cwnd`: rate halving goes down to ssthresh/2 (whole
    /// segments in the Linux arithmetic).
    fn min_cwnd(&self) -> u64 {
        if self.core.is_linux() {
            (self.core.ssthresh_packets() / 2) as u64 * self.core.mss
        } else {
            self.core.ssthresh / 2
        }
    }
    /// RFC 5681 (4) and 3.1: "ssthresh is held constant" on a repeated timeout of the same
    /// segment (ns-2 halves again); cwnd becomes the loss window, one SMSS.
    fn on_rto(&mut self, _now: SimTime, flight: u64, first_timeout: bool) {
        if first_timeout || self.core.halves_every_timeout() {
            self.core.halve(flight);
        }
        self.core.loss_window();
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_acks::{at_ms, ms, Stream, MSS};
    use super::super::WindowArith;
    use super::*;
    use crate::tcp::state::LossState;

    fn linux_reno(iw: u64) -> (Reno, Stream) {
        let mut cc = Reno::new(WindowCore::new(MSS as u32, iw * MSS, WindowArith::Linux));
        let s = Stream::start(&mut cc, SimTime::ZERO);
        (cc, s)
    }

    /// Slow start grows by the segments delivered (`tcp_newly_delivered`), not per ACK: a
    /// delayed ACK of 2 segments 10 → 12; an ACK of 1 segment that also SACKs 2 new ones
    /// (3 delivered) 12 → 15. A duplicate that SACKs a segment acknowledges no new data
    /// (no `FLAG_DATA_ACKED`): no growth; nor when not cwnd-limited or in Recovery.
    #[test]
    fn linux_slow_start_by_delivered_segments() {
        let (mut cc, mut s) = linux_reno(10);
        s.ack(&mut cc, at_ms(1), 2, Some(ms(100)));
        assert_eq!(cc.cwnd(), 12 * MSS);
        let mut a = s.sample(at_ms(2), 1, Some(ms(100)));
        a.sacked_bytes = 2 * MSS;
        a.delivered = 3 * MSS;
        s.deliver(&mut cc, &a);
        assert_eq!(cc.cwnd(), 15 * MSS);
        let mut dup = s.sample(at_ms(3), 0, None);
        dup.sacked_bytes = MSS;
        dup.delivered = MSS;
        s.deliver(&mut cc, &dup);
        let mut idle = s.sample(at_ms(4), 1, None);
        idle.cwnd_limited = false;
        s.deliver(&mut cc, &idle);
        let mut recovery = s.sample(at_ms(5), 1, None);
        recovery.state = LossState::Recovery { point: u64::MAX };
        s.deliver(&mut cc, &recovery);
        assert_eq!(cc.cwnd(), 15 * MSS);
    }

    /// cwnd 9, ssthresh 10: an ACK delivering 3 takes cwnd to 10 and puts the 2 left over
    /// into congestion avoidance (w = 10); four more 2-segment ACKs make 10 counted: 11.
    #[test]
    fn linux_slow_start_leftover_goes_to_congestion_avoidance() {
        let (mut cc, mut s) = linux_reno(9);
        cc.set_ssthresh(10 * MSS);
        s.ack(&mut cc, at_ms(1), 3, None);
        assert_eq!(cc.cwnd(), 10 * MSS);
        for i in 0..4 {
            assert_eq!(cc.cwnd(), 10 * MSS);
            s.ack(&mut cc, at_ms(2 + i), 2, None);
        }
        assert_eq!(cc.cwnd(), 11 * MSS);
    }

    /// Linux 2.6.24 (`ack_counting`): `tcp_ack` calls `tcp_reno_cong_avoid` once per ACK of
    /// new data (`FLAG_DATA_ACKED`, not in Recovery, cwnd-limited), and with `tcp_abc` 0 it
    /// counts the ACK, not the segments: with an ACK every second segment, slow start goes
    /// from 10 to 15 after 10 segments acknowledged in 5 ACKs (today's kernel: 20); an ACK
    /// delivering 3 (1 acknowledged, 2 SACKed) adds one more, 16; a SACKing duplicate, an
    /// ACK when not cwnd-limited and one in Recovery add nothing. At cwnd = ssthresh = 16
    /// it is still slow start (cwnd ≤ ssthresh): 17. Then congestion avoidance: a segment on
    /// the 18th two-segment ACK (`snd_cwnd_cnt` reaches 17 on the 17th): 36 segments per
    /// segment of growth, where today's kernel needs 17.
    #[test]
    fn linux_2_6_24_grows_per_ack() {
        let mut cc = Reno::new(WindowCore::new(MSS as u32, 10 * MSS, WindowArith::Linux).with_ack_counting(true));
        let mut s = Stream::start(&mut cc, SimTime::ZERO);
        for i in 1..=5 {
            s.ack(&mut cc, at_ms(i), 2, Some(ms(100)));
        }
        assert_eq!(cc.cwnd(), 15 * MSS);
        let mut a = s.sample(at_ms(6), 1, Some(ms(100)));
        a.sacked_bytes = 2 * MSS;
        a.delivered = 3 * MSS;
        s.deliver(&mut cc, &a);
        assert_eq!(cc.cwnd(), 16 * MSS);
        let mut dup = s.sample(at_ms(7), 0, None);
        dup.sacked_bytes = MSS;
        dup.delivered = MSS;
        s.deliver(&mut cc, &dup);
        let mut idle = s.sample(at_ms(8), 2, None);
        idle.cwnd_limited = false;
        s.deliver(&mut cc, &idle);
        let mut recovery = s.sample(at_ms(9), 2, None);
        recovery.state = LossState::Recovery { point: u64::MAX };
        s.deliver(&mut cc, &recovery);
        assert_eq!(cc.cwnd(), 16 * MSS);

        cc.set_ssthresh(16 * MSS);
        s.ack(&mut cc, at_ms(10), 2, None);
        assert_eq!(cc.cwnd(), 17 * MSS);
        for i in 1..=17 {
            s.ack(&mut cc, at_ms(10 + i), 2, None);
            assert_eq!(cc.cwnd(), 17 * MSS, "ACK {i}");
        }
        s.ack(&mut cc, at_ms(28), 2, None);
        assert_eq!(cc.cwnd(), 18 * MSS);
    }

    /// Reno's congestion avoidance is linear on every ACK. Linux: at cwnd 8, ssthresh 10, a
    /// one-segment ACK is slow start (9); a three-segment one reaches 10 and leaves 2 to
    /// congestion avoidance; 2.6.24's per-ACK counting slow-starts at cwnd = ssthresh too,
    /// and RFC 5681's bytes arithmetic does not (cwnd < ssthresh).
    #[test]
    fn every_congestion_avoidance_ack_is_linear() {
        let linear = Growth::Avoidance { linear: true };
        let (mut cc, mut s) = linux_reno(8);
        cc.set_ssthresh(10 * MSS);
        assert_eq!(s.ack(&mut cc, at_ms(1), 1, None), Growth::SlowStart);
        assert_eq!((s.ack(&mut cc, at_ms(2), 3, None), cc.cwnd()), (linear, 10 * MSS));
        assert_eq!(s.ack(&mut cc, at_ms(3), 1, None), linear);

        let mut cc = Reno::new(WindowCore::new(MSS as u32, 10 * MSS, WindowArith::Linux).with_ack_counting(true));
        let mut s = Stream::start(&mut cc, SimTime::ZERO);
        cc.set_ssthresh(10 * MSS);
        assert_eq!(s.ack(&mut cc, at_ms(1), 2, None), Growth::SlowStart);
        assert_eq!(s.ack(&mut cc, at_ms(2), 2, None), linear);

        let mut cc = Reno::new(WindowCore::new(MSS as u32, 10 * MSS, WindowArith::Bytes));
        let mut s = Stream::start(&mut cc, SimTime::ZERO);
        cc.set_ssthresh(11 * MSS);
        assert_eq!(s.ack(&mut cc, at_ms(1), 1, None), Growth::SlowStart);
        assert_eq!(s.ack(&mut cc, at_ms(2), 1, None), linear);
        assert_eq!(s.ack(&mut cc, at_ms(3), 0, None), Growth::Held);
    }

    /// Entering recovery with cwnd 20 and 8 segments in flight: ssthresh = 20/2 = 10
    /// (`tcp_reno_ssthresh` reads cwnd), where RFC 5681 would give FlightSize/2 = 4.
    #[test]
    fn linux_ssthresh_from_cwnd() {
        let (mut cc, _) = linux_reno(20);
        cc.on_congestion_event(SimTime::ZERO, 8 * MSS);
        assert_eq!(cc.ssthresh(), 10 * MSS);
    }
}
