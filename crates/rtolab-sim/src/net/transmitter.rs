//! The transmitter of a link direction: serialises one packet at a time at a fixed rate, or,
//! on a trace-driven direction, at the delivery opportunities of its trace (`trace.rs`).
//!
//! Engine rule: it has at most one pending event (the end of the current serialisation).
//! Serialisation time keeps its sub-nanosecond remainder, so long runs do not drift from the
//! nominal rate: after n packets of b bytes the busy time is ⌊8·n·b·10⁹ / rate⌋ ns exactly.

use super::ids::PacketId;
use super::trace::{TraceClock, TraceLink};
use crate::time::{SimDuration, SimTime};

pub struct Transmitter {
    /// The trace that times each packet instead of the rate (boxed: a fixed-rate direction
    /// pays one pointer test per packet for it).
    trace: Option<Box<TraceClock>>,
    rate_bps: u64,
    remainder: u64,
    /// (packet, bytes, when serialisation started).
    current: Option<(PacketId, u32, SimTime)>,
    /// Total time spent serialising.
    pub busy: SimDuration,
}

/// ⌊(8·10⁹·bytes + remainder) / rate⌋ and its remainder: the nanoseconds a packet takes and
/// what carries over to the next (`remainder < rate`). In 64 bits when the numerator fits
/// (any packet below 1 MiB), the same quotient without a 128-bit division.
#[inline(always)]
fn serialisation(bytes: u32, remainder: u64, rate_bps: u64) -> (u64, u64) {
    if bytes < 1 << 20 && remainder < 1 << 62 {
        let bits_ns = bytes as u64 * 8_000_000_000 + remainder;
        (bits_ns / rate_bps, bits_ns % rate_bps)
    } else {
        let bits_ns = bytes as u128 * 8_000_000_000 + remainder as u128;
        let rate = rate_bps as u128;
        ((bits_ns / rate) as u64, (bits_ns % rate) as u64)
    }
}

impl Transmitter {
    /// A transmitter at `rate_bps`, or at the opportunities of `trace` when there is one.
    pub fn new(rate_bps: u64, trace: Option<&TraceLink>) -> Self {
        let trace = trace.map(|t| Box::new(TraceClock::new(t.trace.clone(), t.looped)));
        Transmitter { trace, rate_bps: rate_bps.max(1), remainder: 0, current: None, busy: SimDuration::ZERO }
    }

    #[inline]
    pub fn is_idle(&self) -> bool {
        self.current.is_none()
    }

    /// Whether a trace times this transmitter (then `start_traced`, else `start`).
    #[inline(always)]
    pub fn is_traced(&self) -> bool {
        self.trace.is_some()
    }

    /// Starts serialising `pkt` at the fixed rate; returns when it will be on the wire.
    #[inline(always)]
    pub fn start(&mut self, now: SimTime, pkt: PacketId, bytes: u32) -> SimTime {
        debug_assert!(self.current.is_none() && self.trace.is_none(), "one packet at a time, at the rate");
        let (tx, remainder) = serialisation(bytes, self.remainder, self.rate_bps);
        let tx = SimDuration(tx);
        self.remainder = remainder;
        self.current = Some((pkt, bytes, now));
        self.busy = self.busy + tx;
        now + tx
    }

    /// Starts `pkt` on a trace-driven direction; returns when its last byte is carried, or
    /// `None` if never (a trace that has ended: the packet stays). `waiting` is the length of
    /// the queue it was taken from, 0 if it came straight from its arrival (a packet may not
    /// leave in the millisecond it arrived).
    pub fn start_traced(&mut self, now: SimTime, pkt: PacketId, bytes: u32, waiting: usize) -> Option<SimTime> {
        debug_assert!(self.current.is_none(), "one packet at a time");
        self.current = Some((pkt, bytes, now));
        let end = self.trace.as_mut()?.end_of(now, bytes, waiting)?;
        self.busy = self.busy + end.since(now);
        Some(end)
    }

    /// A packet joined the direction's queue at `now` (a trace counts them).
    #[inline]
    pub fn note_queued(&mut self, now: SimTime) {
        if let Some(trace) = &mut self.trace {
            trace.note_queued(now);
        }
    }

    /// The packet whose serialisation just ended: (packet, bytes, start).
    #[inline]
    pub fn finish(&mut self) -> Option<(PacketId, u32, SimTime)> {
        self.current.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The 64-bit path gives the 128-bit quotient and remainder.
        #[test]
        fn serialisation_matches_128_bits(bytes in 0u32..(1 << 20), rate in 1u64..u64::MAX, r in 0u64..u64::MAX) {
            let remainder = r % rate;
            let wide = bytes as u128 * 8_000_000_000 + remainder as u128;
            let want = ((wide / rate as u128) as u64, (wide % rate as u128) as u64);
            proptest::prop_assert_eq!(serialisation(bytes, remainder, rate), want);
        }
    }
}
