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
//! Invariant: `xmit[i].sent` is the latest send time of segment `base + i` and whether it was ever
//! sent more than once (Linux `TCPCB_EVER_RETRANS`); segments below `base` are cumulatively
//! acknowledged. The send times also give Linux's per-segment RTT samples (`sender/rtt.rs`).
//!
//! The outstanding segments are also in the order of their latest send (Linux's
//! `tsorted_sent_queue`): a send moves a segment to the tail, so send times never fall along
//! the list. A segment found SACKed leaves it, as Linux's `tcp_sacktag_walk` unlinks it, so a
//! loss-detection pass visits what was sent before the delivered segment and is not known
//! delivered, not the whole window; should the scoreboard drop its SACK marks, the list is
//! made again from the send times. While no outstanding segment was resent or left the list,
//! the order is the sequence order and is kept implicitly (`linked` false): first sends leave
//! in sequence order, so the common case pays nothing for the list.

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

#[derive(Clone, Debug)]
pub struct Rack {
    base: u64,
    xmit: VecDeque<Entry>,
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
    /// The send-order list is linked through `xmit` (else it is `xmit` in sequence order).
    linked: bool,
    /// Linked entries out of the list.
    unlinked: usize,
    /// The ends of the linked send-order list (`NIL` when it is empty).
    head: u64,
    tail: u64,
    /// The scoreboard's `unsack_generation` the list was last made for (`relink_all`): while
    /// it stays, every segment out of the list is SACKed.
    unsack_generation: u64,
}

/// One outstanding segment: its last send, and its neighbours (segment numbers) in the linked
/// send-order list, `NIL` at an end, both `UNLINKED` when it is out of the list (while the
/// list is implicit, `linked` false, they mean nothing).
#[derive(Clone, Copy, Debug)]
struct Entry {
    sent: Sent,
    prev: u64,
    next: u64,
}

/// No segment: the end of the send-order list.
const NIL: u64 = u64::MAX;
/// The neighbours of a segment out of the send-order list.
const UNLINKED: u64 = u64::MAX - 1;

impl Default for Rack {
    fn default() -> Self {
        Rack {
            base: 0,
            xmit: VecDeque::new(),
            delivered: None,
            rtt: 0,
            min_rtt: None,
            min_rtt_quiet_until: 0,
            advanced: false,
            reord_seen: false,
            reordering: 0,
            resent: 0,
            linked: false,
            unlinked: 0,
            head: NIL,
            tail: NIL,
            unsack_generation: 0,
        }
    }
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
        if i >= self.xmit.len() {
            // The next new segment (the common case), or new ones up to it.
            for j in self.xmit.len()..=i {
                self.xmit.push_back(Entry { sent: Sent { at: now.0, retransmitted: false }, prev: UNLINKED, next: UNLINKED });
                if self.linked {
                    self.link_last(self.base + j as u64);
                }
            }
            return;
        }
        self.link_in_sequence();
        let sent = &mut self.xmit[i].sent;
        if !sent.retransmitted {
            sent.retransmitted = true;
            self.resent += 1;
        }
        sent.at = now.0;
        self.unlink(k);
        self.link_last(k);
        self.unlinked -= 1;
    }

    /// Forgets segments below the new cumulative ACK.
    pub fn advance(&mut self, snd_una: u64, g: &Geometry) {
        let k = snd_una / g.mss;
        while self.base < k {
            if self.xmit.is_empty() {
                break;
            }
            if self.linked {
                // (Counted out whether it was in the list or not.)
                self.unlink(self.base);
                self.unlinked -= 1;
            }
            let gone = self.xmit.pop_front().expect("not empty");
            self.resent -= gone.sent.retransmitted as usize;
            self.base += 1;
        }
        if self.xmit.is_empty() {
            self.base = self.base.max(k);
        }
        // Nothing resent and nothing out of the list: the list is the sequence order again.
        if self.linked && self.resent == 0 && self.unlinked == 0 {
            (self.linked, self.head, self.tail) = (false, NIL, NIL);
        }
    }

    /// Links the implicit list (the sequence order) through `xmit`, before it changes.
    fn link_in_sequence(&mut self) {
        if self.linked {
            return;
        }
        let last = self.xmit.len().saturating_sub(1);
        for (i, e) in self.xmit.iter_mut().enumerate() {
            let k = self.base + i as u64;
            e.prev = if i == 0 { NIL } else { k - 1 };
            e.next = if i == last { NIL } else { k + 1 };
        }
        (self.head, self.tail) = if self.xmit.is_empty() { (NIL, NIL) } else { (self.base, self.base + last as u64) };
        (self.linked, self.unlinked) = (true, 0);
    }

    /// The first segment of the send-order list.
    fn first_sent(&self) -> u64 {
        match (self.linked, self.xmit.is_empty()) {
            (true, _) => self.head,
            (false, true) => NIL,
            (false, false) => self.base,
        }
    }

    /// The segment after `k` (at index `i`) in the send-order list.
    fn sent_after(&self, k: u64, i: usize) -> u64 {
        match self.linked {
            true => self.xmit[i].next,
            false if i + 1 < self.xmit.len() => k + 1,
            false => NIL,
        }
    }

    fn entry_mut(&mut self, k: u64) -> &mut Entry {
        &mut self.xmit[(k - self.base) as usize]
    }

    /// Puts outstanding segment `k`, unlinked, at the tail of the linked send-order list.
    fn link_last(&mut self, k: u64) {
        let tail = self.tail;
        let e = self.entry_mut(k);
        (e.prev, e.next) = (tail, NIL);
        match tail {
            NIL => self.head = k,
            t => self.entry_mut(t).next = k,
        }
        self.tail = k;
    }

    /// Takes outstanding segment `k` out of the linked send-order list, counting it in
    /// `unlinked` when it was in it.
    fn unlink(&mut self, k: u64) {
        let e = self.entry_mut(k);
        let (prev, next) = (e.prev, e.next);
        if prev == UNLINKED {
            return;
        }
        self.unlinked += 1;
        let e = self.entry_mut(k);
        (e.prev, e.next) = (UNLINKED, UNLINKED);
        match prev {
            NIL => self.head = next,
            p => self.entry_mut(p).next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => self.entry_mut(n).prev = prev,
        }
    }

    /// Links every outstanding segment again, in the order of their send times (a tie in
    /// sequence order; `detect_loss` reads ties alike in any order).
    fn relink_all(&mut self) {
        let mut order: Vec<u64> = (self.base..self.base + self.xmit.len() as u64).collect();
        order.sort_by_key(|&k| self.xmit[(k - self.base) as usize].sent.at);
        self.xmit.iter_mut().for_each(|e| (e.prev, e.next) = (UNLINKED, UNLINKED));
        (self.head, self.tail, self.linked, self.unlinked) = (NIL, NIL, true, 0);
        for k in order {
            self.link_last(k);
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
        k.checked_sub(self.base).and_then(|i| self.xmit.get(i as usize)).map(|e| e.sent)
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
    /// The pass walks the send-order list from the oldest send, as the kernel walks its
    /// time-sorted list, and stops at the first segment sent after the delivered one: every
    /// later one was sent no earlier. A segment found SACKed leaves the list.
    pub fn detect_loss(&mut self, now: SimTime, reo_wnd: SimDuration, snd_una: u64, snd_max: u64, sb: &mut Scoreboard, g: &Geometry) -> RackVerdict {
        let mut verdict = RackVerdict::default();
        let Some((delivered_xmit, delivered_end)) = self.delivered else { return verdict };
        if sb.unsack_generation() != self.unsack_generation {
            self.relink_all();
            self.unsack_generation = sb.unsack_generation();
        }
        let mut wait = 0u64;
        let first = snd_una / g.mss;
        let mut k = self.first_sent();
        while k != NIL {
            let i = (k - self.base) as usize;
            let sent = self.xmit[i].sent.at;
            let next = self.sent_after(k, i);
            if sent > delivered_xmit {
                break;
            }
            let start = k * g.mss;
            let end = (start + g.mss).min(g.data_end);
            let sent_before = sent < delivered_xmit || end < delivered_end;
            if k < first || start >= snd_max || !sent_before {
                k = next;
                continue;
            }
            if sb.is_sacked_segment(k) {
                self.link_in_sequence();
                self.unlink(k);
            } else if !sb.is_lost(k) || sb.is_retransmitted(k) {
                self.judge(k, sent, now, reo_wnd, sb, &mut verdict, &mut wait);
            }
            k = next;
        }
        verdict.recheck_after = (wait > 0).then_some(SimDuration(wait));
        verdict
    }

    /// One segment of a pass, sent at `sent` (ns) before the delivered one, neither SACKed nor
    /// lost and unresent: lost once RACK.rtt + `reo_wnd` have passed since (`wait`, the
    /// longest time still to go, grows otherwise).
    #[allow(clippy::too_many_arguments)]
    fn judge(&self, k: u64, sent: u64, now: SimTime, reo_wnd: SimDuration, sb: &mut Scoreboard, verdict: &mut RackVerdict, wait: &mut u64) {
        let deadline = sent + self.rtt + reo_wnd.as_nanos();
        if deadline <= now.0 {
            // Linux `tcp_identify_packet_loss`: `FLAG_LOST_RETRANS` when `retrans_out` fell,
            // i.e. a retransmission still counted in flight (`TCPCB_SACKED_RETRANS`, the
            // scoreboard's mark) was found lost; a segment resent before a timeout
            // (`tcp_enter_loss` counted it out) is not one.
            let in_flight_resend = sb.is_retransmitted(k);
            let newly = sb.mark_lost(k) as u64;
            verdict.newly_lost += newly;
            verdict.lost_retransmissions += newly * in_flight_resend as u64;
        } else {
            *wait = (*wait).max(deadline - now.0);
        }
    }

    /// The send time of the oldest outstanding segment (Linux's RTO and probe timers count
    /// from it, `tcp_rto_delta_us`).
    pub fn head_sent_at(&self) -> Option<SimTime> {
        self.xmit.front().map(|e| SimTime(e.sent.at))
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

    /// `detect_loss` as it walked before the send-order list: every outstanding segment in
    /// sequence order from SND.UNA, stopping at the first one sent once and not before the
    /// delivered one (each segment judged alike: the walks differ in what they visit).
    fn detect_loss_in_sequence(rack: &Rack, now: SimTime, reo_wnd: SimDuration, snd_una: u64, snd_max: u64, sb: &mut Scoreboard, g: &Geometry) -> RackVerdict {
        let mut verdict = RackVerdict::default();
        let Some((delivered_xmit, delivered_end)) = rack.delivered else { return verdict };
        let mut wait = 0u64;
        for (i, s) in rack.xmit.iter().map(|e| e.sent).enumerate().skip((snd_una / g.mss).saturating_sub(rack.base) as usize) {
            let k = rack.base + i as u64;
            let start = k * g.mss;
            if start >= snd_max {
                break;
            }
            let end = (start + g.mss).min(g.data_end);
            let sent_before = s.at < delivered_xmit || (s.at == delivered_xmit && end < delivered_end);
            if !sent_before && !s.retransmitted {
                break;
            }
            if !sent_before || sb.is_sacked_segment(k) || (sb.is_lost(k) && !sb.is_retransmitted(k)) {
                continue;
            }
            rack.judge(k, s.at, now, reo_wnd, sb, &mut verdict, &mut wait);
        }
        verdict.recheck_after = (wait > 0).then_some(SimDuration(wait));
        verdict
    }

    proptest::proptest! {
        /// Over any sequence of first sends, resends, SACKs, deliveries, cumulative ACKs, loss
        /// marks and dropped SACK marks, the pass over the send-order list finds what the walk
        /// in sequence order finds, and marks the same segments lost.
        #[test]
        fn the_send_order_pass_equals_the_sequence_walk(
            ops in proptest::collection::vec((0u8..8, 0u64..30, 0u64..3), 1..80), reo in 0u64..20, rtt in 1u64..40,
        ) {
            let g = Geometry { mss: 100, data_end: 2_550, dupthresh: 3 };
            let (mut rack, mut sb) = (Rack::default(), Scoreboard::default());
            rack.rtt = rtt * 1_000_000;
            let (mut now, mut snd_una, mut snd_max) = (0u64, 0u64, 0u64);
            for (op, x, dt) in ops {
                now += dt * 1_000_000;
                let k = snd_una / 100 + x % 10;
                match op {
                    0 | 1 if snd_max < g.data_end => {
                        rack.on_send(snd_max, SimTime(now), &g);
                        snd_max = (snd_max + 100).min(g.data_end);
                    }
                    2 if k * 100 < snd_max => {
                        rack.on_send(k * 100, SimTime(now), &g);
                        sb.mark_retransmitted(k * 100, &g);
                    }
                    3 if k * 100 < snd_max => {
                        sb.mark_sacked(k * 100, k * 100 + 100, snd_max, &g);
                        rack.on_delivered(k, (k * 100 + 100).min(g.data_end), false, SimTime(now));
                    }
                    4 if k * 100 < snd_max => { sb.mark_lost(k); }
                    5 => {
                        snd_una = (snd_una + x % 3 * 100).min(snd_max);
                        rack.advance(snd_una, &g);
                        sb.advance(snd_una, &g);
                    }
                    6 if x % 4 == 0 => sb.clear(),
                    6 if x % 4 == 1 => sb.clear_retransmitted(),
                    _ => {
                        let reo_wnd = SimDuration(reo * 1_000_000);
                        let (mut sb_walk, rack_walk) = (sb.clone(), rack.clone());
                        let expected = detect_loss_in_sequence(&rack_walk, SimTime(now), reo_wnd, snd_una, snd_max, &mut sb_walk, &g);
                        let got = rack.detect_loss(SimTime(now), reo_wnd, snd_una, snd_max, &mut sb, &g);
                        proptest::prop_assert_eq!(got, expected);
                        for seg in snd_una / 100..snd_max.div_ceil(100) {
                            proptest::prop_assert_eq!(sb.is_lost(seg), sb_walk.is_lost(seg));
                        }
                    }
                }
            }
        }
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
