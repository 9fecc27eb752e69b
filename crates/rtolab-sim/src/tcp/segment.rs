//! A TCP segment as the simulator carries it: header fields that matter to the protocol,
//! sequence numbers relative to the start of the data (the SYN takes no sequence space here;
//! the pcap writer adds an ISN).

use crate::time::SimTime;

pub const FLAG_FIN: u8 = 0x01;
pub const FLAG_SYN: u8 = 0x02;
pub const FLAG_ACK: u8 = 0x10;
/// Not a TCP flag: the segment takes ns-2's size on the wire (`Segment::option_bytes`). The
/// endpoint that emits it sets it (`FlowRuntime::ns2_sizes`); pcap writes only real flags.
pub const FLAG_NS2_SIZES: u8 = 0x80;

/// Up to four SACK blocks (RFC 2018, 3): [start, end) byte ranges, most recent first.
///
/// Layout: `repr(C, packed)`, the count first: with an alignment of one, the count sits in
/// the segment right after `flags` (no padding before it), so the segment's header fields
/// and the count fit the first cache line of a packet and a reader that finds no blocks
/// touches none of the blocks' bytes. The blocks are read by value (no references into the
/// packed layout).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, packed)]
pub struct SackBlocks {
    len: u8,
    blocks: [(u64, u64); 4],
}

impl SackBlocks {
    pub fn push(&mut self, block: (u64, u64)) -> bool {
        let n = self.len as usize;
        if n < 4 {
            self.blocks[n] = block;
            self.len += 1;
            true
        } else {
            false
        }
    }
    /// Block `i`, if there are more than `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<(u64, u64)> {
        let blocks = self.blocks;
        (i < self.len as usize).then(|| blocks[i])
    }
    /// The blocks, copied out: all four slots and how many of them are blocks.
    #[inline]
    pub fn copied(&self) -> ([(u64, u64); 4], usize) {
        (self.blocks, self.len as usize)
    }
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> {
        let (blocks, n) = self.copied();
        blocks.into_iter().take(n)
    }
    pub fn to_vec(&self) -> Vec<(u64, u64)> {
        self.iter().collect()
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
}

/// One TCP segment. `ts_val`/`ts_ecr` are RFC 7323 timestamps in nanoseconds of simulated
/// time (0 = absent).
///
/// Layout: `repr(C)` keeps the header fields every segment's receiver reads and the SACK
/// count in the first 46 bytes (`SackBlocks` is packed, so no padding precedes its count)
/// and the blocks, which only ACKs carry, after them: with the packet's 16-byte header that
/// is one cache line of a 64-byte aligned `Packet`, and the blocks are read only when there
/// are some.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Segment {
    pub seq: u64,
    pub ack: u64,
    /// Receiver window in bytes.
    pub wnd: u64,
    pub ts_val: u64,
    pub ts_ecr: u64,
    pub len: u32,
    pub flags: u8,
    pub sack: SackBlocks,
}

impl Segment {
    pub fn is_syn(&self) -> bool {
        self.flags & FLAG_SYN != 0
    }
    /// The sender's last data segment: its application closed after writing it.
    pub fn is_fin(&self) -> bool {
        self.flags & FLAG_FIN != 0
    }
    pub fn end(&self) -> u64 {
        self.seq + self.len as u64
    }
    /// Bytes of TCP options: timestamps (10, padded to 12), SACK (2 + 8n, padded), and on SYNs
    /// MSS (4) + SACK-permitted (2) + window scale (3), padded to a multiple of 4. With
    /// `FLAG_NS2_SIZES`, ns-2's: 8 B per SACK block (`Sacker::append_ack`, tcp/tcp-sink.cc)
    /// and nothing else on `tcpip_base_hdr_size_` = 40, so a SYN is 40 B (tcp/tcp.cc).
    pub fn option_bytes(&self) -> u32 {
        if self.flags & FLAG_NS2_SIZES != 0 {
            return 8 * self.sack.len() as u32;
        }
        let mut n = 0;
        if self.ts_val != 0 {
            n += 10;
        }
        if !self.sack.is_empty() {
            n += 2 + 8 * self.sack.len() as u32;
        }
        if self.is_syn() {
            n += 9;
        }
        n.div_ceil(4) * 4
    }
    /// Size on the wire: IPv4 (20) + TCP (20) headers, options and payload.
    pub fn wire_bytes(&self) -> u32 {
        40 + self.option_bytes() + self.len
    }
}

/// The timestamp value a sender puts on a segment sent at `now` (never 0, which means absent).
pub fn ts_now(now: SimTime) -> u64 {
    now.0.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn wire_size_counts_headers_and_options() {
        let mut s = Segment { len: 1448, ts_val: 5, ..Default::default() };
        assert_eq!(s.wire_bytes(), 1500); // 40 + 12 + 1448 (timestamps padded)
        s.sack.push((0, 1));
        s.sack.push((2, 3));
        assert_eq!(s.option_bytes(), 28); // 10 + 2 + 16 = 28
        let syn = Segment { flags: FLAG_SYN, ts_val: 1, ..Default::default() };
        assert_eq!(syn.wire_bytes(), 60); // 40 + 20
        // ns-2: a 40 B SYN; an ACK with two SACK blocks 40 + 2 · 8 = 56 B (tcp-sink.cc).
        let ns2_syn = Segment { flags: FLAG_SYN | FLAG_NS2_SIZES, ..Default::default() };
        assert_eq!(ns2_syn.wire_bytes(), 40);
        let mut ns2_ack = Segment { flags: FLAG_ACK | FLAG_NS2_SIZES, ..Default::default() };
        ns2_ack.sack.push((1000, 2000));
        ns2_ack.sack.push((3000, 4000));
        assert_eq!(ns2_ack.wire_bytes(), 56);
    }

    proptest! {
        /// The packed blocks read back as a plain list of at most four.
        #[test]
        fn sack_blocks_match_a_list(blocks in proptest::collection::vec((0u64..u64::MAX, 0u64..u64::MAX), 0..7)) {
            let mut sack = SackBlocks::default();
            let mut list = Vec::new();
            for b in blocks {
                prop_assert_eq!(sack.push(b), list.len() < 4);
                if list.len() < 4 {
                    list.push(b);
                }
            }
            prop_assert_eq!(sack.to_vec(), list.clone());
            prop_assert_eq!((sack.len(), sack.is_empty()), (list.len(), list.is_empty()));
            for i in 0..5 {
                prop_assert_eq!(sack.get(i), list.get(i).copied());
            }
            let (all, n) = sack.copied();
            prop_assert_eq!(&all[..n], &list[..]);
        }
    }
}
