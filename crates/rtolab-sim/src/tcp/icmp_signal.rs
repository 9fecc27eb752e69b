//! Control messages that network elements send toward a flow's sender (paper 001 Sec. II),
//! declared with TCP, which acts on them, as `Segment` is; the network carries both:
//! the base station's ICMP DROP (its link-layer ARQ gave up and flushed its buffer) and ICMP
//! DEFER (packets are waiting in its buffer, or a retry succeeded: the channel is improving).
//!
//! On the wire they are ICMP messages of the experimental types of RFC 4727 (253 and 254):
//! 20 B IPv4 + 8 B ICMP + the 28 B of the offending datagram's headers it quotes.

/// The two messages of paper 001.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IcmpSignal {
    Drop,
    Defer,
}

impl IcmpSignal {
    /// Bytes on the wire: IPv4 header, ICMP header, quoted IPv4 + 8 B of the original.
    pub const WIRE_BYTES: u32 = 20 + 8 + 28;

    /// The ICMP type written to captures (RFC 4727 experimental types).
    pub fn icmp_type(self) -> u8 {
        match self {
            IcmpSignal::Drop => 253,
            IcmpSignal::Defer => 254,
        }
    }
}
