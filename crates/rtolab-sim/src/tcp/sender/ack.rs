//! ACK processing: SACK and DSACK blocks, RTT samples, new and duplicate ACKs, the loss
//! state's transitions that ACKs cause, and the call to the congestion controller that every
//! ACK makes.

use super::rtt::DeliveredSpan;
use super::{DupAckRule, Phase, SenderNote, TcpSender};
use crate::tcp::cc::{AckSample, CongestionControl, Growth};
use crate::tcp::policy::DupAckFacts;
use crate::tcp::recovery::{LossRecovery, Window};
use crate::tcp::segment::Segment;
use crate::tcp::spurious::{AcceptableAck, Detector, DsackBlock, DuplicateAck};
use crate::tcp::state::LossState;
use crate::time::{SimDuration, SimTime};

/// What the SACK option of one ACK said.
#[derive(Clone, Copy, Debug, Default)]
struct SackNews {
    /// Bytes SACKed for the first time.
    newly_sacked: u64,
    /// Of those, bytes below the recovery point (sent before the episode began).
    newly_sacked_below_point: u64,
    /// The DSACK block, if the ACK carried one.
    dsack: Option<(u64, u64)>,
    /// The never-retransmitted segments SACKed for the first time (Linux's SACK RTT).
    first_delivered: DeliveredSpan,
}

impl SackNews {
    /// Bytes newly SACKed above the recovery point (sent after the episode began).
    fn newly_sacked_above_point(self) -> u64 {
        self.newly_sacked - self.newly_sacked_below_point
    }
}

impl TcpSender {
    pub(super) fn on_ack(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        // RFC 5681 2 (e), Linux `tcp_ack_update_window`: an ACK that opens the window is a
        // window update (`FLAG_WIN_UPDATE`), not a duplicate. With SACK the blocks it carries
        // count all the same (Linux's loss detection counts SACKed segments, not duplicates).
        let window_opened = seg.wnd > self.rwnd && !self.cfg.sack;
        self.rwnd = seg.wnd;
        self.ts_recent = self.ts_recent.max(seg.ts_val);
        let ack = seg.ack.min(self.snd_max);
        let flight_before = self.flight();
        let state_before = self.state;
        // Under `FastRetransmit::NthDuplicate` no SACK block is read after a timeout until an
        // ACK of new data.
        let sack_ignored = !self.cfg.fast_retransmit.reads_sack_after_timeout() && self.state.is_loss() && ack <= self.snd_una;
        let una_before = self.snd_una;
        // Linux `tcp_ack`'s `prior_fack` (`tcp_highest_sack_seq` before this ACK's SACK blocks),
        // which only RACK's reordering check reads.
        let prior_fack = if self.tracks_sends() { self.scoreboard.highest_sacked_segment() } else { None };
        let undos_before = self.stats.undos;
        let prior_in_flight = if self.paced.is_some() {
            self.paced_begin_ack();
            self.packets_in_flight()
        } else {
            0
        };
        let news = if self.cfg.sack && !sack_ignored { self.read_sack(now, ack, seg, out) } else { SackNews::default() };
        if state_before.is_recovery() {
            self.recovery.on_recovery_ack();
        }
        let every_ack = self.cfg.rtt_sampling.from_send_times();
        let send_time_sample = if every_ack { self.send_time_rtt_sample(now, ack, seg, news.first_delivered) } else { None };
        let mut maybe_delayed = false;
        if let Some(s) = send_time_sample {
            // Linux `tcp_clean_rtx_queue`'s `FLAG_ACK_MAYBE_DELAYED`: the ACK delivers one
            // short segment and nothing else, with nothing SACKed.
            let acked = ack.saturating_sub(una_before);
            maybe_delayed = acked > 0
                && acked < self.geometry.mss
                && news.newly_sacked == 0
                && news.dsack.is_none()
                && self.scoreboard.highest_sacked_segment().is_none();
            self.take_rtt_sample(now, s.estimator, s.congestion, maybe_delayed, ack.max(self.snd_una));
            self.xmit_timer_due |= s.rearms_timer;
        }
        let mut acked = 0;
        let mut rtt = send_time_sample.map(|s| s.congestion);
        let mut delivered = news.newly_sacked;
        // Linux `tcp_check_dsack`: "a spurious retransmission is delivered" (`sack_delivered`
        // counts the DSACKed segments), unless more segments were DSACKed than ever resent.
        if let Some((start, end)) = news.dsack.filter(|_| self.stats.dsacks_received <= self.stats.retransmits) {
            delivered += end - start;
        }
        if ack > self.snd_una {
            acked = ack - self.snd_una;
            // Bytes SACKed earlier were delivered then (read_sack marks only above `ack`).
            delivered += acked - self.scoreboard.sacked_bytes_below(ack, &self.geometry).min(acked);
            let credited = self.remove_reno_sacks(acked);
            // Outside fast recovery, what the duplicates delivered was delivered then (Linux
            // counts it in `tcp_add_reno_sack`, in RTO recovery too once F-RTO sent new data,
            // `tcp_process_loss`; it grows nothing then, as `tcp_may_raise_cwnd` wants
            // `FLAG_DATA_ACKED`). In fast recovery the profile still credits the duplicates
            // here, with the cumulative ACK: its pipe does not take them out either.
            if !state_before.is_recovery() {
                delivered -= credited;
            }
            let sample = self.on_new_ack(now, ack, seg, news, prior_fack, send_time_sample.map(|s| s.estimator), out);
            if !every_ack {
                rtt = sample;
            }
        } else if !window_opened && self.is_duplicate(ack, seg, news) {
            self.on_dupack(now, news, out);
        }
        if self.cfg.tlp {
            let dsack_of_probe = news.dsack.is_some_and(|(_, end)| Some(end) == self.tlp_high_seq);
            self.process_probe_ack(now, ack, dsack_of_probe, ack > una_before || news.newly_sacked > 0);
        }
        // Linux `tcp_ack_is_dubious`, with the state the ACK found: the ACK that ends a
        // recovery still goes through `tcp_fastretrans_alert`.
        let dubious = state_before != LossState::Open || self.state != LossState::Open || news.newly_sacked > 0 || (ack == una_before && self.snd_max > ack);
        let (mut newly_lost, recheck_armed) =
            if self.cfg.rack && self.phase == Phase::Established && dubious && self.rack.take_advanced() { self.rack_detect(now, out) } else { (false, false) };
        if self.cfg.rack && self.cfg.flight_size.marked_loss_starts_recovery() && self.phase == Phase::Established && dubious && self.still_lost_starts_recovery() {
            self.enter_recovery(now, out);
            newly_lost = false;
        }
        if std::mem::take(&mut self.xmit_timer_due) && !recheck_armed {
            self.set_xmit_timer(now);
        }
        self.reduce_window(delivered, ack > una_before, newly_lost, news.dsack.is_some());
        let cwnd_limited = !self.cfg.cwnd_validation || self.cwnd_limited();
        // An ACK that ends fast recovery does not grow the window (RFC 5681 3.2 step 6),
        // except in recoveries that say so (ns-2 NewReno), and except the ACK whose undo
        // reopened the connection: Linux's `tcp_ack` undoes in `tcp_fastretrans_alert` and
        // then grows the restored window in `tcp_cong_control`, the state being Open.
        let undone = self.stats.undos > undos_before && self.state == LossState::Open;
        let state = if state_before.is_recovery() && !self.recovery.grows_on_exit() && !undone { state_before } else { self.state };
        let growth_done = std::mem::take(&mut self.growth_done);
        let growth = self.cc.on_ack(&AckSample {
            now,
            acked_bytes: if growth_done { 0 } else { acked },
            sacked_bytes: news.newly_sacked,
            delivered: if growth_done { 0 } else { delivered },
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            rtt,
            srtt: self.rto.srtt(),
            flight: flight_before,
            state,
            cwnd_limited,
        });
        if let Growth::Avoidance { linear } = growth {
            self.stats.ca_acks += 1;
            self.stats.linear_acks += linear as u64;
        }
        if self.paced.is_some() {
            self.paced_ack(now, delivered, prior_in_flight, rtt.map(|r| r.as_nanos() / 1000), maybe_delayed);
        }
        if self.retrans_stamp.is_some() && matches!(self.state, LossState::Open | LossState::Disorder) && !self.retransmits_out() {
            self.retrans_stamp = None;
        }
        if self.phase == Phase::Established {
            self.send_allowed(now, out);
        }
    }

    /// Marks SACK blocks on the scoreboard and feeds DSACK blocks to the detectors (RFC 2883
    /// 4: the first block is a DSACK when it lies below the cumulative ACK or inside the
    /// second block).
    fn read_sack(&mut self, now: SimTime, ack: u64, seg: &Segment, out: &mut Vec<Segment>) -> SackNews {
        let (all, n) = seg.sack.copied();
        let blocks = &all[..n];
        let mut news = SackNews::default();
        let dsack = blocks.first().filter(|&&(s, e)| e <= ack || blocks.get(1).is_some_and(|&(s2, e2)| s2 <= s && e <= e2));
        if let Some(&(start, end)) = dsack {
            self.stats.dsacks_received += 1;
            news.dsack = Some((start, end));
            let block = DsackBlock { start, end, segments: (end - start).div_ceil(self.geometry.mss).max(1) };
            self.consult_detectors(now, 0, None, out, |d| d.on_dsack(&block));
        }
        let skip = dsack.is_some() as usize;
        let point = self.state.point().unwrap_or(u64::MAX);
        let mut reord: Option<u64> = None;
        // In ascending order, as Linux's `tcp_sacktag_write_queue` walks them (RACK keeps
        // the RTT of the last segment it is told about).
        let mut sorted = [(0u64, 0u64); 4];
        let sorted = &mut sorted[..blocks.len() - skip];
        sorted.copy_from_slice(&blocks[skip..]);
        sorted.sort_unstable();
        let (mss, data_end) = (self.geometry.mss, self.geometry.data_end);
        let generation = self.scoreboard.unsack_generation();
        // The cache serves the senders that walk each block for RACK (`rack_delivered`); for
        // the others one pass of `mark_sacked` costs less than keeping it. A recovery point
        // inside a segment splits it between the two marks, which then leave it unmarked:
        // such a block is not remembered as wholly SACKed.
        let cached = self.tracks_sends();
        let point_splits = point % mss != 0 && point < data_end;
        // (The blocks ascend, so the ranges' starts do.)
        let mut walked = [(0u64, 0u64); 4];
        for (i, &(s, e)) in sorted.iter().enumerate() {
            self.fin_sacked(now, e);
            let s = s.max(ack).max(self.snd_una);
            if e <= s {
                continue;
            }
            if self.paced.is_some() {
                let first = s.div_ceil(mss);
                let end = self.segments_end(first, e.min(self.snd_max));
                self.paced_delivered(first, end, true);
            }
            if !cached {
                self.mark_sacked_block(s, e, point, &mut news);
                continue;
            }
            // The block's whole segments, less those the previous ACK's blocks covered (all
            // SACKed: the walks below would pass them by).
            let segments = (s.div_ceil(mss), self.geometry.whole_segments_end(e.min(self.snd_max)));
            let parts = self.sack_cache.uncovered(segments.0, segments.1, generation);
            debug_assert!(
                (segments.0..segments.1).all(|k| parts.iter().any(|(a, b)| a <= k && k < b) || self.scoreboard.is_sacked_segment(k)),
                "a segment the SACK cache skips is not SACKed"
            );
            let fack = self.scoreboard.highest_sacked_segment();
            for (a, b) in parts.iter() {
                let low = self.rack_delivered(now, a * mss, (b * mss).min(data_end), fack, Some(&mut news.first_delivered), 0);
                // The blocks and parts ascend: the first reordered segment found is the lowest.
                reord = reord.or(low);
            }
            for (a, b) in parts.iter() {
                self.mark_sacked_block(a * mss, (b * mss).min(data_end), point, &mut news);
            }
            if !point_splits {
                walked[i] = segments;
            }
        }
        if cached {
            self.sack_cache.remember(&walked[..sorted.len()], self.scoreboard.unsack_generation());
        }
        // Linux `tcp_sacktag_write_queue` ends with `tcp_check_sack_reordering(sk,
        // state->reord, 0)`, `fack` then one past the highest SACKed segment.
        if let Some(low) = reord {
            if let Some(h) = self.scoreboard.highest_sacked_segment() {
                self.rack.check_sack_reordering(low, h + 1);
            }
        }
        news
    }

    /// Marks the whole segments of SACK block [`s`, `e`) SACKed, those below the recovery
    /// `point` and those above it counted apart (`SackNews`).
    fn mark_sacked_block(&mut self, s: u64, e: u64, point: u64, news: &mut SackNews) {
        let below = self.scoreboard.mark_sacked(s, e.min(point), self.snd_max, &self.geometry);
        let above = if e > point { self.scoreboard.mark_sacked(s.max(point), e, self.snd_max, &self.geometry) } else { 0 };
        news.newly_sacked += below + above;
        news.newly_sacked_below_point += below;
    }

    /// RFC 5681 (2) duplicate ACK; with `DupAckRule::Rfc6675` and SACK, only an ACK that
    /// SACKs new data counts (RFC 6675 2, "DupAck"). A detector that holds the recovery
    /// after a timeout reads every duplicate (RFC 5682 3.1 step 3a: one that SACKs
    /// nothing new reverts).
    fn is_duplicate(&self, ack: u64, seg: &Segment, news: SackNews) -> bool {
        let classic = ack == self.snd_una && self.snd_max > self.snd_una && seg.len == 0;
        match self.cfg.dupack_rule {
            DupAckRule::Rfc6675 if self.cfg.sack && !self.detector_holds_recovery() => classic && news.newly_sacked > 0,
            _ => classic,
        }
    }

    /// An RTT sample: from the echoed timestamp (RFC 7323 4.1), else from the timed segment
    /// when this ACK covers it (Karn's rule: never a retransmitted one).
    fn rtt_sample(&mut self, now: SimTime, ack: u64, seg: &Segment) -> Option<SimDuration> {
        if self.cfg.timestamps && seg.ts_ecr != 0 {
            return Some(now.since(SimTime(seg.ts_ecr)));
        }
        match self.rtt_probe {
            Some((end, sent)) if ack >= end => {
                self.rtt_probe = None;
                Some(now.since(sent))
            }
            _ => None,
        }
    }

    /// A cumulative ACK: `measured` is the sample from send times, already taken under
    /// `RttSampling::EveryAck`; under `TimedSegment` the sample is taken here.
    fn on_new_ack(
        &mut self,
        now: SimTime,
        ack: u64,
        seg: &Segment,
        news: SackNews,
        prior_fack: Option<u64>,
        measured: Option<SimDuration>,
        out: &mut Vec<Segment>,
    ) -> Option<SimDuration> {
        let acked = ack - self.snd_una;
        let sample = if self.cfg.rtt_sampling.from_send_times() {
            measured
        } else {
            let sample = self.rtt_sample(now, ack, seg);
            if let Some(rtt) = sample {
                self.take_rtt_sample(now, rtt, rtt, false, self.snd_una);
            }
            sample
        };
        let retransmitted_end = self.snd_una + self.segment_len(self.snd_una);
        let old_una = self.snd_una;
        let mut reord = None;
        if let Some(m) = self.icmp.as_mut() {
            m.on_new_ack(); // paper 001 cases 5 and 8
        }
        if self.tracks_sends() {
            let echoed = if self.cfg.timestamps { seg.ts_ecr } else { 0 };
            reord = self.rack_delivered(now, self.snd_una, ack, prior_fack, None, echoed);
            self.rack.advance(ack, &self.geometry);
        }
        if self.paced.is_some() {
            let first = self.snd_una / self.geometry.mss;
            let end = self.segments_end(first, ack);
            self.paced_delivered(first, end, false);
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.scoreboard.advance(ack, &self.geometry);
        // Linux `tcp_clean_rtx_queue`: "non-retransmitted hole got filled? That's reordering"
        // (`tcp_highest_sack_seq` is SND.UNA once nothing SACKed is left).
        if let Some(low) = reord {
            let mss = self.geometry.mss;
            let fack = self.scoreboard.highest_sacked_segment().map_or(ack.div_ceil(mss), |h| h + 1);
            self.rack.check_sack_reordering(low, fack);
        }
        if self.cfg.fast_retransmit.clears_scoreboard_on_new_ack() && !self.state.is_recovery() {
            // A later duplicate counts if its SACK blocks are new to this cleared board.
            self.scoreboard.clear();
        }
        self.dupacks = 0;
        self.limited_bytes = 0;
        // The detectors read the acceptable ACK (RFC 3522 3.2 step 3; RFC 5682 2.1 steps 2-3).
        if self.ack_listeners() != 0 {
            let point = self.state.point().unwrap_or(u64::MAX);
            // After a timeout only the head was resent (`head_resent_to`): the first segment
            // past it, wholly acknowledged and below the recovery point, was never resent.
            let first_unresent = old_una.max(self.head_resent_to);
            let unresent_len = self.segment_len(first_unresent);
            let view = AcceptableAck {
                ts_ecr: if self.cfg.timestamps { seg.ts_ecr } else { 0 },
                acked,
                covers_retransmission: ack >= retransmitted_end,
                covers_recover: ack >= point,
                beyond_recover: ack > point || news.newly_sacked_above_point() > 0,
                acks_never_resent: news.newly_sacked_below_point > 0 || (unresent_len > 0 && first_unresent + unresent_len <= ack.min(point)),
            };
            self.consult_ack_listeners(now, acked, sample, out, |d| d.on_acceptable_ack(&view));
        }
        let mut restart_timer = true;
        let mut clear_backoff = false;
        // Linux `tcp_try_undo_recovery`: without SACK, hold the state at the recovery point
        // (in Recovery, the ACK still feeds the window's reduction, `tcp_cwnd_reduction`).
        let holds = self.cfg.holds_at_recovery_point && !self.cfg.sack && self.state.point() == Some(ack);
        match self.state {
            LossState::Loss { .. } if holds => {}
            LossState::Recovery { point } if ack >= point && !holds => self.exit_recovery(now),
            LossState::Recovery { .. } => {
                let w = self.window_facts();
                let partial = self.recovery.on_partial_ack(w, acked);
                if let Some(c) = partial.cwnd {
                    self.cc.set_recovery_cwnd(c);
                }
                if partial.shrink > 0 {
                    self.cc.shrink_window(partial.shrink);
                }
                if partial.retransmit_una && self.snd_una < self.snd_max {
                    self.retransmit(now, self.snd_una, out);
                }
                if partial.exit {
                    self.state = LossState::Open;
                }
                restart_timer = partial.restart_timer;
                clear_backoff = partial.clear_backoff;
            }
            LossState::Loss { point } if ack >= point => {
                self.state = LossState::Open;
                self.release_detectors();
            }
            LossState::Disorder if self.scoreboard.sacked_segments() == 0 => self.state = LossState::Open,
            _ => {}
        }
        if self.cfg.size.is_some_and(|size| self.snd_una >= size) {
            self.phase = Phase::Done;
            self.timer = None;
            self.completed_at = Some(now);
            self.notes.push(SenderNote::Completed);
        } else if self.snd_una >= self.snd_max {
            self.timer = None; // RFC 6298 (5.2)
            if self.writes && self.snd_una >= self.geometry.data_end {
                self.notes.push(SenderNote::WritesAcked);
            }
        } else if restart_timer {
            self.xmit_timer_due = true; // RFC 6298 (5.3), or a probe (RFC 8985 7.2)
        }
        if clear_backoff {
            self.rto.clear_backoff();
        }
        sample
    }

    /// Linux `tcp_fastretrans_alert` in Open or Disorder: `tcp_time_to_recover` is
    /// `lost_out != 0`, so a segment still marked lost starts a recovery even when this ACK
    /// marked nothing new: the ACK that ends a recovery, while a segment sent after its
    /// recovery point was marked lost (and already resent) in it, starts the next one and
    /// its reduction at once (`tcp_enter_recovery` after `tcp_end_cwnd_reduction`).
    fn still_lost_starts_recovery(&self) -> bool {
        matches!(self.state, LossState::Open | LossState::Disorder) && self.snd_una >= self.recover && self.scoreboard.any_lost()
    }

    /// Leaves fast recovery with the window the recovery algorithm chooses.
    fn exit_recovery(&mut self, now: SimTime) {
        if let Some(cwnd) = self.recovery.exit_cwnd(self.window_facts()) {
            self.cc.set_recovery_cwnd(cwnd);
        }
        self.recovery.on_exit();
        self.state = LossState::Open;
        self.cc.on_recovery_exit(now);
        if self.recovery.forgets_recovery_point() {
            self.recover = 0;
        }
    }

    /// Linux `tcp_any_retrans_done`: a retransmission is in flight, or the segment at
    /// SND.UNA was ever resent (`TCPCB_EVER_RETRANS`).
    fn retransmits_out(&self) -> bool {
        let head = self.snd_una / self.geometry.mss;
        self.scoreboard.retransmitted_in_flight() > 0 || (self.snd_una < self.snd_max && self.rack.sent(head).is_some_and(|s| s.retransmitted))
    }

    pub(super) fn window_facts(&self) -> Window {
        Window { cwnd: self.cc.cwnd(), ssthresh: self.cc.ssthresh(), mss: self.geometry.mss, flight: self.flight() }
    }

    fn on_dupack(&mut self, now: SimTime, news: SackNews, out: &mut Vec<Segment>) {
        self.dupacks += 1;
        // In RTO recovery Linux counts duplicates only once F-RTO sent new data past the
        // recovery point (`tcp_process_loss`: `after(snd_nxt, high_seq) && num_dupack`).
        let counted_in_state = match self.state {
            LossState::Loss { point } => self.snd_max > point,
            _ => true,
        };
        if !self.cfg.sack && self.cfg.flight_size.counts_duplicates_as_sacked() && counted_in_state {
            // Linux `tcp_add_reno_sack`, capped by `tcp_limit_reno_sacked` (one hole at least
            // stays: `max(lost_out, 1)`, one lost segment without SACK).
            let outstanding = (self.snd_max - self.snd_una).div_ceil(self.geometry.mss);
            self.reno_sacked = (self.reno_sacked + 1).min(outstanding.saturating_sub(1));
        }
        match self.state {
            LossState::Recovery { .. } => {
                if let Some(c) = self.recovery.on_dupack(self.window_facts()) {
                    self.cc.set_recovery_cwnd(c);
                }
            }
            LossState::Loss { .. } => {
                // No fast retransmit of data sent before the timeout (RFC 6582 3.2 step 1);
                // the detectors read the ACK (RFC 5682 2.1 step 2a, 3.1 steps 2-3).
                let view =
                    DuplicateAck { new_sack_below_recover: news.newly_sacked_below_point > 0, sacked_above_recover: news.newly_sacked_above_point() > 0 };
                self.consult_ack_listeners(now, 0, None, out, |d| d.on_duplicate_ack(&view));
            }
            LossState::Open | LossState::Disorder => {
                self.state = LossState::Disorder;
                let facts = DupAckFacts {
                    dupacks: self.dupacks,
                    dupthresh: self.cfg.dupthresh,
                    rack: self.cfg.rack,
                    snd_una: self.snd_una,
                    snd_nxt: self.snd_nxt,
                    snd_max: self.snd_max,
                    recover: self.recover,
                    mss: self.geometry.mss,
                };
                // RFC 6675 IsLost(SND.UNA), for the rules that read it.
                let head_lost = || self.cfg.sack && self.scoreboard.is_lost_first(&self.geometry);
                if self.cfg.fast_retransmit.starts_recovery(facts, head_lost) {
                    self.enter_recovery(now, out);
                } else if self.cfg.limited_transmit && (self.cfg.flight_size.needs_limited_transmit() || !self.cfg.sack) && self.dupacks < self.cfg.dupthresh {
                    // (Under `FlightSize::PacketsInFlight` the SACKed segment leaves the
                    // flight and `send_allowed` fills the room: no limited transmit. Without
                    // SACK Linux counts the duplicate itself as a segment that left,
                    // `tcp_add_reno_sack`, which makes room for one new segment as RFC 3042.)
                    self.limited_transmit(now, out);
                }
            }
        }
    }

    /// Linux `tcp_remove_reno_sacks`, for a cumulative ACK of `acked` bytes (before SND.UNA
    /// moves): "one ACK acked hole. The rest eat duplicate ACKs": of the segments it
    /// acknowledges, all but one may have been counted already as duplicates, and leave
    /// `reno_sacked`. Returns the bytes so counted (0 with SACK or other flight rules).
    fn remove_reno_sacks(&mut self, acked: u64) -> u64 {
        if self.cfg.sack || !self.cfg.flight_size.counts_duplicates_as_sacked() {
            return 0;
        }
        let segments = acked.div_ceil(self.geometry.mss);
        let credited = self.reno_sacked.min(segments.saturating_sub(1));
        self.reno_sacked -= credited;
        credited * self.geometry.mss
    }

    /// RFC 3042: one new segment per duplicate ACK while at most two segments beyond cwnd
    /// are outstanding.
    fn limited_transmit(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let len = self.segment_len(self.snd_nxt);
        let outstanding = self.snd_nxt - self.snd_una;
        let mss = self.geometry.mss;
        if len > 0 && self.snd_nxt == self.snd_max && outstanding + len <= self.cc.cwnd() + 2 * mss && outstanding + len <= self.rwnd {
            self.send_new(now, out);
            self.limited_bytes += len;
        }
    }

    /// RACK learns of each segment in [start, end) delivered now for the first time (not
    /// SACKed before); only whole segments count, as on the scoreboard. `fack` is the highest
    /// SACKed segment before these deliveries: one never resent below it was reordered
    /// (Linux `tcp_sacktag_one`'s and `tcp_clean_rtx_queue`'s `reord`): returns the lowest such.
    /// `echoed` is a cumulative ACK's TSecr (0 for SACK blocks or without timestamps): a
    /// retransmitted segment it shows was delivered by an earlier send tells RACK nothing
    /// (`tcp_clean_rtx_queue` skips `tcp_rack_advance` when `tcp_skb_spurious_retrans`).
    fn rack_delivered(&mut self, now: SimTime, start: u64, end: u64, fack: Option<u64>, mut first_delivered: Option<&mut DeliveredSpan>, echoed: u64) -> Option<u64> {
        let mut reord = None;
        let mss = self.geometry.mss;
        let mut k = start.div_ceil(mss);
        if fack.is_none() && first_delivered.is_none() && self.rack.none_resent() {
            // Nothing SACKed and nothing resent: no reordering to find, and the send times
            // rise with k, so the last whole segment leaves RACK as delivering each in turn
            // would (its RTT is the last set, its send time the latest).
            let whole_end = if end >= self.geometry.data_end { end.div_ceil(mss) } else { end / mss };
            if whole_end > k && self.rack.sent(whole_end - 1).is_some() {
                let last = whole_end - 1;
                self.rack.on_delivered(last, (last * mss + mss).min(self.geometry.data_end), false, now);
                return None;
            }
        }
        // Each whole segment below `end` not SACKed before, in ascending order.
        let stop = self.geometry.whole_segments_end(end);
        while let Some(next) = self.scoreboard.next_unsacked(k, stop) {
            k = next;
            let seg_end = (k * mss + mss).min(self.geometry.data_end);
            // Ever resent (Linux `TCPCB_RETRANS` in `tcp_rack_advance`), not only in this
            // episode: a timeout clears the scoreboard's marks, not what was sent.
            let sent = self.rack.sent(k);
            let ever_resent = sent.is_some_and(|s| s.retransmitted);
            if !ever_resent && fack.is_some_and(|f| k < f) && reord.is_none() {
                reord = Some(k);
            }
            let spurious_resend = ever_resent && echoed != 0 && sent.is_some_and(|s| echoed < s.at);
            if !spurious_resend {
                self.rack.on_delivered(k, seg_end, ever_resent, now);
            }
            if let (Some(span), Some(sent)) = (first_delivered.as_deref_mut(), self.rack.sent(k)) {
                if !sent.retransmitted {
                    span.note(k, sent.at);
                }
            }
            k += 1;
        }
        reord
    }

    /// Linux `tcp_set_xmit_timer`: a tail loss probe if one may be armed, else the RTO.
    fn set_xmit_timer(&mut self, now: SimTime) {
        if self.snd_una >= self.snd_max || self.phase != Phase::Established {
            return;
        }
        if !self.schedule_probe(now, true) {
            self.arm_rto(now);
        }
    }
}
