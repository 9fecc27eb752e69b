//! Congestion control: how the window grows and how much it shrinks, behind one small trait
//! with explicit inputs, dispatched through an enum.
//!
//! The controller owns cwnd and ssthresh. It is called on every ACK (new, duplicate, in
//! recovery) with the bytes newly acknowledged and newly SACKed and the RTT sample, so
//! bandwidth estimators and CUBIC's clock can be written without touching the sender. Loss
//! recovery changes the window only through `set_cwnd`; an undo is given a snapshot taken
//! before the reduction (the controller is `Clone`) and takes back what its algorithm says:
//! Reno its window; Linux's controllers cwnd and ssthresh only (`tcp_undo_cwnd_reduction`),
//! their own state staying as the reduction left it.
//! Adding an algorithm: a file with a type implementing `CongestionControl`, a variant in
//! `AnyCc` and in `CcKind` (with its name in `CcName::NAMES`).
//!
//! Files: `core.rs` (the window arithmetics), `reno.rs`, and Linux's controllers as Linux
//! 6.x runs them: `cubic.rs` with `hystart.rs` and `cube_root.rs`, `bic.rs`, `westwood.rs`;
//! `cubic_2_6_24.rs`, CUBIC as Linux 2.6.24 ran it (paper 004); `tcp/jiffies.rs` holds the
//! kernel clocks they read. A window built `with_ack_counting` grows per ACK as Linux
//! 2.6.24's (`core.rs`: its `tcp_slow_start` and `tcp_reno_cong_avoid`, `tcp_abc` 0), which
//! `reno.rs` and `westwood.rs` then follow and `bic.rs` turns into 2.6.24's module;
//! `cubic_2_6_24.rs` always counts ACKs.

mod bic;
mod core;
mod cube_root;
mod cubic;
mod cubic_2_6_24;
mod cubic_curve;
mod hystart;
mod kind;
mod reno;
mod ssthresh_hook;
mod westwood;
#[cfg(test)]
mod test_acks;

pub use self::core::{WindowArith, WindowCore};
pub use bic::Bic;
pub use kind::{CcKind, CcName};
pub use cubic::{Cubic, CubicParams};
pub use cubic_2_6_24::{Cubic2624, BETA as CUBIC_2_6_24_BETA};
pub use reno::Reno;
pub use westwood::Westwood;

use super::state::LossState;
use crate::time::{SimDuration, SimTime};

/// What one ACK told the sender.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: SimTime,
    /// Bytes newly acknowledged cumulatively (0 for a duplicate ACK).
    pub acked_bytes: u64,
    /// Bytes newly SACKed by this ACK.
    pub sacked_bytes: u64,
    /// Bytes newly delivered: newly SACKed plus newly acknowledged that were not SACKed
    /// before (Linux `tcp_newly_delivered`, what its controllers grow by).
    pub delivered: u64,
    /// SND.UNA after this ACK.
    pub snd_una: u64,
    /// SND.MAX after this ACK (the highest sequence sent; Linux's `snd_nxt`).
    pub snd_max: u64,
    /// The RTT sample this ACK gave, if any (timestamps or the timed segment).
    pub rtt: Option<SimDuration>,
    /// The smoothed RTT after this ACK, if any sample has been taken.
    pub srtt: Option<SimDuration>,
    /// Bytes outstanding before this ACK.
    pub flight: u64,
    /// The loss state after the sender processed the ACK.
    pub state: LossState,
    /// The window limited the sender recently (RFC 7661; Linux `tcp_is_cwnd_limited`).
    pub cwnd_limited: bool,
}

impl AckSample {
    /// `delivered` in segments, a partial segment counting as one (Linux counts whole
    /// segments: `tcp_newly_delivered`).
    pub fn delivered_packets(&self, mss: u64) -> u32 {
        self.delivered.div_ceil(mss) as u32
    }

    /// `acked_bytes` in segments (Linux `pkts_acked`: the segments this ACK acknowledged
    /// cumulatively, SACKed before or not).
    pub fn acked_packets(&self, mss: u64) -> u32 {
        self.acked_bytes.div_ceil(mss) as u32
    }

    /// The RTT sample in µs as Linux's `ack_sample.rtt_us` (`None` stands for its −1).
    pub fn rtt_us(&self) -> Option<u32> {
        self.rtt.map(|r| (r.as_nanos() / 1000).min(u32::MAX as u64) as u32)
    }
}

/// What a congestion controller answers to.
pub trait CongestionControl {
    /// The window every algorithm keeps (cwnd, ssthresh and their arithmetic); the window
    /// changes loss recovery makes go to it unchanged.
    fn core(&self) -> &WindowCore;
    fn core_mut(&mut self) -> &mut WindowCore;
    fn cwnd(&self) -> u64 {
        self.core().cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.core().ssthresh
    }
    /// Every ACK; grows the window when the state and `cwnd_limited` allow it.
    fn on_ack(&mut self, ack: &AckSample);
    /// Loss detected by duplicate ACKs or SACK: sets ssthresh (RFC 5681 (4)).
    fn on_congestion_event(&mut self, now: SimTime, flight: u64);
    /// Retransmission timeout: ssthresh as on loss (unless already backed off), cwnd = the
    /// loss window of one segment (RFC 5681 3.1).
    fn on_rto(&mut self, now: SimTime, flight: u64, first_timeout: bool);
    /// Loss recovery's window changes (inflation, deflation, exit, spurious-timeout
    /// responses). Never below one segment.
    fn set_cwnd(&mut self, bytes: u64) {
        self.core_mut().set_cwnd(bytes);
    }
    fn set_ssthresh(&mut self, bytes: u64) {
        self.core_mut().set_ssthresh(bytes);
    }
    /// Halves the window itself on entering fast recovery, where the stack does that
    /// instead of cwnd = ssthresh (ns-2 `slowdown(CLOSE_CWND_HALF)`).
    fn halve_window(&mut self) {
        self.core_mut().halve_window();
    }
    /// Takes `bytes` off the window, keeping its fraction (ns-2 NewReno's deflation).
    fn shrink_window(&mut self, bytes: u64) {
        self.core_mut().shrink(bytes);
    }
    /// Undoes a reduction found unnecessary, given the controller as it was before it
    /// (Linux `tcp_undo_cwnd_reduction`: cwnd and ssthresh no lower than before). The
    /// algorithm's own state stays as after the reduction, as in the kernel, whose
    /// controllers restore only the window (`tcp_reno_undo_cwnd`).
    fn undo(&mut self, prior: &Self)
    where
        Self: Sized,
    {
        self.core_mut().undo(prior.core());
    }
    /// The floor rate halving lowers cwnd to (Linux 2.6.24 `tcp_cwnd_min`: the module's
    /// `min_cwnd` hook, else ssthresh). Today's kernel has no such hook; only
    /// `recovery/rate_halving.rs` reads it.
    fn min_cwnd(&self) -> u64 {
        self.ssthresh()
    }
    /// Fast recovery ended at its recovery point (Linux `CA_EVENT_COMPLETE_CWR`), after the
    /// recovery algorithm set the exit window.
    fn on_recovery_exit(&mut self, _now: SimTime) {}
    /// Data is sent with nothing in flight (Linux `CA_EVENT_TX_START`): the sender was idle
    /// or application-limited since it last sent data at `last_send` (Linux `lsndtime`).
    fn on_tx_start(&mut self, _now: SimTime, _last_send: SimTime) {}
}

/// The algorithms rtolab has, as one enum so the hot path needs no dynamic dispatch.
#[derive(Clone, Debug)]
pub enum AnyCc {
    Reno(Reno),
    Cubic(Cubic),
    Cubic2624(Cubic2624),
    Bic(Bic),
    Westwood(Westwood),
}

impl AnyCc {
    /// The controller `kind` on `core`; CUBIC's take their HyStart and β from `cubic`
    /// (Linux 2.6.24's reads β alone).
    pub fn new(kind: CcKind, cubic: CubicParams, core: WindowCore) -> Self {
        match kind {
            CcKind::Reno => AnyCc::Reno(Reno::new(core)),
            CcKind::Cubic => AnyCc::Cubic(Cubic::new(core, cubic)),
            CcKind::Cubic2624 => AnyCc::Cubic2624(Cubic2624::new(core, cubic.beta)),
            CcKind::Bic => AnyCc::Bic(Bic::new(core)),
            CcKind::Westwood => AnyCc::Westwood(Westwood::new(core)),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $cc:ident => $e:expr) => {
        match $self {
            AnyCc::Reno($cc) => $e,
            AnyCc::Cubic($cc) => $e,
            AnyCc::Cubic2624($cc) => $e,
            AnyCc::Bic($cc) => $e,
            AnyCc::Westwood($cc) => $e,
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
    fn min_cwnd(&self) -> u64 {
        dispatch!(self, c => c.min_cwnd())
    }
    fn on_recovery_exit(&mut self, now: SimTime) {
        dispatch!(self, c => c.on_recovery_exit(now))
    }
    fn on_tx_start(&mut self, now: SimTime, last_send: SimTime) {
        dispatch!(self, c => c.on_tx_start(now, last_send))
    }
    /// `prior` is a snapshot of this same controller (`Episode::prior`), so the kinds match.
    fn undo(&mut self, prior: &Self) {
        match (self, prior) {
            (AnyCc::Reno(c), AnyCc::Reno(p)) => c.undo(p),
            (AnyCc::Cubic(c), AnyCc::Cubic(p)) => c.undo(p),
            (AnyCc::Cubic2624(c), AnyCc::Cubic2624(p)) => c.undo(p),
            (AnyCc::Bic(c), AnyCc::Bic(p)) => c.undo(p),
            (AnyCc::Westwood(c), AnyCc::Westwood(p)) => c.undo(p),
            _ => unreachable!("an undo restores a snapshot of the same controller"),
        }
    }
}
