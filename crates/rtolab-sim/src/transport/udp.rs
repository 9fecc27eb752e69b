//! UDP's two ends: a constant-bit-rate source, optionally switched by on and off periods,
//! and the sink that measures what arrives (delay, lateness, RFC 3550 jitter).
//!
//! The source's `rate` counts payload bits, as ns-3's `OnOffApplication` and `UdpClient`
//! count their packets' size: datagrams of `payload` bytes leave every payload·8/rate
//! seconds while on. On the wire each datagram is 28 bytes longer (IPv4 and UDP headers,
//! `Datagram::wire_bytes`).

use super::jitter::InterarrivalJitter;
use super::{Datagram, Endpoint};
use crate::time::{SimDuration, SimTime};
use crate::units::RvSampler;
use rand_xoshiro::Xoshiro256PlusPlus;

/// On and off periods of a source (`on = "exp(1s)"`, `off = "exp(1s)"`): it starts on, sends
/// while on, is silent while off. Drawn from the flow's own random stream.
pub struct OnOff {
    pub on: RvSampler,
    pub off: RvSampler,
    pub rng: Xoshiro256PlusPlus,
}

/// A constant-bit-rate source.
///
/// Invariant: within an on period that began at P, the k-th datagram (from 0) leaves at
/// P + round(k·payload·8/rate) (computed from k, so the spacing never drifts); the source sends
/// `size` payload bytes in all (the last datagram short if `size` is not a multiple of
/// `payload`), or runs until its host stops calling it.
pub struct UdpSource {
    payload: u32,
    /// Seconds between datagrams: payload·8/rate.
    interval_s: f64,
    /// Payload bytes still to send; `None` for an unbounded source.
    remaining: Option<u64>,
    period_start: SimTime,
    /// Datagrams sent in the current on period.
    in_period: u64,
    /// The end of the current on period (with `OnOff`).
    on_until: Option<SimTime>,
    on_off: Option<OnOff>,
    next: Option<SimTime>,
    /// Datagrams and payload bytes sent.
    pub sent: u64,
    pub bytes_sent: u64,
}

impl UdpSource {
    /// A source of `payload`-byte datagrams at `rate_bps` payload bits per second from
    /// `start`, sending `size` bytes (`None`: until stopped), switched by `on_off` if given.
    pub fn new(rate_bps: f64, payload: u32, size: Option<u64>, start: SimTime, on_off: Option<OnOff>) -> Self {
        let mut s = UdpSource {
            payload,
            interval_s: payload as f64 * 8.0 / rate_bps,
            remaining: size,
            period_start: start,
            in_period: 0,
            on_until: None,
            on_off,
            next: (size != Some(0)).then_some(start),
            sent: 0,
            bytes_sent: 0,
        };
        s.begin_on_period(start);
        s
    }

    /// An on period begins at `at`: its datagrams count from 0 and it lasts one draw of `on`.
    fn begin_on_period(&mut self, at: SimTime) {
        self.period_start = at;
        self.in_period = 0;
        if let Some(o) = &mut self.on_off {
            self.on_until = Some(at + SimDuration::from_secs_f64(o.on.sample(&mut o.rng)));
        }
    }

    /// The send time of the current period's next datagram.
    fn scheduled(&self) -> SimTime {
        self.period_start + SimDuration::from_secs_f64(self.in_period as f64 * self.interval_s)
    }

    /// Whether it has sent all its bytes.
    pub fn finished(&self) -> bool {
        self.remaining == Some(0)
    }

    /// Whether every datagram is sent and accounted for, `received` at the sink or `lost` in
    /// the network: the end of a bounded flow, in the simulator and the emulator alike.
    pub fn all_accounted(&self, received: u64, lost: u64) -> bool {
        self.finished() && received + lost == self.sent
    }

    /// The end of the current on period, when it comes no later than the next send (a
    /// datagram due exactly at the end is not sent): the source must wake then to start its
    /// silence, not at the next send, or the next period could begin in the past.
    fn period_end(&self) -> Option<SimTime> {
        self.on_until.filter(|&end| self.next.is_some_and(|next| end <= next))
    }
}

impl Endpoint for UdpSource {
    type Unit = Datagram;

    /// A source hears nothing back.
    fn receive(&mut self, _now: SimTime, _unit: &Datagram, _out: &mut Vec<Datagram>) {}

    fn wake(&mut self, now: SimTime, out: &mut Vec<Datagram>) {
        loop {
            if let Some(end) = self.period_end().filter(|&end| end <= now) {
                // The on period is over at `end`: silence for one draw of `off`, then a new
                // period (from `end`, so nothing is ever sent with a time in the past).
                let o = self.on_off.as_mut().expect("an on period ends only with on/off");
                let off = SimDuration::from_secs_f64(o.off.sample(&mut o.rng));
                self.begin_on_period(end + off);
                self.next = Some(self.scheduled());
                continue;
            }
            let Some(at) = self.next.filter(|&t| t <= now) else { break };
            let len = self.remaining.map_or(self.payload, |r| r.min(self.payload as u64) as u32);
            out.push(Datagram { seq: self.sent, len, sent_at: at });
            self.sent += 1;
            self.bytes_sent += len as u64;
            self.in_period += 1;
            if let Some(r) = &mut self.remaining {
                *r -= len as u64;
            }
            self.next = (!self.finished()).then(|| self.scheduled());
        }
    }

    /// The next send, or the end of the current on period when that comes first.
    fn next_wakeup(&self) -> Option<SimTime> {
        self.period_end().or(self.next)
    }
}

/// The receiving end: counts, one-way delays and jitter of what arrives.
///
/// Invariant: `received` = `delays_ns.len()`; `late` counts arrivals whose one-way delay
/// exceeded `playout` (a listener's fixed playout delay: such a datagram is lost to it).
#[derive(Default)]
pub struct UdpSink {
    playout: Option<SimDuration>,
    pub received: u64,
    pub bytes: u64,
    /// Payload bytes of the datagrams that arrived in time (all of them without `playout`).
    pub bytes_in_time: u64,
    pub late: u64,
    delays_ns: Vec<u64>,
    delay_sum_ns: u128,
    jitter: InterarrivalJitter,
    pub last_arrival: Option<SimTime>,
}

impl UdpSink {
    pub fn new(playout: Option<SimDuration>) -> Self {
        UdpSink { playout, ..Default::default() }
    }

    /// Mean one-way delay of the arrivals, in seconds.
    pub fn delay_mean_s(&self) -> Option<f64> {
        (self.received > 0).then(|| self.delay_sum_ns as f64 / self.received as f64 * 1e-9)
    }

    /// The 99th percentile of the one-way delays (nearest rank: the ⌈0.99·n⌉-th smallest).
    pub fn delay_p99_s(&self) -> Option<f64> {
        if self.delays_ns.is_empty() {
            return None;
        }
        let mut d = self.delays_ns.clone();
        let rank = (0.99 * d.len() as f64).ceil() as usize;
        let (_, v, _) = d.select_nth_unstable(rank.max(1) - 1);
        Some(*v as f64 * 1e-9)
    }

    /// RFC 3550 §6.4.1's interarrival jitter at the last arrival, in seconds.
    pub fn jitter_s(&self) -> Option<f64> {
        (self.received > 0).then(|| self.jitter.jitter_s())
    }
}

impl Endpoint for UdpSink {
    type Unit = Datagram;

    fn receive(&mut self, now: SimTime, d: &Datagram, _out: &mut Vec<Datagram>) {
        let delay = now.since(d.sent_at);
        self.received += 1;
        self.bytes += d.len as u64;
        self.delays_ns.push(delay.as_nanos());
        self.delay_sum_ns += delay.as_nanos() as u128;
        self.jitter.arrived(d.sent_at, now);
        self.last_arrival = Some(now);
        if self.playout.is_some_and(|p| delay > p) {
            self.late += 1;
        } else {
            self.bytes_in_time += d.len as u64;
        }
    }

    fn wake(&mut self, _now: SimTime, _out: &mut Vec<Datagram>) {}

    fn next_wakeup(&self) -> Option<SimTime> {
        None
    }
}

#[cfg(test)]
#[path = "udp_tests.rs"]
mod tests;
