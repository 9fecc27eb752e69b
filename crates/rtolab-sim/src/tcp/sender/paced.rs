//! The sender's side of a controller that paces (BBR): the delivery-rate estimator it reads
//! (`tcp/rate.rs`, Linux `tcp_rate.c`) fed from every transmission and every delivery, and
//! the internal pacing it asks for (`tcp/pacing.rs`). A sender whose controller does not
//! pace has none of this (`TcpSender::paced` is `None`) and pays one branch per hook.

use super::TcpSender;
use crate::tcp::cc::CongestionControl;
use crate::tcp::pacing::Pacer;
use crate::tcp::rate::{DeliveryRate, RateSample};
use crate::tcp::scoreboard::LossMarking;
use crate::tcp::state::LossState;
use crate::time::SimTime;

/// The estimator and the pacer, with what one ACK needs to remember while it is read.
#[derive(Clone, Debug, Default)]
pub(super) struct Paced {
    pub rate: DeliveryRate,
    pub pacer: Pacer,
    /// Segments the scoreboard had marked lost when the ACK began.
    lost_before: u64,
}

impl Paced {
    pub fn new() -> Self {
        Paced { rate: DeliveryRate::new(), ..Default::default() }
    }
}

fn micros(now: SimTime) -> u64 {
    now.0 / 1000
}

impl TcpSender {
    /// Transmission of the segment at `seq` (`tcp_rate_skb_sent`, then the departure time
    /// moves on, `tcp_update_skb_after_send`); before SND.MAX moves. Restarting after idle
    /// while application-limited is BBR's `CA_EVENT_TX_START`.
    #[inline(never)]
    pub(super) fn paced_on_transmit(&mut self, now: SimTime, seq: u64, len: u64) {
        let Some(p) = self.paced.as_mut() else {
            return;
        };
        let idle = self.snd_una == self.snd_max;
        let retrans = seq < self.snd_max;
        p.rate.on_sent(seq / self.geometry.mss, micros(now), idle, retrans);
        let rate = self.cc.pacing().map_or(0, |(r, _)| r);
        p.pacer.on_send(now, len, len > 0, rate);
        if idle && !retrans && p.rate.app_limited != 0 {
            let stamp = p.rate.delivered_mstamp_us();
            self.cc.on_idle_restart(now, stamp);
        }
    }

    /// `tcp_pacing_check` before the next segment of a write loop.
    pub(super) fn pacing_allows(&mut self, now: SimTime) -> bool {
        let Some(p) = self.paced.as_mut() else {
            return true;
        };
        let segs = self.cc.pacing().map_or(1, |(_, s)| s);
        p.pacer.may_send(now, segs)
    }

    /// A write loop ended: its TSO packet is complete.
    pub(super) fn pacing_end_burst(&mut self) {
        if let Some(p) = self.paced.as_mut() {
            p.pacer.end_burst();
        }
    }

    /// When the pacing timer fires, if a write loop waits for it.
    pub(super) fn pacing_wakeup(&self) -> Option<SimTime> {
        self.paced.as_ref().and_then(|p| p.pacer.wakeup())
    }

    /// The pacing timer fired (`tcp_pace_kick`): whether the write loop should run.
    pub(super) fn pacing_fired(&mut self, now: SimTime) -> bool {
        match self.paced.as_mut() {
            Some(p) if p.pacer.wakeup().is_some_and(|t| t <= now) => {
                p.pacer.fired();
                true
            }
            _ => false,
        }
    }

    /// An ACK begins: no segment delivered yet, losses counted from here.
    #[inline(never)]
    pub(super) fn paced_begin_ack(&mut self) {
        let lost = self.scoreboard.lost_marked();
        if let Some(p) = self.paced.as_mut() {
            p.rate.begin_ack();
            p.lost_before = lost;
        }
    }

    /// Segments `first..end` were newly SACKed (`sacked`) or cumulatively acknowledged
    /// (`tcp_rate_skb_delivered` for each).
    #[inline(never)]
    pub(super) fn paced_delivered(&mut self, first: u64, end: u64, sacked: bool) {
        if let Some(p) = self.paced.as_mut() {
            p.rate.on_delivered(first, end, sacked);
            if !sacked {
                p.rate.advance(end);
            }
        }
    }

    /// The end of an ACK that delivered `delivered` bytes: its rate sample to the controller
    /// (`tcp_cong_control` → `cong_control`), then PROBE_RTT's application-limited mark.
    #[inline(never)]
    pub(super) fn paced_ack(&mut self, now: SimTime, delivered: u64, prior_in_flight: u32, rtt_us: Option<u64>, maybe_delayed: bool) {
        if let Some(rs) = self.paced_sample(now, delivered, prior_in_flight, rtt_us, maybe_delayed) {
            let srtt = self.rto.srtt();
            self.cc.on_rate_sample(now, &rs, srtt);
            self.paced_after_ack();
        }
    }

    /// `tcp_rate_gen` at the end of an ACK that delivered `delivered` bytes, with the
    /// flights around it, the RTT for congestion control and the pacing already scheduled.
    fn paced_sample(&mut self, now: SimTime, delivered: u64, prior_in_flight: u32, rtt_us: Option<u64>, maybe_delayed: bool) -> Option<RateSample> {
        self.paced.as_ref()?;
        let in_flight = self.packets_in_flight();
        let lost_now = self.scoreboard.lost_marked();
        let min_rtt_us = self.rack.min_rtt().map_or(u64::MAX, |ns| ns / 1000);
        let mss = self.geometry.mss;
        let state = self.state;
        let p = self.paced.as_mut()?;
        let losses = lost_now.saturating_sub(p.lost_before) as u32;
        let mut rs = p.rate.generate(micros(now), delivered.div_ceil(mss) as u32, losses, if min_rtt_us == u64::MAX { 0 } else { min_rtt_us });
        rs.rtt_us = rtt_us.map_or(-1, |r| r as i64);
        rs.is_ack_delayed = maybe_delayed;
        rs.prior_in_flight = prior_in_flight;
        rs.in_flight = in_flight;
        rs.edt_ahead_us = p.pacer.ahead_us(now);
        rs.ca_state = state;
        Some(rs)
    }

    /// After the controller read the ACK: PROBE_RTT marks the samples application-limited.
    fn paced_after_ack(&mut self) {
        if self.cc.take_app_limited_mark() {
            let in_flight = self.packets_in_flight();
            if let Some(p) = self.paced.as_mut() {
                p.rate.mark_app_limited(in_flight);
            }
        }
    }

    /// A timeout (`tcp_timeout_mark_lost`: every segment not SACKed is lost), then the
    /// controller's `set_state(TCP_CA_Loss)`.
    #[inline(never)]
    pub(super) fn paced_on_timeout(&mut self) {
        let mss = self.geometry.mss;
        let outstanding = (self.snd_max - self.snd_una).div_ceil(mss);
        let sacked = self.scoreboard.sacked_segments() as u64;
        let state = self.state;
        let Some(p) = self.paced.as_mut() else {
            return;
        };
        p.rate.add_lost(outstanding.saturating_sub(sacked) as u32);
        let counters = RateSample::counters_only(&p.rate, 1, state);
        self.cc.on_enter_loss(&counters);
    }

    /// The application writes (`tcp_rate_check_app_limited` at `tcp_sendmsg`).
    #[inline(never)]
    pub(super) fn paced_on_write(&mut self) {
        if self.paced.is_none() {
            return;
        }
        let unsent_below_mss = self.geometry.data_end.saturating_sub(self.snd_nxt) < self.geometry.mss;
        let in_flight = self.packets_in_flight();
        let cwnd = self.cc.core().cwnd_packets();
        let lost_not_resent = self.scoreboard.lost_not_retransmitted();
        if let Some(p) = self.paced.as_mut() {
            p.rate.check_app_limited(unsent_below_mss, in_flight, cwnd, lost_not_resent);
        }
    }

    /// Linux `tcp_packets_in_flight`: what is outstanding less what was SACKed or is lost,
    /// plus what was resent. After a timeout, what go-back-N has sent again.
    pub(super) fn packets_in_flight(&self) -> u32 {
        let bytes = match self.state {
            LossState::Loss { .. } => {
                let sent = self.snd_nxt.saturating_sub(self.snd_una);
                sent - self.scoreboard.sacked_bytes_below(self.snd_nxt, &self.geometry).min(sent)
            }
            _ if self.cfg.sack && (self.scoreboard.sacked_segments() > 0 || self.state.is_recovery()) => match self.loss_marking() {
                LossMarking::Marked => self.scoreboard.pipe_marked(self.snd_una, self.snd_max, &self.geometry),
                marking => self.scoreboard.plan(self.snd_una, self.snd_max, false, marking, &self.geometry).0,
            },
            _ => self.flight(),
        };
        bytes.div_ceil(self.geometry.mss) as u32
    }
}
