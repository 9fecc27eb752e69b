//! Synthetic ACK streams for the controllers' tests: one ACK per segment of 1000 bytes, the
//! window refilled after every ACK (so the sender is always cwnd-limited), the loss state
//! Open. `AckSample::snd_max` is SND.MAX before the sends the ACK releases, as the sender
//! reports it.

use super::{AckSample, CongestionControl, Growth};
use crate::tcp::state::LossState;
use crate::time::{SimDuration, SimTime};

pub const MSS: u64 = 1000;

pub fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}

pub fn at_ms(n: u64) -> SimTime {
    SimTime::ZERO + ms(n)
}

/// A sender's sequence space as the ACKs move it.
pub struct Stream {
    pub now: SimTime,
    pub snd_una: u64,
    pub snd_max: u64,
}

impl Stream {
    /// Sends the first window at `now` (the controller sees its first data go out).
    pub fn start<C: CongestionControl>(cc: &mut C, now: SimTime) -> Self {
        cc.on_tx_start(now, SimTime::ZERO);
        Stream { now, snd_una: 0, snd_max: cc.cwnd() }
    }

    /// The sample for an ACK at `at` of `segments` segments (0: a duplicate).
    pub fn sample(&self, at: SimTime, segments: u64, rtt: Option<SimDuration>) -> AckSample {
        AckSample {
            now: at,
            acked_bytes: segments * MSS,
            sacked_bytes: 0,
            delivered: segments * MSS,
            snd_una: self.snd_una + segments * MSS,
            snd_max: self.snd_max,
            rtt,
            srtt: rtt,
            flight: self.snd_max - self.snd_una,
            state: LossState::Open,
            cwnd_limited: true,
        }
    }

    /// Delivers `ack` and refills the window; the controller's answer.
    pub fn deliver<C: CongestionControl>(&mut self, cc: &mut C, ack: &AckSample) -> Growth {
        let growth = cc.on_ack(ack);
        self.now = ack.now;
        self.snd_una = ack.snd_una;
        self.snd_max = self.snd_max.max(self.snd_una + cc.cwnd());
        growth
    }

    /// An ACK at `at` of `segments` segments with RTT sample `rtt`; the controller's answer.
    pub fn ack<C: CongestionControl>(&mut self, cc: &mut C, at: SimTime, segments: u64, rtt: Option<SimDuration>) -> Growth {
        let a = self.sample(at, segments, rtt);
        self.deliver(cc, &a)
    }

    /// One ACK per segment, spread evenly over each RTT (a window's ACKs take one RTT),
    /// each with the RTT as its sample, until `until`.
    pub fn run<C: CongestionControl>(&mut self, cc: &mut C, rtt: SimDuration, until: SimTime) {
        while self.now < until {
            let gap = rtt.as_nanos() / (cc.cwnd() / MSS).max(1);
            let at = self.now + SimDuration::from_nanos(gap);
            self.ack(cc, at, 1, Some(rtt));
        }
    }

    /// One ACK per segment every `gap`, the RTT sample of each from `rtt(i)` (i counts
    /// ACKs from 1), until `stop` says so; returns the number of ACKs.
    pub fn train<C: CongestionControl>(&mut self, cc: &mut C, gap: SimDuration, rtt: impl Fn(u64) -> SimDuration, stop: impl Fn(&C) -> bool) -> u64 {
        let mut i = 0;
        while !stop(cc) {
            i += 1;
            let at = self.now + gap;
            self.ack(cc, at, 1, Some(rtt(i)));
            assert!(i < 100_000, "the train never stopped");
        }
        i
    }
}
