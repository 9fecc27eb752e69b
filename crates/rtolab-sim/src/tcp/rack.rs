//! RACK, time-based loss detection (RFC 8985 6.1–6.2 and Linux `net/ipv4/tcp_recovery.c`):
//! a segment is lost once a segment sent after it has been delivered and more than the
//! delivered one's RTT plus a reordering window has passed since it was sent. This also finds
//! lost retransmissions, which duplicate-ACK counting cannot.
//!
//! Kept here: the send time of every outstanding segment (segment k covers
//! [k·MSS, (k+1)·MSS), as on the scoreboard), and RACK's state: the send time and end of the
//! most recently sent segment known delivered (`RACK.xmit_ts`, `RACK.end_seq`), its RTT
//! (`RACK.rtt`), and the minimum RTT seen.
//!
//! Reordering window (Linux `tcp_rack_reo_wnd`): min(min_RTT/4, SRTT), or 0 once in
//! Recovery or Loss or once DupThresh segments are SACKed, as long as no reordering was seen
//! (RFC 8985 6.2 step 4: the DupThresh rule stays in force until reordering is observed).
//! Reordering is seen (Linux `tp->reord_seen`, `tcp_check_sack_reordering`) when a segment
//! never retransmitted is delivered, SACKed or cumulatively acknowledged, below the highest
//! SACKed one: rtolab's links never reorder, but a peer (a drill script) may, and a
//! cumulative ACK that fills a hole never resent says so.
//!
//! Invariant: `xmit[i]` is the latest send time of segment `base + i` and whether it was ever
//! sent more than once (Linux `TCPCB_EVER_RETRANS`); segments below `base` are cumulatively
//! acknowledged. The send times also give Linux's per-segment RTT samples (`sender/rtt.rs`).

use super::jiffies::{jiffies, HZ, JIFFY};
use super::minmax::WindowedFilter;
use super::scoreboard::{Geometry, Scoreboard};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// One outstanding segment's last send.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    /// Time of the latest transmission, in ns.
    pub at: u64,
    /// Sent more than once.
    pub retransmitted: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Rack {
    base: u64,
    xmit: VecDeque<Sent>,
    /// Send time (ns) and end of the most recently sent segment known delivered.
    delivered: Option<(u64, u64)>,
    /// RTT of the latest delivery, in ns (Linux `rack.rtt_us`).
    rtt: u64,
    /// The minimum RTT in ns over the last 300 s (Linux `tp->rtt_min`, `tcp_min_rtt`): none
    /// before the first sample.
    min_rtt: Option<WindowedFilter>,
    /// Until this time (ns) a sample worse than the filter's three choices changes nothing.
    min_rtt_quiet_until: u64,
    /// A delivery moved RACK's state since the last pass (Linux `rack.advanced`): ACKs that
    /// deliver nothing new run no pass.
    advanced: bool,
    /// Reordering was observed (Linux `tp->reord_seen`): the reordering window no longer
    /// drops to 0 in recovery or at DupThresh.
    reord_seen: bool,
    /// The largest reordering degree seen, in segments (`check_sack_reordering`).
    reordering: u64,
    /// How many of `xmit` were sent more than once: with none, send times rise with the
    /// sequence number.
    resent: usize,
}

/// Linux `sysctl_tcp_min_rtt_wlen`'s default, 300 s, in jiffies.
const MIN_RTT_WINDOW: u32 = 300 * HZ;

/// Linux `sysctl_tcp_max_reordering`'s default.
const MAX_REORDERING: u64 = 300;

/// What one loss-detection pass found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RackVerdict {
    /// Segments newly marked lost (including lost retransmissions).
    pub newly_lost: u64,
    /// Of those, retransmissions in flight found lost (Linux `FLAG_LOST_RETRANS`: `retrans_out`
    /// fell).
    pub lost_retransmissions: u64,
    /// Segments sent before the delivered one but still within the reordering window: check
    /// again after this long (Linux arms `ICSK_TIME_REO_TIMEOUT`).
    pub recheck_after: Option<SimDuration>,
}

impl Rack {
    /// A transmission (first or repeated) of the segment at `seq`.
    pub fn on_send(&mut self, seq: u64, now: SimTime, g: &Geometry) {
        let k = seq / g.mss;
        if self.xmit.is_empty() && k >= self.base {
            self.base = k;
        }
        let Some(i) = k.checked_sub(self.base).map(|i| i as usize) else { return };
        if i == self.xmit.len() {
            // The next new segment: the common case.
            self.xmit.push_back(Sent { at: now.0, retransmitted: false });
            return;
        }
        if i > self.xmit.len() {
            self.xmit.resize(i + 1, Sent { at: now.0, retransmitted: false });
        } else if !self.xmit[i].retransmitted {
            self.xmit[i].retransmitted = true;
            self.resent += 1;
        }
        self.xmit[i].at = now.0;
    }

    /// Forgets segments below the new cumulative ACK.
    pub fn advance(&mut self, snd_una: u64, g: &Geometry) {
        let k = snd_una / g.mss;
        while self.base < k {
            let Some(gone) = self.xmit.pop_front() else { break };
            self.resent -= gone.retransmitted as usize;
            self.base += 1;
        }
        if self.xmit.is_empty() {
            self.base = self.base.max(k);
        }
    }

    /// Every RTT sample the sender takes, at `now` (Linux `tcp_update_rtt_min`: a windowed
    /// minimum over `tcp_min_rtt_wlen`, 300 s, in jiffies; a sample of 0 counts as one
    /// jiffy). An ACK that may have been delayed (`FLAG_ACK_MAYBE_DELAYED`: it acknowledges
    /// one short segment and nothing else) is left out when above the minimum: "if the
    /// remote keeps returning delayed ACKs, eventually the min filter would pick it up".
    ///
    /// Most samples are worse than all three choices at a time the filter is quiet
    /// (`WindowedFilter::quiet_until`, kept here in ns): they change nothing and stop early.
    #[inline]
    pub fn on_rtt_sample(&mut self, now: SimTime, rtt: SimDuration, maybe_delayed: bool) {
        let r = match rtt.as_nanos() {
            0 => JIFFY.as_nanos(),
            r => r,
        };
        if let Some(m) = &self.min_rtt {
            if (maybe_delayed && r > m.get()) || (r > m.third() && now.0 < self.min_rtt_quiet_until) {
                return;
            }
        }
        self.update_min_rtt(now, r);
    }

    #[inline(never)]
    fn update_min_rtt(&mut self, now: SimTime, r: u64) {
        let t = jiffies(now);
        let m = self.min_rtt.get_or_insert_with(|| WindowedFilter::new(t, u64::MAX));
        m.running_min(MIN_RTT_WINDOW, t, r);
        self.min_rtt_quiet_until = m.quiet_until(MIN_RTT_WINDOW).saturating_mul(JIFFY.as_nanos());
    }

    /// The minimum RTT in ns (`tcp_min_rtt`), if any sample was taken.
    pub fn min_rtt(&self) -> Option<u64> {
        self.min_rtt.map(|m| m.get())
    }

    /// No outstanding segment was sent more than once, so a later segment was never sent
    /// earlier than a lower one.
    pub fn none_resent(&self) -> bool {
        self.resent == 0
    }

    /// The last send of segment `k`, if it is outstanding.
    pub fn sent(&self, k: u64) -> Option<Sent> {
        k.checked_sub(self.base).and_then(|i| self.xmit.get(i as usize)).copied()
    }

    /// RFC 8985 6.2 step 2 (Linux `tcp_rack_advance`): segment `k`, ending at `end`, was
    /// delivered (SACKed or cumulatively acknowledged) at `now`. A retransmitted segment
    /// whose RTT would be below the minimum RTT was delivered by an earlier transmission,
    /// so its send time says nothing.
    pub fn on_delivered(&mut self, k: u64, end: u64, retransmitted: bool, now: SimTime) {
        let Some(Sent { at: sent, .. }) = self.sent(k) else { return };
        self.on_delivered_at(SimTime(sent), end, retransmitted, now);
    }

    /// `on_delivered` for a segment sent at `sent_at` that the send records do not hold (a
    /// lone FIN, `sender/fin.rs`).
    pub fn on_delivered_at(&mut self, sent_at: SimTime, end: u64, retransmitted: bool, now: SimTime) {
        let sent = sent_at.0;
        let rtt = now.0.saturating_sub(sent);
        if retransmitted && self.min_rtt().is_some_and(|m| rtt < m) {
            return;
        }
        self.advanced = true;
        // RACK.rtt follows every delivery, RACK.xmit_ts only the most recently sent one
        // (Linux `tcp_rack_advance`).
        self.rtt = rtt;
        if self.delivered.is_none_or(|(xmit, last_end)| sent > xmit || (sent == xmit && end > last_end)) {
            self.delivered = Some((sent, end));
        }
    }

    /// Linux `tcp_check_sack_reordering` (from `tcp_sacktag_write_queue`, for a "new sack for
    /// not retransmitted frame, which was in hole", and from `tcp_clean_rtx_queue`,
    /// "non-retransmitted hole got filled"): segment `low` was delivered, never resent,
    /// below `fack`, one past the highest SACKed segment (`tcp_highest_sack_seq`). Reordering
    /// is seen, and its degree (`tp->reordering`, in segments) rises to `fack − low` when
    /// that is more, at most `tcp_max_reordering` (300).
    pub fn check_sack_reordering(&mut self, low: u64, fack: u64) {
        if low >= fack {
            return;
        }
        self.reordering = self.reordering.max((fack - low).min(MAX_REORDERING));
        self.reord_seen = true;
    }

    /// The reordering degree seen, in segments (0 when none; Linux `tp->reordering` is the
    /// larger of this and the `tcp_reordering` sysctl, the DupThresh).
    pub fn reordering(&self) -> u64 {
        self.reordering
    }

    /// Linux `tcp_rack_reo_wnd` (see the module doc; `reo_wnd_steps` stays 1: no DSACK
    /// widening).
    pub fn reordering_window(&self, in_recovery_or_loss: bool, sacked_segments: u64, dupthresh: u64, srtt: Option<SimDuration>) -> SimDuration {
        if !self.reord_seen && (in_recovery_or_loss || sacked_segments >= dupthresh) {
            return SimDuration::ZERO;
        }
        let quarter = self.min_rtt().unwrap_or(0) / 4;
        SimDuration(quarter.min(srtt.map_or(u64::MAX, |s| s.as_nanos())))
    }

    /// Whether a delivery moved RACK's state since the last call (and clears the flag).
    pub fn take_advanced(&mut self) -> bool {
        std::mem::take(&mut self.advanced)
    }

    /// RFC 8985 6.2 step 5 (Linux `tcp_rack_detect_loss`): marks lost, on the scoreboard,
    /// every segment in [`snd_una`, `snd_max`) that is neither SACKed nor already lost and
    /// unresent, was sent before the most recently delivered one, and has waited RACK.rtt +
    /// `reo_wnd` since it was sent.
    ///
    /// The walk stops at the first segment sent only once and not before the delivered one:
    /// first transmissions leave in sequence order, so every segment above it, sent once or
    /// again, was last sent no earlier than it (the kernel's list is sorted by send time and
    /// stops at the same point).
    pub fn detect_loss(&self, now: SimTime, reo_wnd: SimDuration, snd_una: u64, snd_max: u64, sb: &mut Scoreboard, g: &Geometry) -> RackVerdict {
        let mut verdict = RackVerdict::default();
        let Some((delivered_xmit, delivered_end)) = self.delivered else { return verdict };
        let mut wait = 0u64;
        let first = snd_una / g.mss;
        for (i, &Sent { at: sent, retransmitted }) in self.xmit.iter().enumerate().skip(first.saturating_sub(self.base) as usize) {
            let k = self.base + i as u64;
            let start = k * g.mss;
            if start >= snd_max {
                break;
            }
            let end = (start + g.mss).min(g.data_end);
            let sent_before = sent < delivered_xmit || (sent == delivered_xmit && end < delivered_end);
            if !sent_before && !retransmitted {
                break;
            }
            if !sent_before || sb.is_sacked_segment(k) || (sb.is_lost(k) && !sb.is_retransmitted(k)) {
                continue;
            }
            let deadline = sent + self.rtt + reo_wnd.as_nanos();
            if deadline <= now.0 {
                // Linux `tcp_identify_packet_loss`: `FLAG_LOST_RETRANS` when `retrans_out`
                // fell, i.e. a retransmission still counted in flight (`TCPCB_SACKED_RETRANS`,
                // the scoreboard's mark) was found lost; a segment resent before a timeout
                // (`tcp_enter_loss` counted it out) is not one.
                let in_flight_resend = sb.is_retransmitted(k);
                let newly = sb.mark_lost(k) as u64;
                verdict.newly_lost += newly;
                verdict.lost_retransmissions += newly * in_flight_resend as u64;
            } else {
                wait = wait.max(deadline - now.0);
            }
        }
        verdict.recheck_after = (wait > 0).then_some(SimDuration(wait));
        verdict
    }

    /// The send time of the oldest outstanding segment (Linux's RTO and probe timers count
    /// from it, `tcp_rto_delta_us`).
    pub fn head_sent_at(&self) -> Option<SimTime> {
        self.xmit.front().map(|s| SimTime(s.at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::scoreboard::Geometry;

    const G: Geometry = Geometry { mss: 100, data_end: u64::MAX, dupthresh: 3 };

    fn ms(v: u64) -> SimTime {
        SimTime(v * 1_000_000)
    }

    /// Segments 0..5 sent 1 ms apart from t = 0; RTT 50 ms. Segment 1 is lost; segment 2's
    /// SACK arrives at 52 ms: RACK.rtt = 50 ms, RACK.xmit_ts = 2 ms. Segment 1 (sent at
    /// 1 ms) is lost once 1 + 50 + reo_wnd ms have passed: with min_rtt/4 = 12.5 ms, not at
    /// 52 ms (recheck after 11.5 ms), but at 63.5 ms. Segment 0 was acked; 3 and 4 were sent
    /// after segment 2 and are not judged.
    #[test]
    fn a_hole_is_lost_after_rtt_plus_reordering_window() {
        let mut rack = Rack::default();
        let mut sb = Scoreboard::default();
        for k in 0..5 {
            rack.on_send(k * 100, ms(k), &G);
        }
        rack.on_rtt_sample(SimTime::ZERO, SimDuration::from_millis(50), false);
        rack.on_delivered(0, 100, false, ms(50));
        rack.advance(100, &G);
        sb.advance(100, &G);
        sb.mark_sacked(200, 300, 500, &G);
        rack.on_delivered(2, 300, false, ms(52));
        let reo = rack.reordering_window(false, 1, 3, Some(SimDuration::from_millis(50)));
        assert_eq!(reo, SimDuration::from_micros(12_500));
        let v = rack.detect_loss(ms(52), reo, 100, 500, &mut sb, &G);
        assert_eq!(v, RackVerdict { newly_lost: 0, lost_retransmissions: 0, recheck_after: Some(SimDuration::from_micros(11_500)) });
        let v = rack.detect_loss(SimTime(63_500_000), reo, 100, 500, &mut sb, &G);
        assert_eq!(v, RackVerdict { newly_lost: 1, lost_retransmissions: 0, recheck_after: None });
        assert!(sb.is_lost(1) && !sb.is_lost(3));
    }

    /// A lost retransmission: segment 1 resent at 70 ms and lost again; segment 5, sent at
    /// 80 ms, is SACKed at 130 ms (RACK.rtt 50 ms). In recovery the window is 0, so the
    /// retransmission (sent 70 ms) is lost at 70 + 50 = 120 ≤ 130 ms: marked again.
    #[test]
    fn a_lost_retransmission_is_found() {
        let mut rack = Rack::default();
        let mut sb = Scoreboard::default();
        for k in 0..5 {
            rack.on_send(k * 100, ms(k), &G);
        }
        rack.on_rtt_sample(SimTime::ZERO, SimDuration::from_millis(50), false);
        sb.advance(100, &G);
        rack.advance(100, &G);
        assert!(sb.mark_lost(1));
        rack.on_send(100, ms(70), &G);
        sb.mark_retransmitted(100, &G);
        rack.on_send(500, ms(80), &G);
        sb.mark_sacked(500, 600, 600, &G);
        rack.on_delivered(5, 600, false, ms(130));
        let reo = rack.reordering_window(true, 1, 3, None);
        let v = rack.detect_loss(ms(130), reo, 100, 600, &mut sb, &G);
        assert_eq!(v.newly_lost, 4); // the retransmission of 1, and 2, 3, 4 (sent 2–4 ms)
        assert!(sb.is_lost(1) && !sb.is_retransmitted(1));
    }

    /// Reordering seen (Linux `tcp_check_sack_reordering`): none for a delivery at or above
    /// fack; then the degree is fack − low and the window stays min_rtt/4 in recovery.
    #[test]
    fn reordering_seen_keeps_the_window_in_recovery() {
        let mut rack = Rack::default();
        rack.on_rtt_sample(SimTime::ZERO, SimDuration::from_millis(10), false);
        assert_eq!(rack.reordering_window(true, 1, 3, None), SimDuration::ZERO);
        rack.check_sack_reordering(9, 9);
        assert_eq!((rack.reord_seen, rack.reordering()), (false, 0));
        rack.check_sack_reordering(3, 9);
        assert_eq!((rack.reord_seen, rack.reordering()), (true, 6));
        assert_eq!(rack.reordering_window(true, 1, 3, None), SimDuration::from_micros(2_500));
    }

    /// A segment resent before a timeout (a probe; the timeout cleared its retransmitted mark)
    /// and found lost after it is no lost retransmission: Linux's `FLAG_LOST_RETRANS` wants
    /// `retrans_out` to fall.
    #[test]
    fn a_resend_counted_out_by_a_timeout_is_no_lost_retransmission() {
        let mut rack = Rack::default();
        let mut sb = Scoreboard::default();
        for k in 0..4 {
            rack.on_send(k * 100, ms(0), &G);
        }
        rack.on_rtt_sample(SimTime::ZERO, SimDuration::from_millis(100), false);
        rack.on_send(300, ms(200), &G);
        rack.on_send(0, ms(500), &G);
        sb.mark_retransmitted(0, &G);
        rack.on_delivered(0, 100, true, ms(1000));
        rack.advance(100, &G);
        sb.advance(100, &G);
        let v = rack.detect_loss(ms(1000), SimDuration::ZERO, 100, 400, &mut sb, &G);
        assert_eq!((v.newly_lost, v.lost_retransmissions), (3, 0));
    }

    /// An ACK for a retransmitted segment that comes back faster than the minimum RTT was
    /// for the original: RACK's state does not move.
    #[test]
    fn an_ambiguous_fast_ack_of_a_retransmission_is_ignored() {
        let mut rack = Rack::default();
        rack.on_send(0, ms(0), &G);
        rack.on_rtt_sample(SimTime::ZERO, SimDuration::from_millis(50), false);
        rack.on_send(0, ms(60), &G);
        rack.on_delivered(0, 100, true, ms(65));
        assert_eq!(rack.delivered, None);
        rack.on_delivered(0, 100, true, ms(111));
        assert_eq!((rack.delivered, rack.rtt), (Some((ms(60).0, 100)), 51_000_000));
    }
}
