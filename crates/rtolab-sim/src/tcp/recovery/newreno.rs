//! NewReno fast recovery (RFC 6582, 3.2): Reno's inflation, but a partial ACK retransmits
//! the next unacknowledged segment and deflates the window, and recovery lasts until the
//! recovery point is acknowledged.

use super::{Entry, LossRecovery, PartialAck, Transmit, Window};

#[derive(Clone, Copy, Debug, Default)]
pub struct NewReno {
    partial_ack_seen: bool,
}

impl LossRecovery for NewReno {
    /// RFC 6582 3.2 step 2 (RFC 5681 3.2 step 3): cwnd = ssthresh + 3·SMSS.
    fn enter(&mut self, w: Window, dupthresh: u64) -> Entry {
        self.partial_ack_seen = false;
        Entry::Cwnd(w.ssthresh + dupthresh * w.mss)
    }
    /// Step 4: inflate by one SMSS.
    fn on_dupack(&mut self, w: Window) -> Option<u64> {
        Some(w.cwnd + w.mss)
    }
    /// Step 5: retransmit the first unacknowledged segment, deflate by the amount acked and
    /// add back one SMSS if at least one SMSS was acked; restart the timer only on the first
    /// partial ACK.
    fn on_partial_ack(&mut self, w: Window, acked: u64) -> PartialAck {
        let cwnd = w.cwnd.saturating_sub(acked) + if acked >= w.mss { w.mss } else { 0 };
        let first = !self.partial_ack_seen;
        self.partial_ack_seen = true;
        PartialAck { exit: false, retransmit_una: true, cwnd: Some(cwnd), shrink: 0, restart_timer: first, clear_backoff: false }
    }
    /// RFC 6582 3.2 step 3, option (1): min(ssthresh, max(FlightSize, SMSS) + SMSS), which
    /// avoids a burst when little is outstanding.
    fn exit_cwnd(&self, w: Window) -> Option<u64> {
        Some(w.ssthresh.min(w.flight.max(w.mss) + w.mss))
    }
    fn transmit(&self) -> Transmit {
        Transmit::Window
    }
}
