//! SACK-based loss recovery (RFC 6675, 5): cwnd = ssthresh on entry; what is sent is
//! chosen by the scoreboard's SetPipe() and NextSeg(), which live in `scoreboard.rs`.

use super::{Entry, LossRecovery, PartialAck, Transmit, Window};

#[derive(Clone, Copy, Debug, Default)]
pub struct Sack;

impl LossRecovery for Sack {
    /// RFC 6675 5 step (4.2): cwnd = ssthresh (RecoveryPoint and the retransmission of
    /// HighACK + 1 are the sender's).
    fn enter(&mut self, w: Window, _dupthresh: u64) -> Entry {
        Entry::Cwnd(w.ssthresh)
    }
    /// The pipe estimate, not window inflation, accounts for segments that left.
    fn on_dupack(&mut self, _w: Window) -> Option<u64> {
        None
    }
    /// Stay in recovery; step (C) sends what the pipe allows. RFC 6298 (5.3): restart.
    fn on_partial_ack(&mut self, _w: Window, _acked: u64) -> PartialAck {
        PartialAck { exit: false, retransmit_una: false, cwnd: None, shrink: 0, restart_timer: true, clear_backoff: false }
    }
    /// RFC 5681 3.2 step 6 applied to SACK recovery: cwnd = ssthresh.
    fn exit_cwnd(&self, w: Window) -> Option<u64> {
        Some(w.ssthresh)
    }
    fn transmit(&self) -> Transmit {
        Transmit::Rfc6675Pipe
    }
}
