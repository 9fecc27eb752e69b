//! Packets in flight and the arena that recycles them.
//!
//! Invariant: a packet id is live from `alloc` to `free`; events and queues hold ids, never
//! copies, so the heap and queues stay small and packet memory is reused.

use crate::tcp::Segment;
use crate::time::SimTime;

/// Which way a packet travels along its flow's route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// Sender to receiver (data and SYN).
    Forward,
    /// Receiver to sender (ACKs and SYN-ACK).
    Reverse,
}

#[derive(Clone, Debug)]
pub struct Packet {
    pub flow: u32,
    pub way: Way,
    /// Index of the link direction it is on, within its route.
    pub hop: u16,
    pub wire_bytes: u32,
    pub segment: Segment,
    /// When the endpoint sent it (for one-way delay).
    pub sent_at: SimTime,
}

#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketArena {
    pub fn alloc(&mut self, p: Packet) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = p;
                id
            }
            None => {
                self.slots.push(p);
                (self.slots.len() - 1) as u32
            }
        }
    }

    pub fn free(&mut self, id: u32) {
        self.free.push(id);
    }

    pub fn get(&self, id: u32) -> &Packet {
        &self.slots[id as usize]
    }

    pub fn get_mut(&mut self, id: u32) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Packets currently allocated.
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// High-water mark of simultaneously live packets.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}
