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
//! Adding an algorithm: a file with a type implementing `CongestionControl`, then a `mod`
//! line and one entry in `register_controllers!` below (`registry.rs`), which makes its
//! `CcKind` variant (the spec's name), its kernel name and its `AnyCc` variant.
//!
//! Files: `core.rs` (the window arithmetics), `reno.rs`, and Linux's controllers as Linux
//! 6.x runs them: `cubic.rs` with `hystart.rs` and `cube_root.rs`, `bic.rs`, `westwood.rs`;
//! `cubic_2_6_24.rs`, CUBIC as Linux 2.6.24 ran it (paper 004). What these share: `bictcp.rs`
//! (the state every CUBIC version keeps), `cubic_curve.rs` (the curve and the loss-time
//! W_max), `ack_ratio.rs` (BIC's and 2.6.24's CUBIC's delayed-ACK ratio), `ssthresh_hook.rs`
//! (the reductions around a module's `ssthresh` hook); `tcp/jiffies.rs` holds the
//! kernel clocks they read. A window built `with_ack_counting` grows per ACK as Linux
//! 2.6.24's (`core.rs`: its `tcp_slow_start` and `tcp_reno_cong_avoid`, `tcp_abc` 0), which
//! `reno.rs` and `westwood.rs` then follow and `bic.rs` turns into 2.6.24's module;
//! `cubic_2_6_24.rs` always counts ACKs.

mod ack_ratio;
mod bbr;
mod bic;
mod bictcp;
mod core;
mod cube_root;
mod cubic;
mod cubic_2_6_24;
mod cubic_curve;
mod hystart;
mod kind;
mod registry;
mod reno;
mod ssthresh_hook;
mod westwood;
#[cfg(test)]
mod test_acks;

pub use self::core::{WindowArith, WindowCore};
pub use bbr::{Bbr, BbrMode};
pub use bic::Bic;
pub use kind::CcName;
pub use cubic::{Cubic, CubicParams};
pub use cubic_2_6_24::{Cubic2624, BETA as CUBIC_2_6_24_BETA};
pub use reno::Reno;
pub use westwood::Westwood;

use super::rate::RateSample;
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

/// The rule by which one ACK grew the window: what `CongestionControl::on_ack` answers, and
/// what the flows table's `ca_acks` (the `Avoidance` answers) and `linear_acks` (those with
/// `linear`) count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Growth {
    /// No rule ran: the ACK acknowledged no new data, the window did not limit the sender,
    /// the loss state holds the window (fast recovery), or the controller sets its window
    /// another way (BBR, from its model on every rate sample).
    #[default]
    Held,
    /// Slow start took the whole ACK.
    SlowStart,
    /// The congestion-avoidance rule ran on this ACK: the window was at or above ssthresh as
    /// the algorithm draws that line (Linux 2.6.24's per-ACK counting: above it), or slow
    /// start reached ssthresh and left part of the ACK over. The ACK counted towards growth
    /// whether or not cwnd grew on it. `linear` when that rule was the algorithm's linear,
    /// Reno-friendly one: always for Reno and Westwood+ (Reno's one segment per window);
    /// for BIC, a window at or below `low_window` (cnt = cwnd, Reno's); for CUBIC, Reno's
    /// estimate pacing the window: level with cwnd or ahead, its cap cwnd/(tcp_cwnd − cwnd)
    /// (cwnd when level) below the `cnt` the curve and the module's other rules ask
    /// (`Bictcp::friendly_cap`).
    Avoidance { linear: bool },
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
    /// Every ACK; grows the window when the state and `cwnd_limited` allow it, and answers
    /// by which rule (the sender counts the congestion-avoidance answers for the flows
    /// table's `ca_acks` and `linear_acks`).
    fn on_ack(&mut self, ack: &AckSample) -> Growth;
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
    /// The window a loss recovery algorithm sets (on entry, per ACK, at the end). A Linux
    /// `cong_control` module (BBR) sets its own window on every ACK instead, and the kernel
    /// skips these for it (`tcp_cong_control`, `tcp_end_cwnd_reduction`).
    fn set_recovery_cwnd(&mut self, bytes: u64) {
        self.set_cwnd(bytes);
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

    // The hooks of a `cong_control` module that paces (BBR); the others ignore them.

    /// The pacing rate in bytes/s and the segments of one TSO packet, for a controller that
    /// asks for pacing (Linux `SK_PACING_NEEDED`); such a controller is given delivery-rate
    /// samples (`on_rate_sample`).
    fn pacing(&self) -> Option<(u64, u32)> {
        None
    }
    /// After `on_ack`, for a controller that paces: the ACK's delivery-rate sample
    /// (`tcp_rate_gen`) and the connection's counters, as Linux's `cong_control(sk, ack,
    /// flag, rs)` reads them; `srtt` the smoothed RTT.
    fn on_rate_sample(&mut self, _now: SimTime, _rs: &RateSample, _srtt: Option<SimDuration>) {}
    /// The connection is established (Linux `tcp_init_transfer` → the module's `init`):
    /// SRTT and the minimum RTT of the handshake, `tp->delivered`.
    fn on_established(&mut self, _now: SimTime, _srtt: Option<SimDuration>, _min_rtt: Option<SimDuration>, _delivered: u32) {}
    /// The loss state became Loss after a timeout (`set_state(TCP_CA_Loss)`), with the
    /// connection's delivery counters.
    fn on_enter_loss(&mut self, _counters: &RateSample) {}
    /// Data is sent with nothing in flight while the connection was application-limited
    /// (`CA_EVENT_TX_START` with `tp->app_limited`).
    fn on_idle_restart(&mut self, _now: SimTime, _delivered_mstamp_us: u64) {}
    /// The controller asked, during the last ACK, that the delivery-rate samples be marked
    /// application-limited (BBR's PROBE_RTT); reading clears the request.
    fn take_app_limited_mark(&mut self) -> bool {
        false
    }
}

// The registry: each controller's spec name, kernel name, type and constructor, in the
// schema's order (`CcName` puts the alias "newreno" after "reno").
registry::register_controllers! {
    /// RFC 5681 Reno (Linux `reno` under `rtolab emulate`).
    Reno = "reno", kernel "reno" => reno::Reno, |core, _| Reno::new(core),
    /// CUBIC with HyStart as Linux 6.x runs it (RFC 9438).
    Cubic = "cubic", kernel "cubic" => cubic::Cubic, |core, cubic| Cubic::new(core, cubic),
    /// CUBIC as Linux 2.6.24 ran it (module 2.1): counted per ACK, `max_increment`,
    /// cnt = 50 before the first loss, β = 0.8, no HyStart.
    Cubic2624 = "cubic-2.6.24", kernel "cubic" => cubic_2_6_24::Cubic2624, |core, cubic| Cubic2624::new(core, cubic.beta),
    /// Linux's BIC.
    Bic = "bic", kernel "bic" => bic::Bic, |core, _| Bic::new(core),
    /// Linux's Westwood+.
    Westwood = "westwood", kernel "westwood" => westwood::Westwood, |core, _| Westwood::new(core),
    /// BBR (v1) as Linux 6.x runs it, paced internally (`tcp_bbr.c`).
    Bbr = "bbr", kernel "bbr" => bbr::Bbr, |core, _| Bbr::new(core.into_linux()),
}
