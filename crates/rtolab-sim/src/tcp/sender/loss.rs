//! Window reductions and their undoing: fast retransmit, the retransmission timeout,
//! F-RTO's start and revert, and the responses to a spurious verdict.

use super::{SenderNote, TcpSender};
use crate::tcp::cc::CongestionControl;
use crate::tcp::recovery::{Entry, LossRecovery};
use crate::tcp::spurious::{DsackDetector, EifelDetector, Episode, EpisodeKind, Response};
use crate::tcp::state::LossState;
use crate::time::{SimDuration, SimTime};

impl TcpSender {
    /// Saves what an undo needs, before a reduction (Linux `tcp_init_undo`). A timeout in
    /// fast recovery or a repeated timeout keeps the episode that is running, so an undo
    /// goes back to the window before the first reduction.
    fn begin_episode(&mut self, kind: EpisodeKind) {
        let continuing = self.episode.as_ref().is_some_and(|e| !e.decided) && (self.state.is_recovery() || self.state.is_loss());
        if continuing {
            return;
        }
        self.episode = Some(Episode {
            kind,
            prior: self.cc.clone(),
            pipe_prev: self.flight().max(self.cc.ssthresh().min(u64::MAX / 8)),
            srtt_prev: self.rto.srtt(),
            rttvar_prev: self.rto.rttvar(),
            timeouts: None,
            eifel: EifelDetector::default(),
            dsack: DsackDetector::new(self.snd_una),
            decided: false,
        });
    }

    /// Fast retransmit (RFC 5681 3.2 steps 2–3, RFC 6582 3.2 step 2, RFC 6675 5 step 4).
    pub(super) fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<crate::tcp::Segment>) {
        self.begin_episode(EpisodeKind::FastRetransmit);
        // RFC 5681 3.2 step 2: data sent by limited transmit does not count in FlightSize.
        let flight = self.flight() - self.limited_bytes.min(self.flight());
        self.cc.on_congestion_event(now, flight);
        self.stats.fast_retransmits += 1;
        self.state = LossState::Recovery { point: self.snd_max };
        self.recover = self.snd_max;
        // Linux `tcp_enter_recovery` keeps `TCPCB_SACKED_RETRANS`: a segment resent earlier
        // and not yet delivered stays in flight and is not resent again.
        if !self.cfg.linux_flight {
            self.scoreboard.clear_retransmitted();
        }
        match self.recovery.enter(self.window_facts(), self.cfg.dupthresh as u64) {
            Entry::Cwnd(cwnd) => self.cc.set_cwnd(cwnd),
            Entry::HalveWindow => self.cc.halve_window(),
        }
        // PRR's first window forces the fast retransmit itself (`tcp_cwnd_reduction`), rate
        // halving's lets it go (`tcp_cwnd_down`), so it is sent by the window, not before it.
        if !self.recovery.reduces_by_delivery() {
            self.retransmit(now, self.snd_una, out);
        }
        if self.cfg.ns2_dupack_action {
            // ns-2 `dupack_action` → `reset_rtx_timer(1, 0)`: the timer restarts from the
            // fast retransmit and the timed segment is abandoned (`rtt_active_ = 0`).
            self.rtt_probe = None;
            self.arm_rto(now);
        }
    }

    /// RFC 6298 (5.4)-(5.6) and RFC 5681 (4): retransmit SND.UNA, back off, then go back to
    /// SND.UNA — or, with F-RTO, wait and see (RFC 5682 step 1).
    pub(super) fn on_rto(&mut self, now: SimTime, out: &mut Vec<crate::tcp::Segment>) {
        let id = self.stats.timeouts;
        self.stats.timeouts += 1;
        self.stats.timeout_idle_s += now.since(self.last_send).as_secs_f64();
        if let Some(m) = self.icmp.as_mut() {
            m.on_timeout();
            self.stats.icmp_cases = m.case_counts();
        }
        self.notes.push(SenderNote::Timeout { seq: self.snd_una, id });
        // RFC 5682 3.1 step 1: no F-RTO while a recovery (fast or RTO) is under way.
        let repeated = (self.state.is_loss() || self.state.is_recovery()) && self.recover >= self.snd_una;
        if self.state.is_recovery() {
            self.recovery.on_exit();
        }
        self.begin_episode(EpisodeKind::Timeout);
        if let Some(ep) = self.episode.as_mut() {
            ep.add_timeout(id);
        }
        let flight = self.flight();
        let first = self.rto.backoff() == 0;
        self.cc.on_rto(now, flight, first);
        // Paper 001: a timeout its scheme brought forward may leave the back-off alone.
        let keep_backoff = std::mem::take(&mut self.premature_timeout) && self.icmp.as_ref().is_some_and(|m| !m.config().backoff_premature);
        if !keep_backoff {
            self.rto.back_off();
        }
        self.state = LossState::Loss { point: self.snd_max };
        self.recover = self.snd_max;
        self.dupacks = 0;
        self.limited_bytes = 0;
        self.tlp_high_seq = None;
        self.scoreboard.clear_lost();
        let frto = self.cfg.detect.frto && self.frto.on_timeout(repeated);
        // F-RTO judges SACK blocks against what was SACKed before the timeout, so it keeps
        // the marks as RFC 6675 5.1 does.
        if self.cfg.sack && (self.cfg.sack_after_timeout || frto) {
            self.scoreboard.clear_retransmitted();
        } else {
            self.scoreboard.clear();
        }
        self.rtt_probe = None;
        // RFC 6675 5.1: SND.UNA is resent whatever the scoreboard says (the receiver may
        // have reneged).
        self.retransmit(now, self.snd_una, out);
        self.head_resent_to = self.snd_una + self.segment_len(self.snd_una);
        if frto {
            self.snd_nxt = self.snd_max;
        } else {
            self.snd_nxt = self.snd_una + self.segment_len(self.snd_una);
            self.send_allowed(now, out);
        }
        self.arm_rto(now);
    }

    /// Conventional RTO recovery: resend from SND.UNA (F-RTO's revert, RFC 5682 2a/3a).
    /// The head was already resent at the timeout, so resending starts after it while it is
    /// unacknowledged.
    pub(super) fn go_back_n(&mut self) {
        self.frto.stop();
        if self.state.is_loss() {
            self.snd_nxt = self.snd_una.max(self.head_resent_to);
        }
    }

    /// A detector found the running episode spurious: count it, then respond; after a
    /// timeout, `recover` drops to SND.UNA so fast retransmit works again (RFC 5682 3b). `acked` and
    /// `sample` come from the ACK that revealed it (0 and none for a DSACK).
    pub(super) fn on_spurious(&mut self, acked: u64, sample: Option<SimDuration>) {
        let Some(ep) = self.episode.as_mut() else {
            return;
        };
        ep.decided = true;
        self.frto.stop();
        if ep.kind == EpisodeKind::Timeout {
            self.recover = self.snd_una;
        }
        if let (EpisodeKind::Timeout, Some((first, last))) = (ep.kind, ep.timeouts) {
            self.stats.spurious_detected += last - first + 1;
            self.notes.push(SenderNote::SpuriousDetected { first, last });
        }
        let ep = ep.clone();
        match self.cfg.response {
            Response::None => return,
            Response::Undo => self.respond_undo(&ep),
            // RFC 4015 covers timeouts only.
            Response::Rfc4015 if ep.kind != EpisodeKind::Timeout => return,
            Response::Rfc4015 => self.respond_rfc4015(&ep, acked, sample),
            // ns-2's `spurious_timeout()` covers timeouts only, too; applied to a fast
            // recovery it would leave Recovery with ssthresh restored, possibly to its
            // initial "infinite" value, and the recovery's exit would set cwnd to it.
            Response::Ns2(_) if ep.kind != EpisodeKind::Timeout => return,
            Response::Ns2(mode) => self.respond_ns2(&ep, mode, acked),
        }
        self.stats.undos += 1;
    }

    pub(super) fn on_spurious_dsack(&mut self) {
        self.on_spurious(0, None);
    }

    /// Leaves Recovery or Loss for Open and stops resending: the data thought lost was not.
    fn resume_open(&mut self) {
        if self.state.is_recovery() {
            self.recovery.on_exit();
        }
        if self.state.is_recovery() || self.state.is_loss() {
            self.state = LossState::Open;
        }
        self.snd_nxt = self.snd_max;
        self.recover = self.snd_una;
        self.scoreboard.clear_retransmitted();
        self.scoreboard.clear_lost();
    }

    /// Linux: `tcp_undo_cwnd_reduction` restores cwnd and ssthresh to no less than before
    /// the reduction; `tcp_try_undo_loss` clears the RTO back-off (`icsk_retransmits = 0`).
    fn respond_undo(&mut self, ep: &Episode) {
        if self.state.is_recovery() {
            // Deflate first: window inflation (RFC 5681 3.2 step 4) must not survive the undo.
            let ssthresh = self.cc.ssthresh();
            self.cc.set_cwnd(ssthresh);
        }
        self.cc.undo(&ep.prior);
        self.rto.clear_backoff();
        self.resume_open();
    }

    /// The Eifel response, RFC 4015 3.2, for timeouts: detected while still in Loss
    /// (SPUR_TO), resume with new data (SND.NXT = SND.MAX); detected later (LATE_SPUR_TO,
    /// e.g. by DSACK) leave SND.NXT alone. Then cwnd = FlightSize + min(bytes_acked, IW),
    /// ssthresh = pipe_prev = max(FlightSize, ssthresh) saved at the timeout; and, with a new
    /// RTT sample R, SRTT = max(SRTT_prev, R), RTTVAR = max(RTTVAR_prev, R/2) and the RTO
    /// recomputed from them (which drops the back-off).
    fn respond_rfc4015(&mut self, ep: &Episode, acked: u64, sample: Option<SimDuration>) {
        if self.state.is_loss() {
            self.resume_open();
        }
        let iw = self.cfg.initial_window;
        self.cc.set_cwnd(self.flight() + acked.min(iw));
        self.growth_done = true; // the response sets this ACK's window
        self.cc.set_ssthresh(ep.pipe_prev.max(2 * self.geometry.mss));
        if let (Some(r), Some(srtt_prev)) = (sample, ep.srtt_prev) {
            let g = self.rto.config().granularity;
            self.rto.reinitialise((srtt_prev + g + g).max(r), ep.rttvar_prev.max(SimDuration(r.as_nanos() / 2)));
        }
    }

    /// ns-2 `TcpAgent::spurious_timeout()`: cwnd by `spurious_response_` (1: `t_seqno_ −
    /// prev_highest_ack_`, the flight before the ACK that revealed it, `acked` bytes ago; 2:
    /// the reduced ssthresh; 3: one segment), then ssthresh = `pipe_prev_` = max(window(),
    /// ssthresh) before the timeout, and `recover_ = highest_ack_ − 1`, one packet below
    /// SND.UNA, so that fast retransmit is possible at once. SND.NXT is left where it is.
    fn respond_ns2(&mut self, ep: &Episode, mode: u8, acked: u64) {
        let mss = self.geometry.mss;
        let cwnd = match mode {
            2 => self.cc.ssthresh(),
            3 => mss,
            _ => self.snd_nxt.saturating_sub(self.snd_una.saturating_sub(acked)),
        };
        let prior_window = ep.prior.cwnd().min(self.rwnd);
        self.cc.set_cwnd(cwnd);
        self.cc.set_ssthresh(prior_window.max(ep.prior.ssthresh()));
        self.recover = self.snd_una.saturating_sub(mss);
        if self.state.is_loss() {
            self.state = LossState::Open;
        }
    }
}
