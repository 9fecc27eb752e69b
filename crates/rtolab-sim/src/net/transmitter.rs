//! The transmitter of a link direction: serialises one packet at a time at a fixed rate.
//!
//! Engine rule: it has at most one pending event (the end of the current serialisation).
//! Serialisation time keeps its sub-nanosecond remainder, so long runs do not drift from the
//! nominal rate: after n packets of b bytes the busy time is ⌊8·n·b·10⁹ / rate⌋ ns exactly.

use super::ids::PacketId;
use crate::time::{SimDuration, SimTime};

pub struct Transmitter {
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
#[inline]
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
    pub fn new(rate_bps: u64) -> Self {
        Transmitter { rate_bps: rate_bps.max(1), remainder: 0, current: None, busy: SimDuration::ZERO }
    }

    #[inline]
    pub fn is_idle(&self) -> bool {
        self.current.is_none()
    }

    /// Starts serialising `pkt`; returns when it will be on the wire.
    #[inline]
    pub fn start(&mut self, now: SimTime, pkt: PacketId, bytes: u32) -> SimTime {
        debug_assert!(self.current.is_none(), "one packet at a time");
        let (tx, remainder) = serialisation(bytes, self.remainder, self.rate_bps);
        let tx = SimDuration(tx);
        self.remainder = remainder;
        self.current = Some((pkt, bytes, now));
        self.busy = self.busy + tx;
        now + tx
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
