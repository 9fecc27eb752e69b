//! The notices a link direction keeps for its caller (see `LinkNotices`).

use crate::tcp::icmp_signal::IcmpSignal;
use super::ids::PacketId;

/// What a direction's elements decided besides single drops, for the caller to act on:
/// packets dropped together (an ARQ flush), packets the queue dropped from inside (CoDel at
/// dequeue, FQ-CoDel's fattest flow on overflow) and control messages about a packet
/// (toward its flow's sender). The caller acts on the messages before the drops (a message
/// may name a dropped packet).
#[derive(Debug, Default)]
pub struct LinkNotices {
    /// Dropped by the link-layer ARQ.
    pub dropped: Vec<PacketId>,
    /// Dropped by the queue discipline after it had accepted them.
    pub queue_dropped: Vec<PacketId>,
    pub signals: Vec<(PacketId, IcmpSignal)>,
}

impl LinkNotices {
    /// Nothing waits (one test of the three lengths together).
    #[inline]
    pub fn is_empty(&self) -> bool {
        (self.dropped.len() | self.queue_dropped.len() | self.signals.len()) == 0
    }

    /// Empties every list, keeping their buffers.
    pub fn clear(&mut self) {
        self.dropped.clear();
        self.queue_dropped.clear();
        self.signals.clear();
    }
}
