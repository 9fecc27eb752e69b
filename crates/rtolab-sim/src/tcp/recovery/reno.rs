//! Reno fast recovery (RFC 5681, 3.2): inflate by one segment per duplicate ACK, leave on
//! the first ACK of new data with cwnd = ssthresh.

use super::{Entry, LossRecovery, PartialAck, Transmit, Window};

#[derive(Clone, Copy, Debug, Default)]
pub struct Reno;

impl LossRecovery for Reno {
    /// RFC 5681 3.2 step 3: cwnd = ssthresh + 3·SMSS.
    fn enter(&mut self, w: Window, dupthresh: u64) -> Entry {
        Entry::Cwnd(w.ssthresh + dupthresh * w.mss)
    }
    /// Step 4: one SMSS per further duplicate ACK.
    fn on_dupack(&mut self, w: Window) -> Option<u64> {
        Some(w.cwnd + w.mss)
    }
    /// Step 6: any new ACK ends recovery.
    fn on_partial_ack(&mut self, w: Window, _acked: u64) -> PartialAck {
        PartialAck { exit: true, retransmit_una: false, cwnd: self.exit_cwnd(w), shrink: 0, restart_timer: true, clear_backoff: false }
    }
    fn exit_cwnd(&self, w: Window) -> Option<u64> {
        Some(w.ssthresh)
    }
    fn transmit(&self) -> Transmit {
        Transmit::Window
    }
}
