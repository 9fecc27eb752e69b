//! Loss recovery after a fast retransmit: how the window behaves in fast recovery, what a
//! partial ACK does and how recovery ends. One file per algorithm, dispatched through an enum.
//!
//! The sender owns the loss state and the scoreboard; an algorithm here only answers what
//! the window becomes and whether to retransmit, so it cannot do half of a state change.

mod kind;
mod newreno;
mod ns2_newreno;
mod ns2_sack1;
mod prr;
mod rate_halving;
mod reno;
mod sack;

pub use kind::RecoveryKind;
pub use newreno::NewReno;
pub use ns2_newreno::Ns2NewReno;
pub use ns2_sack1::Ns2Sack1;
pub use prr::Prr;
pub use rate_halving::RateHalving;
pub use reno::Reno;
pub use sack::Sack;

/// The window on entering fast recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// This many bytes.
    Cwnd(u64),
    /// The controller halves its own window (ns-2 `slowdown(CLOSE_CWND_HALF)`).
    HalveWindow,
}

/// What paces transmission during fast recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transmit {
    /// cwnd over the data outstanding from SND.NXT (Reno, NewReno with inflation).
    Window,
    /// RFC 6675 SetPipe() and NextSeg().
    Rfc6675Pipe,
    /// The algorithm counts what is in flight itself (`LossRecovery::may_send`, told of
    /// each send by `on_recovery_send`); each send fills the next hole below the highest SACK
    /// block, else sends new data within rwnd (ns-2.35 Sack1's `pipe_` and `send_much`,
    /// `ns2_sack1.rs`).
    CountedPipe,
}

/// What a partial ACK (new data acknowledged below the recovery point) does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartialAck {
    /// Leave fast recovery now (Reno).
    pub exit: bool,
    /// Retransmit the segment at the new SND.UNA (NewReno).
    pub retransmit_una: bool,
    /// The new cwnd, if it changes.
    pub cwnd: Option<u64>,
    /// Bytes to take off the controller's window, its fraction kept (ns-2 deflation).
    pub shrink: u64,
    /// Restart the retransmission timer (RFC 6582 3.2 step 5: on the first partial ACK).
    pub restart_timer: bool,
    /// Clear the RTO back-off after restarting the timer (ns-2 Sack1: `t_backoff_ = 1` on
    /// every partial ACK).
    pub clear_backoff: bool,
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

/// What one ACK in fast recovery told a window-reducing algorithm (PRR, rate halving).
#[derive(Clone, Copy, Debug)]
pub struct Reduction {
    /// Bytes newly delivered (cumulatively acknowledged or SACKed) by the ACK.
    pub delivered: u64,
    /// The data in flight after the ACK (RFC 6675 pipe, Linux `tcp_packets_in_flight`).
    pub pipe: u64,
    /// SND.UNA advanced.
    pub una_advanced: bool,
    /// The ACK revealed new losses.
    pub newly_lost: bool,
    /// The ACK carried a DSACK block (Linux `FLAG_DSACKING_ACK`).
    pub dsack: bool,
    /// The controller's floor for rate halving (`CongestionControl::min_cwnd`).
    pub cwnd_min: u64,
}

pub trait LossRecovery {
    /// Starts an episode; returns the window on entry.
    fn enter(&mut self, w: Window, dupthresh: u64) -> Entry;
    /// Every ACK that arrives in fast recovery, before it is classified.
    fn on_recovery_ack(&mut self) {}
    /// Every segment sent in fast recovery.
    fn on_recovery_send(&mut self) {}
    /// A duplicate ACK during recovery: the inflated window, if it inflates.
    fn on_dupack(&mut self, w: Window) -> Option<u64>;
    fn on_partial_ack(&mut self, w: Window, acked: u64) -> PartialAck;
    /// cwnd when the recovery point is acknowledged; `None` leaves the controller's window
    /// as it is (its fraction included).
    fn exit_cwnd(&self, w: Window) -> Option<u64>;
    fn transmit(&self) -> Transmit;
    /// Under `Transmit::CountedPipe`: whether one more segment may go with this cwnd (bytes);
    /// the other modes are paced by the sender and never ask.
    fn may_send(&self, _cwnd: u64, _mss: u64) -> bool {
        true
    }
    /// Leaving recovery resets RFC 6582's `recover` to 0, so the next fast retransmit is
    /// not held back by the old recovery point (ns-2 Sack1 `recover_ = 0`).
    fn forgets_recovery_point(&self) -> bool {
        false
    }
    /// Recovery ended (the point was acknowledged, or a timeout).
    fn on_exit(&mut self) {}
    /// Window beyond cwnd that recovery allows (ns-2 `dupwnd_`).
    fn extra_window(&self, _mss: u64) -> u64 {
        0
    }
    /// At most this many segments per ACK while in recovery (ns-2 NewReno: 2).
    fn burst_limit(&self) -> Option<u32> {
        None
    }
    /// The ACK that ends recovery also grows the window (ns-2 NewReno's `opencwnd`).
    fn grows_on_exit(&self) -> bool {
        false
    }
    /// Sets the window from what each ACK delivered (PRR, rate halving); `None` for
    /// algorithms that do not.
    fn reduce(&mut self, _w: Window, _r: Reduction) -> Option<u64> {
        None
    }
    /// Whether `reduce` is used (the sender computes the pipe only then), and whether the
    /// first reduced window sends the fast retransmit (else the sender sends it on entry).
    fn reduces_by_delivery(&self) -> bool {
        false
    }
    /// Bytes sent (new or again) during fast recovery.
    fn sent_in_recovery(&mut self, _bytes: u64, _mss: u64) {}
}

#[derive(Clone, Debug)]
pub enum AnyRecovery {
    Reno(Reno),
    NewReno(NewReno),
    Sack(Sack),
    Prr(Prr),
    RateHalving(RateHalving),
    Ns2Sack1(Ns2Sack1),
    Ns2NewReno(Ns2NewReno),
}

impl AnyRecovery {
    pub fn new(kind: RecoveryKind) -> Self {
        match kind {
            RecoveryKind::Reno => AnyRecovery::Reno(Reno),
            RecoveryKind::NewReno => AnyRecovery::NewReno(NewReno::default()),
            RecoveryKind::Sack => AnyRecovery::Sack(Sack),
            RecoveryKind::Prr => AnyRecovery::Prr(Prr::default()),
            RecoveryKind::RateHalving => AnyRecovery::RateHalving(RateHalving::default()),
            RecoveryKind::Ns2Sack1 => AnyRecovery::Ns2Sack1(Ns2Sack1::default()),
            RecoveryKind::Ns2NewReno => AnyRecovery::Ns2NewReno(Ns2NewReno::default()),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            AnyRecovery::Reno($r) => $e,
            AnyRecovery::NewReno($r) => $e,
            AnyRecovery::Sack($r) => $e,
            AnyRecovery::Prr($r) => $e,
            AnyRecovery::RateHalving($r) => $e,
            AnyRecovery::Ns2Sack1($r) => $e,
            AnyRecovery::Ns2NewReno($r) => $e,
        }
    };
}

impl LossRecovery for AnyRecovery {
    fn enter(&mut self, w: Window, dupthresh: u64) -> Entry {
        dispatch!(self, r => r.enter(w, dupthresh))
    }
    fn on_recovery_ack(&mut self) {
        dispatch!(self, r => r.on_recovery_ack())
    }
    fn on_recovery_send(&mut self) {
        dispatch!(self, r => r.on_recovery_send())
    }
    fn on_dupack(&mut self, w: Window) -> Option<u64> {
        dispatch!(self, r => r.on_dupack(w))
    }
    fn on_partial_ack(&mut self, w: Window, acked: u64) -> PartialAck {
        dispatch!(self, r => r.on_partial_ack(w, acked))
    }
    fn exit_cwnd(&self, w: Window) -> Option<u64> {
        dispatch!(self, r => r.exit_cwnd(w))
    }
    fn transmit(&self) -> Transmit {
        dispatch!(self, r => r.transmit())
    }
    fn may_send(&self, cwnd: u64, mss: u64) -> bool {
        dispatch!(self, r => r.may_send(cwnd, mss))
    }
    fn forgets_recovery_point(&self) -> bool {
        dispatch!(self, r => r.forgets_recovery_point())
    }
    fn on_exit(&mut self) {
        dispatch!(self, r => r.on_exit())
    }
    fn extra_window(&self, mss: u64) -> u64 {
        dispatch!(self, r => r.extra_window(mss))
    }
    fn burst_limit(&self) -> Option<u32> {
        dispatch!(self, r => r.burst_limit())
    }
    fn grows_on_exit(&self) -> bool {
        dispatch!(self, r => r.grows_on_exit())
    }
    fn reduce(&mut self, w: Window, r: Reduction) -> Option<u64> {
        dispatch!(self, x => x.reduce(w, r))
    }
    fn reduces_by_delivery(&self) -> bool {
        dispatch!(self, r => r.reduces_by_delivery())
    }
    fn sent_in_recovery(&mut self, bytes: u64, mss: u64) {
        dispatch!(self, r => r.sent_in_recovery(bytes, mss))
    }
}
