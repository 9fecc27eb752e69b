//! Linux's RTT samples (`net/ipv4/tcp_input.c`): one per ACK, from the send times of the
//! segments it delivers rather than from one timed segment per round.
//!
//! - `tcp_clean_rtx_queue`: over the segments the ACK acknowledges cumulatively and that no
//!   earlier SACK delivered, `seq_rtt` is measured from the first one's send time and
//!   `ca_rtt` from the last one's; none if any acknowledged segment was ever retransmitted
//!   (Karn's rule, RFC 6298 3).
//! - `tcp_sacktag_one`: over the never-retransmitted segments the ACK SACKs for the first
//!   time, `sack_rtt` from the lowest one's send time and `ca_rtt` from the highest one's.
//! - `tcp_ack_update_rtt`: `seq_rtt`, else `sack_rtt`, else, when the ACK advanced SND.UNA,
//!   the echoed timestamp counted in whole milliseconds (at least 1 ms, `tcp_rtt_tsopt_us`);
//!   a sample feeds the estimator and clears the back-off.
//! - `tcp_clean_rtx_queue`'s `FLAG_SET_XMIT_TIMER`: a SACK-only sample re-arms the timer
//!   when it is older than the head's latest transmission, so that it cannot keep pushing
//!   the RTO out during recovery.

use super::TcpSender;
use crate::tcp::segment::Segment;
use crate::time::{SimDuration, SimTime};

/// The lowest and highest segments (index, send time in ns) of those one ACK delivers.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct DeliveredSpan {
    first: Option<(u64, u64)>,
    last: Option<(u64, u64)>,
}

impl DeliveredSpan {
    pub(super) fn note(&mut self, k: u64, sent_at: u64) {
        if self.first.is_none_or(|(f, _)| k < f) {
            self.first = Some((k, sent_at));
        }
        if self.last.is_none_or(|(l, _)| k > l) {
            self.last = Some((k, sent_at));
        }
    }

    /// RTTs from the first and the last segment's send time.
    fn rtts(&self, now: SimTime) -> Option<(SimDuration, SimDuration)> {
        let ((_, first), (_, last)) = (self.first?, self.last?);
        Some((SimDuration(now.0.saturating_sub(first)), SimDuration(now.0.saturating_sub(last))))
    }
}

/// One ACK's measurement.
#[derive(Clone, Copy, Debug)]
pub(super) struct RttSample {
    /// What the estimator takes (`seq_rtt_us`).
    pub estimator: SimDuration,
    /// What the congestion control and the minimum-RTT filter take (`ca_rtt_us`).
    pub congestion: SimDuration,
    /// The sample re-arms the retransmission timer although SND.UNA did not move.
    pub rearms_timer: bool,
}

impl TcpSender {
    /// Linux `tcp_ack_update_rtt` for an ACK up to `ack` whose SACK blocks newly delivered
    /// `sacked` (never-retransmitted segments only); called before SND.UNA moves.
    pub(super) fn send_time_rtt_sample(&self, now: SimTime, ack: u64, seg: &Segment, sacked: DeliveredSpan) -> Option<RttSample> {
        let mss = self.geometry.mss;
        let mut acked = DeliveredSpan::default();
        let mut retransmission_acked = false;
        let mut k = self.snd_una / mss;
        while k * mss < ack && (k * mss + mss).min(self.geometry.data_end) <= ack {
            if let Some(sent) = self.rack.sent(k) {
                if sent.retransmitted {
                    retransmission_acked = true;
                } else if !self.scoreboard.is_sacked_segment(k) {
                    acked.note(k, sent.at);
                }
            }
            k += 1;
        }
        let seq = if retransmission_acked { None } else { acked.rtts(now) };
        let sack = sacked.rtts(now);
        let (estimator, mut congestion) = match (seq, sack) {
            (Some((s, c)), _) => (s, c),
            (None, Some((s, c))) => (s, c),
            (None, None) if self.cfg.timestamps && seg.ts_ecr != 0 && ack > self.snd_una => {
                let ms = (now.0 / 1_000_000).saturating_sub(seg.ts_ecr / 1_000_000).max(1);
                let rtt = SimDuration::from_millis(ms);
                (rtt, rtt)
            }
            (None, None) => return None,
        };
        if let Some((_, c)) = sack {
            congestion = c;
        }
        // The head's latest transmission is looked up only for a SACK-only sample.
        let rearms_timer = ack <= self.snd_una && sack.is_some_and(|(s, _)| self.rack.head_sent_at().is_some_and(|t| s > now.since(t)));
        Some(RttSample { estimator, congestion, rearms_timer })
    }
}
