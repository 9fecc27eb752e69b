//! Packets in flight and the arena that recycles them.
//!
//! Invariant: a packet id is live from `alloc` to `free`; events and queues hold ids, never
//! copies, so the heap and queues stay small and packet memory is reused.

use super::icmp::IcmpSignal;
use super::ids::{FlowId, PacketId};
use crate::tcp::Segment;
use crate::time::SimTime;

/// Which way a packet travels along its flow's route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// Sender to receiver (data and SYN).
    Forward,
    /// Receiver to sender (ACKs and SYN-ACK; control messages to the sender).
    Reverse,
}

/// What a packet carries.
#[derive(Clone, Copy, Debug)]
pub enum Payload {
    /// A TCP segment between the flow's endpoints.
    Segment(Segment),
    /// A control message from a network element to the flow's sender.
    Control(IcmpSignal),
}

/// Layout: `repr(C)` puts the routing fields and the segment's header first (see
/// `Segment`), so forwarding and delivering a packet touch the fewest cache lines.
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Packet {
    pub flow: FlowId,
    pub way: Way,
    /// Index of the link direction it is on, within its route for `way`.
    pub hop: u16,
    pub wire_bytes: u32,
    /// When the endpoint (or element) sent it (for one-way delay).
    pub sent_at: SimTime,
    pub payload: Payload,
}

#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
}

impl PacketArena {
    pub fn alloc(&mut self, p: Packet) -> PacketId {
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

    pub fn free(&mut self, id: PacketId) {
        self.free.push(id);
    }

    #[inline]
    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id.index()]
    }

    #[inline]
    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id.index()]
    }

    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Calls `f` on every live packet, in slot order (for end-of-run checks: it allocates a
    /// bitmap of the slots).
    pub fn for_each_live(&self, mut f: impl FnMut(&Packet)) {
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
