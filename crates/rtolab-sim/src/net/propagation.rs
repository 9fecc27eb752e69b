//! Propagation: a fixed one-way delay, as a FIFO of packets on the wire. A delay spike that
//! holds the wire (`hold = "all"`) keeps every packet at the far end until it ends; packets
//! whose delay is over then leave back to back (ns-2 `Delayer` without its queue hold).
//!
//! Engine rule: at most one pending arrival event, for the head of the FIFO; the delay is
//! constant, so arrivals leave in the order they entered.

use super::ids::{DirId, PacketId};
use crate::engine::{Event, EventQueue};
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

pub struct Propagation {
    pub delay: SimDuration,
    pipe: VecDeque<(SimTime, PacketId)>,
    arrival_pending: bool,
    held: bool,
}

impl Propagation {
    pub fn new(delay: SimDuration) -> Self {
        Propagation { delay, pipe: VecDeque::new(), arrival_pending: false, held: false }
    }

    /// Packets on the wire (held ones included).
    pub fn in_flight(&self) -> usize {
        self.pipe.len()
    }

    /// `pkt` is on the wire from `now`.
    #[inline]
    pub fn send(&mut self, now: SimTime, pkt: PacketId, dir: DirId, events: &mut EventQueue) {
        self.pipe.push_back((now + self.delay, pkt));
        self.arm(dir, events);
    }

    fn arm(&mut self, dir: DirId, events: &mut EventQueue) {
        if !self.arrival_pending && !self.held {
            if let Some(&(t, _)) = self.pipe.front() {
                self.arrival_pending = true;
                events.schedule(t, Event::Arrive(dir));
            }
        }
    }

    /// The arrival event fired: packets whose propagation ended by `now` leave into `out`.
    pub fn on_arrival(&mut self, now: SimTime, dir: DirId, events: &mut EventQueue, out: &mut Vec<PacketId>) {
        self.arrival_pending = false;
        if self.held {
            return;
        }
        self.release_due(now, out);
        self.arm(dir, events);
    }

    fn release_due(&mut self, now: SimTime, out: &mut Vec<PacketId>) {
        while let Some(&(t, pkt)) = self.pipe.front() {
            if t > now {
                break;
            }
            self.pipe.pop_front();
            out.push(pkt);
        }
    }

    /// A spike that holds the wire begins.
    pub fn hold(&mut self) {
        self.held = true;
    }

    /// A spike (of either kind) ends: what is due leaves now, the rest at its time.
    pub fn release(&mut self, now: SimTime, dir: DirId, events: &mut EventQueue, out: &mut Vec<PacketId>) {
        self.held = false;
        self.release_due(now, out);
        self.arm(dir, events);
    }
}
