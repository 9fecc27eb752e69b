//! Web users whose files share one TCP connection (`WebConnection::PerSession`): the
//! connection's map between the sender's sequence numbers and the wire's, its files, and what
//! each file's row of the flows table counts.
//!
//! The sender tiles its data on MSS boundaries, so a file written after one that ended in a
//! short segment starts at the next boundary of the sender's sequence space
//! (`TcpSender::write`); on the wire (the receiver, the oracle, the event log, captures) the
//! files follow one another without a gap. `SeqMap` translates at the sender's edge: the
//! world maps every segment the sender emits to the wire and every ACK (its cumulative ACK
//! and SACK blocks) back before the sender reads it.
//!
//! A file's row counts what the connection did from the file's start to the next file's
//! start (to the end of the run for the last): nothing is sent between a file's end and the
//! next start (the sender is idle, its timer stopped: a timeout fires only with data
//! outstanding), and what late ACKs bring then (a DSACK, an undo, a duplicate at the
//! receiver) belongs to that file. The verdicts on timeouts (the oracle's, the sender's
//! detections) count for the file during which each timeout fired, whenever they come. So
//! the rows of a connection add up to its totals. The means (RTO, RTT) are kept as sums and
//! counts and differenced (`Tally`), so a file's mean is over its own samples (to the
//! rounding of the differenced sums). Series and events of the connection are recorded
//! under the row of its latest file (`FlowRuntime::row`), so a series' entity stays the
//! flows table's row of the same index.

use super::flow::{FlowRuntime, Verdict};
use crate::traffic::Origin;
use crate::net::FlowId;
use crate::tcp::segment::SackBlocks;
use crate::tcp::Segment;
use crate::time::SimTime;

/// The sender's sequence numbers against the wire's, for a connection whose writes each start
/// on a segment boundary of the sender's space.
///
/// Invariant: `writes` holds, per write in order, (its first byte on the wire, the sender's
/// number of that byte minus the wire's); both columns never decrease, and every byte of
/// write k on the wire is `wire + shift_k` in the sender's space.
#[derive(Clone, Debug, Default)]
pub struct SeqMap {
    writes: Vec<(u64, u64)>,
}

impl SeqMap {
    /// A write whose first byte is `wire` on the wire and `sender` in the sender's space.
    pub fn push(&mut self, wire: u64, sender: u64) {
        debug_assert!(sender >= wire && self.writes.last().is_none_or(|&(w, s)| wire >= w && sender - wire >= s));
        self.writes.push((wire, sender - wire));
    }

    /// The shift of the last write whose first byte (on the wire) is at or below `wire`.
    fn shift_at_wire(&self, wire: u64) -> u64 {
        let i = self.writes.partition_point(|&(w, _)| w <= wire);
        i.checked_sub(1).map_or(0, |i| self.writes[i].1)
    }

    /// The sender's number of wire sequence number `wire` seen as a left edge (a cumulative
    /// ACK, the start of a SACK block): the end of write k − 1 is the start of write k.
    pub fn to_sender(&self, wire: u64) -> u64 {
        wire + self.shift_at_wire(wire)
    }

    /// The sender's number of `wire` seen as the end of a block: one past the byte before it.
    fn end_to_sender(&self, wire: u64) -> u64 {
        match wire.checked_sub(1) {
            Some(last) => self.to_sender(last) + 1,
            None => 0,
        }
    }

    /// The wire's number of the sender's `seq`. A number in the gap before a write (only a
    /// zero-window probe's, one below SND.UNA) is taken to the write's first byte.
    pub fn to_wire(&self, seq: u64) -> u64 {
        let i = self.writes.partition_point(|&(w, s)| w + s <= seq);
        let Some(k) = i.checked_sub(1) else { return seq };
        let wire = seq - self.writes[k].1;
        match self.writes.get(k + 1) {
            Some(&(next, _)) => wire.min(next),
            None => wire,
        }
    }

    /// An ACK from the receiver with its cumulative ACK and SACK blocks in the sender's
    /// space.
    pub fn ack_to_sender(&self, seg: &Segment) -> Segment {
        let mut out = *seg;
        out.ack = self.to_sender(seg.ack);
        if !seg.sack.is_empty() {
            let mut blocks = SackBlocks::default();
            for (start, end) in seg.sack.iter() {
                blocks.push((self.to_sender(start), self.end_to_sender(end).max(self.to_sender(start))));
            }
            out.sack = blocks;
        }
        out
    }
}

/// A connection that carries a web user's files (`FlowRuntime::session`).
#[derive(Clone, Debug, Default)]
pub struct Session {
    pub map: SeqMap,
    /// Bytes written to the connection so far (its stream on the wire).
    pub written: u64,
    /// Its files (indexes into the world's `files`), in order.
    pub files: Vec<u32>,
}

impl Session {
    /// The row of the file during which the connection's timeout `id` fired.
    pub fn row_of_timeout(&self, id: u64, files: &[SessionFile]) -> Option<u32> {
        self.files.iter().rev().map(|&k| &files[k as usize]).find(|f| f.from.timeouts <= id).map(|f| f.row)
    }
}

/// One file of a per-session connection: one row of the flows table.
#[derive(Clone, Debug)]
pub struct SessionFile {
    pub name: String,
    pub origin: Origin,
    pub connection: FlowId,
    /// The file's row in the flows table.
    pub row: u32,
    pub start: SimTime,
    pub size: u64,
    /// Where the file starts in the connection's stream on the wire.
    pub offset: u64,
    /// The connection's counters when the file was written.
    pub from: Tally,
    /// When its last byte was acknowledged.
    pub end: Option<SimTime>,
}

/// A connection's counters at one instant, those the flows table reports: a file's row is the
/// difference of two. The means (RTO, RTT) are kept as sums and counts, differenced apart.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub segments_sent: u64,
    pub payload_bytes_sent: u64,
    pub retransmits: u64,
    pub retransmitted_bytes: u64,
    pub timeouts: u64,
    pub syn_timeouts: u64,
    pub fast_retransmits: u64,
    pub undos: u64,
    pub dsacks: u64,
    pub duplicate_bytes: u64,
    pub icmp_drop: u64,
    pub icmp_defer: u64,
    pub icmp_early_timeouts: u64,
    pub icmp_shrinks: u64,
    pub icmp_extensions: u64,
    pub rto_sum_s: f64,
    pub rto_samples: u64,
    pub rtt_sum_s: f64,
    pub rtt_samples: u64,
    pub timeout_idle_s: f64,
    pub ca_acks: u64,
    pub linear_acks: u64,
}

impl Tally {
    /// The counters of `flow`'s endpoints now.
    pub fn of(flow: &FlowRuntime) -> Self {
        let s = &flow.sender.stats;
        Tally {
            segments_sent: s.segments_sent,
            payload_bytes_sent: s.payload_bytes_sent,
            retransmits: s.retransmits,
            retransmitted_bytes: s.retransmitted_bytes,
            timeouts: s.timeouts,
            syn_timeouts: s.syn_timeouts,
            fast_retransmits: s.fast_retransmits,
            undos: s.undos,
            dsacks: s.dsacks_received,
            duplicate_bytes: flow.receiver.stats.duplicate_bytes,
            icmp_drop: s.icmp_drop_received,
            icmp_defer: s.icmp_defer_received,
            icmp_early_timeouts: s.icmp_cases[1],
            icmp_shrinks: s.icmp_cases[2],
            icmp_extensions: s.icmp_extensions,
            rto_sum_s: s.rto_sum_s,
            rto_samples: s.rto_samples,
            rtt_sum_s: s.rtt_sum_s,
            rtt_samples: s.rtt_samples,
            timeout_idle_s: s.timeout_idle_s,
            ca_acks: s.ca_acks,
            linear_acks: s.linear_acks,
        }
    }

    /// What accrued from `earlier` to `self`.
    pub fn since(&self, earlier: &Tally) -> Tally {
        Tally {
            segments_sent: self.segments_sent - earlier.segments_sent,
            payload_bytes_sent: self.payload_bytes_sent - earlier.payload_bytes_sent,
            retransmits: self.retransmits - earlier.retransmits,
            retransmitted_bytes: self.retransmitted_bytes - earlier.retransmitted_bytes,
            timeouts: self.timeouts - earlier.timeouts,
            syn_timeouts: self.syn_timeouts - earlier.syn_timeouts,
            fast_retransmits: self.fast_retransmits - earlier.fast_retransmits,
            undos: self.undos - earlier.undos,
            dsacks: self.dsacks - earlier.dsacks,
            duplicate_bytes: self.duplicate_bytes - earlier.duplicate_bytes,
            icmp_drop: self.icmp_drop - earlier.icmp_drop,
            icmp_defer: self.icmp_defer - earlier.icmp_defer,
            icmp_early_timeouts: self.icmp_early_timeouts - earlier.icmp_early_timeouts,
            icmp_shrinks: self.icmp_shrinks - earlier.icmp_shrinks,
            icmp_extensions: self.icmp_extensions - earlier.icmp_extensions,
            rto_sum_s: self.rto_sum_s - earlier.rto_sum_s,
            rto_samples: self.rto_samples - earlier.rto_samples,
            rtt_sum_s: self.rtt_sum_s - earlier.rtt_sum_s,
            rtt_samples: self.rtt_samples - earlier.rtt_samples,
            timeout_idle_s: self.timeout_idle_s - earlier.timeout_idle_s,
            ca_acks: self.ca_acks - earlier.ca_acks,
            linear_acks: self.linear_acks - earlier.linear_acks,
        }
    }

    /// Of the connection's timeouts `earlier.timeouts..self.timeouts`: those the oracle
    /// found spurious, those the sender declared spurious, and those both did. Judged by
    /// timeout, so a verdict or a detection that comes after the next file began still
    /// counts for the file whose timeout it judges.
    pub fn spurious_since(&self, earlier: &Tally, flow: &FlowRuntime) -> Spurious {
        let verdicts = flow.oracle.verdicts();
        let mut out = Spurious::default();
        for id in earlier.timeouts..self.timeouts.min(verdicts.len() as u64) {
            let (spurious, detected) = (verdicts[id as usize] == Verdict::Spurious, flow.oracle.was_detected(id));
            out.oracle += spurious as u64;
            out.detected += detected as u64;
            out.detected_correct += (spurious && detected) as u64;
        }
        out
    }
}

/// A file's timeouts judged spurious (`Tally::spurious_since`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Spurious {
    pub oracle: u64,
    pub detected: u64,
    pub detected_correct: u64,
}

/// Where a row of the flows table comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowSource {
    /// A connection of its own (a scenario flow, a burst's, a web file's under "per-file").
    Flow(FlowId),
    /// A file of a per-session connection (an index into the world's `files`).
    File(u32),
    /// A datagram flow (a UDP flow, a call), by `FlowId::datagram`.
    Datagram(FlowId),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes of 1000, 3000 and 500 bytes with MSS 1460: the sender puts them at [0, 1000),
    /// [1460, 4460) and [5840, 6340); on the wire they are [0, 1000), [1000, 4000) and
    /// [4000, 4500).
    fn map() -> SeqMap {
        let mut m = SeqMap::default();
        m.push(0, 0);
        m.push(1000, 1460);
        m.push(4000, 5840);
        m
    }

    #[test]
    fn data_maps_to_the_contiguous_wire() {
        let m = map();
        assert_eq!([0, 999, 1460, 2920, 4459, 5840, 6339].map(|s| m.to_wire(s)), [0, 999, 1000, 2460, 3999, 4000, 4499]);
        // The gap before a write (a probe one below SND.UNA) goes to the write's first byte.
        assert_eq!([1000, 1459, 4460, 5839].map(|s| m.to_wire(s)), [1000, 1000, 4000, 4000]);
    }

    #[test]
    fn acks_map_back_to_the_senders_space() {
        let m = map();
        // A cumulative ACK at a write's first byte is that write's start (the end of the
        // previous one, all acknowledged); inside a write it moves with it.
        assert_eq!([0, 999, 1000, 2460, 4000, 4500].map(|w| m.to_sender(w)), [0, 999, 1460, 2920, 5840, 6340]);
        let mut ack = Segment { ack: 1000, ..Default::default() };
        ack.sack.push((2460, 4000)); // the rest of write 1: ends where write 1 ends, not at 5840
        ack.sack.push((500, 1000)); // a DSACK of write 0's tail
        let s = m.ack_to_sender(&ack);
        assert_eq!((s.ack, s.sack.to_vec()), (1460, vec![(2920, 4460), (500, 1000)]));
        for w in [0, 1000, 2460, 4000, 4499] {
            assert_eq!(m.to_wire(m.to_sender(w)), w);
        }
    }

    #[test]
    fn an_empty_map_is_the_identity() {
        let m = SeqMap::default();
        assert_eq!((m.to_wire(1234), m.to_sender(1234)), (1234, 1234));
    }
}
