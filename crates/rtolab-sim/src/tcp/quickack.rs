//! Linux's delayed-ACK engine at the receiver (`net/ipv4/tcp_input.c`: `tcp_event_data_recv`,
//! `tcp_incr_quickack`, `tcp_enter_quickack_mode`, `__tcp_ack_snd_check`;
//! `tcp_output.c`: `tcp_send_delayed_ack`; `tcp_timer.c`: the delayed-ACK timer).
//!
//! - Quick-ACK mode: every in-order segment is ACKed at once while `quick` > 0. The first
//!   data segment grants min(16, max(2, window / (2·MSS))) quick ACKs (`TCP_MAX_QUICKACKS`
//!   16, so 16 for any default window); each ACK sent uses one. Duplicate data re-enters the
//!   mode (and resets `ato` to 40 ms), as does a gap longer than the RTO between segments.
//! - Otherwise an ACK goes out once more than one full segment is unacknowledged (the
//!   "more than one full frame" rule: every second full segment), at once for out-of-order
//!   data and when a hole is filled, else after the delayed-ACK timeout.
//! - The timeout `ato` adapts to the inter-arrival time m of in-order segments: starts at
//!   `TCP_ATO_MIN` 40 ms; m ≤ 20 ms: ato = ato/2 + 20 ms; 20 ms < m < ato: ato = ato/2 + m
//!   (at most the RTO); each expiry doubles it (at most the RTO). When armed, a timeout above
//!   40 ms is capped at max(SRTT, 40 ms) and at 500 ms (200 ms after a pushed segment), and
//!   always at `TCP_DELACK_MAX` 200 ms.
//!
//! The receiver's SRTT is its handshake sample (`tcp_synack_rtt_meas`): from the SYN to the
//! first data segment. Its RTO, which bounds `ato`, is that SRTT + max(2·SRTT, 200 ms).
//! Not modelled: SACK compression of repeated out-of-order ACKs (after the third for the
//! same RCV.NXT, Linux delays them by min(1 ms, RTT/20)), pingpong mode (the receiver sends
//! no data).

use crate::time::{SimDuration, SimTime};

const ATO_MIN: SimDuration = SimDuration(40_000_000);
const DELACK_MAX: SimDuration = SimDuration(200_000_000);
const MAX_ATO: SimDuration = SimDuration(500_000_000);
/// `TCP_MAX_QUICKACKS`: the most quick ACKs one grant gives.
pub const MAX_QUICKACKS: u64 = 16;
const RTO_MIN: SimDuration = SimDuration(200_000_000);

#[derive(Clone, Debug)]
pub struct QuickAck {
    /// Quick ACKs granted by one grant (from the window and MSS).
    grant: u64,
    quick: u64,
    ato: Option<SimDuration>,
    last_arrival: SimTime,
    srtt: Option<SimDuration>,
}

impl QuickAck {
    pub fn new(window: u64, mss: u32) -> Self {
        let grant = (window / (2 * mss as u64)).clamp(2, MAX_QUICKACKS);
        QuickAck { grant, quick: 0, ato: None, last_arrival: SimTime::ZERO, srtt: None }
    }

    fn rto(&self) -> SimDuration {
        match self.srtt {
            Some(s) => s + SimDuration(2 * s.as_nanos()).max(RTO_MIN),
            None => SimDuration::from_secs(1),
        }
    }

    fn incr_quickack(&mut self) {
        self.quick = self.quick.max(self.grant);
    }

    /// The grant from the window offered now and the peer's MSS guess (`tcp_incr_quickack`:
    /// `rcv_wnd / (2 · rcv_mss)`, 2 when that is 0, at most 16).
    pub fn set_grant(&mut self, grant: u64) {
        self.grant = grant.min(MAX_QUICKACKS);
    }

    /// The window grew (`tcp_grow_window`: `icsk_ack.quick |= 1`): at least one quick ACK.
    pub fn request_one(&mut self) {
        self.quick |= 1;
    }

    /// The free buffer fell below half its full worth (`__tcp_select_window`): no quick ACKs.
    pub fn stop(&mut self) {
        self.quick = 0;
    }

    /// Duplicate (already received) data: `tcp_enter_quickack_mode`.
    pub fn enter_quickack_mode(&mut self) {
        self.incr_quickack();
        self.ato = Some(ATO_MIN);
    }

    /// An in-order data segment arrived (`tcp_event_data_recv`); `syn_at` is when the SYN
    /// arrived, for the handshake RTT sample.
    pub fn on_data(&mut self, now: SimTime, syn_at: Option<SimTime>) {
        if self.srtt.is_none() {
            self.srtt = syn_at.map(|t| now.since(t));
        }
        match self.ato {
            None => {
                self.incr_quickack();
                self.ato = Some(ATO_MIN);
            }
            Some(ato) => {
                let m = now.since(self.last_arrival);
                if m <= SimDuration(ATO_MIN.as_nanos() / 2) {
                    self.ato = Some(SimDuration(ato.as_nanos() / 2) + SimDuration(ATO_MIN.as_nanos() / 2));
                } else if m < ato {
                    self.ato = Some((SimDuration(ato.as_nanos() / 2) + m).min(self.rto()));
                } else if m > self.rto() {
                    self.incr_quickack();
                }
            }
        }
        self.last_arrival = now;
    }

    pub fn in_quickack_mode(&self) -> bool {
        self.quick > 0
    }

    /// An ACK went out (`tcp_dec_quickack_mode`).
    pub fn on_ack_sent(&mut self) {
        if self.quick > 0 {
            self.quick -= 1;
            if self.quick == 0 {
                self.ato = Some(ATO_MIN);
            }
        }
    }

    /// The delayed-ACK timeout to arm now (`tcp_send_delayed_ack`).
    pub fn delay(&self) -> SimDuration {
        let mut ato = self.ato.unwrap_or(ATO_MIN);
        if ato > ATO_MIN {
            let rtt = self.srtt.map_or(MAX_ATO, |s| s.max(ATO_MIN));
            ato = ato.min(MAX_ATO.min(rtt));
        }
        ato.min(DELACK_MAX)
    }

    /// The delayed-ACK timer fired with an ACK pending: `ato` doubles, at most the RTO.
    pub fn on_timer(&mut self) {
        let ato = self.ato.unwrap_or(ATO_MIN);
        self.ato = Some(SimDuration(2 * ato.as_nanos()).min(self.rto()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime(v * 1_000_000)
    }

    /// A default window of 64 240 B with MSS 1448: 64240 / 2896 = 22 → capped at 16 quick
    /// ACKs; a 4 kB window grants max(2, 4000 / 2896 = 1) = 2.
    #[test]
    fn first_data_grants_sixteen_quick_acks() {
        let mut q = QuickAck::new(64_240, 1448);
        q.on_data(ms(100), Some(ms(0)));
        for _ in 0..16 {
            assert!(q.in_quickack_mode());
            q.on_ack_sent();
        }
        assert!(!q.in_quickack_mode());
        assert_eq!(QuickAck::new(4000, 1448).grant, 2);
    }

    /// By hand: ato 40 ms; segments 10 ms apart (≤ 20 ms): ato = 20 + 20 = 40 ms stays;
    /// a 30 ms gap (20 < 30 < 40): ato = 20 + 30 = 50 ms; the timeout armed is then capped
    /// at max(SRTT 100 ms, 40 ms) → 50 ms. An expiry doubles: 100 ms, capped at SRTT 100 ms;
    /// another: 200 ms → capped at 100 ms.
    #[test]
    fn ato_follows_inter_arrival_times() {
        let mut q = QuickAck::new(64_240, 1448);
        q.on_data(ms(100), Some(ms(0)));
        q.on_data(ms(110), None);
        assert_eq!(q.delay(), SimDuration::from_millis(40));
        q.on_data(ms(140), None);
        assert_eq!(q.delay(), SimDuration::from_millis(50));
        q.on_timer();
        assert_eq!(q.delay(), SimDuration::from_millis(100));
        q.on_timer();
        assert_eq!(q.delay(), SimDuration::from_millis(100));
    }
}
