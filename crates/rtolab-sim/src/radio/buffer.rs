//! A user's buffer at the base station, with segmentation of IP packets into radio blocks
//! and reassembly at the user. A block goes on with the next packet once the head is done
//! (`take`), or with `radio.concatenation = false` carries the head packet alone
//! (`take_head`).
//!
//! Invariant: `queued_bytes` is the sum of the queued packets' sizes, and `head_sent` bytes
//! of the head packet have already crossed the air in blocks that arrived intact. A packet
//! leaves (is reassembled at the user) when the block carrying its last byte arrives intact;
//! a damaged block changes nothing here, so its bytes go again in a later block. Bytes are
//! conserved: every byte taken by an intact block belongs to exactly one queued packet.

use crate::net::PacketId;
use crate::units::Limit;
use std::collections::VecDeque;

#[derive(Debug)]
pub struct UeBuffer {
    packets: VecDeque<(PacketId, u32)>,
    queued_bytes: u64,
    head_sent: u32,
    limit: Limit,
}

impl UeBuffer {
    pub fn new(limit: Limit) -> Self {
        UeBuffer { packets: VecDeque::new(), queued_bytes: 0, head_sent: 0, limit }
    }

    /// Queues a packet of `bytes`; false (and nothing queued) when the limit would be
    /// exceeded.
    pub fn offer(&mut self, id: PacketId, bytes: u32) -> bool {
        let fits = fits(self.limit, self.packets.len() as u64, self.queued_bytes, bytes);
        if fits {
            self.packets.push_back((id, bytes));
            self.queued_bytes += bytes as u64;
        }
        fits
    }

    /// Bytes of the queued packets (those partly sent included).
    pub fn queued_bytes(&self) -> u64 {
        self.queued_bytes
    }

    /// Bytes still to cross the air.
    pub fn backlog(&self) -> u64 {
        self.queued_bytes - self.head_sent as u64
    }

    pub fn is_empty(&self) -> bool {
        self.packets.is_empty()
    }

    pub fn len(&self) -> usize {
        self.packets.len()
    }

    /// An intact block carried up to `block` bytes: takes them from the head, pushes every
    /// packet whose last byte it carried onto `completed`, and returns the bytes taken
    /// (less than `block` when the backlog is smaller: the block is padded).
    pub fn take(&mut self, block: u32, completed: &mut Vec<PacketId>) -> u32 {
        let mut room = block;
        while room > 0 {
            let Some(&(id, bytes)) = self.packets.front() else { break };
            let left = bytes - self.head_sent;
            if left <= room {
                room -= left;
                self.packets.pop_front();
                self.queued_bytes -= bytes as u64;
                self.head_sent = 0;
                completed.push(id);
            } else {
                self.head_sent += room;
                room = 0;
            }
        }
        block - room
    }

    /// Bytes of the head packet still to cross the air (0 when empty).
    pub fn head_left(&self) -> u32 {
        self.packets.front().map_or(0, |&(_, bytes)| bytes - self.head_sent)
    }

    /// What this buffer offers the next block, before the block's size caps it: the whole
    /// backlog when a block may concatenate packets (`take`), else the rest of the head
    /// packet (`take_head`).
    #[inline]
    pub fn sendable(&self, concatenation: bool) -> u64 {
        if concatenation {
            self.backlog()
        } else {
            self.head_left() as u64
        }
    }

    /// An intact block without concatenation carried up to `block` bytes of the head packet
    /// alone (`radio.concatenation = false`: one IP packet, or a fragment of one, per block):
    /// takes them, pushes the packet onto `completed` if its last byte was among them, and
    /// returns the bytes taken; the rest of the block is padding even when more packets wait.
    pub fn take_head(&mut self, block: u32, completed: &mut Vec<PacketId>) -> u32 {
        self.take(block.min(self.head_left()), completed)
    }

    /// Empties the buffer (the user left the cell), returning its packets.
    pub fn flush(&mut self) -> impl Iterator<Item = PacketId> + '_ {
        self.queued_bytes = 0;
        self.head_sent = 0;
        self.packets.drain(..).map(|(id, _)| id)
    }
}

/// Whether a packet of `bytes` joins a queue of `packets` packets and `queued` bytes under
/// `limit` (tail drop: a packet limit counts packets already queued, a byte limit the bytes
/// after the arrival).
fn fits(limit: Limit, packets: u64, queued: u64, bytes: u32) -> bool {
    match limit {
        Limit::Packets(n) => packets < n,
        Limit::Bytes(n) => queued + bytes as u64 <= n,
    }
}

/// The occupancy of a buffer shared by the users of a cell (`cell_buffer`): the sums of its
/// users' queues, against an optional limit.
///
/// Invariant: `packets` and `bytes` equal the sums of `len()` and `queued_bytes()` over the
/// buffers of the users attached to the cell; callers report every change (`UeBuffer`'s own
/// limit applies besides).
#[derive(Debug, Default)]
pub struct SharedBuffer {
    limit: Option<Limit>,
    packets: u64,
    bytes: u64,
}

impl SharedBuffer {
    pub fn new(limit: Option<Limit>) -> Self {
        SharedBuffer { limit, packets: 0, bytes: 0 }
    }

    /// Whether a packet of `bytes` fits (always, without a limit).
    pub fn fits(&self, bytes: u32) -> bool {
        self.limit.is_none_or(|l| fits(l, self.packets, self.bytes, bytes))
    }

    pub fn add(&mut self, bytes: u32) {
        self.packets += 1;
        self.bytes += bytes as u64;
    }

    /// Packets and bytes that left one of the users' buffers.
    pub fn remove(&mut self, packets: u64, bytes: u64) {
        self.packets -= packets;
        self.bytes -= bytes;
    }

    pub fn packets(&self) -> u64 {
        self.packets
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer_of(sizes: &[u32]) -> UeBuffer {
        let mut b = UeBuffer::new(Limit::Packets(100));
        for (i, &s) in sizes.iter().enumerate() {
            assert!(b.offer(PacketId(i as u32), s));
        }
        b
    }

    /// Two 1040 B packets through 360 B blocks: blocks 1–2 carry 720 B of the first, block 3
    /// ends it (320 B) and starts the second (40 B); the second ends in block 6 (360·6 = 2160
    /// ≥ 2080), which carries 280 B and is padded.
    #[test]
    fn segmentation_and_reassembly_conserve_bytes() {
        let mut b = buffer_of(&[1040, 1040]);
        let mut done = Vec::new();
        let taken: Vec<u32> = (0..6).map(|_| b.take(360, &mut done)).collect();
        assert_eq!(taken, vec![360, 360, 360, 360, 360, 280]);
        assert_eq!(taken.iter().sum::<u32>(), 2080);
        assert_eq!(done, vec![PacketId(0), PacketId(1)]);
        assert!(b.is_empty() && b.backlog() == 0);
    }

    #[test]
    fn packet_completes_in_the_block_carrying_its_last_byte() {
        let mut b = buffer_of(&[1040, 40, 40]);
        let mut done = Vec::new();
        b.take(1000, &mut done);
        assert!(done.is_empty());
        assert_eq!(b.backlog(), 120);
        b.take(80, &mut done);
        assert_eq!(done, vec![PacketId(0), PacketId(1)]);
        assert_eq!(b.backlog(), 40);
    }

    /// Without concatenation a block carries one packet or a fragment of one: [1040, 40]
    /// through 1800 B blocks takes 1040 B (760 B of padding), then 40 B; with concatenation
    /// one block takes both (1080 B). A 2000 B packet takes 1800 B, then its last 200 B
    /// (the 40 B behind it waits for the third block).
    #[test]
    fn without_concatenation_a_block_carries_the_head_packet_only() {
        let mut b = buffer_of(&[1040, 40]);
        let mut done = Vec::new();
        assert_eq!((b.head_left(), b.sendable(false), b.sendable(true)), (1040, 1040, 1080));
        assert_eq!(b.take_head(1800, &mut done), 1040);
        assert_eq!(done, vec![PacketId(0)]);
        assert_eq!(b.take_head(1800, &mut done), 40);
        assert_eq!(done, vec![PacketId(0), PacketId(1)]);
        assert!(b.is_empty() && b.head_left() == 0 && b.take_head(1800, &mut done) == 0);
        assert_eq!(buffer_of(&[1040, 40]).take(1800, &mut Vec::new()), 1080);
        let mut big = buffer_of(&[2000, 40]);
        let taken: Vec<u32> = (0..3).map(|_| big.take_head(1800, &mut Vec::new())).collect();
        assert_eq!(taken, vec![1800, 200, 40]);
        let mut part = buffer_of(&[2000, 40]);
        part.take_head(1800, &mut Vec::new());
        assert_eq!((part.head_left(), part.sendable(false), part.sendable(true)), (200, 200, 240));
    }

    #[test]
    fn limits_count_packets_or_bytes() {
        let mut p = UeBuffer::new(Limit::Packets(2));
        assert!(p.offer(PacketId(0), 1500) && p.offer(PacketId(1), 1500));
        assert!(!p.offer(PacketId(2), 40));
        let mut b = UeBuffer::new(Limit::Bytes(3000));
        assert!(b.offer(PacketId(0), 1500) && b.offer(PacketId(1), 1500));
        assert!(!b.offer(PacketId(2), 1));
        assert_eq!(b.len(), 2);
    }

    /// The shared limit counts what the users' buffers hold together: a packet limit of 2
    /// takes two packets whatever their users, a byte limit of 1500 B takes 1000 B + 500 B
    /// and refuses one byte more; what leaves frees room.
    #[test]
    fn shared_buffer_limits_the_sum_of_the_users_queues() {
        let mut by_packets = SharedBuffer::new(Some(Limit::Packets(2)));
        assert!(by_packets.fits(1500));
        by_packets.add(1500);
        by_packets.add(40);
        assert!(!by_packets.fits(40));
        by_packets.remove(1, 40);
        assert!(by_packets.fits(40));
        let mut by_bytes = SharedBuffer::new(Some(Limit::Bytes(1500)));
        by_bytes.add(1000);
        assert!(by_bytes.fits(500) && !by_bytes.fits(501));
        let unlimited = SharedBuffer::new(None);
        assert!(unlimited.fits(u32::MAX));
    }

    #[test]
    fn flush_returns_every_packet_and_empties() {
        let mut b = buffer_of(&[100, 200]);
        b.take(50, &mut Vec::new());
        let out: Vec<PacketId> = b.flush().collect();
        assert_eq!(out, vec![PacketId(0), PacketId(1)]);
        assert_eq!((b.backlog(), b.len()), (0, 0));
    }
}
