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
        let bits_ns = bytes as u128 * 8 * 1_000_000_000 + self.remainder as u128;
        let rate = self.rate_bps as u128;
        let tx = SimDuration((bits_ns / rate) as u64);
        self.remainder = (bits_ns % rate) as u64;
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
