//! The simulation world: links, flows, generators and the event loop that connects them.
//!
//! Packets leave a TCP endpoint into the first link direction of their route, move from link
//! to link, and are handed to the peer endpoint at the end; the world frees them there or
//! where they are dropped. The world, not TCP, knows which copies were lost, so it keeps the
//! spurious-timeout oracle and checks delivery.

mod build;
mod configs;
mod flow;
mod ledger;
pub mod plan;
mod report;
mod route;
pub mod traffic;

pub use flow::{DeliveryCheck, Origin, SpuriousOracle, Verdict};

use crate::control::{RunControl, POLL_EVERY};
use crate::engine::{Event, EventQueue, Side};
use crate::net::{DirId, FlowId, IcmpSignal, LinkDir, Offer, Packet, PacketArena, PacketId, Payload, SpikeProcess, Way};
use crate::pcap::Capture;
use crate::prefetch;
use crate::radio::RadioNetwork;
use crate::results::{RunResult, SeriesMetric, SeriesTable};
use crate::tcp::{Segment, SenderNote};
use crate::time::SimTime;
use configs::SenderConfigs;
use flow::FlowRuntime;
use ledger::{FlowCount, Ledger};
use thiserror::Error;
use traffic::{WebGenerator, WebUser};

/// A run that could not complete.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SimError {
    #[error("run exceeded its budget of {max} events at t = {at}; raise limits.max_events or shorten the run")]
    EventBudget { max: u64, at: SimTime },
    #[error("run exceeded its time budget of {max} without finishing every flow; set `duration` or raise limits.max_time")]
    TimeBudget { max: SimTime },
    #[error("invariant violated in flow {flow:?}: {message}")]
    Invariant { flow: String, message: String },
    #[error("interrupted at t = {at}")]
    Interrupted { at: SimTime },
}

/// Flows from which arrivals prefetch their flow's state (`prefetch_next_arrivals`).
const PREFETCH_FROM_FLOWS: usize = 64;
/// Lines of a flow every packet reaching an endpoint touches (`FlowRuntime`'s layout).
const FLOW_HOT_LINES: usize = 5;
/// Lines of the receiver a data segment touches, of the sender an ACK touches.
const RECEIVER_HOT_LINES: usize = 2;
const SENDER_HOT_LINES: usize = 4;

pub struct Simulation {
    scenario_name: String,
    seed: u64,
    events: EventQueue,
    links: Vec<LinkDir>,
    /// The links table covers the scenario's links and the radio's wired path, not the
    /// users' uplinks (the directions from this index on).
    reported_links: usize,
    radio: Option<RadioNetwork>,
    flows: Vec<FlowRuntime>,
    packets: PacketArena,
    spikes: Vec<SpikeProcess>,
    web_users: Vec<WebUser>,
    web_specs: Vec<WebGenerator>,
    /// Sender configurations shared by the flows that have equal ones.
    configs: SenderConfigs,
    captures: Vec<Option<Capture>>,
    stop_at: Option<SimTime>,
    max_events: u64,
    max_time: SimTime,
    flow_series: [bool; 4],
    record_delay: bool,
    series: SeriesTable,
    completed: usize,
    data_packets: u64,
    /// Packet conservation counts, checked when the run ends.
    ledger: Ledger,
    /// Scratch buffers reused across events.
    segments: Vec<Segment>,
    arrivals: Vec<PacketId>,
    error: Option<SimError>,
}

impl Simulation {
    /// Runs to the stop time (or until every flow is done) and returns the tables.
    pub fn run(self) -> Result<RunResult, SimError> {
        self.run_controlled(&RunControl::default())
    }

    /// `run`, publishing progress to `control` and stopping when it is interrupted (polled
    /// every `POLL_EVERY` events).
    pub fn run_controlled(mut self, control: &RunControl) -> Result<RunResult, SimError> {
        let end = loop {
            let Some((now, event)) = self.events.pop() else {
                break self.events.now();
            };
            if event == Event::Stop {
                break now;
            }
            self.dispatch(now, event);
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            if self.events.processed() % POLL_EVERY == 0 && control.poll(now, self.events.processed()) {
                return Err(SimError::Interrupted { at: now });
            }
            if self.events.processed() > self.max_events {
                return Err(SimError::EventBudget { max: self.max_events, at: now });
            }
            if self.stop_at.is_none() {
                if self.completed == self.flows.len() && self.web_users.is_empty() {
                    break now;
                }
                if now > self.max_time {
                    return Err(SimError::TimeBudget { max: self.max_time });
                }
            }
        };
        self.check_conservation()?;
        Ok(self.report(end))
    }

    /// Packet conservation (see `ledger.rs`) at the end of a run.
    fn check_conservation(&self) -> Result<(), SimError> {
        let flows = &self.flows;
        let counts: Vec<FlowCount> = flows.iter().map(|f| f.ledger).collect();
        let radio_inside = self.radio.as_ref().map_or(0, |r| r.packets_inside());
        self.ledger
            .check(&self.links, radio_inside, &self.packets, &counts, |i| flows.get(i).map_or_else(|| format!("#{i}"), |f| f.name.clone()))
            .map_err(|(flow, message)| SimError::Invariant { flow, message })
    }

    fn dispatch(&mut self, now: SimTime, event: Event) {
        match event {
            Event::TxDone(d) => {
                if let Some(lost) = self.links[d.index()].on_tx_done(now, &mut self.events) {
                    self.ledger.dropped_at(d.index(), 1);
                    self.drop_packet(lost);
                }
                self.take_notices(now, d);
            }
            Event::Arrive(d) => {
                let mut arrivals = std::mem::take(&mut self.arrivals);
                self.links[d.index()].on_arrival(now, &mut self.events, &mut arrivals);
                self.ledger.left(d.index(), arrivals.len());
                for p in arrivals.drain(..) {
                    self.forward(now, p);
                }
                self.arrivals = arrivals;
                self.prefetch_next_arrivals(d);
            }
            Event::ArqFeedback(d) => {
                self.links[d.index()].on_feedback(now, &mut self.events);
                self.take_notices(now, d);
            }
            Event::Tti(c) => self.tti(now, c),
            Event::SpikeStart(i) => self.spike_start(now, i),
            Event::SpikeEnd(i) => self.spike_end(now, i),
            Event::FlowStart(f) => {
                if let Some(ue) = self.flows[f.index()].ue {
                    self.relocate(now, ue);
                }
                let flow = &mut self.flows[f.index()];
                flow.started = true;
                let mut out = std::mem::take(&mut self.segments);
                flow.sender.open(now, &mut out);
                self.after_endpoint(now, f, Side::Sender, out);
            }
            Event::Timer { flow, side, generation } => self.timer(now, flow, side, generation),
            Event::UserWake(u) => self.start_web_file(now, u),
            Event::Stop => {}
        }
    }

    /// Warms the cache for the packets about to leave direction `d`'s wire: the slot of the
    /// third in line, and the state of the second one's flow (whose slot the previous call
    /// warmed): the flow's own lines and the hot lines of the endpoint it is heading for.
    /// With thousands of flows every arrival finds its flow out of cache; an arrival later,
    /// when it is its turn, these loads are done (one arrival ahead measured a little slower
    /// than two at 40 000 flows). Not worth its instructions with few flows (all in cache);
    /// no effect on results.
    #[inline]
    fn prefetch_next_arrivals(&self, d: DirId) {
        if self.flows.len() < PREFETCH_FROM_FLOWS {
            return;
        }
        let link = &self.links[d.index()];
        if let Some(after) = link.upcoming_arrival(2) {
            self.packets.prefetch(after);
        }
        if let Some(next) = link.upcoming_arrival(1) {
            let p = self.packets.get(next);
            let flow = &self.flows[p.flow.index()];
            prefetch::lines(flow, FLOW_HOT_LINES);
            match p.way {
                Way::Forward => prefetch::lines(&flow.receiver, RECEIVER_HOT_LINES),
                Way::Reverse => prefetch::lines(&flow.sender, SENDER_HOT_LINES),
            }
        }
    }

    /// Acts on what link direction `dir` noted besides single drops: control messages first
    /// (they name packets that may be dropped in the same batch), then the drops.
    #[inline(always)]
    fn take_notices(&mut self, now: SimTime, dir: DirId) {
        if self.links[dir.index()].has_notices() {
            self.act_on_notices(now, dir);
        }
    }

    #[cold]
    #[inline(never)]
    fn act_on_notices(&mut self, now: SimTime, dir: DirId) {
        let mut notices = self.links[dir.index()].take_notices();
        let mut sent: Vec<(FlowId, IcmpSignal)> = Vec::new();
        for &(pkt, signal) in &notices.signals {
            let flow = self.packets.get(pkt).flow;
            // One message per flow and kind for one event (a flush drops a whole buffer).
            if !sent.contains(&(flow, signal)) {
                sent.push((flow, signal));
                self.send_signal(now, dir, pkt, signal);
            }
        }
        self.ledger.dropped_at(dir.index(), notices.dropped.len());
        for &p in &notices.dropped {
            self.drop_packet(p);
        }
        notices.signals.clear();
        notices.dropped.clear();
        self.links[dir.index()].return_notices(notices);
    }

    /// A cell's TTI: the packets it hands over reach their users.
    fn tti(&mut self, now: SimTime, c: u32) {
        let mut arrivals = std::mem::take(&mut self.arrivals);
        if let Some(radio) = &mut self.radio {
            radio.on_tti(now, c as usize, &mut self.events, &mut arrivals);
        }
        self.ledger.left_radio(arrivals.len());
        for p in arrivals.drain(..) {
            self.deliver(now, p);
        }
        self.arrivals = arrivals;
    }

    /// Mobile user `ue` begins a new transfer somewhere else; what its old buffer held is
    /// dropped.
    fn relocate(&mut self, now: SimTime, ue: u32) {
        let mut flushed = Vec::new();
        if let Some(radio) = &mut self.radio {
            radio.relocate(now, ue, &mut flushed);
        }
        self.ledger.dropped_in_radio(flushed.len());
        for p in flushed {
            self.drop_packet(p);
        }
    }

    fn spike_start(&mut self, now: SimTime, i: u32) {
        self.spikes[i as usize].begin(i, now, &mut self.links, &mut self.events);
    }

    fn spike_end(&mut self, now: SimTime, i: u32) {
        let mut arrivals = std::mem::take(&mut self.arrivals);
        for d in self.spikes[i as usize].dirs().collect::<Vec<_>>() {
            self.links[d].release(now, &mut self.events, &mut arrivals);
            self.ledger.left(d, arrivals.len());
            for p in arrivals.drain(..) {
                self.forward(now, p);
            }
        }
        self.arrivals = arrivals;
        if let Some(t) = self.spikes[i as usize].next_start(now) {
            self.events.schedule(t, Event::SpikeStart(i));
        }
    }

    fn timer(&mut self, now: SimTime, f: FlowId, side: Side, generation: u32) {
        let k = side as usize;
        let flow = &mut self.flows[f.index()];
        if flow.timer_generation[k] != generation {
            return; // superseded
        }
        flow.timer_at[k] = None;
        let mut out = std::mem::take(&mut self.segments);
        match side {
            Side::Sender if flow.sender.next_wakeup().is_some_and(|t| t <= now) => flow.sender.on_timer(now, &mut out),
            Side::Receiver if flow.receiver.next_wakeup().is_some_and(|t| t <= now) => flow.receiver.on_timer(now, &mut out),
            _ => {}
        }
        self.after_endpoint(now, f, side, out);
    }

    /// Sends what an endpoint produced, handles its notes, re-arms its timer and records
    /// series. `out` is the scratch buffer, returned to `self.segments`.
    fn after_endpoint(&mut self, now: SimTime, f: FlowId, side: Side, mut out: Vec<Segment>) {
        // Notes first: the oracle judges a timeout by the packets in the network before its
        // retransmission leaves.
        if side == Side::Sender && self.flows[f.index()].sender.has_notes() {
            let notes: Vec<SenderNote> = self.flows[f.index()].sender.drain_notes().collect();
            for note in notes {
                let flow = &mut self.flows[f.index()];
                match note {
                    SenderNote::Timeout { seq, id } => {
                        flow.oracle.timeout(id, seq, now);
                        flow.oracle.prune_below(flow.sender.snd_una());
                    }
                    SenderNote::SynTimeout => flow.oracle.syn_timeout(now),
                    SenderNote::SpuriousDetected { first, last } => flow.oracle.detected(first, last),
                    SenderNote::Completed => self.flow_completed(now, f),
                }
            }
        }
        for seg in out.drain(..) {
            self.emit(now, f, side, seg);
        }
        self.segments = out;
        if side == Side::Sender {
            self.record_flow_series(now, f);
        }
        self.sync_timer(f, side);
    }

    fn sync_timer(&mut self, f: FlowId, side: Side) {
        let k = side as usize;
        let flow = &mut self.flows[f.index()];
        let want = match side {
            Side::Sender => flow.sender.next_wakeup(),
            Side::Receiver => flow.receiver.next_wakeup(),
        };
        // Keep an earlier pending event (it re-arms itself when it fires early); schedule a
        // new one only when the deadline moved earlier or none is pending.
        if let Some(t) = want {
            if flow.timer_at[k].is_none_or(|pending| t < pending) {
                flow.timer_generation[k] = flow.timer_generation[k].wrapping_add(1);
                flow.timer_at[k] = Some(t);
                let generation = flow.timer_generation[k];
                self.events.schedule(t, Event::Timer { flow: f, side, generation });
            }
        }
    }

    fn emit(&mut self, now: SimTime, f: FlowId, side: Side, segment: Segment) {
        let flow = &mut self.flows[f.index()];
        let (way, first_dir) = match side {
            Side::Sender => (Way::Forward, flow.forward[0]),
            Side::Receiver => (Way::Reverse, flow.reverse[0]),
        };
        if side == Side::Sender {
            if segment.is_syn() {
                flow.oracle.syn_sent();
            } else if segment.len > 0 {
                flow.oracle.data_sent(now);
                self.data_packets += 1;
            }
        }
        let packet = Packet::segment(f, way, segment, now);
        self.ledger.allocated(&packet, &mut flow.ledger);
        let id = self.packets.alloc(packet);
        self.offer(now, first_dir, id);
    }

    /// A control message about packet `about`, which is at link direction `dir`, leaves from
    /// that element's position toward the flow's sender: back over the reverse directions of
    /// the links before it (a forward packet), or on along the reverse route (a reverse one).
    fn send_signal(&mut self, now: SimTime, dir: DirId, about: PacketId, signal: IcmpSignal) {
        let p = self.packets.get(about);
        let flow = &self.flows[p.flow.index()];
        let hops = flow.reverse.len();
        let start = match p.way {
            Way::Forward => hops - flow.forward.iter().position(|&d| d == dir).unwrap_or(p.hop as usize),
            Way::Reverse => p.hop as usize,
        };
        let f = p.flow;
        let packet = Packet::control(f, start as u16, signal, now);
        if start >= hops {
            self.deliver_signal(now, f, signal);
            return;
        }
        let first = self.flows[f.index()].reverse[start];
        self.ledger.allocated(&packet, &mut self.flows[f.index()].ledger);
        let id = self.packets.alloc(packet);
        self.offer(now, first, id);
    }

    fn deliver_signal(&mut self, now: SimTime, f: FlowId, signal: IcmpSignal) {
        let mut out = std::mem::take(&mut self.segments);
        self.flows[f.index()].sender.on_icmp(now, signal, &mut out);
        self.after_endpoint(now, f, Side::Sender, out);
    }

    fn offer(&mut self, now: SimTime, dir: DirId, id: PacketId) {
        let p = self.packets.get(id);
        if let Some(c) = &mut self.captures[dir.index()] {
            c.record(now, p);
        }
        let bytes = p.wire_bytes();
        self.ledger.offered_to(dir.index());
        if self.links[dir.index()].offer(now, id, bytes, &mut self.events) == Offer::Dropped {
            self.ledger.dropped_at(dir.index(), 1);
            self.drop_packet(id);
        }
        self.take_notices(now, dir);
    }

    fn drop_packet(&mut self, id: PacketId) {
        let p = self.packets.get(id);
        self.ledger.dropped(p, &mut self.flows[p.flow.index()].ledger);
        if let (Way::Forward, Payload::Segment(s)) = (p.way, p.payload()) {
            let oracle = &mut self.flows[p.flow.index()].oracle;
            if s.is_syn() {
                oracle.syn_dropped(p.sent_at);
            } else if s.len > 0 {
                oracle.data_dropped(p.sent_at);
            }
        }
        self.packets.free(id);
    }

    /// A packet left a link direction: on to the next hop or to its endpoint.
    fn forward(&mut self, now: SimTime, id: PacketId) {
        let p = self.packets.get_mut(id);
        let flow = &self.flows[p.flow.index()];
        let route = if p.way == Way::Forward { &flow.forward } else { &flow.reverse };
        let next = p.hop as usize + 1;
        if next < route.len() {
            p.hop = next as u16;
            let dir = route[next];
            self.offer(now, dir, id);
            return;
        }
        if let (Some(ue), Some(radio)) = (flow.ue.filter(|_| p.way == flow.radio_way), &mut self.radio) {
            let bytes = p.wire_bytes();
            self.ledger.offered_to_radio();
            if radio.offer(now, ue, id, bytes, &mut self.events) == Offer::Dropped {
                self.ledger.dropped_in_radio(1);
                self.drop_packet(id);
            }
            return;
        }
        self.deliver(now, id);
    }

    /// A packet reached the endpoint at the end of its route: the receiver (data) or the
    /// sender (ACKs, control messages).
    ///
    /// The endpoint reads the segment in place (no copy of the packet out of the arena); the
    /// packet is freed before anything else is allocated, as if freed on arrival.
    fn deliver(&mut self, now: SimTime, id: PacketId) {
        let p = self.packets.get(id);
        self.ledger.delivered(p, &mut self.flows[p.flow.index()].ledger);
        let (f, way, sent_at) = (p.flow, p.way, p.sent_at);
        let segment = match p.payload() {
            Payload::Segment(s) => s,
            Payload::Control(signal) => {
                self.packets.free(id);
                return self.deliver_signal(now, f, signal);
            }
        };
        if self.record_delay && way == Way::Forward && segment.len > 0 {
            self.series.push(now.as_secs_f64(), f.0, SeriesMetric::Delay, now.since(sent_at).as_secs_f64());
        }
        let mut out = std::mem::take(&mut self.segments);
        let flow = &mut self.flows[f.index()];
        let side = match way {
            Way::Forward => {
                if segment.is_syn() {
                    flow.oracle.syn_arrived(sent_at);
                }
                if segment.len > 0 {
                    flow.oracle.data_arrived(segment.seq, segment.end(), sent_at);
                    flow.check.packet_arrived(segment.seq, segment.end());
                }
                if let Some((a, b)) = flow.receiver.on_segment(now, segment, &mut out) {
                    if let Err(message) = flow.check.delivered(a, b) {
                        self.error = Some(SimError::Invariant { flow: flow.name.clone(), message });
                    }
                }
                Side::Receiver
            }
            Way::Reverse => {
                flow.sender.on_segment(now, segment, &mut out);
                Side::Sender
            }
        };
        self.packets.free(id);
        self.after_endpoint(now, f, side, out);
    }

    fn flow_completed(&mut self, now: SimTime, f: FlowId) {
        self.completed += 1;
        if let Origin::Web { user, .. } = self.flows[f.index()].origin {
            let think = self.web_users[user as usize].draw_think();
            self.events.schedule(now + think, Event::UserWake(user));
        }
    }

    fn start_web_file(&mut self, now: SimTime, u: u32) {
        let user = &mut self.web_users[u as usize];
        let size = user.draw_size();
        let g = &self.web_specs[user.spec as usize];
        let name = format!("{}.u{}.{}", g.name, user.user, user.files);
        user.files += 1;
        let origin = Origin::Web { user: u, generator: g.name.clone() };
        let mut flow = FlowRuntime::new(name, origin, now, Some(size), g.forward.clone(), g.reverse.clone(), &g.tcp, self.seed, &mut self.configs);
        if let (Some(ue), Some(radio)) = (user.ue, &self.radio) {
            flow.reach_mobile(ue, radio.uplink(ue), g.uplink);
        }
        self.flows.push(flow);
        let f = FlowId((self.flows.len() - 1) as u32);
        self.dispatch(now, Event::FlowStart(f));
    }

    fn record_flow_series(&mut self, now: SimTime, f: FlowId) {
        if !self.flow_series.iter().any(|&b| b) {
            return;
        }
        let flow = &mut self.flows[f.index()];
        let s = &flow.sender;
        let values = [
            s.cwnd() as f64,
            if s.ssthresh() >= u64::MAX / 8 { f64::INFINITY } else { s.ssthresh() as f64 },
            s.srtt().map(|d| d.as_secs_f64()).unwrap_or(f64::NAN),
            s.rto().as_secs_f64(),
        ];
        for (m, v) in values.into_iter().enumerate() {
            let last = flow.last_series[m];
            let changed = !(v == last || (v.is_nan() && last.is_nan()));
            if self.flow_series[m] && changed {
                self.series.push(now.as_secs_f64(), f.0, SeriesMetric::SENDER[m], v);
                flow.last_series[m] = v;
            }
        }
    }
}
