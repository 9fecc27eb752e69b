//! The sender's loss state, as Linux's `tcp_ca_state` names it.
//!
//! Invariant: exactly one state at a time; `Recovery` and `Loss` carry the recovery point
//! (SND.MAX when the episode began, RFC 6582 `recover` / Linux `high_seq`), and the episode
//! ends when SND.UNA reaches it.

/// Where the sender stands with respect to loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossState {
    /// Nothing suspicious: every ACK advances SND.UNA.
    Open,
    /// Duplicate ACKs or SACK holes seen, fewer than DupThresh: limited transmit may send.
    Disorder,
    /// Fast recovery after a fast retransmit (RFC 5681 3.2, RFC 6582, RFC 6675).
    Recovery { point: u64 },
    /// After a retransmission timeout, until everything outstanding then is acknowledged
    /// (RFC 5681 (4): slow start from one segment; go-back-N).
    Loss { point: u64 },
}

impl LossState {
    pub fn is_recovery(self) -> bool {
        matches!(self, LossState::Recovery { .. })
    }
    pub fn is_loss(self) -> bool {
        matches!(self, LossState::Loss { .. })
    }
    /// The recovery point of a `Recovery` or `Loss` episode.
    pub fn point(self) -> Option<u64> {
        match self {
            LossState::Recovery { point } | LossState::Loss { point } => Some(point),
            LossState::Open | LossState::Disorder => None,
        }
    }
    /// Window growth is allowed (Linux grows cwnd in Open and Disorder only; RFC 5681 3.2
    /// has no growth during fast recovery).
    pub fn grows_window(self) -> bool {
        matches!(self, LossState::Open | LossState::Disorder | LossState::Loss { .. })
    }
}
