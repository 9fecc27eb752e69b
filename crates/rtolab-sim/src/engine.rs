//! The discrete-event core: a priority queue of events ordered by `(time, seq)`.
//!
//! Invariants: `seq` only grows, so events at the same instant run in the order they were
//! scheduled, always — except the timers of Linux's timer wheel (`schedule_wheel_timer`),
//! which run after the other events of their instant, last scheduled first; popped times
//! never decrease (`now` never goes backwards). Events are a
//! compact enum routed by component index, not boxed closures.
//!
//! The queue keeps two queues under one `(time, seq)` order: the network's events (a handful
//! pending, one per link element, but most of the traffic) and the endpoints' timers and
//! flow starts (one or two per flow, rarely due). Popping the earlier of the two heads gives
//! exactly the order of a single heap, while a link event no longer sifts through a heap as
//! deep as the number of flows.
//!
//! The network's few events are kept in a vector sorted latest first, rather than in a heap:
//! popping takes the last element, and a new event (whose `seq` is the greatest so far, so it
//! belongs behind every pending event not later than it) is placed by a short scan from the
//! earliest end. With the handful of events pending this is a few moves where a heap sifts on
//! every push and pop.

use crate::ids::{DirId, FlowId};
use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Which endpoint of a flow a timer belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Sender,
    Receiver,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A link direction finished serialising its current packet.
    TxDone(DirId),
    /// The head of a link direction's propagation pipe reaches the far end.
    Arrive(DirId),
    /// The outcome of the oldest unresolved ARQ attempt on a link direction is known.
    ArqFeedback(DirId),
    /// A cell of the radio network (by index) starts a TTI.
    Tti(u32),
    /// A spike process (by index) starts or ends a spike.
    SpikeStart(u32),
    SpikeEnd(u32),
    /// A flow opens its connection.
    FlowStart(FlowId),
    /// A TCP endpoint's timer; `generation` lazily cancels superseded timers.
    Timer {
        flow: FlowId,
        side: Side,
        generation: u32,
    },
    /// A generator's user (by index) wakes and requests its next transfer (`traffic::User`):
    /// the one application event, whatever the kind of generator.
    UserWake(u32),
    /// The run's stop time.
    Stop,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: SimTime,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    /// Reversed, so that the max-heap pops the earliest `(time, seq)` first.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

#[derive(Debug)]
pub struct EventQueue {
    /// Link, ARQ, spike and stop events, sorted by `(time, seq)`, latest first (the next
    /// event is the last element).
    network: Vec<Entry>,
    /// Timers, flow starts and web users' wake-ups.
    endpoints: BinaryHeap<Entry>,
    next_seq: u64,
    /// The next wheel timer's `seq`: counts down from `WHEEL_SEQ`, above every other event's.
    wheel_seq: u64,
    now: SimTime,
    processed: u64,
}

/// The first wheel timer's `seq` (they count down from here; other events count up from 0).
const WHEEL_SEQ: u64 = u64::MAX;

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue { network: Vec::new(), endpoints: BinaryHeap::new(), next_seq: 0, wheel_seq: WHEEL_SEQ, now: SimTime::ZERO, processed: 0 }
    }
}

impl EventQueue {
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    pub fn pending(&self) -> usize {
        self.network.len() + self.endpoints.len()
    }

    /// Schedules `event` at `time`; a time in the past is clamped to now.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: Event) {
        let time = time.max(self.now);
        let entry = Entry { time, seq: self.next_seq, event };
        match event {
            Event::Timer { .. } | Event::FlowStart(_) | Event::UserWake(_) => self.endpoints.push(entry),
            _ => self.push_network(entry),
        }
        self.next_seq += 1;
    }

    /// Schedules a timer of Linux's timer wheel (`tcp/jiffies.rs`) at `time`, one of its
    /// ticks. The timers a tick expires run last scheduled first: the wheel adds a timer at
    /// the head of its bucket's list and expires a bucket from the head (`kernel/time/timer.c`:
    /// `enqueue_timer`, `expire_timers`). Several flows' loss probes armed within one bucket's
    /// granularity therefore leave in the reverse order of arming.
    #[inline]
    pub fn schedule_wheel_timer(&mut self, time: SimTime, event: Event) {
        let time = time.max(self.now);
        self.endpoints.push(Entry { time, seq: self.wheel_seq, event });
        self.wheel_seq -= 1;
    }

    /// Inserts `entry` (whose `seq` is the greatest so far) ahead of every pending network
    /// event at or before its time, keeping the vector sorted latest first.
    #[inline]
    fn push_network(&mut self, entry: Entry) {
        let v = &mut self.network;
        let mut i = v.len();
        v.push(entry);
        // Shift the earlier events up by one until `entry`'s place is found.
        while i > 0 && v[i - 1].time <= entry.time {
            v[i] = v[i - 1];
            i -= 1;
        }
        v[i] = entry;
    }

    /// The next event, advancing `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, Event)> {
        // `Entry`'s order is reversed: the greater entry is the earlier event.
        let from_network = match (self.network.last(), self.endpoints.peek()) {
            (Some(n), Some(e)) => n > e,
            (Some(_), None) => true,
            (None, _) => false,
        };
        let e = if from_network { self.network.pop() } else { self.endpoints.pop() }?;
        debug_assert!(e.time >= self.now, "time went backwards");
        self.now = e.time;
        self.processed += 1;
        Some((e.time, e.event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        match (self.network.last(), self.endpoints.peek()) {
            (Some(n), Some(e)) => Some(n.time.min(e.time)),
            (n, e) => n.or(e).map(|x| x.time),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_time_events_run_in_scheduling_order() {
        let mut q = EventQueue::default();
        q.schedule(SimTime(5), Event::FlowStart(FlowId(1)));
        q.schedule(SimTime(3), Event::FlowStart(FlowId(0)));
        q.schedule(SimTime(5), Event::FlowStart(FlowId(2)));
        q.schedule(SimTime(5), Event::Stop);
        let order: Vec<Event> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec![Event::FlowStart(FlowId(0)), Event::FlowStart(FlowId(1)), Event::FlowStart(FlowId(2)), Event::Stop]);
    }

    /// Linux's timer wheel expires a bucket from the head of its list, where each timer was
    /// added: wheel timers of one instant run after the other events of that instant, last
    /// scheduled first.
    #[test]
    fn wheel_timers_of_one_instant_run_last_scheduled_first() {
        let mut q = EventQueue::default();
        let timer = |f: u32| Event::Timer { flow: FlowId(f), side: Side::Sender, generation: 0 };
        q.schedule_wheel_timer(SimTime(8), timer(0));
        q.schedule_wheel_timer(SimTime(8), timer(1));
        q.schedule(SimTime(8), Event::FlowStart(FlowId(5)));
        q.schedule_wheel_timer(SimTime(4), timer(2));
        q.schedule_wheel_timer(SimTime(8), timer(3));
        let order: Vec<Event> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec![timer(2), Event::FlowStart(FlowId(5)), timer(3), timer(1), timer(0)]);
    }

    /// Network and endpoint events interleave by (time, seq) exactly as one heap would.
    #[test]
    fn both_heaps_keep_one_order() {
        let mut q = EventQueue::default();
        let timer = |f| Event::Timer { flow: FlowId(f), side: Side::Sender, generation: 0 };
        q.schedule(SimTime(5), timer(0));
        q.schedule(SimTime(5), Event::TxDone(DirId(0)));
        q.schedule(SimTime(3), Event::Arrive(DirId(1)));
        q.schedule(SimTime(5), timer(1));
        q.schedule(SimTime(4), Event::FlowStart(FlowId(2)));
        let order: Vec<Event> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec![Event::Arrive(DirId(1)), Event::FlowStart(FlowId(2)), timer(0), Event::TxDone(DirId(0)), timer(1)]);
    }

    proptest::proptest! {
        /// Any interleaving of schedules and pops gives the order of one heap over
        /// `(time, seq)`, whichever queue each event lives in.
        #[test]
        fn pops_in_time_then_scheduling_order(ops in proptest::collection::vec((0u64..20, 0u8..3, proptest::bool::ANY), 1..200)) {
            let mut q = EventQueue::default();
            let mut reference = BinaryHeap::new();
            let mut seq = 0u64;
            for (dt, kind, pop) in ops {
                if pop {
                    let want = reference.pop().map(|e: Entry| (e.time, e.event));
                    proptest::prop_assert_eq!(q.pop(), want);
                    continue;
                }
                let event = match kind {
                    0 => Event::TxDone(DirId(seq as u32)),
                    1 => Event::Arrive(DirId(seq as u32)),
                    _ => Event::Timer { flow: FlowId(seq as u32), side: Side::Sender, generation: 0 },
                };
                let time = SimTime(q.now().0 + dt);
                q.schedule(time, event);
                reference.push(Entry { time, seq, event });
                seq += 1;
            }
            while let Some(e) = reference.pop() {
                proptest::prop_assert_eq!(q.pop(), Some((e.time, e.event)));
            }
            proptest::prop_assert_eq!(q.pop(), None);
        }
    }

    #[test]
    fn past_events_are_clamped_to_now() {
        let mut q = EventQueue::default();
        q.schedule(SimTime(10), Event::Stop);
        q.pop();
        q.schedule(SimTime(3), Event::FlowStart(FlowId(0)));
        assert_eq!(q.pop().unwrap().0, SimTime(10));
    }
}
