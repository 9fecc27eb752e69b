//! Loss recovery after a fast retransmit: how the window behaves in fast recovery, what a
//! partial ACK does and how recovery ends. One file per algorithm, dispatched through an enum.
//!
//! The sender owns the loss state and the scoreboard; an algorithm here only answers what
//! the window becomes and whether to retransmit, so it cannot do half of a state change.
//!
//! Adding an algorithm: a file with a type implementing `LossRecovery` and `Default`, then a
//! `mod` line and one entry in `register_recoveries!` below (`registry.rs`), which makes its
//! `RecoveryKind` variant (the spec's name, or none for a stack's own) and its `AnyRecovery`
//! variant. An algorithm that sets the window from what each ACK delivered, on RFC 6675's
//! scoreboard, implements `by_delivery::ByDelivery` instead (PRR, rate halving).

mod by_delivery;
mod newreno;
mod ns2_newreno;
mod ns2_sack1;
mod prr;
mod rate_halving;
mod registry;
mod reno;
mod sack;
#[cfg(test)]
mod test_windows;

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

// The registry: each recovery's spec name (none for a stack's own), type and what runs
// without SACK, in the schema's order.
registry::register_recoveries! {
    /// RFC 5681 3.2.
    Reno = "reno" => reno::Reno,
    /// RFC 6582.
    NewReno = "newreno" => newreno::NewReno,
    /// RFC 6675 (needs `sack = true`).
    Sack = "sack", without_sack NewReno => sack::Sack,
    /// RFC 6937 PRR with RFC 6675's choice of segments, as Linux (needs `sack = true`).
    Prr = "prr", without_sack NewReno => prr::Prr,
    /// Linux 2.6.24's rate halving with RFC 6675's choice of segments (needs `sack = true`).
    RateHalving = "rate-halving", without_sack NewReno => rate_halving::RateHalving,
    /// ns-2.35's `Agent/TCP/Sack1` (stack `ns2-sack1` only).
    #[serde(skip)]
    Ns2Sack1, without_sack Ns2NewReno => ns2_sack1::Ns2Sack1,
    /// ns-2.35's `Agent/TCP/Newreno` (stack `ns2-newreno` only).
    #[serde(skip)]
    Ns2NewReno => ns2_newreno::Ns2NewReno,
}
