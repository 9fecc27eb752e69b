//! The unit of the datagram transports: what one UDP datagram carries between a source and
//! its sink.

use crate::time::SimTime;

/// IPv4 (RFC 791, 20 bytes without options) and UDP (RFC 768, 8 bytes) headers: what a
/// datagram of `len` payload bytes adds on the wire.
pub const IP_UDP_HEADER_BYTES: u32 = 28;

/// One datagram. `seq` numbers a flow's datagrams from 0 in the order sent (RTP's sequence
/// number, RFC 3550 §5.1, for a call); `sent_at` is when its source sent it (its timestamp,
/// which the sink's delay, lateness and jitter are measured from).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Datagram {
    pub seq: u64,
    /// Payload bytes (above UDP: an RTP header and its frame, for a call).
    pub len: u32,
    pub sent_at: SimTime,
}

impl Datagram {
    /// Bytes on the wire: the payload and the IPv4 and UDP headers.
    pub fn wire_bytes(&self) -> u32 {
        self.len + IP_UDP_HEADER_BYTES
    }
}
