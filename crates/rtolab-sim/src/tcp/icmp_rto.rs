//! ICMP-feedback adaptive RTO (paper 001, Sec. II and Fig. 3): the sender's state machine that
//! shrinks, restores or extends the retransmission timer when the base station reports a
//! wireless bad period (ICMP DROP) or its end (ICMP DEFER).
//!
//! With b the time since the timer was set and a the RTO, a DROP in `Normal` is judged by
//! case 1 (b > 3a/4: time out at once), case 2 (a/4 ≤ b ≤ 3a/4: the timer fires at b + a/4,
//! state PT) or case 3 (b < a/4: ignored, the packets are still in flight). In PT a DROP is
//! ignored (case 4), a new ACK restores `Normal` (case 5) and a DEFER puts the timer back to its
//! original deadline in the intermediate state (case 6); when that deadline expires the timer
//! is extended by `extension`·a (state ET). Cases 7 and 8, cut from the text, are read as the
//! two exits of the intermediate state and ET: a DROP (case 7, `Case7`) and a new ACK (case 8).
//! `docs/icmp-rto.md` gives the table of the eight cases and the reasons for each reading.
//!
//! The machine is sans-IO: it never reads a clock and never touches the sender's timer; it
//! answers with the change the sender must make.
//!
//! Invariants: PT, the intermediate state and ET always remember the timer as the sender had
//! set it when case 2 fired (its start and its value a); a shrunk deadline never lies past that
//! timer's own deadline. The case inequalities are decided exactly in integer nanoseconds
//! (4b against a and 3a); the one rounding is a/4 in case 2, taken up to the next nanosecond.

use crate::time::{SimDuration, SimTime};

/// The two messages of paper 001 Sec. II (defined with the network's control messages).
pub use super::icmp_signal::IcmpSignal;

/// Paper 001 Fig. 3 states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IcmpRtoState {
    /// The sender's usual timer (NewReno); DROPs are judged by cases 1–3.
    Normal,
    /// "Premature Timeout" (PT): the timer was shrunk by case 2.
    Premature,
    /// After a DEFER in PT (case 6): the timer is back to its original deadline.
    Intermediate,
    /// "Extended Timeout" (ET): the original deadline expired and the timer was extended.
    Extended,
}

/// How case 7 (a DROP in the intermediate state or in ET; its text is cut in the paper) is
/// read; see `docs/icmp-rto.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Case7 {
    /// The DROP ends the wait: the sender times out at once and returns to `Normal`.
    #[default]
    #[serde(rename = "timeout")]
    TimeOut,
    /// The DROP ends the wait and is judged like a DROP in `Normal` (cases 1–3) against the
    /// timer as set before case 2: a shrink (back to PT) while its deadline is at least a/4
    /// away, an immediate timeout otherwise, and always an immediate timeout in ET.
    Rejudge,
}

/// Parameters of the machine.
#[derive(Clone, Debug, PartialEq)]
pub struct IcmpRtoConfig {
    /// The reading of case 7.
    pub case7: Case7,
    /// Extended timeout length as a multiple of a (the RTO). Finite and non-negative; a NaN or
    /// negative value counts as zero (no extension: ET times out when it is entered).
    pub extension: f64,
    /// A timeout the scheme brought forward (cases 1, 2 and 7) backs the RTO off like any
    /// other. The paper asks that the scheme work "without affecting the back-off
    /// algorithms", which reads either way: unchanged back-off (true, the default) or no
    /// back-off for a timeout that the scheme, not the timer, decided (false).
    pub backoff_premature: bool,
}

impl Default for IcmpRtoConfig {
    /// Case 7 times out at once; ET lasts one more RTO (the paper names no length: a is the
    /// only span it uses whole, and one more a waits as long as the next back-off would,
    /// without retransmitting or backing off).
    fn default() -> Self {
        IcmpRtoConfig { case7: Case7::TimeOut, extension: 1.0, backoff_premature: true }
    }
}

/// What the sender must do to its retransmission timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimerChange {
    /// Leave the timer as it is.
    Keep,
    /// Time out now, as if the timer had expired (retransmit, back off, then `on_timeout`).
    ExpireNow,
    /// Move the running timer's deadline to this instant.
    FireAt(SimTime),
}

/// What an expiry of the retransmission timer means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expiry {
    /// A real timeout: retransmit and back off as usual.
    Timeout,
    /// Not a timeout: re-arm the timer for this instant, retransmit nothing, keep the RTO.
    ExtendTo(SimTime),
}

/// The retransmission timer as the sender set it, remembered when case 2 shrinks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Timer {
    set_at: SimTime,
    rto: SimDuration,
}

impl Timer {
    fn deadline(self) -> SimTime {
        self.set_at + self.rto
    }
}

/// The state with what it must remember; `IcmpRtoState` is its public name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Normal,
    Premature(Timer),
    Intermediate(Timer),
    Extended(Timer),
}

/// The sender's ICMP-feedback state machine (paper 001 Fig. 3).
#[derive(Clone, Debug)]
pub struct IcmpRto {
    cfg: IcmpRtoConfig,
    phase: Phase,
    counts: [u64; 9],
}

impl IcmpRto {
    pub fn new(cfg: IcmpRtoConfig) -> Self {
        IcmpRto { cfg, phase: Phase::Normal, counts: [0; 9] }
    }

    pub fn config(&self) -> &IcmpRtoConfig {
        &self.cfg
    }

    pub fn state(&self) -> IcmpRtoState {
        match self.phase {
            Phase::Normal => IcmpRtoState::Normal,
            Phase::Premature(_) => IcmpRtoState::Premature,
            Phase::Intermediate(_) => IcmpRtoState::Intermediate,
            Phase::Extended(_) => IcmpRtoState::Extended,
        }
    }

    /// A message arrives at `now`; the RTO timer was last set at `set_at` with value `rto`
    /// (a), so b = now − set_at. `armed` is false when no retransmission timer is running
    /// (nothing outstanding): then the message is ignored.
    ///
    /// `set_at` and `rto` are read in `Normal` only; in the other states the timer
    /// remembered at case 2 is the one judged. A DEFER outside PT is ignored: in `Normal` the
    /// timer already runs its full length, in the intermediate state and ET it is already
    /// restored.
    pub fn on_signal(&mut self, sig: IcmpSignal, now: SimTime, set_at: SimTime, rto: SimDuration, armed: bool) -> TimerChange {
        if !armed {
            return TimerChange::Keep;
        }
        match (self.phase, sig) {
            (Phase::Normal, IcmpSignal::Drop) => self.judge_drop(now, Timer { set_at, rto }),
            (Phase::Premature(_), IcmpSignal::Drop) => self.fire(4, self.phase, TimerChange::Keep),
            (Phase::Premature(t), IcmpSignal::Defer) => self.fire(6, Phase::Intermediate(t), TimerChange::FireAt(t.deadline())),
            (Phase::Intermediate(t) | Phase::Extended(t), IcmpSignal::Drop) => {
                self.counts[7] += 1;
                self.phase = Phase::Normal;
                match self.cfg.case7 {
                    Case7::TimeOut => TimerChange::ExpireNow,
                    Case7::Rejudge => self.judge_drop(now, t),
                }
            }
            (_, IcmpSignal::Defer) => TimerChange::Keep,
        }
    }

    /// An ACK of new data arrived (cases 5 and 8): PT, the intermediate state and ET all end.
    /// The sender re-arms its timer by its usual rules afterwards.
    pub fn on_new_ack(&mut self) {
        match self.phase {
            Phase::Normal => {}
            Phase::Premature(_) => {
                self.fire(5, Phase::Normal, ());
            }
            Phase::Intermediate(_) | Phase::Extended(_) => {
                self.fire(8, Phase::Normal, ());
            }
        }
    }

    /// The sender's retransmission timer expired at `now` (its value was `rto`). Only the
    /// original deadline reached in the intermediate state extends the timer (case 6: "ET is
    /// entered only after RTO (a) has expired"); every other expiry is a timeout and leaves
    /// `Normal`.
    pub fn on_expiry(&mut self, now: SimTime, rto: SimDuration) -> Expiry {
        match self.phase {
            Phase::Intermediate(t) => {
                self.phase = Phase::Extended(t);
                Expiry::ExtendTo(now + scale(rto, self.cfg.extension))
            }
            Phase::Normal | Phase::Premature(_) | Phase::Extended(_) => {
                self.phase = Phase::Normal;
                Expiry::Timeout
            }
        }
    }

    /// A real timeout happened (the sender retransmitted): back to `Normal`. Idempotent, as
    /// `ExpireNow` and `Expiry::Timeout` already leave `Normal`.
    pub fn on_timeout(&mut self) {
        self.phase = Phase::Normal;
    }

    /// Counters: how many times each case 1..=8 fired (index = case number; index 0 unused),
    /// for the flows table. A case-7 DROP read as `Rejudge` also counts the case (1 or 2)
    /// it is judged by; entering ET on the expiry belongs to case 6 and is not counted again.
    pub fn case_counts(&self) -> [u64; 9] {
        self.counts
    }

    /// Cases 1–3 for a DROP against `timer`: exact comparisons of 4b with a and 3a.
    fn judge_drop(&mut self, now: SimTime, timer: Timer) -> TimerChange {
        let b4 = u128::from((now - timer.set_at).as_nanos()) * 4;
        let a = u128::from(timer.rto.as_nanos());
        if b4 > 3 * a {
            self.fire(1, Phase::Normal, TimerChange::ExpireNow)
        } else if b4 >= a {
            // c = b + a/4 with a/4 rounded up; c ≤ a since ⌊3a/4⌋ + ⌈a/4⌉ = a.
            let quarter = SimDuration(timer.rto.as_nanos().div_ceil(4));
            self.fire(2, Phase::Premature(timer), TimerChange::FireAt(now + quarter))
        } else {
            self.fire(3, Phase::Normal, TimerChange::Keep)
        }
    }

    /// Counts `case`, enters `next` and returns `out`.
    fn fire<T>(&mut self, case: usize, next: Phase, out: T) -> T {
        self.counts[case] += 1;
        self.phase = next;
        out
    }
}

/// `k`·`d` to the nearest nanosecond, saturating; a NaN or non-positive `k` gives zero.
fn scale(d: SimDuration, k: f64) -> SimDuration {
    if k.is_nan() || k <= 0.0 {
        return SimDuration::ZERO;
    }
    let ns = (d.as_nanos() as f64 * k).round();
    if ns >= u64::MAX as f64 {
        SimDuration::MAX
    } else {
        SimDuration(ns as u64)
    }
}

#[cfg(test)]
#[path = "icmp_rto_tests.rs"]
mod tests;
