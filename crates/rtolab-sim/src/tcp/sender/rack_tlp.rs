//! RACK-TLP in the sender (RFC 8985; Linux `tcp_recovery.c`, `tcp_send_loss_probe`,
//! `tcp_process_tlp_ack`, `tcp_schedule_loss_probe`): the one timer slot of the sender
//! carries the RTO, the tail loss probe or RACK's reordering re-check, as Linux's
//! `icsk_pending` does; RACK marks losses on the scoreboard; PRR's per-ACK window.

use super::{TcpSender, TimerKind};
use crate::tcp::cc::CongestionControl;
use crate::tcp::jiffies;
use crate::tcp::recovery::{LossRecovery, Reduction};
use crate::tcp::scoreboard::LossMarking;
use crate::tcp::segment::Segment;
use crate::tcp::state::LossState;
use crate::time::{SimDuration, SimTime};

/// Linux `TCP_TIMEOUT_MIN_US`: added to the probe timeout when more than one segment is out.
const PROBE_SLACK: SimDuration = SimDuration(2_000_000);
/// Linux `TCP_TIMEOUT_MIN_US`: added to RACK's re-check delay.
const REORDER_SLACK: SimDuration = SimDuration(2_000_000);

impl TcpSender {
    /// RFC 6298 (5.1)/(5.3): the retransmission timer, RTO from now.
    pub(super) fn arm_rto(&mut self, now: SimTime) {
        self.timer = Some(self.timer_fires(now, self.rto.current()));
        self.timer_kind = TimerKind::Rto;
    }

    /// When a timer armed at `now` to expire after `timeout` fires (`jiffies::fire_at`).
    pub(super) fn timer_fires(&self, now: SimTime, timeout: SimDuration) -> SimTime {
        jiffies::fire_at(self.cfg.wheel, now, timeout)
    }

    pub(super) fn loss_marking(&self) -> LossMarking {
        if self.cfg.rack {
            LossMarking::Marked
        } else {
            LossMarking::Rfc6675
        }
    }

    /// Linux `tcp_schedule_loss_probe` (RFC 8985 7.2): in Open with data outstanding, probe
    /// after 2·SRTT, plus rto_min when one segment is out (the receiver may delay its ACK)
    /// or 2 ms otherwise; never later than the RTO would fire: RTO from now when the timer is
    /// being restarted by an ACK (`advancing_rto`), else the RTO timer's remaining time
    /// counted from the oldest segment's transmission. Returns whether a probe was armed.
    pub(super) fn schedule_probe(&mut self, now: SimTime, advancing_rto: bool) -> bool {
        if !self.cfg.tlp || !self.cfg.sack || self.state != LossState::Open || self.snd_una >= self.snd_max {
            return false;
        }
        let Some(srtt) = self.rto.srtt() else { return false };
        let one_out = self.snd_max - self.snd_una <= self.geometry.mss;
        let extra = if one_out { self.rto.config().min_rto } else { PROBE_SLACK };
        let mut pto = SimDuration(2 * srtt.as_nanos()) + extra;
        pto = jiffies::round_up(pto);
        let rto_left = if advancing_rto { Some(self.rto.current()) } else { self.rto_remaining(now) };
        if let Some(left) = rto_left.filter(|l| l.as_nanos() > 0) {
            pto = pto.min(left);
        }
        self.timer = Some(self.timer_fires(now, pto));
        self.timer_kind = TimerKind::Probe;
        true
    }

    /// Linux `tcp_rto_delta_us`: when the RTO counted from the oldest outstanding segment's
    /// transmission would fire, from now.
    fn rto_remaining(&self, now: SimTime) -> Option<SimDuration> {
        let head = self.rack.head_sent_at()?;
        Some((head + self.rto.current()).since(now))
    }

    /// Linux `tcp_rearm_rto` after a probe or a re-check: the RTO counted from the oldest
    /// outstanding segment (at least 1 µs ahead), or none when nothing is outstanding.
    fn rearm_rto_from_head(&mut self, now: SimTime) {
        if self.snd_una >= self.snd_max {
            self.timer = None;
            return;
        }
        let left = self.rto_remaining(now).unwrap_or(self.rto.current()).max(SimDuration::from_micros(1));
        self.timer = Some(self.timer_fires(now, left));
        self.timer_kind = TimerKind::Rto;
    }

    /// Linux `tcp_send_loss_probe` (RFC 8985 7.3): one new segment if the receiver window
    /// allows (whatever cwnd says), else the last segment sent again (a lone FIN, `fin.rs`); `tlp_high_seq` records
    /// SND.MAX so the ACK can tell whether the probe repaired a loss. One probe at a time.
    pub(super) fn send_loss_probe(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.tlp_high_seq.is_none() {
            let len = self.segment_len(self.snd_max);
            if len > 0 && self.snd_max + len - self.snd_una <= self.rwnd {
                self.snd_nxt = self.snd_max;
                self.send_new(now, out);
                self.tlp_retransmitted = false;
            } else if self.probe_with_fin(now, out) {
                self.tlp_retransmitted = true;
            } else {
                let last = (self.snd_max - 1) / self.geometry.mss * self.geometry.mss;
                self.retransmit(now, last.max(self.snd_una), out);
                self.tlp_retransmitted = true;
            }
            self.tlp_high_seq = Some(self.snd_max);
            self.stats.loss_probes += 1;
            self.arm_rto(now);
            return;
        }
        self.rearm_rto_from_head(now);
    }

    /// Linux `tcp_process_tlp_ack` (RFC 8985 7.4.2): once the ACK reaches `tlp_high_seq`,
    /// a probe of new data, a DSACK of the probe or a plain duplicate says nothing was lost;
    /// an ACK beyond it after a retransmitted probe means the probe repaired a loss, and the
    /// window is reduced once (CWR: ssthresh from the controller, cwnd = ssthresh).
    pub(super) fn process_probe_ack(&mut self, now: SimTime, ack: u64, dsack_of_probe: bool, advanced_or_sacked: bool) {
        let Some(high) = self.tlp_high_seq else { return };
        if ack < high {
            return;
        }
        if !self.tlp_retransmitted || dsack_of_probe {
            self.tlp_high_seq = None;
        } else if ack > high {
            self.tlp_high_seq = None;
            self.cc.on_congestion_event(now, self.flight());
            let ssthresh = self.cc.ssthresh();
            // `tcp_end_cwnd_reduction`, which a `cong_control` module (BBR) skips.
            self.cc.set_recovery_cwnd(ssthresh);
            self.cc.on_recovery_exit(now);
            self.stats.probe_recoveries += 1;
        } else if !advanced_or_sacked {
            self.tlp_high_seq = None;
        }
    }

    /// RACK's pass after an ACK that was not clean (RFC 8985 6.2 step 5; Linux runs it from
    /// `tcp_fastretrans_alert` for such ACKs, in every state): mark losses; a first loss
    /// outside recovery starts fast recovery, and so does a lost retransmission in RTO
    /// recovery; segments still inside the reordering window are re-checked later. Returns
    /// whether new losses were found and whether the re-check was armed.
    pub(super) fn rack_detect(&mut self, now: SimTime, out: &mut Vec<Segment>) -> (bool, bool) {
        let in_loss = self.state.is_loss();
        let reo_wnd = self.rack.reordering_window(self.state.is_recovery() || in_loss, self.scoreboard.sacked_segments() as u64, self.geometry.dupthresh, self.rto.srtt());
        let verdict = self.rack.detect_loss(now, reo_wnd, self.snd_una, self.snd_max, &mut self.scoreboard, &self.geometry);
        if in_loss {
            if verdict.lost_retransmissions > 0 {
                self.leave_loss_for_recovery(now, out);
            }
        } else if verdict.newly_lost > 0 && !self.state.is_recovery() && self.snd_una >= self.recover {
            self.enter_recovery(now, out);
        }
        if let Some(wait) = verdict.recheck_after {
            // `usecs_to_jiffies(timeout + TCP_TIMEOUT_MIN_US)`, at most the RTO.
            let wait = jiffies::round_up(wait + REORDER_SLACK);
            self.timer = Some(self.timer_fires(now, wait.min(self.rto.current())));
            self.timer_kind = TimerKind::Reorder;
        }
        (verdict.newly_lost > 0, verdict.recheck_after.is_some())
    }

    /// Linux `tcp_fastretrans_alert` in `TCP_CA_Loss`: after `tcp_process_loss`,
    /// `tcp_identify_packet_loss`; a retransmission found lost (`FLAG_LOST_RETRANS`) falls
    /// through to `tcp_time_to_recover` and `tcp_enter_recovery`, which takes a new undo
    /// snapshot (`tcp_init_undo`) and starts a new reduction from the window the timeout
    /// left (`tcp_init_cwnd_reduction`): RTO recovery becomes fast recovery, with PRR,
    /// instead of waiting for another, backed-off timeout.
    fn leave_loss_for_recovery(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.release_detectors();
        self.state = LossState::Open;
        self.recover = self.snd_una;
        self.enter_recovery(now, out);
    }

    /// Linux `tcp_rack_reo_timeout`: the re-check is due; then the RTO from the oldest
    /// segment unless the pass armed another re-check.
    pub(super) fn on_reorder_timeout(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let was_recovery = self.state.is_recovery();
        self.rack_detect(now, out);
        if !was_recovery && self.state.is_recovery() {
            // `tcp_cwnd_reduction(sk, 1, 0, 0)` on entering recovery from the timer.
            self.reduce_window(self.geometry.mss, false, false, false);
        }
        if self.timer.is_none() {
            self.rearm_rto_from_head(now);
        }
        self.send_allowed(now, out);
    }

    /// PRR's or rate halving's window for this ACK (`recovery/prr.rs`, `rate_halving.rs`),
    /// from the pipe after loss marking.
    pub(super) fn reduce_window(&mut self, delivered: u64, una_advanced: bool, newly_lost: bool, dsack: bool) {
        if !self.state.is_recovery() || !self.recovery.reduces_by_delivery() {
            return;
        }
        let (pipe, _) = self.scoreboard.plan(self.snd_una, self.snd_max, false, self.loss_marking(), &self.geometry);
        let r = Reduction { delivered, pipe, una_advanced, newly_lost, dsack, cwnd_min: self.cc.min_cwnd() };
        if let Some(cwnd) = self.recovery.reduce(self.window_facts(), r) {
            self.cc.set_recovery_cwnd(cwnd);
        }
    }
}
