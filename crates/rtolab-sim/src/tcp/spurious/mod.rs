//! Spurious-timeout detection and response.
//!
//! A *loss episode* starts at a window reduction (a fast retransmit or a timeout). Before the
//! reduction the sender saves what an undo needs (`Episode::prior`: the congestion controller
//! as it was, the RTO back-off, FlightSize and the RTT estimates for RFC 4015). Detectors
//! watch the episode and may declare it spurious; the response then decides what comes back.
//!
//! - Eifel (RFC 3522), `eifel.rs`: the first acceptable ACK echoes a timestamp older than the
//!   first retransmission.
//! - F-RTO (RFC 5682), `frto.rs`: after a timeout, new data is sent instead of going back;
//!   if the next ACKs acknowledge data that was never retransmitted, the timeout was spurious.
//! - DSACK (RFC 3708), `dsack.rs`: every retransmission of the episode was reported as a
//!   duplicate by the receiver (RFC 2883).

mod dsack;
mod eifel;
mod frto;

pub use dsack::DsackDetector;
pub use eifel::EifelDetector;
pub use frto::{Frto, FrtoAck, FrtoAction, FrtoVariant};

use super::cc::AnyCc;
use crate::time::SimDuration;

/// Which detectors run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Detectors {
    pub eifel: bool,
    pub frto: bool,
    pub dsack: bool,
}

/// What the sender does once an episode is found spurious.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Response {
    /// Count the verdict, change nothing (RFC 5682's conservative default).
    None,
    /// The Eifel response, RFC 4015 (see `respond_rfc4015` in the sender).
    Rfc4015,
    /// Linux: restore cwnd and ssthresh to no less than before the reduction, clear the RTO
    /// back-off, stop retransmitting (`tcp_undo_cwnd_reduction`).
    Undo,
    /// ns-2's `spurious_response_` modes 1–3 (`tcp.cc`, `spurious_timeout()`).
    Ns2(u8),
}

/// Why an episode began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EpisodeKind {
    FastRetransmit,
    Timeout,
}

/// One loss episode and the state saved before its reduction.
#[derive(Clone, Debug)]
pub struct Episode {
    pub kind: EpisodeKind,
    /// The controller before the reduction.
    pub prior: AnyCc,
    /// FlightSize when the episode began (RFC 4015 `pipe_prev`).
    pub pipe_prev: u64,
    /// SRTT and RTTVAR when the episode began (RFC 4015 `SRTT_prev`, `RTTVAR_prev`).
    pub srtt_prev: Option<SimDuration>,
    pub rttvar_prev: SimDuration,
    /// Ids of the timeouts in the episode (first, last), if any.
    pub timeouts: Option<(u64, u64)>,
    pub eifel: EifelDetector,
    pub dsack: DsackDetector,
    /// A verdict was reached: no detector runs any more.
    pub decided: bool,
}

impl Episode {
    pub fn add_timeout(&mut self, id: u64) {
        self.kind = EpisodeKind::Timeout;
        self.timeouts = Some(match self.timeouts {
            Some((first, _)) => (first, id),
            None => (id, id),
        });
    }
}
