//! Window reductions and their undoing: fast retransmit, the retransmission timeout, the
//! episode's detectors and their verdicts (`spurious/detector.rs`), going back after a
//! timeout, and the call to the response (`spurious/responses.rs`).

use super::{SenderNote, TcpSender};
use crate::tcp::cc::CongestionControl;
use crate::tcp::recovery::{Entry, LossRecovery};
use crate::tcp::segment::Segment;
use crate::tcp::spurious::{respond, AnyDetector, Episode, EpisodeKind, EpisodeStart, SenderParts, TimeoutFacts, Verdict};
use crate::tcp::state::LossState;
use crate::time::{SimDuration, SimTime};

impl TcpSender {
    /// Saves what an undo needs, before a reduction (Linux `tcp_init_undo`). A timeout in
    /// fast recovery or a repeated timeout keeps the episode that is running, so an undo
    /// goes back to the window before the first reduction.
    fn begin_episode(&mut self, kind: EpisodeKind, fresh: bool) {
        let continuing = !fresh && self.episode.as_ref().is_some_and(|e| !e.decided) && (self.state.is_recovery() || self.state.is_loss());
        if continuing {
            return;
        }
        let at = EpisodeStart {
            snd_una: self.snd_una,
            sack: self.cfg.sack,
            retransmissions_in_flight: self.scoreboard.retransmitted_in_flight(),
            retrans_stamp: self.retrans_stamp,
        };
        let started = Episode::start_detectors(self.cfg.detect, &at);
        self.episode = Some(Episode {
            kind,
            prior: self.cc.clone(),
            pipe_prev: self.flight().max(self.cc.ssthresh().min(u64::MAX / 8)),
            srtt_prev: self.rto.srtt(),
            rttvar_prev: self.rto.rttvar(),
            timeouts: None,
            detectors: started.detectors,
            ack_readers: started.ack_readers,
            hold_readers: started.hold_readers,
            held: false,
            decided: false,
        });
    }

    /// Fast retransmit (RFC 5681 3.2 steps 2–3, RFC 6582 3.2 step 2, RFC 6675 5 step 4).
    pub(super) fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<crate::tcp::Segment>) {
        self.begin_episode(EpisodeKind::FastRetransmit, false);
        // RFC 5681 3.2 step 2: data sent by limited transmit does not count in FlightSize.
        let flight = self.flight() - self.limited_bytes.min(self.flight());
        self.cc.on_congestion_event(now, flight);
        self.stats.fast_retransmits += 1;
        self.state = LossState::Recovery { point: self.snd_max };
        self.recover = self.snd_max;
        // Under `FlightSize::PacketsInFlight` a segment resent earlier and not yet delivered
        // stays in flight and is not resent again.
        if !self.cfg.flight_size.keeps_retransmitted_on_entry() {
            self.scoreboard.clear_retransmitted();
        }
        match self.recovery.enter(self.window_facts(), self.cfg.dupthresh as u64) {
            Entry::Cwnd(cwnd) => self.cc.set_recovery_cwnd(cwnd),
            Entry::HalveWindow => self.cc.halve_window(),
        }
        // PRR's first window forces the fast retransmit itself (`tcp_cwnd_reduction`), rate
        // halving's lets it go (`tcp_cwnd_down`), so it is sent by the window, not before it.
        if !self.recovery.reduces_by_delivery() {
            self.retransmit(now, self.snd_una, out);
        }
        if self.cfg.fast_retransmit.restarts_timer() {
            // The timer restarts from the fast retransmit and the timed segment is abandoned.
            self.rtt_probe = None;
            self.arm_rto(now);
        }
    }

    /// RFC 6298 (5.4)-(5.6) and RFC 5681 (4): retransmit SND.UNA, back off, then go back to
    /// SND.UNA — or, when a detector takes over (RFC 5682 step 1), wait and see.
    pub(super) fn on_rto(&mut self, now: SimTime, out: &mut Vec<crate::tcp::Segment>) {
        let id = self.stats.timeouts;
        self.stats.timeouts += 1;
        self.stats.timeout_idle_s += now.since(self.last_send).as_secs_f64();
        if let Some(m) = self.icmp.as_mut() {
            m.on_timeout();
            self.stats.icmp_cases = m.case_counts();
        }
        self.notes.push(SenderNote::Timeout { seq: self.snd_una, id, cwnd: self.cc.cwnd(), ssthresh: self.cc.ssthresh() });
        // RFC 5682 3.1 step 1: no wait-and-see while a recovery (fast or RTO) is under way
        // (the detectors are told so).
        let facts = TimeoutFacts {
            repeated: (self.state.is_loss() || self.state.is_recovery()) && self.recover >= self.snd_una,
            in_fast_recovery: self.state.is_recovery(),
            in_rto_recovery: self.state.is_loss(),
            repeats_without_progress: self.state.is_loss() && self.snd_una == self.una_at_last_timeout,
        };
        self.una_at_last_timeout = self.snd_una;
        if self.state.is_recovery() {
            self.recovery.on_exit();
        }
        let reduces = if self.cfg.timeout_reduces_per_window {
            !(facts.in_fast_recovery || facts.in_rto_recovery) || self.recover <= self.snd_una || (facts.in_rto_recovery && !facts.repeats_without_progress)
        } else {
            self.rto.backoff() == 0
        };
        // Linux takes a new undo snapshot with the reduction (`tcp_init_undo`).
        self.begin_episode(EpisodeKind::Timeout, self.cfg.timeout_reduces_per_window && reduces);
        if let Some(ep) = self.episode.as_mut() {
            ep.add_timeout(id);
        }
        let flight = self.flight();
        self.cc.on_rto(now, flight, reduces);
        // Paper 001: a timeout its scheme brought forward may leave the back-off alone.
        let keep_backoff = std::mem::take(&mut self.premature_timeout) && self.icmp.as_ref().is_some_and(|m| !m.config().backoff_premature);
        if !keep_backoff {
            self.rto.back_off();
        }
        self.state = LossState::Loss { point: self.snd_max };
        self.paced_on_timeout();
        self.recover = self.snd_max;
        self.dupacks = 0;
        // Linux `tcp_timeout_mark_lost`: `tcp_reset_reno_sack`.
        self.reno_sacked = 0;
        self.limited_bytes = 0;
        self.tlp_high_seq = None;
        self.scoreboard.clear_lost();
        // Whether a detector holds what is sent next (RFC 5682 step 1).
        let held = self.episode.as_mut().is_some_and(|ep| ep.on_timeout(&facts));
        // RFC 5682 3.1 judges SACK blocks against what was SACKed before the timeout, so it keeps
        // the marks as RFC 6675 5.1 does.
        if self.cfg.sack && (self.cfg.sack_after_timeout || held) {
            self.scoreboard.clear_retransmitted();
        } else {
            self.scoreboard.clear();
        }
        self.rtt_probe = None;
        // RFC 6675 5.1: SND.UNA is resent whatever the scoreboard says (the receiver may
        // have reneged).
        self.retransmit(now, self.snd_una, out);
        self.head_resent_to = self.snd_una + self.segment_len(self.snd_una);
        if held {
            self.snd_nxt = self.snd_max;
        } else {
            self.snd_nxt = self.snd_una + self.segment_len(self.snd_una);
            self.send_allowed(now, out);
        }
        self.arm_rto(now);
    }

    /// Conventional RTO recovery: resend from SND.UNA (a detector's `GoBack`, RFC 5682
    /// 2a/3a). The head was already resent at the timeout, so resending starts
    /// after it while it is unacknowledged.
    pub(super) fn go_back_n(&mut self) {
        self.release_detectors();
        if self.state.is_loss() {
            self.snd_nxt = self.snd_una.max(self.head_resent_to);
        }
    }

    /// The sender takes back what is sent after a timeout (`Detector::release`).
    pub(super) fn release_detectors(&mut self) {
        if let Some(ep) = self.episode.as_mut() {
            ep.release();
        }
    }

    /// Whether a detector of the running episode holds what is sent after a timeout.
    pub(super) fn detector_holds_recovery(&self) -> bool {
        self.episode.as_ref().is_some_and(|ep| ep.holds_recovery())
    }

    /// Feeds one event (`ask`) to each detector of the undecided episode, in registry order,
    /// and acts on each verdict, until one decides the episode. `acked` and `sample` come
    /// from the ACK behind the event (0 and none if it acknowledged nothing new).
    ///
    /// Every ACK comes here while an episode is undecided, so the loop asks and moves on
    /// when there is nothing to do; only a verdict that asks for something leaves it.
    #[inline]
    pub(super) fn consult_detectors(
        &mut self,
        now: SimTime,
        acked: u64,
        sample: Option<SimDuration>,
        out: &mut Vec<Segment>,
        ask: impl Fn(&mut AnyDetector) -> Verdict,
    ) {
        let mut i = 0;
        loop {
            let Some(d) = self.episode.as_mut().filter(|e| !e.decided).and_then(|e| e.detectors.get_mut(i)) else {
                return;
            };
            let verdict = ask(d);
            if !matches!(verdict, Verdict::Undecided | Verdict::Genuine) {
                self.on_verdict(now, verdict, acked, sample, out);
            }
            i += 1;
        }
    }

    /// The positions of the episode's detectors that listen to ACKs now (`AckReading`).
    #[inline]
    pub(super) fn ack_listeners(&self) -> u32 {
        self.episode.as_ref().map_or(0, |e| e.ack_listeners())
    }

    /// As `consult_detectors`, for an ACK: only the detectors that listen to ACKs are asked
    /// (`ack_listeners`, read again after each verdict), and one that answers `Genuine` is
    /// asked no more.
    pub(super) fn consult_ack_listeners(
        &mut self,
        now: SimTime,
        acked: u64,
        sample: Option<SimDuration>,
        out: &mut Vec<Segment>,
        ask: impl Fn(&mut AnyDetector) -> Verdict,
    ) {
        let mut passed = 0u32; // positions already asked
        loop {
            let pending = self.ack_listeners() & !passed;
            if pending == 0 {
                return;
            }
            let i = pending.trailing_zeros();
            passed |= ((2u64 << i) - 1) as u32;
            let Some(ep) = self.episode.as_mut() else {
                return;
            };
            let Some(d) = ep.detectors.get_mut(i as usize) else {
                return;
            };
            match ask(d) {
                Verdict::Undecided => {}
                Verdict::Genuine => ep.ack_readers &= !(1 << i),
                verdict => self.on_verdict(now, verdict, acked, sample, out),
            }
        }
    }

    /// Carries out a detector's verdict (one that asks for something).
    #[cold]
    fn on_verdict(&mut self, now: SimTime, verdict: Verdict, acked: u64, sample: Option<SimDuration>, out: &mut Vec<Segment>) {
        match verdict {
            Verdict::Undecided | Verdict::Genuine => {}
            Verdict::SendNew { segments } => {
                if !self.send_new_after_timeout(now, segments, out) {
                    self.go_back_n();
                }
            }
            Verdict::GoBack { cwnd_cap } => {
                if let Some(segments) = cwnd_cap {
                    let c = self.cc.cwnd().min(segments * self.geometry.mss);
                    self.cc.set_cwnd(c);
                }
                self.go_back_n();
            }
            Verdict::Spurious(proof) => {
                if proof.ends_loss {
                    // RFC 5682 3b ends RTO recovery: new data goes on, nothing is resent.
                    if self.state.is_loss() {
                        self.state = LossState::Open;
                    }
                    self.recover = self.snd_una;
                }
                self.on_spurious(acked, if proof.rtt_sample { sample } else { None });
            }
        }
    }

    /// A detector found the running episode spurious: count it, then respond; after a
    /// timeout, `recover` drops to SND.UNA so fast retransmit works again (RFC 5682 3b). `acked` and
    /// `sample` come from the ACK that revealed it (0 and none for a DSACK).
    fn on_spurious(&mut self, acked: u64, sample: Option<SimDuration>) {
        let Some(ep) = self.episode.as_mut().filter(|e| !e.decided) else {
            return;
        };
        ep.decided = true;
        ep.release();
        if ep.kind == EpisodeKind::Timeout {
            self.recover = self.snd_una;
        }
        if let (EpisodeKind::Timeout, Some((first, last))) = (ep.kind, ep.timeouts) {
            self.stats.spurious_detected += last - first + 1;
            self.notes.push(SenderNote::SpuriousDetected { first, last });
        }
        let undone = Some(SenderNote::Undone { timeouts: ep.timeouts.filter(|_| ep.kind == EpisodeKind::Timeout), cwnd: self.cc.cwnd(), ssthresh: self.cc.ssthresh() });
        let mut parts = SenderParts {
            cc: &mut self.cc,
            rto: &mut self.rto,
            recovery: &mut self.recovery,
            scoreboard: &mut self.scoreboard,
            state: &mut self.state,
            snd_nxt: &mut self.snd_nxt,
            recover: &mut self.recover,
            growth_done: &mut self.growth_done,
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            rwnd: self.rwnd,
            mss: self.geometry.mss,
            initial_window: self.cfg.initial_window,
        };
        if respond(self.cfg.response, ep, &mut parts, acked, sample) {
            self.stats.undos += 1;
            self.notes.extend(undone);
        }
    }
}
