//! Packets in flight and the arena that recycles them.
//!
//! Invariant: a packet id is live from `alloc` to `free`; events and queues hold ids, never
//! copies, so the heap and queues stay small and packet memory is reused.

use crate::tcp::icmp_signal::IcmpSignal;
use super::ids::{FlowId, PacketId};
use crate::tcp::Segment;
use crate::time::SimTime;
use crate::transport::Datagram;

/// Which way a packet travels along its flow's route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// Sender to receiver (data and SYN).
    Forward,
    /// Receiver to sender (ACKs and SYN-ACK; control messages to the sender).
    Reverse,
}

/// What a packet carries, as read in place from the arena.
#[derive(Clone, Copy, Debug)]
pub enum Payload<'a> {
    /// A TCP segment between the flow's endpoints.
    Segment(&'a Segment),
    /// A control message from a network element to the flow's sender.
    Control(IcmpSignal),
    /// A datagram of a datagram flow (UDP), from its source to its sink.
    Datagram(Datagram),
}

/// What a packet's fields hold: a TCP segment (in `segment`), a datagram (its number in
/// `segment.seq`, its payload length in `segment.len`, its send time in `sent_at`), or a
/// control message (`segment` unused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Carries {
    Segment,
    Datagram,
    Control(IcmpSignal),
}

/// A packet in flight.
///
/// Invariant: `carries` says how to read the rest (`Carries`); a UDP datagram travels
/// `Forward`, a QUIC datagram either way.
///
/// Layout: `repr(C, align(64))`, 128 bytes: the routing fields (16 bytes) and the segment's
/// header fields and SACK count (46 bytes, see `Segment`) fill the first cache line, the SACK
/// blocks the second, so forwarding and delivering a packet read one line unless it carries
/// SACK blocks. The size on the wire is computed from the segment rather than stored, which
/// would not fit in that line.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Packet {
    pub flow: FlowId,
    /// Index of the link direction it is on, within its route for `way`.
    pub hop: u16,
    pub way: Way,
    carries: Carries,
    /// When the endpoint (or element) sent it (for one-way delay).
    pub sent_at: SimTime,
    segment: Segment,
}

impl Packet {
    /// A TCP segment of `flow` sent at `sent_at`, at the first hop of its route for `way`.
    pub fn segment(flow: FlowId, way: Way, segment: Segment, sent_at: SimTime) -> Self {
        Packet { flow, hop: 0, way, carries: Carries::Segment, sent_at, segment }
    }

    /// A control message to `flow`'s sender, on the reverse route at `hop`.
    pub fn control(flow: FlowId, hop: u16, signal: IcmpSignal, sent_at: SimTime) -> Self {
        Packet { flow, hop, way: Way::Reverse, carries: Carries::Control(signal), sent_at, segment: Segment::default() }
    }

    /// Datagram `d` of `flow`, from its source at the first hop of its route. A datagram
    /// carries at least one byte (so `is_data` reads only the length).
    pub fn datagram(flow: FlowId, d: Datagram) -> Self {
        Packet::datagram_on(flow, Way::Forward, d)
    }

    /// Datagram `d` of `flow` travelling `way` (a QUIC client's go `Reverse`), at the first
    /// hop of its route for that way.
    pub fn datagram_on(flow: FlowId, way: Way, d: Datagram) -> Self {
        debug_assert!(d.len > 0, "an empty datagram");
        let segment = Segment { seq: d.seq, len: d.len, ..Segment::default() };
        Packet { flow, hop: 0, way, carries: Carries::Datagram, sent_at: d.sent_at, segment }
    }

    #[inline]
    pub fn payload(&self) -> Payload<'_> {
        match self.carries {
            Carries::Segment => Payload::Segment(&self.segment),
            Carries::Control(signal) => Payload::Control(signal),
            Carries::Datagram => Payload::Datagram(Datagram { seq: self.segment.seq, len: self.segment.len, sent_at: self.sent_at }),
        }
    }

    /// A data packet: a forward TCP segment with payload (not a SYN, ACK or control
    /// message), or a datagram.
    #[inline]
    pub fn is_data(&self) -> bool {
        self.way == Way::Forward && !matches!(self.carries, Carries::Control(_)) && self.segment.len > 0
    }

    /// Bytes on the wire.
    #[inline]
    pub fn wire_bytes(&self) -> u32 {
        match self.carries {
            Carries::Segment => self.segment.wire_bytes(),
            Carries::Datagram => self.segment.len + crate::transport::datagram::IP_UDP_HEADER_BYTES,
            Carries::Control(_) => IcmpSignal::WIRE_BYTES,
        }
    }
}

/// The store of packets in flight, of any kind `P` (the simulator's `Packet`; the emulator
/// stores the kernel's datagrams here).
///
/// Invariant: a slot is either live or listed once in `free`.
#[derive(Debug)]
pub struct PacketArena<P = Packet> {
    slots: Vec<P>,
    free: Vec<PacketId>,
}

impl<P> Default for PacketArena<P> {
    fn default() -> Self {
        PacketArena { slots: Vec::new(), free: Vec::new() }
    }
}

impl<P> PacketArena<P> {
    pub fn alloc(&mut self, p: P) -> PacketId {
        match self.free.pop() {
            Some(id) => {
                self.slots[id.index()] = p;
                id
            }
            None => {
                self.slots.push(p);
                PacketId((self.slots.len() - 1) as u32)
            }
        }
    }

    /// `alloc`, overwriting a freed slot's packet in place with `reuse` (so that what it owns,
    /// a buffer say, is reused), or storing `new()` when no slot is free.
    pub fn alloc_with(&mut self, reuse: impl FnOnce(&mut P), new: impl FnOnce() -> P) -> PacketId {
        match self.free.pop() {
            Some(id) => {
                reuse(&mut self.slots[id.index()]);
                id
            }
            None => {
                self.slots.push(new());
                PacketId((self.slots.len() - 1) as u32)
            }
        }
    }

    pub fn free(&mut self, id: PacketId) {
        self.free.push(id);
    }

    /// Warms `id`'s slot, one cache line (`crate::prefetch`; no effect on results).
    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        if let Some(slot) = self.slots.get(id.index()) {
            crate::prefetch::lines(slot, 1);
        }
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &P {
        &self.slots[id.index()]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut P {
        &mut self.slots[id.index()]
    }

    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Calls `f` on every live packet, in slot order (for end-of-run checks: it allocates a
    /// bitmap of the slots).
    pub fn for_each_live(&self, mut f: impl FnMut(&P)) {
        let mut free = vec![false; self.slots.len()];
        for id in &self.free {
            free[id.index()] = true;
        }
        for (p, _) in self.slots.iter().zip(free).filter(|(_, is_free)| !is_free) {
            f(p);
        }
    }

    /// High-water mark of simultaneously live packets.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// What forwarding and delivering a packet without SACK blocks read lies in its first
    /// cache line: the routing fields, the segment's header and its SACK count.
    #[test]
    fn header_and_segment_fields_share_the_first_line() {
        assert_eq!((size_of::<Packet>(), align_of::<Packet>()), (128, 64));
        let sack_count = offset_of!(Packet, segment) + offset_of!(Segment, sack);
        assert!(sack_count < 64, "SACK count at {sack_count}");
    }

    #[test]
    fn payload_and_size_by_kind() {
        let seg = Segment { len: 1448, ts_val: 5, ..Default::default() };
        let p = Packet::segment(FlowId(3), Way::Forward, seg, SimTime(7));
        assert!(p.is_data());
        assert_eq!(p.wire_bytes(), 1500);
        assert!(matches!(p.payload(), Payload::Segment(s) if *s == seg));
        let c = Packet::control(FlowId(3), 2, IcmpSignal::Defer, SimTime(7));
        assert!(!c.is_data());
        assert_eq!((c.wire_bytes(), c.way, c.hop), (IcmpSignal::WIRE_BYTES, Way::Reverse, 2));
        let d = Datagram { seq: 9, len: 172, sent_at: SimTime(11) };
        let p = Packet::datagram(FlowId(4), d);
        assert!(p.is_data());
        assert_eq!((p.wire_bytes(), p.way, p.sent_at), (200, Way::Forward, SimTime(11)));
        assert!(matches!(p.payload(), Payload::Datagram(x) if x == d));
        assert!(matches!(c.payload(), Payload::Control(IcmpSignal::Defer)));
    }
}
