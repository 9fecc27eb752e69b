//! The recoveries that set the window from what each ACK delivered (PRR, `prr.rs`; Linux
//! 2.6.24's rate halving, `rate_halving.rs`), written once around their differences: both
//! keep cwnd on entry and reduce it per ACK, and both run on RFC 6675's scoreboard, whose
//! duplicate ACKs, partial ACKs and choice of segments they take unchanged (`sack.rs`).

use super::{Entry, LossRecovery, PartialAck, Reduction, Sack, Transmit, Window};

/// What a window-reducing recovery decides itself; `LossRecovery` follows for it.
pub(super) trait ByDelivery {
    /// Starts an episode at the window `w` (cwnd stays as it is on entry).
    fn begin(&mut self, w: Window);
    /// The window after one ACK in fast recovery (`LossRecovery::reduce`).
    fn window_after(&mut self, w: Window, r: Reduction) -> Option<u64>;
    /// cwnd when the recovery point is acknowledged: RFC 6675's unless the algorithm has its
    /// own.
    fn window_at_exit(&self, w: Window) -> Option<u64> {
        Sack.exit_cwnd(w)
    }
    /// Bytes sent (new or again) during fast recovery, for an algorithm that counts them.
    fn count_sent(&mut self, _bytes: u64, _mss: u64) {}
    /// Whether the ACK that ends the recovery also grows the window.
    fn grows_when_done(&self) -> bool {
        false
    }
}

impl<T: ByDelivery> LossRecovery for T {
    /// The window stays on entry (Linux `tcp_init_cwnd_reduction`; 2.6.24's
    /// `tcp_fastretrans_alert`); the reduction comes per ACK.
    fn enter(&mut self, w: Window, _dupthresh: u64) -> Entry {
        self.begin(w);
        Entry::Cwnd(w.cwnd)
    }
    /// Duplicate ACKs, partial ACKs and the choice of segments are RFC 6675's (`sack.rs`).
    fn on_dupack(&mut self, w: Window) -> Option<u64> {
        Sack.on_dupack(w)
    }
    fn on_partial_ack(&mut self, w: Window, acked: u64) -> PartialAck {
        Sack.on_partial_ack(w, acked)
    }
    fn exit_cwnd(&self, w: Window) -> Option<u64> {
        self.window_at_exit(w)
    }
    fn transmit(&self) -> Transmit {
        Sack.transmit()
    }
    fn reduce(&mut self, w: Window, r: Reduction) -> Option<u64> {
        self.window_after(w, r)
    }
    fn reduces_by_delivery(&self) -> bool {
        true
    }
    fn sent_in_recovery(&mut self, bytes: u64, mss: u64) {
        self.count_sent(bytes, mss);
    }
    fn grows_on_exit(&self) -> bool {
        self.grows_when_done()
    }
}
