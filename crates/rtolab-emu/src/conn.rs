//! What the forwarder learns about one kernel connection from its packets: the handshake,
//! every data packet's fate (logged for the spurious-timeout oracle), duplicates delivered,
//! and when the last byte was acknowledged.
//!
//! Sequence numbers are kept relative to the sender's ISN (the first data byte is 0), as
//! in the simulator.

use crate::shared::ConnMeta;
use crate::wire::{unwrap_seq, TcpView};
use rtolab_sim::intervals::IntervalSet;
use rtolab_sim::world::SpuriousOracle;
use rtolab_sim::SimTime;

/// The fate of a forward data packet, in the order the forwarder saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataEvent {
    /// Entered the forwarder at `t`; `retransmission` when below the highest sequence sent.
    Sent { t: SimTime, seq: u64, end: u64, retransmission: bool },
    Arrived { sent_at: SimTime, seq: u64, end: u64 },
    Dropped { sent_at: SimTime },
}

pub struct ConnTrack {
    pub meta: ConnMeta,
    isn: Option<u32>,
    pub syns: u32,
    /// Highest sequence sent + 1 (relative).
    pub highest: u64,
    pub log: Vec<DataEvent>,
    /// Live oracle of the handshake; the data part is replayed from `log` at the end.
    pub oracle: SpuriousOracle,
    delivered: IntervalSet,
    pub duplicate_bytes: u64,
    pub data_segments: u64,
    pub payload_bytes: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    /// When the ACK covering every byte reached the sender.
    pub acked_all_at: Option<SimTime>,
    /// Highest relative ACK delivered to the sender.
    pub acked: u64,
}

impl ConnTrack {
    pub fn new(meta: ConnMeta) -> Self {
        ConnTrack {
            meta,
            isn: None,
            syns: 0,
            highest: 0,
            log: Vec::new(),
            oracle: SpuriousOracle::default(),
            delivered: IntervalSet::default(),
            duplicate_bytes: 0,
            data_segments: 0,
            payload_bytes: 0,
            retransmitted_segments: 0,
            retransmitted_bytes: 0,
            acked_all_at: None,
            acked: 0,
        }
    }

    /// SYN retransmissions: each follows a SYN timeout.
    pub fn syn_timeouts(&self) -> u64 {
        self.syns.saturating_sub(1) as u64
    }

    fn relative(&self, seq: u32) -> Option<u64> {
        let isn = self.isn?;
        let near = self.highest;
        Some(unwrap_seq(near, seq.wrapping_sub(isn).wrapping_sub(1)))
    }

    /// The sender's kernel sent `v` at `t`.
    pub fn sent(&mut self, t: SimTime, v: &TcpView) {
        if v.syn {
            if self.syns > 0 {
                self.oracle.syn_timeout(t);
            }
            self.syns += 1;
            self.isn = Some(v.seq);
            self.oracle.syn_sent();
            return;
        }
        if v.len == 0 {
            return;
        }
        let Some(seq) = self.relative(v.seq) else { return };
        let end = seq + v.len as u64;
        let retransmission = seq < self.highest;
        self.data_segments += 1;
        self.payload_bytes += v.len as u64;
        if retransmission {
            self.retransmitted_segments += 1;
            self.retransmitted_bytes += v.len as u64;
        }
        self.highest = self.highest.max(end);
        self.log.push(DataEvent::Sent { t, seq, end, retransmission });
    }

    fn data_range(&self, v: &TcpView) -> Option<(u64, u64)> {
        let seq = self.relative(v.seq)?;
        Some((seq, seq + v.len as u64))
    }

    pub fn dropped(&mut self, sent_at: SimTime, v: &TcpView) {
        if v.syn {
            self.oracle.syn_dropped(sent_at);
        } else if v.len > 0 && self.isn.is_some() {
            self.log.push(DataEvent::Dropped { sent_at });
        }
    }

    /// `v`, sent at `sent_at`, reached the receiver's kernel.
    pub fn arrived(&mut self, _real: SimTime, sent_at: SimTime, v: &TcpView) {
        if v.syn {
            self.oracle.syn_arrived(sent_at);
            return;
        }
        let Some((seq, end)) = self.data_range(v).filter(|_| v.len > 0) else { return };
        let already = self.delivered.covered_bytes(seq, end);
        self.duplicate_bytes += already;
        self.delivered.insert(seq, end);
        self.log.push(DataEvent::Arrived { sent_at, seq, end });
    }

    /// An ACK from the receiver reached the sender's kernel at `real`.
    pub fn acked(&mut self, real: SimTime, v: &TcpView) {
        let (Some(ack), Some(isn)) = (v.ack, self.isn) else { return };
        let rel = unwrap_seq(self.acked, ack.wrapping_sub(isn).wrapping_sub(1));
        self.acked = self.acked.max(rel);
        if self.acked_all_at.is_none() && self.meta.size.is_some_and(|size| self.acked >= size) {
            self.acked_all_at = Some(real);
        }
    }
}
