//! Congestion control behind one small trait with explicit inputs, dispatched through an enum.
//!
//! Loss-based algorithms share `WindowCore` (cwnd and ssthresh in bytes, RFC 5681 slow start
//! and the loss/timeout reductions); each algorithm is one file that changes what differs.
//! Adding one: a file with a type implementing `CongestionControl`, a variant in `AnyCc` and
//! in `CcKind`.

mod core;
mod reno;

pub use self::core::WindowCore;
pub use reno::Reno;

use crate::spec::CcKind;
use crate::time::{SimDuration, SimTime};

/// New data cumulatively acknowledged outside loss recovery.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: SimTime,
    pub acked_bytes: u64,
    pub rtt: Option<SimDuration>,
    /// Bytes outstanding before this ACK.
    pub flight: u64,
}

/// What a congestion controller answers to. Loss recovery code may set cwnd directly only
/// through `core_mut()`, so the window has exactly one owner.
pub trait CongestionControl {
    fn core(&self) -> &WindowCore;
    fn core_mut(&mut self) -> &mut WindowCore;
    fn cwnd(&self) -> u64 {
        self.core().cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.core().ssthresh
    }
    /// Grows the window for newly acknowledged data.
    fn on_ack(&mut self, ack: &AckSample);
    /// Loss detected by duplicate ACKs or SACK: sets ssthresh (RFC 5681 (4)).
    fn on_congestion_event(&mut self, now: SimTime, flight: u64);
    /// Retransmission timeout: ssthresh as on loss (unless already backed off), cwnd = 1 MSS.
    fn on_rto(&mut self, now: SimTime, flight: u64, first_timeout: bool);
    /// A timeout was found spurious; the default keeps the reduced window.
    fn on_spurious(&mut self, _now: SimTime) {}
}

/// The algorithms rtolab has, as one enum so the hot path needs no dynamic dispatch.
#[derive(Clone, Debug)]
pub enum AnyCc {
    Reno(Reno),
}

impl AnyCc {
    pub fn new(kind: CcKind, mss: u32, initial_window: u64) -> Self {
        let core = WindowCore::new(mss, initial_window);
        match kind {
            CcKind::Reno | CcKind::Newreno => AnyCc::Reno(Reno::new(core)),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $cc:ident => $e:expr) => {
        match $self {
            AnyCc::Reno($cc) => $e,
        }
    };
}

impl CongestionControl for AnyCc {
    fn core(&self) -> &WindowCore {
        dispatch!(self, c => c.core())
    }
    fn core_mut(&mut self) -> &mut WindowCore {
        dispatch!(self, c => c.core_mut())
    }
    fn on_ack(&mut self, ack: &AckSample) {
        dispatch!(self, c => c.on_ack(ack))
    }
    fn on_congestion_event(&mut self, now: SimTime, flight: u64) {
        dispatch!(self, c => c.on_congestion_event(now, flight))
    }
    fn on_rto(&mut self, now: SimTime, flight: u64, first_timeout: bool) {
        dispatch!(self, c => c.on_rto(now, flight, first_timeout))
    }
    fn on_spurious(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_spurious(now))
    }
}
