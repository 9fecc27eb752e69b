//! The delivery-rate estimator of Linux `net/ipv4/tcp_rate.c`, which BBR reads: every
//! transmission records the connection's delivery counters (`tcp_rate_skb_sent`); every ACK
//! or SACK of a segment picks, among the segments it delivers, the most recently sent one
//! (`tcp_rate_skb_delivered`), and the ACK's rate sample is the packets delivered since that
//! segment was sent over the longer of its send phase and its ACK phase (`tcp_rate_gen`).
//!
//! Units as the kernel's: packets (whole segments, `tp->delivered`, `tp->lost`) and µs
//! (`tcp_mstamp`). Invariant: `tx[i]` is the record of segment `base + i`; segments below
//! `base` are cumulatively acknowledged. A record whose `delivered_at` is `None` was SACKed
//! and gives no second sample when the cumulative ACK covers it.

use std::collections::VecDeque;

use super::jiffies::after;
use super::state::LossState;

/// What the connection's counters were when a segment was (last) sent (`tcp_skb_cb.tx`).
#[derive(Clone, Copy, Debug, Default)]
struct TxRecord {
    /// When this transmission left, µs (`tcp_skb_timestamp_us`).
    sent_us: u64,
    /// `tp->first_tx_mstamp` then: the send time of the most recently delivered segment.
    first_tx_us: u64,
    /// `tp->delivered_mstamp` then; `None` once SACKed (or before any record).
    delivered_at: Option<u64>,
    /// `tp->delivered` then.
    delivered: u32,
    is_app_limited: bool,
    is_retrans: bool,
}

/// One ACK's rate sample (`struct rate_sample`) and the counters of the connection after the
/// ACK, which Linux's `cong_control` hook reads from the socket.
#[derive(Clone, Copy, Debug)]
pub struct RateSample {
    /// Packets delivered over the interval, or −1 when there is no valid sample.
    pub delivered: i64,
    /// The interval in µs, or −1 (invalid, or shorter than the minimum RTT).
    pub interval_us: i64,
    /// `tp->delivered` when the sampled segment was sent.
    pub prior_delivered: u32,
    /// Packets this ACK newly acknowledged or SACKed (`acked_sacked`).
    pub acked_sacked: u32,
    /// Packets this ACK (or the timeout) newly marked lost.
    pub losses: u32,
    /// The RTT of this ACK for congestion control (`ca_rtt_us`), −1 when none.
    pub rtt_us: i64,
    /// The sample may come from a delayed ACK (`FLAG_ACK_MAYBE_DELAYED`).
    pub is_ack_delayed: bool,
    /// Some moment of the sampled interval had nothing to send.
    pub is_app_limited: bool,
    /// Packets in flight before this ACK (`prior_in_flight`).
    pub prior_in_flight: u32,
    /// Packets in flight after it (`tcp_packets_in_flight`).
    pub in_flight: u32,
    /// `tp->delivered` after this ACK.
    pub total_delivered: u32,
    /// `tp->lost` after this ACK.
    pub total_lost: u32,
    /// `tp->delivered_mstamp`, µs.
    pub delivered_mstamp_us: u64,
    /// How far the next departure time lies ahead of now, µs (`tcp_wstamp_ns` −
    /// `tcp_clock_cache`, at least 0): what pacing has already scheduled.
    pub edt_ahead_us: u64,
    /// The loss state when the controller is called (`icsk_ca_state`).
    pub ca_state: LossState,
}

impl RateSample {
    /// A sample with no timing: the counters only (the timeout's `rate_sample` with
    /// `.losses = 1`, `bbr_set_state`).
    pub fn counters_only(rate: &DeliveryRate, losses: u32, ca_state: LossState) -> Self {
        RateSample {
            delivered: -1,
            interval_us: -1,
            prior_delivered: 0,
            acked_sacked: 0,
            losses,
            rtt_us: -1,
            is_ack_delayed: false,
            is_app_limited: false,
            prior_in_flight: 0,
            in_flight: 0,
            total_delivered: rate.delivered,
            total_lost: rate.lost,
            delivered_mstamp_us: rate.delivered_mstamp_us,
            edt_ahead_us: 0,
            ca_state,
        }
    }
}

/// The part of the sample `tcp_rate_skb_delivered` fills while an ACK is read.
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    prior_delivered: u32,
    prior_mstamp: Option<u64>,
    interval_us: i64,
    is_app_limited: bool,
    is_retrans: bool,
    last_seg: u64,
}

/// The connection's delivery counters and each outstanding segment's record.
#[derive(Clone, Debug, Default)]
pub struct DeliveryRate {
    base: u64,
    tx: VecDeque<TxRecord>,
    /// `tp->delivered`: packets delivered (the SYN counts one, `tcp_clean_rtx_queue`).
    pub delivered: u32,
    /// `tp->lost`: packets ever marked lost.
    pub lost: u32,
    /// `tp->delivered_mstamp`, µs.
    delivered_mstamp_us: u64,
    /// `tp->first_tx_mstamp`, µs.
    first_tx_us: u64,
    /// `tp->app_limited`: 0, or the `delivered` count past which samples are no longer
    /// application-limited.
    pub app_limited: u32,
    pending: Pending,
}

impl DeliveryRate {
    /// After the handshake: the SYN was delivered (`tp->delivered` 1), and the connection
    /// starts application-limited until its first write (`tcp_init_sock`: `app_limited = ~0U`).
    pub fn new() -> Self {
        DeliveryRate { delivered: 1, app_limited: u32::MAX, ..Default::default() }
    }

    /// `tcp_rate_skb_sent`: segment `k` leaves at `now_us`; `nothing_outstanding` is
    /// `!tp->packets_out` before it, which restarts both clocks at this send.
    pub fn on_sent(&mut self, k: u64, now_us: u64, nothing_outstanding: bool, is_retrans: bool) {
        if nothing_outstanding {
            self.first_tx_us = now_us;
            self.delivered_mstamp_us = now_us;
        }
        if self.tx.is_empty() || k < self.base {
            self.tx.clear();
            self.base = k;
        }
        let i = (k - self.base) as usize;
        if i >= self.tx.len() {
            self.tx.resize(i + 1, TxRecord::default());
        }
        self.tx[i] = TxRecord {
            sent_us: now_us,
            first_tx_us: self.first_tx_us,
            delivered_at: Some(self.delivered_mstamp_us),
            delivered: self.delivered,
            is_app_limited: self.app_limited != 0,
            is_retrans,
        };
    }

    /// Starts reading an ACK: no segment delivered yet.
    pub fn begin_ack(&mut self) {
        self.pending = Pending { interval_us: -1, ..Pending::default() };
    }

    /// `tcp_rate_skb_delivered` for each segment of `first..end`, in ascending order, newly
    /// SACKed (`sacked`) or cumulatively acknowledged. Among the segments one ACK delivers,
    /// the one sent last (then the highest, `tcp_skb_sent_after`) gives the sample. A segment
    /// without a record, or already SACKed (`delivered_at` none), changes nothing.
    pub fn on_delivered(&mut self, first: u64, end: u64, sacked: bool) {
        let top = self.base + self.tx.len() as u64;
        let (lo, hi) = (first.max(self.base), end.min(top));
        if lo >= hi {
            return;
        }
        let (p, first_tx_us) = (&mut self.pending, &mut self.first_tx_us);
        let records = self.tx.range_mut((lo - self.base) as usize..(hi - self.base) as usize);
        for (k, rec) in (lo..hi).zip(records) {
            let Some(delivered_at) = rec.delivered_at else { continue };
            let sent_after = rec.sent_us > *first_tx_us || (rec.sent_us == *first_tx_us && k > p.last_seg);
            if p.prior_delivered == 0 || sent_after {
                p.prior_delivered = rec.delivered;
                p.prior_mstamp = Some(delivered_at);
                p.is_app_limited = rec.is_app_limited;
                p.is_retrans = rec.is_retrans;
                p.last_seg = k;
                *first_tx_us = rec.sent_us;
                p.interval_us = first_tx_us.saturating_sub(rec.first_tx_us) as i64;
            }
            if sacked {
                rec.delivered_at = None;
            }
        }
    }

    /// Forgets the records below segment `k` (the cumulative ACK).
    pub fn advance(&mut self, k: u64) {
        while self.base < k && !self.tx.is_empty() {
            self.tx.pop_front();
            self.base += 1;
        }
        if self.tx.is_empty() {
            self.base = self.base.max(k);
        }
    }

    /// A timeout marked `packets` lost (`tcp_timeout_mark_lost`).
    pub fn add_lost(&mut self, packets: u32) {
        self.lost = self.lost.wrapping_add(packets);
    }

    /// `tcp_rate_gen`: the ACK delivered `delivered` packets and marked `lost` lost at
    /// `now_us`; `min_rtt_us` is `tcp_min_rtt`. Returns the sample with its timing; the
    /// caller fills in the RTT, flights, pacing and state.
    pub fn generate(&mut self, now_us: u64, delivered: u32, lost: u32, min_rtt_us: u64) -> RateSample {
        self.delivered = self.delivered.wrapping_add(delivered);
        self.lost = self.lost.wrapping_add(lost);
        // "Clear app limited if bubble is acked and gone."
        if self.app_limited != 0 && after(self.delivered, self.app_limited) {
            self.app_limited = 0;
        }
        if delivered > 0 {
            self.delivered_mstamp_us = now_us;
        }
        let p = self.pending;
        let mut rs = RateSample::counters_only(self, lost, LossState::Open);
        rs.acked_sacked = delivered;
        rs.prior_delivered = p.prior_delivered;
        rs.is_app_limited = p.is_app_limited;
        let Some(prior_mstamp) = p.prior_mstamp else {
            return rs;
        };
        rs.delivered = self.delivered.wrapping_sub(p.prior_delivered) as i64;
        // Send and ACK phases as a pipeline: the longer one bounds the rate.
        let ack_us = now_us.saturating_sub(prior_mstamp) as i64;
        let interval = p.interval_us.max(ack_us);
        // "Normally we expect interval_us >= min-rtt."
        rs.interval_us = if (interval as u64) < min_rtt_us { -1 } else { interval };
        rs
    }

    /// `tcp_rate_check_app_limited` at a write: less than a segment waits to be sent,
    /// cwnd does not limit, and every lost segment was resent: the pipe has a bubble.
    pub fn check_app_limited(&mut self, unsent_below_mss: bool, in_flight: u32, cwnd: u32, lost_not_resent: bool) {
        if unsent_below_mss && in_flight < cwnd && !lost_not_resent {
            self.mark_app_limited(in_flight);
        }
    }

    /// `tp->app_limited = (tp->delivered + tcp_packets_in_flight(tp)) ? : 1`.
    pub fn mark_app_limited(&mut self, in_flight: u32) {
        let v = self.delivered.wrapping_add(in_flight);
        self.app_limited = if v == 0 { 1 } else { v };
    }

    /// `tcp_mstamp` of the last delivery, µs.
    pub fn delivered_mstamp_us(&self) -> u64 {
        self.delivered_mstamp_us
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten segments sent back to back at t = 0 from idle, acknowledged one per ms from
    /// 100 ms: the tenth ACK's sample covers the 10 packets since the first was sent
    /// (prior_delivered 1, the SYN), over max(send phase 0, ACK phase 109 ms − 0) µs.
    #[test]
    fn a_flight_acknowledged_in_turn_samples_from_its_first_send() {
        let mut r = DeliveryRate::new();
        r.app_limited = 0;
        for k in 0..10 {
            r.on_sent(k, 0, k == 0, false);
        }
        let mut last = None;
        for k in 0..10u64 {
            r.begin_ack();
            r.on_delivered(k, k + 1, false);
            r.advance(k + 1);
            last = Some(r.generate(100_000 + k * 1000, 1, 0, 50_000));
        }
        let rs = last.unwrap();
        assert_eq!(rs.prior_delivered, 1);
        assert_eq!(rs.delivered, 10);
        assert_eq!(rs.interval_us, 109_000);
        assert_eq!(r.delivered, 11);
    }

    /// A SACKed segment gives its sample once: the cumulative ACK that covers it later
    /// takes the next one's record or none.
    #[test]
    fn a_sacked_segment_is_not_sampled_again() {
        let mut r = DeliveryRate::new();
        r.on_sent(0, 0, true, false);
        r.on_sent(1, 10, false, false);
        r.begin_ack();
        r.on_delivered(1, 2, true);
        let rs = r.generate(50_000, 1, 0, 0);
        assert_eq!(rs.delivered, 1);
        r.begin_ack();
        r.on_delivered(1, 2, false);
        let rs = r.generate(60_000, 0, 0, 0);
        assert_eq!(rs.delivered, -1, "no segment with a record was delivered");
    }

    /// An interval shorter than the minimum RTT is no sample (`tcp_rate_gen`).
    #[test]
    fn an_interval_below_min_rtt_is_invalid() {
        let mut r = DeliveryRate::new();
        r.on_sent(0, 0, true, false);
        r.begin_ack();
        r.on_delivered(0, 1, false);
        let rs = r.generate(20_000, 1, 0, 30_000);
        assert_eq!(rs.delivered, 1);
        assert_eq!(rs.interval_us, -1);
    }

    /// The application-limited mark holds until the packets in the pipe at the mark are
    /// delivered (`after(tp->delivered, tp->app_limited)`).
    #[test]
    fn app_limited_clears_once_the_bubble_is_delivered() {
        let mut r = DeliveryRate::new();
        r.app_limited = 0;
        r.check_app_limited(true, 3, 10, false);
        assert_eq!(r.app_limited, 4);
        r.begin_ack();
        r.generate(1, 3, 0, 0);
        assert_eq!(r.app_limited, 4);
        r.begin_ack();
        r.generate(2, 1, 0, 0);
        assert_eq!(r.app_limited, 0);
    }
}
