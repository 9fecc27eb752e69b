//! The simulation world: flows, generators and the event loop, over the network fabric.
//!
//! Packets leave a TCP endpoint into the first link direction of their route; the fabric
//! (`crate::fabric`) moves them from link to link and hands them back to the world (`World`,
//! its host) at the end of the route, where the world gives them to the peer endpoint and
//! frees them, or when they are dropped. The world, not TCP, knows which copies were lost,
//! so it keeps the spurious-timeout oracle and checks delivery.

mod build;
mod configs;
mod datagram_flow;
mod datagrams;
mod quic_wire;
mod events;
mod flow;
pub mod plan;
mod report;
mod session;
mod users;

pub use crate::traffic::Origin;
pub use flow::{DeliveryCheck, SpuriousOracle, Verdict};
pub use report::{datagram_columns, RowIdentity};

use crate::control::{RunControl, POLL_EVERY};
use crate::engine::{Event, Side};
use crate::fabric::ledger::FlowCount;
use crate::fabric::{DropSite, Exit, Fabric, FlowRoute, Host};
use crate::net::{DirId, FlowId, IcmpSignal, Packet, PacketId, Payload, Way};
use crate::pcap::FlowEnds;
use crate::prefetch;
use crate::results::{RunResult, SeriesMetric, SeriesTable};
use crate::tcp::segment::FLAG_NS2_SIZES;
use crate::tcp::{Segment, SenderNote};
use crate::time::SimTime;
use crate::transport::Datagram;
use configs::SenderConfigs;
use datagram_flow::DatagramFlow;
use events::EventLog;
use flow::FlowRuntime;
use session::{RowSource, Session, SessionFile, Tally};
use thiserror::Error;
use users::{UserGroup, UserSlot};

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
const FLOW_HOT_LINES: usize = 4;
/// Lines of a flow's route (`FlowRoute`) a packet moving on touches.
const ROUTE_LINES: usize = 2;
/// Lines of the receiver a data segment touches, of the sender an ACK touches.
const RECEIVER_HOT_LINES: usize = 2;
const SENDER_HOT_LINES: usize = 4;

/// A run: the network fabric and the world at its edges.
pub struct Simulation {
    net: Fabric<Packet>,
    world: World,
}

/// Everything of a run but the network: the flows and their endpoints, the traffic
/// generators, the run's limits and the tables it returns. The fabric's host.
pub struct World {
    scenario_name: String,
    seed: u64,
    /// The links table covers the scenario's links and the radio's wired path, not the
    /// users' uplinks (the directions from this index on).
    reported_links: usize,
    flows: Vec<FlowRuntime>,
    /// The datagram flows (UDP flows, calls, QUIC transfers), by `FlowId::slot`.
    datagram_flows: Vec<DatagramFlow>,
    /// The flows table's rows in the order they began: a flow of its own, or a file of a
    /// per-session connection.
    rows: Vec<RowSource>,
    /// The files of the per-session connections, in the order they began.
    files: Vec<SessionFile>,
    /// Generators' users, and their groups (one per generator with users).
    users: Vec<UserSlot>,
    user_groups: Vec<UserGroup>,
    /// Sender configurations shared by the flows that have equal ones.
    configs: SenderConfigs,
    stop_at: Option<SimTime>,
    max_events: u64,
    max_time: SimTime,
    flow_series: [bool; 5],
    record_delay: bool,
    /// `output.series` asks for `rtt`: every RTT sample of every sender.
    record_rtt: bool,
    series: SeriesTable,
    /// The `events` table's log; `None` unless `output.events` asks for some.
    events: Option<Box<EventLog>>,
    completed: usize,
    data_packets: u64,
    /// Scratch buffers reused across events.
    segments: Vec<Segment>,
    datagrams: Vec<Datagram>,
    quic_out: Vec<crate::quic::Outgoing>,
    /// The bytes of QUIC datagrams in the network.
    quic_wire: quic_wire::QuicWire,
    /// Per `SeriesMetric`: recorded for QUIC flows (cwnd, ssthresh, srtt, rttvar).
    quic_series: [bool; SeriesMetric::ALL.len()],
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
        let (net, world) = (&mut self.net, &mut self.world);
        let end = loop {
            let Some((now, event)) = net.events.pop() else {
                break net.events.now();
            };
            if event == Event::Stop {
                break now;
            }
            net.dispatch(now, event, world);
            if let Some(e) = world.error.take() {
                return Err(e);
            }
            if net.events.processed() % POLL_EVERY == 0 && control.poll(now, net.events.processed()) {
                return Err(SimError::Interrupted { at: now });
            }
            if net.events.processed() > world.max_events {
                return Err(SimError::EventBudget { max: world.max_events, at: now });
            }
            if world.stop_at.is_none() {
                if world.completed == world.flows.len() + world.datagram_flows.len() && world.users.is_empty() {
                    break now;
                }
                if now > world.max_time {
                    return Err(SimError::TimeBudget { max: world.max_time });
                }
            }
        };
        self.check_conservation()?;
        Ok(self.report(end))
    }

    /// Packet conservation (see `fabric::ledger`) at the end of a run.
    fn check_conservation(&self) -> Result<(), SimError> {
        let (flows, datagram_flows) = (&self.world.flows, &self.world.datagram_flows);
        let counts: Vec<FlowCount> = flows.iter().map(|f| f.ledger).chain(datagram_flows.iter().map(|f| f.ledger)).collect();
        let net = &self.net;
        let radio_inside = net.radio().map_or(0, |r| r.packets_inside());
        let name = |i: usize| match flows.get(i) {
            Some(f) => f.name.clone(),
            None => datagram_flows.get(i - flows.len()).map_or_else(|| format!("#{i}"), |f| f.name.clone()),
        };
        net.ledger()
            .check(net.links(), radio_inside, net.packets(), &counts, flows.len(), name)
            .map_err(|(flow, message)| SimError::Invariant { flow, message })
    }
}

impl Host<Packet> for World {
    /// A packet reached the endpoint at the end of its route: the receiver (data) or the
    /// sender (ACKs, control messages).
    ///
    /// The endpoint reads the segment in place (no copy of the packet out of the arena); the
    /// packet is freed before anything else is allocated, as if freed on arrival.
    #[inline]
    fn arrived(&mut self, net: &mut Fabric<Packet>, now: SimTime, id: PacketId, _exit: Exit) {
        let p = net.packet(id);
        let (f, way, sent_at) = (p.flow, p.way, p.sent_at);
        let segment = match p.payload() {
            Payload::Segment(s) => s,
            // A control message is never a data packet: the ledger does not count it.
            Payload::Control(signal) => {
                net.release(id);
                return self.deliver_signal(net, now, f, signal);
            }
            Payload::Datagram(_) => return self.datagram_arrived(net, now, id),
        };
        self.flows[f.index()].ledger.delivered(p);
        if self.record_delay && way == Way::Forward && segment.len > 0 {
            self.series.push(now.as_secs_f64(), self.flows[f.index()].row, SeriesMetric::Delay, now.since(sent_at).as_secs_f64());
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
                if flow.per_session {
                    let ack = flow.session.as_ref().map_or(*segment, |s| s.map.ack_to_sender(segment));
                    flow.sender.on_segment(now, &ack, &mut out);
                } else {
                    flow.sender.on_segment(now, segment, &mut out);
                }
                Side::Sender
            }
        };
        net.release(id);
        self.after_endpoint(net, now, f, side, out);
    }

    #[inline]
    fn dropped(&mut self, now: SimTime, site: DropSite, p: &Packet) {
        if p.flow.is_datagram() {
            return self.datagram_dropped(now, site, p);
        }
        let flow = &mut self.flows[p.flow.index()];
        flow.ledger.dropped(p);
        if let Some(log) = &mut self.events {
            let seq = match p.payload() {
                Payload::Segment(s) if s.len > 0 => Some(s.seq),
                _ => None,
            };
            log.dropped(now, (p.flow, flow.row), site, seq);
        }
        if let (Way::Forward, Payload::Segment(s)) = (p.way, p.payload()) {
            let oracle = &mut flow.oracle;
            if s.is_syn() {
                oracle.syn_dropped(p.sent_at);
            } else if s.len > 0 {
                oracle.data_dropped(p.sent_at);
            }
        }
    }

    fn spike(&mut self, now: SimTime, dirs: &[DirId], started: bool) {
        if let Some(log) = &mut self.events {
            log.spike(now, dirs, started);
        }
    }

    fn signals(&mut self, net: &mut Fabric<Packet>, now: SimTime, dir: DirId, signals: &[(PacketId, IcmpSignal)]) {
        let mut sent: Vec<(FlowId, IcmpSignal)> = Vec::new();
        for &(pkt, signal) in signals {
            let flow = net.packet(pkt).flow;
            if flow.is_datagram() {
                continue; // UDP has no use for the network's messages
            }
            // One message per flow and kind for one event (a flush drops a whole buffer).
            if !sent.contains(&(flow, signal)) {
                sent.push((flow, signal));
                self.send_signal(net, now, dir, pkt, signal);
            }
        }
    }

    #[inline]
    fn on_event(&mut self, net: &mut Fabric<Packet>, now: SimTime, event: Event) {
        match event {
            Event::FlowStart(f) => self.flow_start(net, now, f),
            Event::Timer { flow, side, generation } => self.timer(net, now, flow, side, generation),
            Event::UserWake(u) => self.start_user_file(net, now, u),
            _ => {}
        }
    }

    /// Warms the cache for the packets about to leave direction `d`'s wire: the slot of the
    /// third in line, and the state of the second one's flow (whose slot the previous call
    /// warmed): its route, the flow's own lines and the hot lines of the endpoint it is
    /// heading for. With thousands of flows every arrival finds its flow out of cache; an
    /// arrival later, when it is its turn, these loads are done (one arrival ahead measured a
    /// little slower than two at 40 000 flows). Not worth its instructions with few flows
    /// (all in cache); no effect on results.
    #[inline]
    fn after_arrivals(&self, net: &Fabric<Packet>, d: DirId) {
        if self.flows.len() < PREFETCH_FROM_FLOWS {
            return;
        }
        let link = &net.links()[d.index()];
        if let Some(after) = link.upcoming_arrival(2) {
            net.packets().prefetch(after);
        }
        if let Some(next) = link.upcoming_arrival(1) {
            let p = net.packet(next);
            if p.flow.is_datagram() {
                return;
            }
            prefetch::lines(net.route(p.flow), ROUTE_LINES);
            let flow = &self.flows[p.flow.index()];
            prefetch::lines(flow, FLOW_HOT_LINES);
            match p.way {
                Way::Forward => prefetch::lines(&flow.receiver, RECEIVER_HOT_LINES),
                Way::Reverse => prefetch::lines(&flow.sender, SENDER_HOT_LINES),
            }
        }
    }
}

impl World {
    fn flow_start(&mut self, net: &mut Fabric<Packet>, now: SimTime, f: FlowId) {
        if f.is_datagram() {
            return self.datagram_start(net, now, f.slot());
        }
        if let Some(ue) = net.route(f).ue {
            net.relocate(now, ue, self);
        }
        let flow = &mut self.flows[f.index()];
        flow.started = true;
        let receiver = flow.receiver.config();
        net.describe_flow(f, || FlowEnds { mss: receiver.mss, sack: receiver.sack, window: receiver.window });
        let mut out = std::mem::take(&mut self.segments);
        flow.sender.open(now, &mut out);
        self.after_endpoint(net, now, f, Side::Sender, out);
    }

    fn timer(&mut self, net: &mut Fabric<Packet>, now: SimTime, f: FlowId, side: Side, generation: u32) {
        if f.is_datagram() {
            return self.datagram_timer(net, now, f.slot(), generation);
        }
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
        self.after_endpoint(net, now, f, side, out);
    }

    /// Sends what an endpoint produced, handles its notes, re-arms its timer and records
    /// series. `out` is the scratch buffer, returned to `self.segments`.
    fn after_endpoint(&mut self, net: &mut Fabric<Packet>, now: SimTime, f: FlowId, side: Side, mut out: Vec<Segment>) {
        // Notes first: the oracle judges a timeout by the packets in the network before its
        // retransmission leaves.
        if side == Side::Sender && self.flows[f.index()].sender.has_notes() {
            let notes: Vec<SenderNote> = self.flows[f.index()].sender.drain_notes().collect();
            for note in notes {
                let flow = &mut self.flows[f.index()];
                let window = (flow.sender.cwnd(), flow.sender.ssthresh());
                let at = (f, flow.row);
                match note {
                    SenderNote::Timeout { seq, id, cwnd, ssthresh } => {
                        // The oracle and the log speak the wire's sequence numbers.
                        let (seq, una) = match &flow.session {
                            None => (seq, flow.sender.snd_una()),
                            Some(s) => (s.map.to_wire(seq), s.map.to_wire(flow.sender.snd_una())),
                        };
                        flow.oracle.timeout(id, seq, now);
                        flow.oracle.prune_below(una);
                        if let Some(log) = &mut self.events {
                            log.timeout(now, at, id, seq, (cwnd, ssthresh), window);
                        }
                    }
                    SenderNote::SynTimeout => flow.oracle.syn_timeout(now),
                    SenderNote::SpuriousDetected { first, last } => {
                        flow.oracle.detected(first, last);
                        if let Some(log) = &mut self.events {
                            // A session's detection goes to the file whose timeouts it judges.
                            let row = flow.session.as_ref().and_then(|s| s.row_of_timeout(first, &self.files)).unwrap_or(flow.row);
                            log.detected(now, (f, row), first, last, window);
                        }
                    }
                    SenderNote::Undone { timeouts, cwnd, ssthresh } => {
                        if let Some(log) = &mut self.events {
                            log.undone(now, at, timeouts, (cwnd, ssthresh), window);
                        }
                    }
                    SenderNote::Completed => self.flow_completed(net, now, f),
                    SenderNote::WritesAcked => self.session_file_done(net, now, f),
                }
            }
        }
        for seg in out.drain(..) {
            self.emit(net, now, f, side, seg);
        }
        self.segments = out;
        if side == Side::Sender {
            self.record_flow_series(now, f);
        }
        self.sync_timer(net, f, side);
    }

    fn sync_timer(&mut self, net: &mut Fabric<Packet>, f: FlowId, side: Side) {
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
                let wheel = match side {
                    Side::Sender => flow.sender.config().wheel.is_some(),
                    Side::Receiver => flow.receiver.config().wheel.is_some(),
                };
                let event = Event::Timer { flow: f, side, generation };
                if wheel {
                    net.events.schedule_wheel_timer(t, event);
                } else {
                    net.events.schedule(t, event);
                }
            }
        }
    }

    /// Sends `segment` from flow `f`'s endpoint `side` into the first hop of its route.
    fn emit(&mut self, net: &mut Fabric<Packet>, now: SimTime, f: FlowId, side: Side, mut segment: Segment) {
        let flow = &mut self.flows[f.index()];
        if flow.ns2_sizes {
            segment.flags |= FLAG_NS2_SIZES;
        }
        let way = match side {
            Side::Sender => Way::Forward,
            Side::Receiver => Way::Reverse,
        };
        if side == Side::Sender {
            if flow.per_session {
                if let Some(s) = &flow.session {
                    segment.seq = s.map.to_wire(segment.seq);
                }
            }
            if segment.is_syn() {
                flow.oracle.syn_sent();
            } else if segment.len > 0 {
                flow.oracle.data_sent(now);
                self.data_packets += 1;
                if let Some(log) = &mut self.events {
                    log.data_sent(now, (f, flow.row), segment.seq, segment.end());
                }
            }
        }
        let packet = Packet::segment(f, way, segment, now);
        flow.ledger.allocated(&packet);
        let id = net.alloc(packet);
        net.enter(now, id, self);
    }

    /// A control message about packet `about`, which is at link direction `dir`, leaves from
    /// that element's position toward the flow's sender: back over the reverse directions of
    /// the links before it (a forward packet), or on along the reverse route (a reverse one).
    fn send_signal(&mut self, net: &mut Fabric<Packet>, now: SimTime, dir: DirId, about: PacketId, signal: IcmpSignal) {
        let p = net.packet(about);
        let route = net.route(p.flow);
        let hops = route.reverse.len();
        let start = match p.way {
            Way::Forward => hops - route.forward.iter().position(|&d| d == dir).unwrap_or(p.hop as usize),
            Way::Reverse => p.hop as usize,
        };
        let f = p.flow;
        let packet = Packet::control(f, start as u16, signal, now);
        if start >= hops {
            self.deliver_signal(net, now, f, signal);
            return;
        }
        self.flows[f.index()].ledger.allocated(&packet);
        let id = net.alloc(packet);
        net.enter(now, id, self);
    }

    fn deliver_signal(&mut self, net: &mut Fabric<Packet>, now: SimTime, f: FlowId, signal: IcmpSignal) {
        let mut out = std::mem::take(&mut self.segments);
        self.flows[f.index()].sender.on_icmp(now, signal, &mut out);
        self.after_endpoint(net, now, f, Side::Sender, out);
    }

    fn flow_completed(&mut self, net: &mut Fabric<Packet>, now: SimTime, f: FlowId) {
        self.completed += 1;
        if let Origin::Web { user, .. } = self.flows[f.index()].origin {
            let wake = self.users[user as usize].behaviour.next_wake(now);
            net.events.schedule(wake, Event::UserWake(user));
        }
    }

    /// User `u` requests its next file: over a new connection, or written to the user's
    /// connection when its group keeps one per user.
    fn start_user_file(&mut self, net: &mut Fabric<Packet>, now: SimTime, u: u32) {
        let user = &mut self.users[u as usize];
        let size = user.behaviour.request();
        let g = &self.user_groups[user.group as usize];
        let name = format!("{}.u{}.{}", g.name, user.user, user.files);
        user.files += 1;
        let origin = Origin::Web { user: u, generator: g.name.clone() };
        if g.one_connection {
            return self.write_session_file(net, now, u, name, origin, size);
        }
        if let Some(quic) = &g.quic {
            let route = web_route(g, user, net);
            let j = self.datagram_flows.len() as u32;
            let mut flow = DatagramFlow::quic(name, origin, now, Some(size), quic, self.seed, self.quic_series.iter().any(|&r| r));
            flow.row = self.rows.len() as u32;
            self.rows.push(RowSource::Datagram(FlowId::datagram(j)));
            self.datagram_flows.push(flow);
            net.set_route(FlowId::datagram(j), route);
            return self.flow_start(net, now, FlowId::datagram(j));
        }
        let mut flow = FlowRuntime::new(name, origin, now, Some(size), &g.tcp, self.seed, &mut self.configs);
        let route = web_route(g, user, net);
        let f = FlowId(self.flows.len() as u32);
        flow.row = self.rows.len() as u32;
        self.rows.push(RowSource::Flow(f));
        self.flows.push(flow);
        net.set_route(f, route);
        self.flow_start(net, now, f);
    }

    /// A file of web user `u` under "per-session": the user's connection opens with it (one
    /// handshake, the mobile user placed once), or it is written to the open connection,
    /// whose sender carries its RTO, back-off, RTT estimates and window over the idle gap.
    fn write_session_file(&mut self, net: &mut Fabric<Packet>, now: SimTime, u: u32, name: String, origin: Origin, size: u64) {
        let user = &self.users[u as usize];
        let (f, opens) = match user.connection {
            Some(f) => (f, false),
            None => {
                let g = &self.user_groups[user.group as usize];
                let mut flow = FlowRuntime::new(format!("{}.u{}", g.name, user.user), origin.clone(), now, None, &g.tcp, self.seed, &mut self.configs);
                flow.sender.expect_writes();
                flow.session = Some(Box::default());
                flow.per_session = true;
                let route = web_route(g, user, net);
                let f = FlowId(self.flows.len() as u32);
                self.flows.push(flow);
                net.set_route(f, route);
                self.users[u as usize].connection = Some(f);
                (f, true)
            }
        };
        let row = self.rows.len() as u32;
        let file = self.files.len() as u32;
        let flow = &mut self.flows[f.index()];
        let from = Tally::of(flow);
        let session: &mut Session = flow.session.as_mut().expect("a per-session connection has its session");
        let offset = session.written;
        let mut out = std::mem::take(&mut self.segments);
        let start = flow.sender.write(now, size, &mut out);
        session.map.push(offset, start);
        session.written += size;
        session.files.push(file);
        flow.check.allow(session.written);
        // The file's series start with the connection's state as the file finds it.
        flow.row = row;
        flow.last_series = [f64::NAN; 5];
        self.files.push(SessionFile { name, origin, connection: f, row, start: now, size, offset, from, end: None });
        self.rows.push(RowSource::File(file));
        if opens {
            self.segments = out;
            self.flow_start(net, now, f);
        } else {
            self.after_endpoint(net, now, f, Side::Sender, out);
        }
    }

    /// Every byte written to session connection `f` is acknowledged: its latest file ends
    /// (as a per-file flow completes) and the user thinks.
    fn session_file_done(&mut self, net: &mut Fabric<Packet>, now: SimTime, f: FlowId) {
        let flow = &self.flows[f.index()];
        let Some(&file) = flow.session.as_ref().and_then(|s| s.files.last()) else { return };
        let file = &mut self.files[file as usize];
        if file.end.is_some() {
            return;
        }
        file.end = Some(now);
        if let Origin::Web { user, .. } = flow.origin {
            let wake = self.users[user as usize].behaviour.next_wake(now);
            net.events.schedule(wake, Event::UserWake(user));
        }
    }

    fn record_flow_series(&mut self, now: SimTime, f: FlowId) {
        if !self.record_rtt && !self.flow_series.iter().any(|&b| b) {
            return;
        }
        let flow = &mut self.flows[f.index()];
        let s = &flow.sender;
        // One sender event takes at most one RTT sample (an ACK, a SYN-ACK), so a grown count
        // means exactly one new sample.
        if self.record_rtt && s.stats.rtt_samples != flow.recorded_rtt_samples {
            self.series.push(now.as_secs_f64(), flow.row, SeriesMetric::Rtt, s.stats.last_rtt_s);
            flow.recorded_rtt_samples = s.stats.rtt_samples;
        }
        let values = [
            s.cwnd() as f64,
            if s.ssthresh() >= u64::MAX / 8 { f64::INFINITY } else { s.ssthresh() as f64 },
            s.srtt().map(|d| d.as_secs_f64()).unwrap_or(f64::NAN),
            s.rto().as_secs_f64(),
            s.pacing_rate().map_or(f64::NAN, |r| r as f64 * 8.0),
        ];
        for (m, v) in values.into_iter().enumerate() {
            let last = flow.last_series[m];
            let changed = !(v == last || (v.is_nan() && last.is_nan()));
            if self.flow_series[m] && changed {
                self.series.push(now.as_secs_f64(), flow.row, SeriesMetric::SENDER[m], v);
                flow.last_series[m] = v;
            }
        }
    }
}

/// The route of a new connection of `user`, of generator `g`: the generator's, reaching the
/// user's mobile when it has one.
fn web_route(g: &UserGroup, user: &UserSlot, net: &Fabric<Packet>) -> FlowRoute {
    let mut route = FlowRoute::new(g.forward.clone(), g.reverse.clone());
    if let (Some(ue), Some(radio)) = (user.ue, net.radio()) {
        route.reach_mobile(ue, radio.uplink(ue), g.uplink);
    }
    route
}
