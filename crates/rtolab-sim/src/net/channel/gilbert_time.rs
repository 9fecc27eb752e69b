//! The time-based Gilbert–Elliott channel (paper 001 Sec. III): a two-state process whose
//! good and bad sojourns are drawn from their distributions (exponential in the paper, mean
//! good 8 s, mean bad 0–8 s), with a bit error rate per state. A packet of n bits wholly in
//! one state is lost with PER = 1 − (1 − BER)ⁿ (paper: 480 B → 0.37 % at 10⁻⁶ and 97.85 % at
//! 10⁻³; the exact values are 0.383 % and 97.85 %). A packet whose transmission spans a state
//! change sees each state for its share of the bits: PER = 1 − Π (1 − BERₛ)^(n·tₛ/t).
//!
//! Invariant: the process is advanced lazily, only as far as the latest transmission end, so
//! an idle channel costs nothing and schedules no events; its draws come from its own stream,
//! so the state trace does not depend on the traffic.

use crate::time::{SimDuration, SimTime};
use crate::units::RvSampler;
use rand_xoshiro::Xoshiro256PlusPlus;

/// 1 − (1 − ber)^bits, computed without cancellation for small BER.
pub fn packet_error_rate(ber: f64, bits: f64) -> f64 {
    -(bits * (-ber).ln_1p()).exp_m1()
}

pub struct GilbertElliott {
    sojourn: [RvSampler; 2],
    ber: [f64; 2],
    rng: Xoshiro256PlusPlus,
    /// 0 good, 1 bad.
    state: usize,
    /// When the current state began and when it ends.
    since: SimTime,
    until: SimTime,
    bad_time: SimDuration,
    trace: Option<Vec<(SimTime, u8)>>,
}

impl GilbertElliott {
    /// Starts in the good state at time 0 (the paper's channel begins good).
    pub fn new(good: RvSampler, bad: RvSampler, ber_good: f64, ber_bad: f64, rng: Xoshiro256PlusPlus, record: bool) -> Self {
        let mut ge = GilbertElliott {
            sojourn: [good, bad],
            ber: [ber_good, ber_bad],
            rng,
            state: 0,
            since: SimTime::ZERO,
            until: SimTime::ZERO,
            bad_time: SimDuration::ZERO,
            trace: record.then(|| vec![(SimTime::ZERO, 0)]),
        };
        ge.until = SimTime::ZERO + ge.draw(0);
        ge
    }

    fn draw(&mut self, state: usize) -> SimDuration {
        // A zero sojourn (a degenerate distribution) would stall the process; 1 ns keeps time moving.
        SimDuration::from_secs_f64(self.sojourn[state].sample(&mut self.rng)).max(SimDuration(1))
    }

    /// Moves the process through every state change up to `t`.
    pub fn advance(&mut self, t: SimTime) {
        while self.until <= t {
            self.step();
        }
    }

    fn step(&mut self) {
        if self.state == 1 {
            self.bad_time = self.bad_time + self.until.since(self.since);
        }
        self.state ^= 1;
        self.since = self.until;
        self.until = self.since + self.draw(self.state);
        if let Some(tr) = &mut self.trace {
            tr.push((self.since, self.state as u8));
        }
    }

    /// The state at the last advance (0 good, 1 bad).
    pub fn state(&self) -> usize {
        self.state
    }

    /// Probability that `bytes` serialised over [start, end] are damaged. A transmitter
    /// sends one packet at a time, so `start` is never before the previous judgement's end
    /// and the process has not been advanced past it.
    pub fn error_rate(&mut self, start: SimTime, end: SimTime, bytes: u32) -> f64 {
        let bits = bytes as f64 * 8.0;
        self.advance(start);
        if self.until > end {
            return packet_error_rate(self.ber[self.state], bits);
        }
        // Σ over the states met: (bits in that stretch) · ln(1 − BER).
        let total = end.since(start).as_nanos().max(1) as f64;
        let mut log_survive = 0.0;
        let mut t = start;
        while self.until <= end {
            let share = self.until.since(t).as_nanos() as f64 / total;
            log_survive += bits * share * (-self.ber[self.state]).ln_1p();
            t = self.until;
            self.step();
        }
        log_survive += bits * (end.since(t).as_nanos() as f64 / total) * (-self.ber[self.state]).ln_1p();
        -log_survive.exp_m1()
    }

    /// Time spent bad in [0, end] (after `advance(end)`).
    pub fn bad_time(&self, end: SimTime) -> SimDuration {
        let open = if self.state == 1 { end.since(self.since) } else { SimDuration::ZERO };
        self.bad_time + open
    }

    pub fn trace(&self) -> Option<&[(SimTime, u8)]> {
        self.trace.as_deref()
    }
}
