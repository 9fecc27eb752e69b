//! The few header fields the emulator reads from a forwarded IPv4 packet: TCP's (ports,
//! sequence numbers, flags, payload length) and UDP's (ports, payload length).

use etherparse::{IpNumber, Ipv4HeaderSlice, TcpHeaderSlice, UdpHeader, UdpHeaderSlice};

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

/// A UDP datagram as seen on the wire.
///
/// Invariant: `len` is the payload the sender wrote, so the packet's length on the wire is
/// `len` + 28 (`rtolab_sim::transport::datagram::IP_UDP_HEADER_BYTES`, without IP options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpView {
    pub sport: u16,
    pub dport: u16,
    /// Payload bytes.
    pub len: u32,
}

/// A packet the forwarder can attribute to a connection by its ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    Tcp(TcpView),
    Udp(UdpView),
}

impl View {
    pub fn sport(&self) -> u16 {
        match self {
            View::Tcp(v) => v.sport,
            View::Udp(v) => v.sport,
        }
    }

    pub fn dport(&self) -> u16 {
        match self {
            View::Tcp(v) => v.dport,
            View::Udp(v) => v.dport,
        }
    }

    /// Whether it carries application bytes (a TCP segment with payload, any datagram).
    pub fn carries_data(&self) -> bool {
        match self {
            View::Tcp(v) => v.len > 0,
            View::Udp(_) => true,
        }
    }
}

/// Parses an IPv4 packet carrying TCP or UDP; anything else (IPv6, ICMP, fragments) is
/// `None`.
pub fn parse(packet: &[u8]) -> Option<View> {
    let ip = Ipv4HeaderSlice::from_slice(packet).ok()?;
    if ip.is_fragmenting_payload() {
        return None;
    }
    let ip_len = ip.slice().len();
    let total = (ip.total_len() as usize).min(packet.len());
    let rest = packet.get(ip_len..total)?;
    match ip.protocol() {
        IpNumber::TCP => parse_tcp(rest).map(View::Tcp),
        IpNumber::UDP => parse_udp(rest).map(View::Udp),
        _ => None,
    }
}

fn parse_tcp(segment: &[u8]) -> Option<TcpView> {
    let tcp = TcpHeaderSlice::from_slice(segment).ok()?;
    let len = (segment.len() - tcp.slice().len()) as u32;
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

/// The payload length is the UDP header's (RFC 768), which must fit in the IP packet.
fn parse_udp(datagram: &[u8]) -> Option<UdpView> {
    let udp = UdpHeaderSlice::from_slice(datagram).ok()?;
    let length = udp.length() as usize;
    if length < UdpHeader::LEN || length > datagram.len() {
        return None;
    }
    Some(UdpView { sport: udp.source_port(), dport: udp.destination_port(), len: (length - UdpHeader::LEN) as u32 })
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
        let Some(View::Tcp(v)) = parse(&bytes) else { panic!("not TCP") };
        assert_eq!((v.sport, v.dport, v.seq, v.ack, v.len, v.syn), (10_001, 5001, 4_000_000_000, Some(17), 100, false));
        assert!(parse(&bytes[..10]).is_none());
    }

    /// A datagram of 1200 payload bytes is 1228 on the wire.
    #[test]
    fn reads_a_datagrams_ports_and_payload_length() {
        let builder = PacketBuilder::ipv4([10, 77, 0, 1], [10, 77, 0, 2], 64).udp(10_003, 5004);
        let mut bytes = Vec::new();
        builder.write(&mut bytes, &[1u8; 1200]).unwrap();
        assert_eq!(bytes.len(), 1228);
        let v = parse(&bytes).unwrap();
        assert_eq!(v, View::Udp(UdpView { sport: 10_003, dport: 5004, len: 1200 }));
        assert_eq!((v.sport(), v.dport(), v.carries_data()), (10_003, 5004, true));
        // Cut short: the UDP length no longer fits the packet.
        let mut short = bytes[..100].to_vec();
        short[2..4].copy_from_slice(&100u16.to_be_bytes());
        assert!(parse(&short).is_none());
    }

    #[test]
    fn fragments_and_other_protocols_are_not_parsed() {
        let mut bytes = Vec::new();
        PacketBuilder::ipv4([10, 77, 0, 1], [10, 77, 0, 2], 64).udp(10_003, 5004).write(&mut bytes, &[0u8; 20]).unwrap();
        let mut fragment = bytes.clone();
        fragment[6] |= 0x20; // more fragments
        assert!(parse(&fragment).is_none());
        let mut icmp = bytes.clone();
        icmp[9] = 1;
        assert!(parse(&icmp).is_none());
    }

    #[test]
    fn sequence_numbers_unwrap_across_the_32_bit_boundary() {
        assert_eq!(unwrap_seq(u32::MAX as u64 - 10, 5), u32::MAX as u64 + 6);
        assert_eq!(unwrap_seq(1 << 32, u32::MAX), (1 << 32) - 1);
        assert_eq!(unwrap_seq(100, 50), 50);
    }
}
