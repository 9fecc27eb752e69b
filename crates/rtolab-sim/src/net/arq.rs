//! Link-layer ARQ at the sending end of a link direction (paper 001 Sec. II–III): a buffer
//! of `window` frames (one packet per frame, the paper's large-MTU simplification) filled
//! from the queue; selective repeat over the channel; a frame whose `attempts`-th attempt
//! fails is discarded and the whole ARQ buffer flushed, so TCP never competes with the link
//! layer's retransmissions; delivery to the next hop in order (or as frames succeed).
//!
//! Service order: a frame waiting for retransmission goes before a frame never sent (3GPP TS
//! 25.322 11.3.2: AMD PDUs to be retransmitted have priority over new ones). An attempt's
//! outcome is known `feedback_delay` after its transmission ends (0 by default: at once).
//!
//! Invariants: at most `window` frames; at most one frame is being sent; the outcomes of
//! attempts are learnt in the order they were sent (a FIFO with one pending event, the
//! engine rule); a stale outcome (its frame was flushed meanwhile) is ignored, matched by the
//! frame's own sequence number, never by a recycled packet id.

use crate::tcp::icmp_signal::IcmpSignal;
use super::ids::{DirId, PacketId};
use super::notices::{Dropper, LinkNotices};
use crate::engine::{Event, EventQueue};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

/// Settings of one direction's ARQ, resolved from the spec.
#[derive(Clone, Debug, PartialEq)]
pub struct ArqConfig {
    pub window: usize,
    pub attempts: u32,
    pub in_order: bool,
    pub feedback_delay: SimDuration,
    /// Send ICMP DROP on a flush and ICMP DEFER on a retry's success or a backlog.
    pub icmp: bool,
    /// Packets waiting (queue and ARQ buffer) at which an arrival triggers ICMP DEFER.
    pub defer_backlog: usize,
}

/// Counters for the `links` table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArqStats {
    pub attempts: u64,
    /// Frames delivered across the channel.
    pub successes: u64,
    /// Frames dropped: the ones that failed every attempt and the ones flushed with them.
    pub discards: u64,
    /// Buffer flushes (one per frame that failed every attempt).
    pub flushes: u64,
    /// Frames that succeeded after at least one failed attempt.
    pub retry_successes: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// Waits for its first or next attempt.
    Ready,
    Sending,
    /// Sent; its outcome is not known yet.
    Awaiting,
    /// Reached the far end; waits there for the frames before it (in-order delivery).
    Received,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    seq: u64,
    pkt: PacketId,
    bytes: u32,
    attempts: u32,
    status: Status,
}

pub struct Arq {
    cfg: ArqConfig,
    frames: VecDeque<Frame>,
    next_seq: u64,
    /// (when known, frame seq, success) for attempts awaiting their outcome.
    feedback: VecDeque<(SimTime, u64, bool)>,
    feedback_pending: bool,
    pub stats: ArqStats,
}

impl Arq {
    pub fn new(cfg: ArqConfig) -> Self {
        Arq { cfg, frames: VecDeque::new(), next_seq: 0, feedback: VecDeque::new(), feedback_pending: false, stats: ArqStats::default() }
    }

    pub fn config(&self) -> &ArqConfig {
        &self.cfg
    }

    #[inline]
    pub fn has_room(&self) -> bool {
        self.frames.len() < self.cfg.window
    }

    /// Frames not yet across the channel.
    pub fn waiting(&self) -> usize {
        self.frames.iter().filter(|f| f.status != Status::Received).count()
    }

    /// Packets in the buffer, across the channel or not (the one being sent included).
    pub fn held(&self) -> usize {
        self.frames.len()
    }

    /// A packet from the queue enters the buffer.
    pub fn admit(&mut self, pkt: PacketId, bytes: u32) {
        debug_assert!(self.has_room());
        self.frames.push_back(Frame { seq: self.next_seq, pkt, bytes, attempts: 0, status: Status::Ready });
        self.next_seq += 1;
    }

    /// The frame to send next, marked as being sent: the oldest awaiting retransmission, else
    /// the oldest never sent.
    pub fn next_frame(&mut self) -> Option<(PacketId, u32)> {
        let pick = self
            .frames
            .iter()
            .position(|f| f.status == Status::Ready && f.attempts > 0)
            .or_else(|| self.frames.iter().position(|f| f.status == Status::Ready))?;
        let f = &mut self.frames[pick];
        f.status = Status::Sending;
        Some((f.pkt, f.bytes))
    }

    /// The frame being sent has been serialised at `now`; the channel `lost` it or not.
    pub fn attempt_done(&mut self, now: SimTime, lost: bool, dir: DirId, events: &mut EventQueue, to_wire: &mut Vec<PacketId>, notices: &mut LinkNotices) {
        let Some(i) = self.frames.iter().position(|f| f.status == Status::Sending) else {
            return;
        };
        self.stats.attempts += 1;
        let f = &mut self.frames[i];
        f.attempts += 1;
        if self.cfg.feedback_delay == SimDuration::ZERO {
            self.resolve(i, !lost, to_wire, notices);
        } else {
            f.status = Status::Awaiting;
            self.feedback.push_back((now + self.cfg.feedback_delay, f.seq, !lost));
            self.arm(dir, events);
        }
    }

    fn arm(&mut self, dir: DirId, events: &mut EventQueue) {
        if !self.feedback_pending {
            if let Some(&(t, _, _)) = self.feedback.front() {
                self.feedback_pending = true;
                events.schedule(t, Event::ArqFeedback(dir));
            }
        }
    }

    /// The feedback event fired: outcomes due by `now` take effect, oldest first.
    pub fn on_feedback(&mut self, now: SimTime, dir: DirId, events: &mut EventQueue, to_wire: &mut Vec<PacketId>, notices: &mut LinkNotices) {
        self.feedback_pending = false;
        while let Some(&(t, seq, ok)) = self.feedback.front() {
            if t > now {
                break;
            }
            self.feedback.pop_front();
            if let Some(i) = self.frames.iter().position(|f| f.seq == seq && f.status == Status::Awaiting) {
                self.resolve(i, ok, to_wire, notices);
            }
        }
        self.arm(dir, events);
    }

    fn resolve(&mut self, i: usize, ok: bool, to_wire: &mut Vec<PacketId>, notices: &mut LinkNotices) {
        let f = &mut self.frames[i];
        if ok {
            f.status = Status::Received;
            self.stats.successes += 1;
            if f.attempts > 1 {
                self.stats.retry_successes += 1;
                if self.cfg.icmp {
                    notices.signals.push((f.pkt, IcmpSignal::Defer));
                }
            }
        } else if f.attempts < self.cfg.attempts {
            f.status = Status::Ready;
        } else {
            self.flush(i, notices);
        }
        self.deliver(to_wire);
    }

    /// Frame `i` failed its last attempt: it and every frame not yet across are dropped, except
    /// one being serialised (its outcome arrives later and is judged then).
    fn flush(&mut self, i: usize, notices: &mut LinkNotices) {
        self.stats.flushes += 1;
        if self.cfg.icmp {
            notices.signals.push((self.frames[i].pkt, IcmpSignal::Drop));
        }
        // The failed frame itself may still be marked as being sent (outcome known at once).
        self.frames[i].status = Status::Ready;
        let before = self.frames.len();
        self.frames.retain(|f| {
            let drop = matches!(f.status, Status::Ready | Status::Awaiting);
            if drop {
                notices.dropped.push((f.pkt, Dropper::Arq));
            }
            !drop
        });
        self.stats.discards += (before - self.frames.len()) as u64;
    }

    /// Frames across the channel leave for the wire: the received prefix (in order), or all
    /// received frames.
    fn deliver(&mut self, to_wire: &mut Vec<PacketId>) {
        if self.cfg.in_order {
            while self.frames.front().is_some_and(|f| f.status == Status::Received) {
                to_wire.push(self.frames.pop_front().expect("front exists").pkt);
            }
        } else {
            self.frames.retain(|f| {
                let done = f.status == Status::Received;
                if done {
                    to_wire.push(f.pkt);
                }
                !done
            });
        }
    }
}
