//! A TCP segment as the simulator carries it: header fields that matter to the protocol,
//! sequence numbers relative to the start of the data (the SYN takes no sequence space here;
//! the pcap writer adds an ISN).

use crate::time::SimTime;

pub const FLAG_FIN: u8 = 0x01;
pub const FLAG_SYN: u8 = 0x02;
pub const FLAG_ACK: u8 = 0x10;

/// Up to four SACK blocks (RFC 2018, 3): [start, end) byte ranges, most recent first.
///
/// Layout: `repr(C)` with the count first, beside the segment's header fields, so a reader
/// that finds no blocks touches none of the blocks' cache lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct SackBlocks {
    len: u8,
    blocks: [(u64, u64); 4],
}

impl SackBlocks {
    pub fn push(&mut self, block: (u64, u64)) -> bool {
        if (self.len as usize) < self.blocks.len() {
            self.blocks[self.len as usize] = block;
            self.len += 1;
            true
        } else {
            false
        }
    }
    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..self.len as usize]
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
/// Layout: `repr(C)` keeps the header fields every segment's receiver reads in the first 48
/// bytes and the SACK blocks, which only ACKs carry, after them, so a packet in the arena is
/// read without its SACK cache line unless it has blocks.
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
    /// MSS (4) + SACK-permitted (2) + window scale (3), padded to a multiple of 4.
    pub fn option_bytes(&self) -> u32 {
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

    #[test]
    fn wire_size_counts_headers_and_options() {
        let mut s = Segment { len: 1448, ts_val: 5, ..Default::default() };
        assert_eq!(s.wire_bytes(), 1500); // 40 + 12 + 1448 (timestamps padded)
        s.sack.push((0, 1));
        s.sack.push((2, 3));
        assert_eq!(s.option_bytes(), 28); // 10 + 2 + 16 = 28
        let syn = Segment { flags: FLAG_SYN, ts_val: 1, ..Default::default() };
        assert_eq!(syn.wire_bytes(), 60); // 40 + 20
    }
}
