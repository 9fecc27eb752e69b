//! The bytes of QUIC datagrams in the network, kept out of the packet struct: a QUIC
//! packet's `Datagram::seq` is the key of its bytes here.
//!
//! Invariant: a key is live from `put` to `take`, which the world calls when the packet
//! arrives or is dropped; freed slots are reused.

use crate::quic::QuicDatagram;

#[derive(Default)]
pub struct QuicWire {
    slots: Vec<QuicDatagram>,
    free: Vec<u32>,
}

impl QuicWire {
    /// Stores `d`; its key.
    pub fn put(&mut self, d: QuicDatagram) -> u64 {
        match self.free.pop() {
            Some(k) => {
                self.slots[k as usize] = d;
                k as u64
            }
            None => {
                self.slots.push(d);
                (self.slots.len() - 1) as u64
            }
        }
    }

    /// The datagram stored under `key`, which is freed.
    pub fn take(&mut self, key: u64) -> QuicDatagram {
        self.free.push(key as u32);
        std::mem::take(&mut self.slots[key as usize])
    }
}
