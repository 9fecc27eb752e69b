//! ns-2.35's `Agent/TCP/Sack1` fast recovery (`tcp/tcp-sack1.cc`), which predates RFC 6675:
//! a packet counter `pipe_` instead of a scoreboard-derived pipe.
//!
//! - Entry (`dupack_action`): `pipe_ = maxseq_ − highest_ack_ − numdupacks_` (the packets
//!   outstanding less three), cwnd = min(cwnd, window_)/2 as a double
//!   (`slowdown(CLOSE_CWND_HALF)`); the retransmission of the head is not counted.
//! - Every ACK during recovery: `pipe_ −= 1`; a partial ACK once more (2 in all), and it
//!   restarts the timer (`newtimer`) and then clears the back-off (`t_backoff_ = 1`).
//! - Sending (`send_much`): while `pipe_ < int(cwnd_)`, the next hole below the highest
//!   SACK block, each hole once (`GetNextRetran`), else new data limited only by the
//!   receiver window; every send `pipe_ += 1`.
//! - Exit when the recovery point is acknowledged, with cwnd unchanged (no `opencwnd` on
//!   that ACK).

use super::{Entry, LossRecovery, PartialAck, Window};

#[derive(Clone, Copy, Debug, Default)]
pub struct Ns2Sack1 {
    pipe: i64,
}

impl LossRecovery for Ns2Sack1 {
    fn enter(&mut self, w: Window, dupthresh: u64) -> Entry {
        self.pipe = (w.flight / w.mss) as i64 - dupthresh as i64;
        Entry::HalveWindow
    }
    fn on_recovery_ack(&mut self) {
        self.pipe -= 1;
    }
    fn on_recovery_send(&mut self) {
        self.pipe += 1;
    }
    fn on_dupack(&mut self, _w: Window) -> Option<u64> {
        None
    }
    fn on_partial_ack(&mut self, _w: Window, _acked: u64) -> PartialAck {
        self.pipe -= 1;
        PartialAck { exit: false, retransmit_una: false, cwnd: None, shrink: 0, restart_timer: true, clear_backoff: true }
    }
    fn exit_cwnd(&self, _w: Window) -> Option<u64> {
        None
    }
    fn transmit(&self) -> super::Transmit {
        super::Transmit::CountedPipe
    }
    /// `send_much`: one more packet while `pipe_` < int(cwnd_).
    fn may_send(&self, cwnd: u64, mss: u64) -> bool {
        self.pipe < (cwnd / mss) as i64
    }
    /// `recover_ = 0` on leaving fast recovery.
    fn forgets_recovery_point(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Window of 6 packets outstanding at the third duplicate: pipe_ = 6 − 3 = 3; with cwnd
    /// halved to 3 nothing more may go out until two more ACKs arrive (pipe 1 < 3), and each
    /// send counts again.
    #[test]
    fn pipe_counts_packets_by_hand() {
        let mut r = Ns2Sack1::default();
        let w = Window { cwnd: 6000, ssthresh: 3000, mss: 1000, flight: 6000 };
        assert_eq!(r.enter(w, 3), Entry::HalveWindow);
        assert!(!r.may_send(3000, 1000));
        r.on_recovery_ack();
        assert!(r.may_send(3000, 1000)); // pipe 2
        r.on_recovery_send();
        assert!(!r.may_send(3000, 1000)); // pipe 3
        r.on_recovery_ack();
        r.on_partial_ack(w, 1000); // a partial ACK counts twice: pipe 1
        r.on_recovery_send();
        assert!(r.may_send(3000, 1000)); // pipe 2
    }
}
