//! Packet capture of a link, one or both of its directions in one file: classic pcap,
//! LINKTYPE_RAW (IPv4), headers only (the captured length is the IPv4 + TCP headers with
//! options; the original length is the whole packet), so Wireshark/tshark analyse sequence
//! numbers, SACK, timestamps and windows. Packets are recorded as they are offered to the
//! link direction, so the file is in time order.
//!
//! Addresses encode the flow: sender 10.1.x.y:(10000 + flow % 50000), receiver 10.2.x.y:80.
//! Initial sequence numbers are fixed per flow; the SYN takes one sequence number as in TCP.
//! The SYN and SYN-ACK carry the flow's own options (`FlowEnds`): its MSS, SACK-permitted when
//! SACK is on, timestamps when on, and a window scale (RFC 7323 2.3) large enough for the
//! receiver's window, by which every later window field is shifted. The data sender's receive
//! side is not modelled: its segments advertise the receiver's window.

use crate::net::{IcmpSignal, Packet, Payload, Way};
use crate::tcp::segment::{FLAG_ACK, FLAG_SYN};
use crate::time::SimTime;
use crate::transport::Datagram;
use etherparse::{IpNumber, Ipv4Header, TcpHeader, TcpOptionElement, UdpHeader};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness};

const SENDER_ISN: u32 = 1_000_000;
const RECEIVER_ISN: u32 = 5_000_000;

/// What a flow's SYN and SYN-ACK say of its endpoints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowEnds {
    pub mss: u32,
    pub sack: bool,
    /// The receiver's advertised window, bytes.
    pub window: u64,
}

impl FlowEnds {
    /// The smallest shift (at most 14, RFC 7323 2.3) that fits `window` in 16 bits.
    pub fn window_scale(&self) -> u8 {
        (0..14).find(|&s| self.window >> s <= 65_535).unwrap_or(14)
    }
}

/// The captures of a run: each file and the link directions it records.
#[derive(Default)]
pub struct Captures {
    by_dir: Vec<Option<usize>>,
    files: Vec<Capture>,
}

impl Captures {
    /// No capture yet, over `dirs` link directions.
    pub fn new(dirs: usize) -> Self {
        Captures { by_dir: vec![None; dirs], files: Vec::new() }
    }

    /// A file `name` recording link directions `dirs`.
    pub fn add(&mut self, name: String, dirs: &[usize]) {
        for &d in dirs {
            self.by_dir[d] = Some(self.files.len());
        }
        self.files.push(Capture::new(name));
    }

    /// The capture recording direction `dir`, if any.
    #[inline]
    pub fn of(&mut self, dir: usize) -> Option<&mut Capture> {
        match self.by_dir.get(dir) {
            Some(Some(i)) => Some(&mut self.files[*i]),
            _ => None,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Flow `flow`'s endpoints, for its SYN options and window fields.
    pub fn describe_flow(&mut self, flow: u32, ends: FlowEnds) {
        for c in &mut self.files {
            let i = flow as usize;
            if c.flows.len() <= i {
                c.flows.resize(i + 1, None);
            }
            c.flows[i] = Some(ends);
        }
    }

    /// The finished files: (name, pcap bytes).
    pub fn into_files(self) -> Vec<(String, Vec<u8>)> {
        self.files.into_iter().map(Capture::into_bytes).collect()
    }
}

/// Endpoints of a flow no one described: a 1460-byte MSS, SACK, a 64 KiB window.
const UNDESCRIBED: FlowEnds = FlowEnds { mss: 1460, sack: true, window: 65_535 };

pub struct Capture {
    pub name: String,
    writer: PcapWriter<Vec<u8>>,
    zeros: Vec<u8>,
    flows: Vec<Option<FlowEnds>>,
}

impl Capture {
    pub fn new(name: String) -> Self {
        let header = PcapHeader { datalink: DataLink::RAW, snaplen: 65535, endianness: Endianness::Little, ..Default::default() };
        let writer = PcapWriter::with_header(Vec::new(), header).expect("writing to memory cannot fail");
        Capture { name, writer, zeros: Vec::new(), flows: Vec::new() }
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
            Payload::Datagram(d) => return self.record_udp(now, p, d),
        };
        let (sender, receiver, port) = Self::addresses(p.flow.0);
        let (src, dst, sport, dport, isn, peer_isn) = match p.way {
            Way::Forward => (sender, receiver, port, 80, SENDER_ISN, RECEIVER_ISN),
            Way::Reverse => (receiver, sender, 80, port, RECEIVER_ISN, SENDER_ISN),
        };
        let syn = s.flags & FLAG_SYN != 0;
        let ends = self.flows.get(p.flow.0 as usize).copied().flatten().unwrap_or(UNDESCRIBED);
        let scale = ends.window_scale();
        // Data bytes start one after the ISN (the SYN's sequence number).
        let seq = if syn { isn } else { isn.wrapping_add(1).wrapping_add(s.seq as u32) };
        let advertised = if p.way == Way::Forward { ends.window } else { s.wnd };
        // A SYN's window is never scaled (RFC 7323 2.2); every later one is.
        let window = if syn { advertised.min(65_535) } else { (advertised >> scale).min(65_535) };
        let mut tcp = TcpHeader::new(sport, dport, seq, window as u16);
        tcp.syn = syn;
        tcp.fin = s.is_fin();
        if s.flags & FLAG_ACK != 0 {
            tcp.ack = true;
            tcp.acknowledgment_number = peer_isn.wrapping_add(1).wrapping_add(s.ack as u32);
        }
        let mut options = Vec::with_capacity(5);
        if syn {
            options.push(TcpOptionElement::MaximumSegmentSize(ends.mss.min(65_535) as u16));
            if ends.sack {
                options.push(TcpOptionElement::SelectiveAcknowledgementPermitted);
            }
            if scale > 0 {
                options.push(TcpOptionElement::WindowScale(scale));
            }
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

    /// A datagram of a datagram flow: its IPv4 and UDP headers (the checksum over a zero
    /// payload, which counts in the original length only, as a segment's does), from the
    /// flow's source to its sink. Datagram flow j takes 10.3.x.y → 10.4.x.y (x.y = j), apart
    /// from TCP flows' 10.1/10.2, and port 20 000 + j % 40 000 to 5004 (RTP's, RFC 3551 §8).
    fn record_udp(&mut self, now: SimTime, p: &Packet, d: Datagram) {
        let j = p.flow.slot() as u32;
        let (hi, lo) = ((j >> 8) as u8, j as u8);
        let payload = d.len as usize;
        let (source, sink, port) = ([10, 3, hi, lo], [10, 4, hi, lo], 20_000 + (j % 40_000) as u16);
        // A QUIC client's datagrams travel the reverse way, from the sink's side.
        let (src, dst, sport, dport) = match p.way {
            Way::Forward => (source, sink, port, 5004),
            Way::Reverse => (sink, source, 5004, port),
        };
        let Ok(ip) = Ipv4Header::new((UdpHeader::LEN + payload) as u16, 64, IpNumber::UDP, src, dst) else {
            return;
        };
        if self.zeros.len() < payload {
            self.zeros.resize(payload, 0);
        }
        let Ok(udp) = UdpHeader::with_ipv4_checksum(sport, dport, &ip, &self.zeros[..payload]) else {
            return;
        };
        let mut bytes = Vec::with_capacity(ip.header_len() + UdpHeader::LEN);
        ip.write(&mut bytes).ok();
        udp.write(&mut bytes).ok();
        let ts = std::time::Duration::from_nanos(now.0);
        self.writer.write_packet(&PcapPacket::new(ts, p.wire_bytes(), &bytes)).ok();
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
