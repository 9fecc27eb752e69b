//! What the sender transmits and when: the window loop (with go-back-N after a timeout,
//! skipping SACKed segments where the stack keeps them), the RFC 6675 pipe loop in SACK
//! recovery, the new segments a detector asks for after a timeout, and the bookkeeping every
//! transmission does (Karn's timed segment, the episode's retransmission record, the timer).

use super::{TcpSender, TimerKind, WindowUse};
use crate::tcp::cc::CongestionControl;
use crate::tcp::recovery::{LossRecovery, Transmit};
use crate::tcp::scoreboard::NextSeg;
use crate::tcp::segment::{ts_now, Segment, FLAG_ACK, FLAG_FIN};
use crate::time::SimTime;

impl TcpSender {
    /// Sends what the windows allow: the RFC 6675 (C) loop in SACK recovery, otherwise
    /// segments from SND.NXT while the data in flight stays within cwnd and the data
    /// outstanding within rwnd.
    pub(super) fn send_allowed(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.state.is_recovery() {
            match self.recovery.transmit() {
                Transmit::Rfc6675Pipe => return self.sack_transmit(now, out),
                Transmit::CountedPipe => return self.counted_transmit(now, out),
                Transmit::Window => {}
            }
        }
        let skip_sacked = self.state.is_loss() && self.cfg.sack && self.cfg.sack_after_timeout;
        let in_recovery = self.state.is_recovery();
        let cwnd = self.cc.cwnd() + if in_recovery { self.recovery.extra_window(self.geometry.mss) } else { 0 };
        let max_burst = if in_recovery { self.recovery.burst_limit().or(self.cfg.max_burst) } else { self.cfg.max_burst };
        let mut burst = 0;
        let mut cwnd_stopped = false;
        // Bytes below SND.NXT out of the flight: SACKed ones after a timeout (counted once,
        // then grown by the segments skipped), or, under `FlightSize::PacketsInFlight`, the
        // SACKed and lost ones.
        let mut sacked = if skip_sacked {
            self.scoreboard.sacked_bytes_below(self.snd_nxt, &self.geometry)
        } else if self.cfg.flight_size.excludes_sacked() && !in_recovery && self.scoreboard.sacked_segments() > 0 {
            // (A resent segment counts twice in the pipe: the flight may then be fuller than
            // what is outstanding, which Linux allows and rtolab does not model below zero.)
            self.flight().saturating_sub(self.scoreboard.plan(self.snd_una, self.snd_max, false, self.loss_marking(), &self.geometry).0)
        } else {
            0
        };
        loop {
            if skip_sacked {
                while self.snd_nxt < self.snd_max && self.scoreboard.is_sacked(self.snd_nxt, &self.geometry) {
                    let len = self.segment_len(self.snd_nxt);
                    sacked += len;
                    self.snd_nxt += len;
                }
            }
            let len = self.segment_len(self.snd_nxt);
            if len == 0 || self.snd_nxt + len - self.snd_una > self.rwnd {
                break;
            }
            if self.snd_nxt - self.snd_una - sacked + len > cwnd {
                cwnd_stopped = true;
                break;
            }
            if max_burst.is_some_and(|m| burst >= m) {
                break;
            }
            if !self.pacing_allows(now) {
                break;
            }
            self.send_new(now, out);
            burst += 1;
        }
        self.pacing_end_burst();
        self.note_window_use(cwnd_stopped);
        if burst > 0 {
            self.schedule_probe(now, false);
        }
        self.arm_persist_if_shut(now);
    }

    /// Linux `tcp_check_probe_timer`: data waits for a window the peer shut, nothing is in
    /// flight to bring an ACK that opens it, and no timer runs: the persist timer is armed one
    /// RTO ahead (`tcp_probe0_base`).
    fn arm_persist_if_shut(&mut self, now: SimTime) {
        if self.timer.is_none() && self.window_shut_on_waiting_data() {
            self.timer = Some(self.timer_fires(now, self.rto.current()));
            self.timer_kind = TimerKind::Persist;
        }
    }

    /// Nothing is in flight and the next segment waits because the peer's window cannot take
    /// it: only a probe can bring the ACK that opens the window.
    fn window_shut_on_waiting_data(&self) -> bool {
        let len = self.segment_len(self.snd_nxt);
        self.snd_una >= self.snd_max && len > 0 && self.snd_nxt + len - self.snd_una > self.rwnd
    }

    /// Linux `tcp_probe_timer` → `tcp_send_probe0` → `tcp_xmit_probe_skb`: while the window
    /// stays shut, a segment without data one byte below SND.UNA, so that the peer must answer
    /// with its window (RFC 9293 3.8.6.1), and the timer backed off (`tcp_probe0_when`).
    pub(super) fn send_window_probe(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if !self.window_shut_on_waiting_data() {
            return self.send_allowed(now, out);
        }
        let ts_val = if self.cfg.timestamps { ts_now(now) } else { 0 };
        out.push(Segment { flags: FLAG_ACK, seq: self.snd_una.saturating_sub(1), len: 0, ts_val, ..Default::default() });
        self.stats.window_probes += 1;
        self.rto.back_off();
        self.timer = Some(self.timer_fires(now, self.rto.current()));
        self.timer_kind = TimerKind::Persist;
    }

    /// RFC 6675 5 step (C): while cwnd − pipe ≥ 1 SMSS, send what NextSeg() chooses.
    ///
    /// The scoreboard is walked again after a retransmission only: a new segment at SND.MAX
    /// is neither SACKed nor lost (nothing is SACKed above it) nor retransmitted, so it adds
    /// exactly its length to the pipe and leaves NextSeg's rule 1 as it was; rule 2 stays
    /// the choice while new data may be sent.
    fn sack_transmit(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let mut cwnd_stopped = false;
        let mut planned = None;
        loop {
            let len = self.segment_len(self.snd_max);
            let new_ok = len > 0 && self.snd_max + len - self.snd_una <= self.rwnd;
            let (pipe, next) = match planned.take() {
                Some(pipe) if new_ok => (pipe, NextSeg::NewData),
                _ => self.scoreboard.plan(self.snd_una, self.snd_max, new_ok, self.loss_marking(), &self.geometry),
            };
            if self.cc.cwnd() < pipe + self.geometry.mss {
                cwnd_stopped = true;
                break;
            }
            if next != NextSeg::Nothing && !self.pacing_allows(now) {
                break;
            }
            match next {
                NextSeg::Retransmit(seq) => self.retransmit(now, seq, out),
                NextSeg::NewData => {
                    self.snd_nxt = self.snd_max;
                    self.send_new(now, out);
                    planned = Some(pipe + len);
                }
                NextSeg::Nothing => break,
            }
        }
        self.pacing_end_burst();
        self.note_window_use(cwnd_stopped);
    }

    /// `Transmit::CountedPipe`: while the recovery algorithm's own count allows
    /// (`LossRecovery::may_send`), the next hole below the highest SACK block, else new data
    /// within rwnd; each send is counted (`on_recovery_send`).
    fn counted_transmit(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let mss = self.geometry.mss;
        let mut cwnd_stopped = false;
        loop {
            if !self.recovery.may_send(self.cc.cwnd(), mss) {
                cwnd_stopped = true;
                break;
            }
            if !self.pacing_allows(now) {
                break;
            }
            if let Some(seq) = self.scoreboard.next_hole_below_highest_sack(self.snd_una, &self.geometry) {
                self.retransmit(now, seq, out);
            } else {
                let len = self.segment_len(self.snd_max);
                if len == 0 || self.snd_max + len - self.snd_una > self.rwnd {
                    break;
                }
                self.snd_nxt = self.snd_max;
                self.send_new(now, out);
            }
            self.recovery.on_recovery_send();
        }
        self.pacing_end_burst();
        self.note_window_use(cwnd_stopped);
    }

    /// A detector's `SendNew` after a timeout (RFC 5682 step 2b: two): up to
    /// `segments` new, never-sent segments, whatever cwnd says. Returns whether any could be
    /// sent.
    pub(super) fn send_new_after_timeout(&mut self, now: SimTime, segments: u32, out: &mut Vec<Segment>) -> bool {
        let mut sent = 0;
        while sent < segments {
            let len = self.segment_len(self.snd_max);
            if len == 0 || self.snd_max + len - self.snd_una > self.rwnd {
                break;
            }
            self.snd_nxt = self.snd_max;
            self.send_new(now, out);
            sent += 1;
        }
        sent > 0
    }

    /// Linux `tcp_cwnd_validate`: per round (until SND.UNA passes `until`), whether cwnd
    /// stopped a send, and the largest flight.
    fn note_window_use(&mut self, cwnd_stopped: bool) {
        let flight = self.flight();
        let w = &mut self.window_use;
        if self.snd_una >= w.until || cwnd_stopped || (!w.limited && flight > w.max_flight) {
            *w = WindowUse { limited: cwnd_stopped, max_flight: flight, until: self.snd_nxt };
        }
    }

    /// Linux `tcp_is_cwnd_limited`: the window stopped a send this round, or, in slow start,
    /// cwnd is below twice the largest flight (so it can still double).
    pub(super) fn cwnd_limited(&self) -> bool {
        let w = &self.window_use;
        let cwnd = self.cc.cwnd();
        w.limited || (cwnd < self.cc.ssthresh() && cwnd < 2 * w.max_flight)
    }

    /// Sends the segment at SND.NXT and advances it (a retransmission after go-back-N when
    /// SND.NXT < SND.MAX).
    pub(super) fn send_new(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let seq = self.snd_nxt;
        // Go-back-N after a timeout resends from here: with RACK the scoreboard records it
        // as Linux's `TCPCB_SACKED_RETRANS`, so that RACK can find the resend lost
        // (`tcp_rack_detect_loss` skips only segments lost and not yet resent).
        if seq < self.snd_max && self.cfg.rack && self.cfg.sack {
            self.scoreboard.mark_retransmitted(seq, &self.geometry);
        }
        let len = self.transmit(now, seq, out);
        self.snd_nxt += len;
        self.snd_max = self.snd_max.max(self.snd_nxt);
    }

    /// Retransmits the segment at `seq`, marking it on the scoreboard (RFC 6675 HighRxt).
    pub(super) fn retransmit(&mut self, now: SimTime, seq: u64, out: &mut Vec<Segment>) {
        if self.cfg.sack {
            self.scoreboard.mark_retransmitted(seq, &self.geometry);
        }
        self.transmit(now, seq, out);
        if self.cfg.timer_restart.on_head_retransmit() && seq == self.snd_una && self.timer_kind != TimerKind::Reorder {
            self.arm_rto(now);
        }
    }

    fn transmit(&mut self, now: SimTime, seq: u64, out: &mut Vec<Segment>) -> u64 {
        let len = self.segment_len(seq);
        if self.paced.is_some() {
            self.paced_on_transmit(now, seq, len);
        }
        if self.tracks_sends() {
            self.rack.on_send(seq, now, &self.geometry);
        }
        if self.state.is_recovery() {
            self.recovery.sent_in_recovery(len, self.geometry.mss);
        }
        let end = seq + len;
        let ts_val = if self.cfg.timestamps { ts_now(now) } else { 0 };
        if seq < self.snd_max {
            self.stats.retransmits += 1;
            self.stats.retransmitted_bytes += len;
            // Karn's rule: a retransmission voids the timing of any segment it overlaps.
            if self.rtt_probe.is_some_and(|(probe_end, _)| probe_end > seq) {
                self.rtt_probe = None;
            }
            if let Some(ep) = self.episode.as_mut() {
                ep.on_retransmit(ts_now(now));
            }
            // Linux's bookkeeping only (`begin_episode` reads it under the same condition).
            if self.retrans_stamp.is_none() && self.cfg.flight_size.keeps_retransmitted_on_entry() {
                self.retrans_stamp = Some(ts_now(now));
            }
            self.fin_merges_on_resend(end);
        } else {
            if !self.cfg.timestamps && self.rtt_probe.is_none() {
                self.rtt_probe = Some((end, now));
            }
            if self.snd_max == self.snd_una {
                self.cc.on_tx_start(now, self.last_send);
            }
        }
        self.last_send = now;
        self.stats.segments_sent += 1;
        self.stats.payload_bytes_sent += len;
        // A sized transfer's last segment carries the FIN unless it went alone (`fin.rs`).
        let flags = if self.fin_rides(end) { FLAG_ACK | FLAG_FIN } else { FLAG_ACK };
        out.push(Segment { flags, seq, len: len as u32, ts_val, ts_ecr: if ts_val != 0 { self.ts_recent } else { 0 }, ..Default::default() });
        if self.timer_kind == TimerKind::Persist && self.timer.is_some() {
            // The window opened: the probes stop and their back-off goes (Linux `tcp_ack_probe`).
            self.rto.clear_backoff();
            self.timer = None;
        }
        if self.timer.is_none() {
            self.arm_rto(now); // RFC 6298 (5.1)
        }
        len
    }
}
