//! Packet capture of a link direction: classic pcap, LINKTYPE_RAW (IPv4), headers only
//! (the captured length is the IPv4 + TCP headers with options; the original length is the
//! whole packet), so Wireshark/tshark analyse sequence numbers, SACK and timestamps.
//!
//! Addresses encode the flow: sender 10.1.x.y:(10000 + flow % 50000), receiver 10.2.x.y:80.
//! Initial sequence numbers are fixed per flow; the SYN takes one sequence number as in TCP.

use crate::net::{IcmpSignal, Packet, Payload, Way};
use crate::tcp::segment::{FLAG_ACK, FLAG_SYN};
use crate::time::SimTime;
use etherparse::{IpNumber, Ipv4Header, TcpHeader, TcpOptionElement};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness};

const SENDER_ISN: u32 = 1_000_000;
const RECEIVER_ISN: u32 = 5_000_000;

pub struct Capture {
    pub name: String,
    writer: PcapWriter<Vec<u8>>,
    zeros: Vec<u8>,
}

impl Capture {
    pub fn new(name: String) -> Self {
        let header = PcapHeader { datalink: DataLink::RAW, snaplen: 65535, endianness: Endianness::Little, ..Default::default() };
        let writer = PcapWriter::with_header(Vec::new(), header).expect("writing to memory cannot fail");
        Capture { name, writer, zeros: Vec::new() }
    }

    fn addresses(flow: u32) -> ([u8; 4], [u8; 4], u16) {
        let (hi, lo) = ((flow >> 8) as u8, flow as u8);
        ([10, 1, hi, lo], [10, 2, hi, lo], 10_000 + (flow % 50_000) as u16)
    }

    /// Records one packet as offered to the link at `now`.
    pub fn record(&mut self, now: SimTime, p: &Packet) {
        let s = match p.payload() {
            Payload::Segment(s) => s,
            Payload::Control(signal) => return self.record_icmp(now, p, signal),
        };
        let (sender, receiver, port) = Self::addresses(p.flow.0);
        let (src, dst, sport, dport, isn, peer_isn) = match p.way {
            Way::Forward => (sender, receiver, port, 80, SENDER_ISN, RECEIVER_ISN),
            Way::Reverse => (receiver, sender, 80, port, RECEIVER_ISN, SENDER_ISN),
        };
        let syn = s.flags & FLAG_SYN != 0;
        // Data bytes start one after the ISN (the SYN's sequence number).
        let seq = if syn { isn } else { isn.wrapping_add(1).wrapping_add(s.seq as u32) };
        let window = s.wnd.min(65535) as u16;
        let mut tcp = TcpHeader::new(sport, dport, seq, if p.way == Way::Forward { 65535 } else { window });
        tcp.syn = syn;
        if s.flags & FLAG_ACK != 0 {
            tcp.ack = true;
            tcp.acknowledgment_number = peer_isn.wrapping_add(1).wrapping_add(s.ack as u32);
        }
        let mut options = Vec::with_capacity(4);
        if syn {
            options.push(TcpOptionElement::MaximumSegmentSize(65495));
            options.push(TcpOptionElement::SelectiveAcknowledgementPermitted);
        }
        if s.ts_val != 0 {
            let micros = |ns: u64| (ns / 1_000) as u32;
            options.push(TcpOptionElement::Timestamp(micros(s.ts_val), micros(s.ts_ecr)));
        }
        if !s.sack.is_empty() {
            let abs = |x: u64| peer_isn.wrapping_add(1).wrapping_add(x as u32);
            let (all, n) = s.sack.copied();
            let blocks = &all[..n];
            let mut rest = [None; 3];
            for (i, b) in blocks.iter().skip(1).take(3).enumerate() {
                rest[i] = Some((abs(b.0), abs(b.1)));
            }
            options.push(TcpOptionElement::SelectiveAcknowledgement((abs(blocks[0].0), abs(blocks[0].1)), rest));
        }
        if tcp.set_options(&options).is_err() {
            tcp.set_options(&options[..options.len().saturating_sub(1)]).ok();
        }
        let payload = s.len as usize;
        let Ok(ip) = Ipv4Header::new((tcp.header_len() + payload) as u16, 64, IpNumber::TCP, src, dst) else {
            return;
        };
        if self.zeros.len() < payload {
            self.zeros.resize(payload, 0);
        }
        tcp.checksum = tcp.calc_checksum_ipv4(&ip, &self.zeros[..payload]).unwrap_or(0);
        let mut bytes = Vec::with_capacity(ip.header_len() + tcp.header_len());
        ip.write(&mut bytes).ok();
        tcp.write(&mut bytes).ok();
        let orig_len = (bytes.len() + payload) as u32;
        let ts = std::time::Duration::from_nanos(now.0);
        self.writer.write_packet(&PcapPacket::new(ts, orig_len, &bytes)).ok();
    }

    /// A control message to the flow's sender: an ICMP message of its experimental type
    /// (RFC 4727) from the receiver's side, quoting nothing (the quoted bytes count in the
    /// original length only).
    fn record_icmp(&mut self, now: SimTime, p: &Packet, signal: IcmpSignal) {
        let (sender, receiver, _) = Self::addresses(p.flow.0);
        let icmp = [signal.icmp_type(), 0, 0, 0, 0, 0, 0, 0];
        let Ok(ip) = Ipv4Header::new(icmp.len() as u16, 64, IpNumber::ICMP, receiver, sender) else {
            return;
        };
        let mut bytes = Vec::with_capacity(ip.header_len() + icmp.len());
        ip.write(&mut bytes).ok();
        bytes.extend_from_slice(&icmp);
        let ts = std::time::Duration::from_nanos(now.0);
        self.writer.write_packet(&PcapPacket::new(ts, p.wire_bytes(), &bytes)).ok();
    }

    /// Records a real IPv4 packet (as the emulator forwards it) at `now`: its IPv4 and TCP
    /// headers with options; the original length is the whole packet.
    pub fn record_ip(&mut self, now: SimTime, packet: &[u8]) {
        let headers = match etherparse::Ipv4HeaderSlice::from_slice(packet) {
            Ok(ip) if ip.protocol() == IpNumber::TCP => {
                let ip_len = ip.slice().len();
                let tcp_len = packet.get(ip_len + 12).map(|b| 4 * (b >> 4) as usize).unwrap_or(0);
                (ip_len + tcp_len).min(packet.len())
            }
            _ => packet.len(),
        };
        let ts = std::time::Duration::from_nanos(now.0);
        self.writer.write_packet(&PcapPacket::new(ts, packet.len() as u32, &packet[..headers])).ok();
    }

    /// The finished capture file.
    pub fn into_bytes(self) -> (String, Vec<u8>) {
        (self.name, self.writer.into_writer())
    }
}
