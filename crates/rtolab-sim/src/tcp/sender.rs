//! The data sender of a TCP connection, sans-IO: it takes `now` and a segment (or a timer
//! expiry) and appends the segments it sends to `out`; `next_wakeup()` says when its timer
//! fires. It never reads a clock or touches the scheduler.
//!
//! Implements: handshake with SYN retransmission and RFC 6298 (5.7) fallback; RFC 5681 slow
//! start, congestion avoidance and fast retransmit; fast recovery per RFC 5681 (Reno),
//! RFC 6582 (NewReno) or RFC 6675 (SACK); limited transmit (RFC 3042); the RFC 6298
//! retransmission timer with Karn's rule, or RFC 7323 timestamps for RTT samples; after a
//! timeout, go-back-N from SND.UNA with the SACK scoreboard cleared (RFC 2018, 8: the receiver
//! may renege, as ns-2's SACK agent assumes).
//!
//! Sequence numbers count payload bytes from 0; segments are MSS-aligned.

use super::cc::{AckSample, AnyCc, CongestionControl};
use super::rto::{RtoConfig, RtoEstimator};
use super::scoreboard::{Geometry, NextSeg, Scoreboard};
use super::segment::{ts_now, Segment, FLAG_ACK, FLAG_SYN};
use crate::spec::CcKind;
use crate::time::{SimDuration, SimTime};

/// How fast recovery treats partial ACKs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryKind {
    /// RFC 5681, 3.2: leave recovery on the first new ACK.
    Reno,
    /// RFC 6582: stay until the recovery point, retransmitting on each partial ACK.
    NewReno,
    /// RFC 6675: scoreboard-driven recovery.
    Sack,
}

#[derive(Clone, Debug)]
pub struct SenderConfig {
    pub mss: u32,
    pub initial_window: u64,
    pub cc: CcKind,
    pub recovery: RecoveryKind,
    pub limited_transmit: bool,
    pub dupthresh: u32,
    pub timestamps: bool,
    pub rto: RtoConfig,
    /// Payload bytes to send; `None` for an unbounded transfer.
    pub size: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Closed,
    SynSent,
    Established,
    Done,
}

/// Counters the flow table reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub payload_bytes_sent: u64,
    pub retransmits: u64,
    pub retransmitted_bytes: u64,
    pub timeouts: u64,
    pub syn_timeouts: u64,
    pub fast_retransmits: u64,
    pub rto_sum_s: f64,
    pub rto_samples: u64,
    pub rtt_sum_s: f64,
    pub rtt_samples: u64,
}

/// Things the sender tells its environment besides segments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenderNote {
    /// The retransmission timer expired and the segment at `seq` was retransmitted.
    Timeout { seq: u64 },
    /// The SYN's timer expired and the SYN was sent again.
    SynTimeout,
    /// Every byte is acknowledged.
    Completed,
}

#[derive(Clone, Debug)]
pub struct TcpSender {
    cfg: SenderConfig,
    geometry: Geometry,
    phase: Phase,
    cc: AnyCc,
    rto: RtoEstimator,
    timer: Option<SimTime>,
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    rwnd: u64,
    dupacks: u32,
    /// Recovery point while in fast recovery (SND.MAX when it began).
    recovery_point: Option<u64>,
    /// RFC 6582 `recover`: no new fast retransmit until SND.UNA reaches it.
    recover: u64,
    partial_ack_seen: bool,
    scoreboard: Scoreboard,
    /// Karn's rule without timestamps: (end of timed segment, time sent).
    rtt_probe: Option<(u64, SimTime)>,
    syn_sent_at: SimTime,
    syn_retransmitted: bool,
    completed_at: Option<SimTime>,
    pub stats: SenderStats,
    notes: Vec<SenderNote>,
}

impl TcpSender {
    pub fn new(cfg: SenderConfig) -> Self {
        let geometry = Geometry {
            mss: cfg.mss as u64,
            data_end: cfg.size.unwrap_or(u64::MAX),
            dupthresh: cfg.dupthresh as u64,
        };
        TcpSender {
            cc: AnyCc::new(cfg.cc, cfg.mss, cfg.initial_window),
            rto: RtoEstimator::new(cfg.rto.clone()),
            geometry,
            cfg,
            phase: Phase::Closed,
            timer: None,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            rwnd: u64::MAX,
            dupacks: 0,
            recovery_point: None,
            recover: 0,
            partial_ack_seen: false,
            scoreboard: Scoreboard::default(),
            rtt_probe: None,
            syn_sent_at: SimTime::ZERO,
            syn_retransmitted: false,
            completed_at: None,
            stats: SenderStats::default(),
            notes: Vec::new(),
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }
    pub fn cwnd(&self) -> u64 {
        self.cc.cwnd()
    }
    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }
    pub fn srtt(&self) -> Option<SimDuration> {
        self.rto.srtt()
    }
    pub fn rto(&self) -> SimDuration {
        self.rto.current()
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn completed_at(&self) -> Option<SimTime> {
        self.completed_at
    }
    pub fn in_recovery(&self) -> bool {
        self.recovery_point.is_some()
    }
    /// When the retransmission timer fires, if it is armed.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        self.timer
    }
    /// Notes since the last call, oldest first.
    pub fn drain_notes(&mut self) -> std::vec::Drain<'_, SenderNote> {
        self.notes.drain(..)
    }

    /// Opens the connection: sends the SYN and arms the timer at the initial RTO.
    pub fn open(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.phase = Phase::SynSent;
        self.syn_sent_at = now;
        self.send_syn(now, out);
    }

    fn send_syn(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        out.push(Segment {
            flags: FLAG_SYN,
            ts_val: if self.cfg.timestamps { ts_now(now) } else { 0 },
            ..Default::default()
        });
        self.timer = Some(now + self.rto.current());
    }

    /// Handles a segment from the receiver.
    pub fn on_segment(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        match self.phase {
            Phase::SynSent if seg.is_syn() => self.on_syn_ack(now, seg, out),
            Phase::Established if !seg.is_syn() => self.on_ack(now, seg, out),
            _ => {}
        }
    }

    fn on_syn_ack(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        self.phase = Phase::Established;
        self.rwnd = seg.wnd;
        // A sample from the handshake only where it is unambiguous (Karn) or timestamped.
        let sample = if self.cfg.timestamps && seg.ts_ecr != 0 {
            Some(now.since(SimTime(seg.ts_ecr)))
        } else if !self.syn_retransmitted {
            Some(now.since(self.syn_sent_at))
        } else {
            None
        };
        if let Some(rtt) = sample {
            self.take_rtt_sample(rtt);
        }
        if self.syn_retransmitted {
            self.rto.apply_syn_fallback();
        } else {
            self.rto.clear_backoff();
        }
        self.timer = None;
        self.send_allowed(now, out);
    }

    /// Handles the expiry of the retransmission timer.
    pub fn on_timer(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.timer.is_none_or(|t| t > now) {
            return;
        }
        self.timer = None;
        match self.phase {
            Phase::SynSent => {
                // RFC 6298 (5.5)-(5.6) apply to the SYN as well.
                self.stats.syn_timeouts += 1;
                self.notes.push(SenderNote::SynTimeout);
                self.syn_retransmitted = true;
                self.rto.back_off();
                self.send_syn(now, out);
            }
            Phase::Established if self.snd_una < self.snd_max => self.on_rto(now, out),
            _ => {}
        }
    }

    /// RFC 6298 (5.4)-(5.6) and RFC 5681 (4): retransmit SND.UNA, back off, go-back-N.
    fn on_rto(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.stats.timeouts += 1;
        self.notes.push(SenderNote::Timeout { seq: self.snd_una });
        let flight = self.snd_max - self.snd_una;
        let first = self.rto.backoff() == 0;
        self.cc.on_rto(now, flight, first);
        self.rto.back_off();
        self.recovery_point = None;
        self.dupacks = 0;
        self.recover = self.snd_max;
        self.scoreboard.clear();
        self.rtt_probe = None;
        self.snd_nxt = self.snd_una;
        self.send_allowed(now, out);
        self.timer = Some(now + self.rto.current());
    }

    fn take_rtt_sample(&mut self, rtt: SimDuration) {
        self.rto.on_sample(rtt);
        self.stats.rtt_sum_s += rtt.as_secs_f64();
        self.stats.rtt_samples += 1;
        self.stats.rto_sum_s += self.rto.current().as_secs_f64();
        self.stats.rto_samples += 1;
    }

    fn on_ack(&mut self, now: SimTime, seg: &Segment, out: &mut Vec<Segment>) {
        self.rwnd = seg.wnd;
        let ack = seg.ack.min(self.snd_max);
        if self.cfg.recovery == RecoveryKind::Sack {
            for &(s, e) in seg.sack.as_slice() {
                if e > ack {
                    self.scoreboard.mark_sacked(s.max(ack), e, self.snd_max, &self.geometry);
                }
            }
        }
        if ack > self.snd_una {
            self.on_new_ack(now, ack, seg, out);
        } else if ack == self.snd_una && self.snd_max > self.snd_una && seg.len == 0 {
            self.on_dupack(now, out);
        }
        if self.phase == Phase::Established {
            self.send_allowed(now, out);
        }
    }

    fn on_new_ack(&mut self, now: SimTime, ack: u64, seg: &Segment, out: &mut Vec<Segment>) {
        let acked = ack - self.snd_una;
        let flight_before = self.snd_nxt.max(ack) - self.snd_una;
        let sample = if self.cfg.timestamps && seg.ts_ecr != 0 {
            Some(now.since(SimTime(seg.ts_ecr)))
        } else {
            match self.rtt_probe {
                Some((end, sent)) if ack >= end => {
                    self.rtt_probe = None;
                    Some(now.since(sent))
                }
                _ => None,
            }
        };
        if let Some(rtt) = sample {
            self.take_rtt_sample(rtt);
        }
        self.snd_una = ack;
        self.snd_nxt = self.snd_nxt.max(ack);
        self.scoreboard.advance(ack, &self.geometry);
        self.dupacks = 0;
        let mut restart_timer = true;
        match self.recovery_point {
            Some(point) if ack >= point || self.cfg.recovery == RecoveryKind::Reno => self.exit_recovery(),
            Some(_) => restart_timer = self.on_partial_ack(now, acked, out),
            None => self.cc.on_ack(&AckSample { now, acked_bytes: acked, rtt: sample, flight: flight_before }),
        }
        if self.cfg.size.is_some_and(|size| self.snd_una >= size) {
            self.phase = Phase::Done;
            self.timer = None;
            self.completed_at = Some(now);
            self.notes.push(SenderNote::Completed);
        } else if self.snd_una >= self.snd_max {
            self.timer = None; // RFC 6298 (5.2)
        } else if restart_timer {
            self.timer = Some(now + self.rto.current()); // RFC 6298 (5.3)
        }
    }

    /// Leaves fast recovery: RFC 6582 3.2 step 3 (option 1) for NewReno, cwnd = ssthresh for
    /// Reno (RFC 5681 3.2 step 6) and SACK.
    fn exit_recovery(&mut self) {
        self.recovery_point = None;
        let ssthresh = self.cc.ssthresh();
        let cwnd = match self.cfg.recovery {
            RecoveryKind::NewReno => {
                let flight = self.snd_max - self.snd_una;
                ssthresh.min(flight.max(self.geometry.mss) + self.geometry.mss)
            }
            RecoveryKind::Reno | RecoveryKind::Sack => ssthresh,
        };
        self.cc.core_mut().set_cwnd(cwnd);
    }

    /// A partial ACK in recovery. Returns whether to restart the retransmission timer.
    fn on_partial_ack(&mut self, now: SimTime, acked: u64, out: &mut Vec<Segment>) -> bool {
        if self.cfg.recovery != RecoveryKind::NewReno {
            return true;
        }
        // RFC 6582 3.2 step 5: retransmit the first unacknowledged segment, deflate cwnd by
        // the amount acknowledged, add back one SMSS if at least one SMSS was acknowledged,
        // and restart the timer only on the first partial ACK.
        self.retransmit(now, self.snd_una, out);
        let mss = self.geometry.mss;
        let core = self.cc.core_mut();
        let deflated = core.cwnd.saturating_sub(acked) + if acked >= mss { mss } else { 0 };
        core.set_cwnd(deflated);
        let first = !self.partial_ack_seen;
        self.partial_ack_seen = true;
        first
    }

    fn on_dupack(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        self.dupacks += 1;
        let mss = self.geometry.mss;
        if self.recovery_point.is_some() {
            if self.cfg.recovery != RecoveryKind::Sack {
                // RFC 5681 3.2 step 4 / RFC 6582 step 4: inflate by one SMSS.
                let core = self.cc.core_mut();
                let c = core.cwnd + mss;
                core.set_cwnd(c);
            }
            return;
        }
        let sack = self.cfg.recovery == RecoveryKind::Sack;
        let trigger = self.dupacks >= self.cfg.dupthresh || (sack && self.scoreboard.is_lost_first(&self.geometry));
        // RFC 6582 3.2 step 1: no new recovery for duplicates of data sent before `recover`.
        let allowed = self.snd_una >= self.recover && self.snd_nxt == self.snd_max;
        if trigger && allowed {
            self.enter_recovery(now, out);
        } else if self.cfg.limited_transmit && self.dupacks < self.cfg.dupthresh && self.dupacks <= 2 {
            // RFC 3042: one new segment per duplicate ACK, at most two beyond cwnd.
            let len = self.segment_len(self.snd_nxt);
            let outstanding = self.snd_nxt - self.snd_una;
            if len > 0
                && self.snd_nxt == self.snd_max
                && outstanding + len <= self.cc.cwnd() + 2 * mss
                && outstanding + len <= self.rwnd
            {
                self.send_new(now, out);
            }
        }
    }

    fn enter_recovery(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let flight = self.snd_max - self.snd_una;
        self.cc.on_congestion_event(now, flight);
        self.stats.fast_retransmits += 1;
        self.recovery_point = Some(self.snd_max);
        self.recover = self.snd_max;
        self.partial_ack_seen = false;
        let ssthresh = self.cc.ssthresh();
        let mss = self.geometry.mss;
        match self.cfg.recovery {
            RecoveryKind::Sack => {
                // RFC 6675 5, steps (4.2)-(4.3): cwnd = ssthresh, retransmit HighACK + 1.
                self.scoreboard.clear_retransmitted();
                self.cc.core_mut().set_cwnd(ssthresh);
                self.retransmit(now, self.snd_una, out);
            }
            RecoveryKind::NewReno | RecoveryKind::Reno => {
                // RFC 5681 3.2 steps 2-3: retransmit, cwnd = ssthresh + 3·SMSS.
                self.retransmit(now, self.snd_una, out);
                self.cc.core_mut().set_cwnd(ssthresh + self.cfg.dupthresh as u64 * mss);
            }
        }
    }

    fn segment_len(&self, seq: u64) -> u64 {
        self.geometry.mss.min(self.geometry.data_end.saturating_sub(seq))
    }

    /// Sends what the windows allow: the RFC 6675 (C) loop in SACK recovery, otherwise
    /// segments from SND.NXT while outstanding data stays within min(cwnd, rwnd).
    fn send_allowed(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.recovery_point.is_some() && self.cfg.recovery == RecoveryKind::Sack {
            self.sack_transmit(now, out);
            return;
        }
        let window = self.cc.cwnd().min(self.rwnd);
        loop {
            let len = self.segment_len(self.snd_nxt);
            if len == 0 || self.snd_nxt - self.snd_una + len > window {
                break;
            }
            self.send_new(now, out);
        }
    }

    fn sack_transmit(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        loop {
            let len = self.segment_len(self.snd_max);
            let new_ok = len > 0 && self.snd_max + len - self.snd_una <= self.rwnd;
            let (pipe, next) = self.scoreboard.plan(self.snd_una, self.snd_max, new_ok, &self.geometry);
            if self.cc.cwnd() < pipe + self.geometry.mss {
                break;
            }
            match next {
                NextSeg::Retransmit(seq) => self.retransmit(now, seq, out),
                NextSeg::NewData => self.send_new(now, out),
                NextSeg::Nothing => break,
            }
        }
    }

    /// Sends the segment at SND.NXT and advances it (a retransmission after go-back-N when
    /// SND.NXT < SND.MAX).
    fn send_new(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        let seq = self.snd_nxt;
        let len = self.transmit(now, seq, out);
        self.snd_nxt += len;
        self.snd_max = self.snd_max.max(self.snd_nxt);
    }

    /// Retransmits the segment at `seq`, marking it on the scoreboard (RFC 6675 HighRxt).
    fn retransmit(&mut self, now: SimTime, seq: u64, out: &mut Vec<Segment>) {
        if self.cfg.recovery == RecoveryKind::Sack {
            self.scoreboard.mark_retransmitted(seq, &self.geometry);
        }
        self.transmit(now, seq, out);
    }

    fn transmit(&mut self, now: SimTime, seq: u64, out: &mut Vec<Segment>) -> u64 {
        let len = self.segment_len(seq);
        let end = seq + len;
        if seq < self.snd_max {
            self.stats.retransmits += 1;
            self.stats.retransmitted_bytes += len;
            // Karn's rule: a retransmission voids the timing of any segment it overlaps.
            if self.rtt_probe.is_some_and(|(probe_end, _)| probe_end > seq) {
                self.rtt_probe = None;
            }
        } else if !self.cfg.timestamps && self.rtt_probe.is_none() {
            self.rtt_probe = Some((end, now));
        }
        self.stats.segments_sent += 1;
        self.stats.payload_bytes_sent += len;
        out.push(Segment {
            flags: FLAG_ACK,
            seq,
            len: len as u32,
            ts_val: if self.cfg.timestamps { ts_now(now) } else { 0 },
            ..Default::default()
        });
        if self.timer.is_none() {
            self.timer = Some(now + self.rto.current()); // RFC 6298 (5.1)
        }
        len
    }
}

#[cfg(test)]
#[path = "sender_tests.rs"]
mod tests;
