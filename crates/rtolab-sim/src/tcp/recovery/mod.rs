//! Loss recovery after a fast retransmit: how the window behaves in fast recovery, what a
//! partial ACK does and how recovery ends. One file per algorithm, dispatched through an enum.
//!
//! The sender owns the loss state and the scoreboard; an algorithm here only answers what
//! the window becomes and whether to retransmit, so it cannot do half of a state change.

mod newreno;
mod reno;
mod sack;

pub use newreno::{NewReno, NewRenoExit};
pub use reno::Reno;
pub use sack::Sack;

/// What a partial ACK (new data acknowledged below the recovery point) does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartialAck {
    /// Leave fast recovery now (Reno).
    pub exit: bool,
    /// Retransmit the segment at the new SND.UNA (NewReno).
    pub retransmit_una: bool,
    /// The new cwnd, if it changes.
    pub cwnd: Option<u64>,
    /// Restart the retransmission timer (RFC 6582 3.2 step 5: on the first partial ACK).
    pub restart_timer: bool,
}

/// The window facts an algorithm needs, in bytes.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    /// SND.MAX − SND.UNA after the ACK.
    pub flight: u64,
}

pub trait LossRecovery {
    /// Starts an episode; returns cwnd on entry.
    fn enter(&mut self, w: Window, dupthresh: u64) -> u64;
    /// A duplicate ACK during recovery: the inflated window, if it inflates.
    fn on_dupack(&mut self, w: Window) -> Option<u64>;
    fn on_partial_ack(&mut self, w: Window, acked: u64) -> PartialAck;
    /// cwnd when the recovery point is acknowledged.
    fn exit_cwnd(&self, w: Window) -> u64;
    /// Transmission during recovery follows the RFC 6675 pipe and NextSeg() loop.
    fn pipe_driven(&self) -> bool;
}

/// Which algorithm.
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
pub enum AnyRecovery {
    Reno(Reno),
    NewReno(NewReno),
    Sack(Sack),
}

impl AnyRecovery {
    pub fn new(kind: RecoveryKind, newreno_exit: NewRenoExit) -> Self {
        match kind {
            RecoveryKind::Reno => AnyRecovery::Reno(Reno),
            RecoveryKind::NewReno => AnyRecovery::NewReno(NewReno::new(newreno_exit)),
            RecoveryKind::Sack => AnyRecovery::Sack(Sack),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            AnyRecovery::Reno($r) => $e,
            AnyRecovery::NewReno($r) => $e,
            AnyRecovery::Sack($r) => $e,
        }
    };
}

impl LossRecovery for AnyRecovery {
    fn enter(&mut self, w: Window, dupthresh: u64) -> u64 {
        dispatch!(self, r => r.enter(w, dupthresh))
    }
    fn on_dupack(&mut self, w: Window) -> Option<u64> {
        dispatch!(self, r => r.on_dupack(w))
    }
    fn on_partial_ack(&mut self, w: Window, acked: u64) -> PartialAck {
        dispatch!(self, r => r.on_partial_ack(w, acked))
    }
    fn exit_cwnd(&self, w: Window) -> u64 {
        dispatch!(self, r => r.exit_cwnd(w))
    }
    fn pipe_driven(&self) -> bool {
        dispatch!(self, r => r.pipe_driven())
    }
}
