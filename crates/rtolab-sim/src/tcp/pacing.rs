//! Linux's internal pacing (`tcp_output.c`), which a congestion control that asks for
//! pacing (BBR: `sk_pacing_status = SK_PACING_NEEDED`) gets when no fq qdisc paces for it:
//! every transmission moves the earliest departure time `tcp_wstamp_ns` on by its length at
//! the pacing rate (`tcp_update_skb_after_send`), and the write loop stops while that time
//! lies ahead (`tcp_pacing_check`), to be woken by the pacing timer then.
//!
//! The kernel paces TSO packets of `tso_segs` segments; rtolab sends segments, so a burst of
//! up to `tso_segs` segments leaves together once the departure time has come, each adding
//! its own length to it. Invariant: `wstamp_ns` never decreases.

use crate::time::SimTime;

/// Sent data segments before which nothing is paced ("Original sch_fq does not pace first
/// 10 MSS", `tcp_update_skb_after_send`).
const UNPACED_SEGMENTS: u64 = 10;

#[derive(Clone, Debug, Default)]
pub struct Pacer {
    /// `tcp_wstamp_ns`: the earliest departure time of the next packet.
    wstamp_ns: u64,
    /// `tp->data_segs_out`.
    data_segs_out: u64,
    /// Segments the current burst (one TSO packet) may still send.
    burst_left: u32,
    /// The write loop stopped on the departure time with data to send: the pacing timer is
    /// armed (`hrtimer_start(&tp->pacing_timer, …)`).
    waiting: bool,
}

impl Pacer {
    /// `tcp_pacing_check`: may a segment leave now? A burst of `tso_segs` segments opens
    /// when the departure time has come; while one is open its segments go at once.
    pub fn may_send(&mut self, now: SimTime, tso_segs: u32) -> bool {
        if self.burst_left > 0 {
            return true;
        }
        if self.wstamp_ns > now.0 {
            self.waiting = true;
            return false;
        }
        self.burst_left = tso_segs.max(1);
        true
    }

    /// `__tcp_transmit_skb` then `tcp_update_skb_after_send` for a segment of `len` bytes
    /// (`data`: it carries payload) at `rate` bytes/s: the departure time is at least now,
    /// then moves on by the segment's time at the rate, less up to half of it as credit for
    /// lateness ("take into account OS jitter").
    pub fn on_send(&mut self, now: SimTime, len: u64, data: bool, rate: u64) {
        self.burst_left = self.burst_left.saturating_sub(1);
        let prior = self.wstamp_ns;
        self.wstamp_ns = self.wstamp_ns.max(now.0);
        if data {
            self.data_segs_out += 1;
        }
        if rate == 0 || self.data_segs_out < UNPACED_SEGMENTS {
            return;
        }
        let mut len_ns = (len as u128 * 1_000_000_000 / rate as u128) as u64;
        let credit = self.wstamp_ns - prior;
        len_ns -= (len_ns / 2).min(credit);
        self.wstamp_ns += len_ns;
    }

    /// Ends the current burst: the next segment waits for the departure time (the write
    /// loop ended; a new one starts a new packet).
    pub fn end_burst(&mut self) {
        self.burst_left = 0;
    }

    /// When the pacing timer fires, if the write loop waits for it.
    pub fn wakeup(&self) -> Option<SimTime> {
        self.waiting.then_some(SimTime(self.wstamp_ns))
    }

    /// The pacing timer fired (`tcp_pace_kick`): the write loop runs again.
    pub fn fired(&mut self) {
        self.waiting = false;
    }

    /// How far the departure time lies ahead of `now`, in µs (`bbr_packets_in_net_at_edt`).
    pub fn ahead_us(&self, now: SimTime) -> u64 {
        self.wstamp_ns.saturating_sub(now.0) / 1000
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    /// 1000-byte segments at 1 MB/s take 1 ms each: past the first ten (unpaced), each
    /// moves the departure time 1 ms on; a segment sent late gets up to half its time as
    /// credit (here 0.5 ms, the lateness being 3 ms).
    #[test]
    fn departure_time_moves_by_length_over_rate_with_credit() {
        let mut p = Pacer::default();
        let t0 = SimTime::ZERO;
        for _ in 0..9 {
            assert!(p.may_send(t0, 1));
            p.on_send(t0, 1000, true, 1_000_000);
        }
        assert_eq!(p.wstamp_ns, 0, "the first nine are not paced");
        assert!(p.may_send(t0, 1));
        p.on_send(t0, 1000, true, 1_000_000);
        assert_eq!(p.wstamp_ns, 1_000_000);
        assert!(!p.may_send(t0, 1));
        assert_eq!(p.wakeup(), Some(SimTime(1_000_000)));
        let late = t0 + SimDuration::from_millis(4);
        p.fired();
        assert!(p.may_send(late, 1));
        p.on_send(late, 1000, true, 1_000_000);
        assert_eq!(p.wstamp_ns, 4_000_000 + 500_000);
    }

    /// A burst of `tso_segs` leaves at once, then the loop waits for the time all of them
    /// moved the departure time by.
    #[test]
    fn a_burst_goes_together() {
        let mut p = Pacer { data_segs_out: 10, ..Pacer::default() };
        let t0 = SimTime::ZERO;
        for _ in 0..2 {
            assert!(p.may_send(t0, 2));
            p.on_send(t0, 1000, true, 1_000_000);
        }
        assert!(!p.may_send(t0, 2));
        assert_eq!(p.wakeup(), Some(SimTime(2_000_000)));
    }
}
