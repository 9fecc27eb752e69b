//! The few header fields the emulator reads from a forwarded IPv4/TCP packet.

use etherparse::{IpNumber, Ipv4HeaderSlice, TcpHeaderSlice};

/// A TCP segment as seen on the wire (sequence numbers absolute, as sent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpView {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: Option<u32>,
    pub syn: bool,
    pub fin: bool,
    pub rst: bool,
    /// Payload bytes.
    pub len: u32,
}

/// Parses an IPv4 packet carrying TCP; anything else (IPv6, ICMP, fragments) is `None`.
pub fn parse(packet: &[u8]) -> Option<TcpView> {
    let ip = Ipv4HeaderSlice::from_slice(packet).ok()?;
    if ip.protocol() != IpNumber::TCP || ip.is_fragmenting_payload() {
        return None;
    }
    let ip_len = ip.slice().len();
    let total = (ip.total_len() as usize).min(packet.len());
    let tcp = TcpHeaderSlice::from_slice(packet.get(ip_len..total)?).ok()?;
    let len = (total - ip_len - tcp.slice().len()) as u32;
    Some(TcpView {
        sport: tcp.source_port(),
        dport: tcp.destination_port(),
        seq: tcp.sequence_number(),
        ack: tcp.ack().then(|| tcp.acknowledgment_number()),
        syn: tcp.syn(),
        fin: tcp.fin(),
        rst: tcp.rst(),
        len,
    })
}

/// Extends a 32-bit sequence number to 64 bits next to a known 64-bit value (RFC 1982
/// serial arithmetic: the nearest value within ±2^31).
pub fn unwrap_seq(near: u64, seq: u32) -> u64 {
    let delta = seq.wrapping_sub(near as u32) as i32 as i64;
    (near as i64 + delta).max(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;

    #[test]
    fn reads_ports_sequence_flags_and_payload_length() {
        let builder = PacketBuilder::ipv4([10, 77, 0, 1], [10, 77, 0, 2], 64).tcp(10_001, 5001, 4_000_000_000, 65535).ack(17);
        let payload = [7u8; 100];
        let mut bytes = Vec::new();
        builder.write(&mut bytes, &payload).unwrap();
        let v = parse(&bytes).unwrap();
        assert_eq!((v.sport, v.dport, v.seq, v.ack, v.len, v.syn), (10_001, 5001, 4_000_000_000, Some(17), 100, false));
        assert!(parse(&bytes[..10]).is_none());
    }

    #[test]
    fn sequence_numbers_unwrap_across_the_32_bit_boundary() {
        assert_eq!(unwrap_seq(u32::MAX as u64 - 10, 5), u32::MAX as u64 + 6);
        assert_eq!(unwrap_seq(1 << 32, u32::MAX), (1 << 32) - 1);
        assert_eq!(unwrap_seq(100, 50), 50);
    }
}
