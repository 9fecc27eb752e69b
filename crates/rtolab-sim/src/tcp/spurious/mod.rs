//! Spurious-timeout detection and response.
//!
//! A *loss episode* starts at a window reduction (a fast retransmit or a timeout). Before the
//! reduction the sender saves what an undo needs (`Episode::prior`: the congestion controller
//! as it was, the RTO back-off, FlightSize and the RTT estimates for RFC 4015). Detectors
//! watch the episode and may declare it spurious; the response then decides what comes back.
//!
//! - `detector.rs`: the `Detector` interface (the events a detector sees, the `Verdict` it
//!   returns) and the registry macro.
//! - `responses.rs`: what the sender does with a spurious verdict (`Response`: RFC 4015, the
//!   Linux undo, ns-2's modes 1–3), behind one function, `respond`.
//! - The detectors, registered below:
//!   - Eifel (RFC 3522), `eifel.rs`: the first acceptable ACK echoes a timestamp older than
//!     the first retransmission.
//!   - F-RTO (RFC 5682), `frto.rs`: after a timeout, new data is sent instead of going
//!     back; if the next ACKs acknowledge data that was never retransmitted, the timeout
//!     was spurious.
//!   - F-RTO as Linux runs it, `frto_linux.rs`: undoes on the first ACK of data never
//!     retransmitted, and is armed again by a repeated timeout without progress.
//!   - DSACK (RFC 3708), `dsack.rs`: every retransmission of the episode was reported as a
//!     duplicate by the receiver (RFC 2883).
//!
//! Adding a detector: write its file (a type implementing `Detector` and `Register`), then
//! add a `mod` line and one entry to `register_detectors!` below. Nothing else changes: the
//! spec reads the name from the registry (`detect = ["name"]`), and the sender consults the
//! episode's detectors without naming them.

mod detect_spec;
mod detector;
mod dsack;
mod eifel;
mod frto;
mod frto_linux;
mod responses;
#[cfg(test)]
mod toy;

pub use detector::{AcceptableAck, AckReading, Detector, Detectors, DsackBlock, DuplicateAck, EpisodeStart, Needs, Proof, Register, TimeoutFacts, Verdict};
pub use detect_spec::{DetectSpec, NoDetector};
pub use dsack::DsackDetector;
pub use eifel::EifelDetector;
pub use frto::{Frto, FrtoAck, FrtoAction, FrtoVariant};
pub use responses::{respond, Response, SenderParts};

use super::cc::AnyCc;
use crate::time::SimDuration;

// The registry: the configuration's name for each detector and its type, in the order the
// sender consults them on the same event (Eifel reads an acceptable ACK before F-RTO).
detector::register_detectors! {
    /// Eifel, RFC 3522 (needs timestamps).
    Eifel = "eifel" => eifel::EifelDetector,
    /// F-RTO, RFC 5682 (basic, or SACK-enhanced with SACK).
    Frto = "frto" => frto::Frto,
    /// F-RTO as Linux runs it (`tcp_process_loss`, `tcp_enter_loss`).
    FrtoLinux = "frto-linux" => frto_linux::LinuxFrto,
    /// DSACK, RFC 3708 (needs SACK; turns DSACK on at the receiver).
    Dsack = "dsack" => dsack::DsackDetector,
    /// A toy for the registry's test: every timeout is spurious.
    #[cfg(test)]
    Toy = "toy" => toy::EveryTimeout,
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
    /// The configured detectors, in registry order, started with the episode.
    pub detectors: Vec<AnyDetector>,
    /// Of `detectors`, by position: those that read every ACK and have not answered
    /// `Genuine`, and those that read ACKs while they hold the recovery after a timeout.
    pub ack_readers: u32,
    pub hold_readers: u32,
    /// A detector took over after the episode's last timeout and was not released since.
    pub held: bool,
    /// A verdict was reached: no detector runs any more.
    pub decided: bool,
}

/// The detectors an episode starts with: what `Episode` holds of them.
pub struct StartedDetectors {
    pub detectors: Vec<AnyDetector>,
    pub ack_readers: u32,
    pub hold_readers: u32,
}

impl Episode {
    /// Starts `enabled`'s detectors for an episode that begins at `at`.
    pub fn start_detectors(enabled: Detectors, at: &EpisodeStart) -> StartedDetectors {
        let mut started = StartedDetectors { detectors: Vec::new(), ack_readers: 0, hold_readers: 0 };
        for (i, name) in enabled.iter().enumerate() {
            match name.reads_acks() {
                AckReading::Never => {}
                AckReading::Always => started.ack_readers |= 1 << i,
                AckReading::WhileHolding => started.hold_readers |= 1 << i,
            }
            started.detectors.push(AnyDetector::start(name, at));
        }
        started
    }

    /// The positions of the detectors to show an ACK to.
    #[inline]
    pub fn ack_listeners(&self) -> u32 {
        if self.decided {
            0
        } else {
            self.ack_readers | if self.held { self.hold_readers } else { 0 }
        }
    }

    pub fn add_timeout(&mut self, id: u64) {
        self.kind = EpisodeKind::Timeout;
        self.timeouts = Some(match self.timeouts {
            Some((first, _)) => (first, id),
            None => (id, id),
        });
    }

    /// The episode's timer fired: each detector may take over what is sent next (all are
    /// told). Returns whether one did.
    pub fn on_timeout(&mut self, at: &TimeoutFacts) -> bool {
        self.held = self.detectors.iter_mut().fold(false, |held, d| d.on_timeout(at) | held);
        self.held
    }

    /// Whether a detector holds what is sent after the timeout.
    pub fn holds_recovery(&self) -> bool {
        !self.decided && self.held && self.detectors.iter().any(|d| d.holds_recovery())
    }

    /// The sender takes back what is sent after a timeout.
    pub fn release(&mut self) {
        self.held = false;
        self.detectors.iter_mut().for_each(|d| d.release());
    }

    /// A retransmission of the undecided episode.
    pub fn on_retransmit(&mut self, ts_val: u64) {
        if !self.decided {
            self.detectors.iter_mut().for_each(|d| d.on_retransmit(ts_val));
        }
    }
}
