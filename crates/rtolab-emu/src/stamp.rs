//! The stamp an emulated datagram carries at the start of its payload, so that the sink in
//! the receiver's namespace learns what the simulator's sink is handed with each datagram
//! (`transport::Datagram`): its sequence number and when its source sent it.
//!
//! Layout, big-endian (network order): bytes 0..4 the low 32 bits of `seq`, bytes 4..12
//! `sent_at` in nanoseconds of the emulation's clock. The rest of the payload is zeros. A
//! payload must hold the whole stamp (`STAMP_BYTES`, as a call's RTP header does); the
//! emulator refuses smaller ones before the run. The receiver extends the 32-bit number to
//! 64 bits next to the highest it has seen of the flow (`wire::unwrap_seq`).

use crate::wire::unwrap_seq;
use rtolab_sim::SimTime;

/// Bytes of the stamp: the smallest payload the emulator can carry.
pub const STAMP_BYTES: usize = 12;

/// Writes the stamp of datagram `seq` sent at `sent_at` into the first bytes of `payload`.
///
/// Panics if `payload` is shorter than `STAMP_BYTES` (refused before the run).
pub fn write(payload: &mut [u8], seq: u64, sent_at: SimTime) {
    payload[0..4].copy_from_slice(&(seq as u32).to_be_bytes());
    payload[4..12].copy_from_slice(&sent_at.0.to_be_bytes());
}

/// The sequence number and send time a received `payload` carries; `highest` is the
/// highest sequence number seen of the flow so far. `None` for a payload too short to
/// carry a stamp.
pub fn read(payload: &[u8], highest: u64) -> Option<(u64, SimTime)> {
    let seq = u32::from_be_bytes(payload.get(0..4)?.try_into().ok()?);
    let sent_at = u64::from_be_bytes(payload.get(4..12)?.try_into().ok()?);
    Some((unwrap_seq(highest, seq), SimTime(sent_at)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_reads_back_what_was_written() {
        let mut payload = vec![0u8; 1200];
        write(&mut payload, 41, SimTime(9_600_000));
        assert_eq!(read(&payload, 40), Some((41, SimTime(9_600_000))));
        let mut small = [0u8; STAMP_BYTES];
        write(&mut small, 7, SimTime(u64::MAX));
        assert_eq!(read(&small, 0), Some((7, SimTime(u64::MAX))));
        assert_eq!(read(&small[..11], 0), None);
    }

    /// Past 2^32 datagrams the number wraps on the wire and is extended again.
    #[test]
    fn sequence_numbers_past_32_bits_are_extended() {
        let mut payload = [0u8; 16];
        let seq = (1u64 << 32) + 5;
        write(&mut payload, seq, SimTime(1));
        assert_eq!(read(&payload, (1 << 32) - 3).map(|(s, _)| s), Some(seq));
    }
}
