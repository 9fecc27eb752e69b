//! The FIN of a sized transfer whose application writes everything and then closes (Linux
//! `tcp_send_fin`): if the last data segment has not left when the application closes, the
//! FIN rides on it; if all the data left with the write, the FIN goes in a segment of its own
//! (no payload, one sequence number past the data). A lone FIN is then the last segment in
//! flight, so the tail loss probe resends it alone (`tcp_send_loss_probe` takes the last
//! buffer of the retransmission queue), and a SACK of it drives RACK with its own send time
//! and retransmission flag (`tcp_rack_advance` ignores a retransmission whose RTT is below the
//! minimum RTT). A go-back-N retransmission of the last data segment takes the FIN along
//! (`tcp_retrans_try_collapse` merges the FIN buffer into it), and from then on it rides.
//!
//! The simulator's sequence numbers count data bytes only: ACK numbers never cover the FIN,
//! and the receiver reports an out-of-order FIN as the SACK block (end, end + 1).
//!
//! Invariant: `Fin::Alone` only while every data byte has been sent once and the last data
//! segment was not resent since the FIN left.

use super::TcpSender;
use crate::tcp::segment::{ts_now, Segment, FLAG_ACK, FLAG_FIN};
use crate::time::SimTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Fin {
    /// The application has not closed yet (its write is being sent).
    Open,
    /// Closed with data unsent, or the FIN was merged into a retransmission: it rides on the
    /// last data segment.
    Rides,
    /// A segment of its own, last sent at `sent_at`; `resent` after a probe resent it.
    Alone { sent_at: SimTime, resent: bool, sacked: bool },
}

impl TcpSender {
    /// Whether the segment ending at `end` carries the FIN.
    pub(super) fn fin_rides(&self, end: u64) -> bool {
        self.cfg.size == Some(end) && (!self.cfg.lone_fin || self.fin == Fin::Rides)
    }

    /// The application closes right after its write: a lone FIN when every byte has left.
    pub(super) fn close_after_write(&mut self, now: SimTime, out: &mut Vec<Segment>) {
        if self.fin != Fin::Open {
            return;
        }
        self.fin = Fin::Rides;
        if self.cfg.lone_fin && self.cfg.size.is_some_and(|size| size > 0 && self.snd_max == size) {
            self.send_fin(now, false, out);
        }
    }

    fn send_fin(&mut self, now: SimTime, resent: bool, out: &mut Vec<Segment>) {
        let ts_val = if self.cfg.timestamps { ts_now(now) } else { 0 };
        out.push(Segment { flags: FLAG_ACK | FLAG_FIN, seq: self.snd_max, len: 0, ts_val, ..Default::default() });
        self.fin = Fin::Alone { sent_at: now, resent, sacked: false };
        self.stats.segments_sent += 1;
        self.last_send = now;
    }

    /// The loss probe's choice when no new data can go: the lone FIN, if it is the last
    /// segment out and not SACKed. Returns whether it was resent.
    pub(super) fn probe_with_fin(&mut self, now: SimTime, out: &mut Vec<Segment>) -> bool {
        if !matches!(self.fin, Fin::Alone { sacked: false, .. }) {
            return false;
        }
        self.stats.retransmits += 1;
        self.send_fin(now, true, out);
        true
    }

    /// The last data segment is being resent: the FIN goes with it from now on.
    pub(super) fn fin_merges_on_resend(&mut self, end: u64) {
        if self.cfg.size == Some(end) && matches!(self.fin, Fin::Alone { .. }) {
            self.fin = Fin::Rides;
        }
    }

    /// A SACK block reaching past the data covers the lone FIN: RACK learns of its delivery
    /// (once, as `tcp_sacktag_one` marks a buffer once).
    pub(super) fn fin_sacked(&mut self, now: SimTime, block_end: u64) {
        let Fin::Alone { sent_at, resent, sacked: false } = self.fin else { return };
        if block_end <= self.snd_max {
            return;
        }
        self.fin = Fin::Alone { sent_at, resent, sacked: true };
        if self.tracks_sends() {
            self.rack.on_delivered_at(sent_at, self.snd_max + 1, resent, now);
        }
    }
}
