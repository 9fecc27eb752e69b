//! The network fabric: the link directions, spike processes, radio network, routes and
//! packet store of a run, and the dispatch of their events. The simulator (`world`) and the
//! real-time emulator (`rtolab-emu`) both drive one; what differs is the host at the edges
//! (the simulator's TCP endpoints, the emulator's TUN devices), which the fabric calls back
//! through `Host` when a packet leaves the network or is dropped.
//!
//! A packet enters at some hop of its flow's route (`Fabric::enter`), is offered to each link
//! direction of the route in turn, and, when the last one releases it, either crosses the
//! radio network to its mobile user (a route that ends at a base station) or leaves the
//! network: `Host::arrived`. Wherever an element refuses, loses or flushes it, the host hears
//! `Host::dropped` and the fabric frees it.
//!
//! Invariants:
//! - every allocated packet ends exactly once, either handed to the host by `arrived` (the
//!   host then frees it with `Fabric::release`) or dropped (`dropped`, then freed here);
//! - the fabric schedules only the network's events (`TxDone`, `Arrive`, `ArqFeedback`,
//!   `Tti`, `SpikeStart`, `SpikeEnd`); every other event of the queue is the host's and is
//!   passed to `Host::on_event` untouched;
//! - the order in which elements are called, and so the order of scheduled events, is the
//!   one a single hand-written dispatch would have: the host is a type parameter, so its
//!   callbacks are monomorphised and inlined, not called through a vtable.

pub mod ledger;
pub mod route;

use crate::engine::{Event, EventQueue};
use crate::net::{DirId, Dropper, FlowId, IcmpSignal, LinkDir, Offer, Packet, PacketArena, PacketId, SpikeProcess, Way};
use crate::pcap::{Capture, Captures, FlowEnds};
use crate::radio::RadioNetwork;
use crate::time::SimTime;
use ledger::Ledger;
pub use route::{FlowRoute, Route};

/// What the fabric needs to know of a packet it carries. The simulator carries `net::Packet`
/// (a TCP segment or a control message); the emulator carries the kernel's IP datagrams.
pub trait Carried {
    /// The flow (the emulator's connection) whose route the packet follows.
    fn flow(&self) -> FlowId;
    fn way(&self) -> Way;
    /// The index, within its route for `way`, of the link direction it is on.
    fn hop(&self) -> u16;
    fn set_hop(&mut self, hop: u16);
    /// Bytes on the wire (what a transmitter serialises and a buffer counts).
    fn wire_bytes(&self) -> u32;
    /// A data packet, for the per-flow conservation count.
    fn is_data(&self) -> bool;
    /// Records the packet in a capture at `now`.
    fn record(&self, capture: &mut Capture, now: SimTime);
}

impl Carried for Packet {
    #[inline(always)]
    fn flow(&self) -> FlowId {
        self.flow
    }
    #[inline(always)]
    fn way(&self) -> Way {
        self.way
    }
    #[inline(always)]
    fn hop(&self) -> u16 {
        self.hop
    }
    #[inline(always)]
    fn set_hop(&mut self, hop: u16) {
        self.hop = hop;
    }
    #[inline(always)]
    fn wire_bytes(&self) -> u32 {
        Packet::wire_bytes(self)
    }
    #[inline(always)]
    fn is_data(&self) -> bool {
        Packet::is_data(self)
    }
    fn record(&self, capture: &mut Capture, now: SimTime) {
        capture.record(now, self);
    }
}

/// Where a packet left the network: the last link direction of its route, or the shared
/// channel of the radio network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Link(DirId),
    Radio,
}

/// Where and why the network dropped a packet (`Host::dropped`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropSite {
    /// Refused or dropped by link direction `DirId`'s queue (full, RED's or PIE's early
    /// drop, CoDel's drop at dequeue, FQ-CoDel's drop from its fattest flow).
    Queue(DirId),
    /// Lost on link direction `DirId`'s wire (its channel, without link-layer ARQ).
    Channel(DirId),
    /// Discarded or flushed by link direction `DirId`'s link-layer ARQ.
    Arq(DirId),
    /// Refused by its mobile user's full buffer at the base station.
    RadioBuffer,
    /// Flushed from its user's buffer when the user moved on to a new transfer.
    Moved,
}

impl DropSite {
    /// The link direction, for a drop on a link.
    pub fn dir(self) -> Option<DirId> {
        match self {
            DropSite::Queue(d) | DropSite::Channel(d) | DropSite::Arq(d) => Some(d),
            DropSite::RadioBuffer | DropSite::Moved => None,
        }
    }

    /// The cause as the `events` table's `detail` names it.
    pub fn cause(self) -> &'static str {
        match self {
            DropSite::Queue(_) => "queue",
            DropSite::Channel(_) => "channel",
            DropSite::Arq(_) => "arq",
            DropSite::RadioBuffer => "radio-buffer",
            DropSite::Moved => "moved",
        }
    }
}

/// The edges of the network: what happens to a packet that leaves it, and to the events
/// that are not the network's. Implemented by the simulator's world (its TCP endpoints) and
/// by the emulator's forwarder (its TUN devices). Every method receives the fabric so that
/// it can send packets in answer (`Fabric::alloc`, `Fabric::enter`) and schedule its own
/// events on `Fabric::events`.
pub trait Host<P: Carried> {
    /// Packet `id` reached the end of its route at `now`, through `exit`. The host reads it
    /// in place (`Fabric::packet`) and must free it with `Fabric::release` before it
    /// allocates another one.
    fn arrived(&mut self, net: &mut Fabric<P>, now: SimTime, id: PacketId, exit: Exit);

    /// `packet` was refused, lost or flushed by the network at `now`, at `site`; the fabric
    /// frees it when this returns.
    fn dropped(&mut self, now: SimTime, site: DropSite, packet: &P);

    /// Elements of link direction `dir` sent control messages (`signals`: the packet each is
    /// about, and the message) in one step, before the drops of the same step are reported.
    fn signals(&mut self, net: &mut Fabric<P>, now: SimTime, dir: DirId, signals: &[(PacketId, IcmpSignal)]);

    /// An event of the queue that is not the network's (a flow start, a timer, ...).
    fn on_event(&mut self, net: &mut Fabric<P>, now: SimTime, event: Event);

    /// A delay spike began (`started`) or ended at `now` on link directions `dirs`. Does
    /// nothing by default.
    #[inline(always)]
    fn spike(&mut self, _now: SimTime, _dirs: &[DirId], _started: bool) {}

    /// Called after link direction `dir` released packets to the next hop or the host, with
    /// the packets still on its wire in view: a chance to warm caches. Does nothing by
    /// default; it must change no result.
    #[inline(always)]
    fn after_arrivals(&self, _net: &Fabric<P>, _dir: DirId) {}
}

/// What a report reads of the network when the run is over (`Fabric::into_parts`).
pub struct Parts<P> {
    pub links: Vec<LinkDir>,
    pub radio: Option<RadioNetwork>,
    pub captures: Captures,
    /// The queue, for the count of events processed and the last event's time.
    pub events: EventQueue,
    /// The store, for its high-water mark of live packets.
    pub packets: PacketArena<P>,
}

/// `routes[i]`, kept out of line: a datagram flow's route, off the TCP packets' hot path.
#[cold]
#[inline(never)]
fn cold_route(routes: &[FlowRoute], i: usize) -> &FlowRoute {
    &routes[i]
}

/// The network of one run. See the module's documentation for the invariants.
pub struct Fabric<P: Carried = Packet> {
    /// The run's event queue: the network's events and the host's own.
    pub events: EventQueue,
    links: Vec<LinkDir>,
    spikes: Vec<SpikeProcess>,
    radio: Option<RadioNetwork>,
    /// Per flow id: the directions its packets cross each way, and its mobile user (TCP
    /// flows by `FlowId::index`, datagram flows by `FlowId::slot` in `datagram_routes`).
    routes: Vec<FlowRoute>,
    datagram_routes: Vec<FlowRoute>,
    packets: PacketArena<P>,
    /// Per link direction, the capture recording what it is offered (if asked for).
    captures: Captures,
    /// Packet conservation counts of the network (the hosts count per flow).
    ledger: Ledger,
    /// Scratch buffer of packets released by one element at one instant.
    arrivals: Vec<PacketId>,
}

impl<P: Carried> Fabric<P> {
    /// A fabric over `links` (indexed by `DirId`), `spikes` (indexed as `SpikeStart`'s
    /// argument), the radio network and one capture slot per direction. No flow has a route
    /// yet and no event is scheduled (`schedule_spikes`).
    pub fn new(links: Vec<LinkDir>, spikes: Vec<SpikeProcess>, radio: Option<RadioNetwork>, captures: Captures) -> Self {
        let n = links.len();
        Fabric {
            events: EventQueue::default(),
            links,
            spikes,
            radio,
            routes: Vec::new(),
            datagram_routes: Vec::new(),
            packets: PacketArena::default(),
            captures,
            ledger: Ledger::new(n),
            arrivals: Vec::new(),
        }
    }

    /// Schedules the first spike of every spike process (the host decides when, relative to
    /// its own first events, as that fixes the order of same-time events).
    pub fn schedule_spikes(&mut self) {
        for i in 0..self.spikes.len() {
            if let Some(t) = self.spikes[i].first_start() {
                self.events.schedule(t, Event::SpikeStart(i as u32));
            }
        }
    }

    /// Gives flow `f` its route (flows without one have an empty route until then).
    pub fn set_route(&mut self, f: FlowId, route: FlowRoute) {
        let (routes, i) = if f.is_datagram() { (&mut self.datagram_routes, f.slot()) } else { (&mut self.routes, f.index()) };
        if routes.len() <= i {
            routes.resize_with(i + 1, FlowRoute::default);
        }
        routes[i] = route;
    }

    #[inline(always)]
    pub fn route(&self, f: FlowId) -> &FlowRoute {
        if f.is_datagram() {
            return self.datagram_route(f);
        }
        &self.routes[f.index()]
    }

    fn datagram_route(&self, f: FlowId) -> &FlowRoute {
        cold_route(&self.datagram_routes, f.slot())
    }

    /// Flow `f`'s endpoints, for the captures' SYN options and windows (nothing without a
    /// capture).
    pub fn describe_flow(&mut self, f: FlowId, ends: impl FnOnce() -> FlowEnds) {
        if !self.captures.is_empty() {
            self.captures.describe_flow(f.0, ends());
        }
    }

    pub fn links(&self) -> &[LinkDir] {
        &self.links
    }

    pub fn links_mut(&mut self) -> &mut [LinkDir] {
        &mut self.links
    }

    pub fn radio(&self) -> Option<&RadioNetwork> {
        self.radio.as_ref()
    }

    pub fn radio_mut(&mut self) -> Option<&mut RadioNetwork> {
        self.radio.as_mut()
    }

    #[inline]
    pub fn packet(&self, id: PacketId) -> &P {
        self.packets.get(id)
    }

    #[inline]
    pub fn packets(&self) -> &PacketArena<P> {
        &self.packets
    }

    /// The network's conservation counts.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// Takes the parts a report reads at the end of a run.
    pub fn into_parts(self) -> Parts<P> {
        Parts { links: self.links, radio: self.radio, captures: self.captures, events: self.events, packets: self.packets }
    }

    /// Stores a packet that is about to enter the network; `Fabric::enter` sends it.
    #[inline]
    pub fn alloc(&mut self, p: P) -> PacketId {
        self.ledger.allocated();
        self.packets.alloc(p)
    }

    /// `alloc`, overwriting a freed slot's packet in place with `reuse` when there is one
    /// (so that its buffers are reused), else storing `new()`.
    #[inline]
    pub fn alloc_with(&mut self, reuse: impl FnOnce(&mut P), new: impl FnOnce() -> P) -> PacketId {
        self.ledger.allocated();
        self.packets.alloc_with(reuse, new)
    }

    /// Frees a packet the host was handed by `Host::arrived`.
    #[inline]
    pub fn release(&mut self, id: PacketId) {
        self.ledger.delivered();
        self.packets.free(id);
    }

    /// Packet `id` enters the network at `now`, at hop `hop()` of its flow's route for its
    /// way.
    #[inline]
    pub fn enter<H: Host<P>>(&mut self, now: SimTime, id: PacketId, host: &mut H) {
        let p = self.packets.get(id);
        let route = self.route(p.flow());
        let dir = route.way(p.way())[p.hop() as usize];
        self.offer(now, dir, id, host);
    }

    /// Runs one event of the queue: the network's own here, any other through the host.
    #[inline]
    pub fn dispatch<H: Host<P>>(&mut self, now: SimTime, event: Event, host: &mut H) {
        match event {
            Event::TxDone(d) => {
                if let Some(lost) = self.links[d.index()].on_tx_done(now, &mut self.events) {
                    self.ledger.dropped_at(d.index(), 1);
                    self.drop_packet(now, DropSite::Channel(d), lost, host);
                }
                self.take_notices(now, d, host);
            }
            Event::Arrive(d) => {
                let mut arrivals = std::mem::take(&mut self.arrivals);
                self.links[d.index()].on_arrival(now, &mut self.events, &mut arrivals);
                self.ledger.left(d.index(), arrivals.len());
                for p in arrivals.drain(..) {
                    self.forward(now, d, p, host);
                }
                self.arrivals = arrivals;
                host.after_arrivals(self, d);
            }
            Event::ArqFeedback(d) => {
                self.links[d.index()].on_feedback(now, &mut self.events);
                self.take_notices(now, d, host);
            }
            Event::Tti(c) => self.tti(now, c, host),
            Event::SpikeStart(i) => {
                self.spikes[i as usize].begin(i, now, &mut self.links, &mut self.events);
                host.spike(now, &self.spike_dirs(i), true);
            }
            Event::SpikeEnd(i) => self.spike_end(now, i, host),
            Event::FlowStart(_) | Event::Timer { .. } | Event::UserWake(_) | Event::Stop => host.on_event(self, now, event),
        }
    }

    /// Mobile user `ue` begins a new transfer somewhere else; what its old buffer held is
    /// dropped.
    pub fn relocate<H: Host<P>>(&mut self, now: SimTime, ue: u32, host: &mut H) {
        let mut flushed = Vec::new();
        if let Some(radio) = &mut self.radio {
            radio.relocate(now, ue, &mut flushed);
        }
        self.ledger.dropped_in_radio(flushed.len());
        for p in flushed {
            self.drop_packet(now, DropSite::Moved, p, host);
        }
    }

    /// Acts on what link direction `dir` noted besides single drops: control messages first
    /// (they name packets that may be dropped in the same batch), then the drops.
    #[inline(always)]
    fn take_notices<H: Host<P>>(&mut self, now: SimTime, dir: DirId, host: &mut H) {
        if self.links[dir.index()].has_notices() {
            self.act_on_notices(now, dir, host);
        }
    }

    #[cold]
    #[inline(never)]
    fn act_on_notices<H: Host<P>>(&mut self, now: SimTime, dir: DirId, host: &mut H) {
        let mut notices = self.links[dir.index()].take_notices();
        if !notices.signals.is_empty() {
            host.signals(self, now, dir, &notices.signals);
        }
        self.ledger.dropped_at(dir.index(), notices.dropped.len());
        for &(p, by) in &notices.dropped {
            let site = match by {
                Dropper::Queue => DropSite::Queue(dir),
                Dropper::Arq => DropSite::Arq(dir),
            };
            self.drop_packet(now, site, p, host);
        }
        notices.signals.clear();
        notices.dropped.clear();
        self.links[dir.index()].return_notices(notices);
    }

    /// A cell's TTI: the packets it hands over reach their users.
    fn tti<H: Host<P>>(&mut self, now: SimTime, c: u32, host: &mut H) {
        let mut arrivals = std::mem::take(&mut self.arrivals);
        if let Some(radio) = &mut self.radio {
            radio.on_tti(now, c as usize, &mut self.events, &mut arrivals);
        }
        self.ledger.left_radio(arrivals.len());
        for p in arrivals.drain(..) {
            host.arrived(self, now, p, Exit::Radio);
        }
        self.arrivals = arrivals;
    }

    /// The link directions spike process `i` holds.
    fn spike_dirs(&self, i: u32) -> Vec<DirId> {
        self.spikes[i as usize].dirs().map(|d| DirId(d as u32)).collect()
    }

    /// A spike process ends: its directions release what they held (an AQM may drop as it
    /// sends again). Out of line: a rare event, kept out of the event loop's code.
    #[inline(never)]
    fn spike_end<H: Host<P>>(&mut self, now: SimTime, i: u32, host: &mut H) {
        host.spike(now, &self.spike_dirs(i), false);
        let mut arrivals = std::mem::take(&mut self.arrivals);
        for d in self.spikes[i as usize].dirs().collect::<Vec<_>>() {
            self.links[d].release(now, &mut self.events, &mut arrivals);
            self.ledger.left(d, arrivals.len());
            for p in arrivals.drain(..) {
                self.forward(now, DirId(d as u32), p, host);
            }
            self.take_notices(now, DirId(d as u32), host);
        }
        self.arrivals = arrivals;
        if let Some(t) = self.spikes[i as usize].next_start(now) {
            self.events.schedule(t, Event::SpikeStart(i));
        }
    }

    /// Offers packet `id` to link direction `dir` (recording it first if `dir` is captured).
    fn offer<H: Host<P>>(&mut self, now: SimTime, dir: DirId, id: PacketId, host: &mut H) {
        let p = self.packets.get(id);
        if let Some(c) = self.captures.of(dir.index()) {
            p.record(c, now);
        }
        let bytes = p.wire_bytes();
        self.ledger.offered_to(dir.index());
        if self.links[dir.index()].offer(now, id, bytes, || p.flow(), &mut self.events) == Offer::Dropped {
            self.ledger.dropped_at(dir.index(), 1);
            self.drop_packet(now, DropSite::Queue(dir), id, host);
        }
        self.take_notices(now, dir, host);
    }

    fn drop_packet<H: Host<P>>(&mut self, now: SimTime, site: DropSite, id: PacketId, host: &mut H) {
        host.dropped(now, site, self.packets.get(id));
        self.ledger.dropped();
        self.packets.free(id);
    }

    /// Packet `id` left link direction `dir`: on to the next hop, to its mobile user's base
    /// station, or out of the network.
    fn forward<H: Host<P>>(&mut self, now: SimTime, dir: DirId, id: PacketId, host: &mut H) {
        let p = self.packets.get_mut(id);
        let f = p.flow();
        let route = if f.is_datagram() { cold_route(&self.datagram_routes, f.slot()) } else { &self.routes[f.index()] };
        let hops = route.way(p.way());
        let next = p.hop() as usize + 1;
        if next < hops.len() {
            p.set_hop(next as u16);
            let d = hops[next];
            self.offer(now, d, id, host);
            return;
        }
        if let (Some(ue), Some(radio)) = (route.ue.filter(|_| p.way() == route.radio_way), &mut self.radio) {
            let bytes = p.wire_bytes();
            self.ledger.offered_to_radio();
            if radio.offer(now, ue, id, bytes, &mut self.events) == Offer::Dropped {
                self.ledger.dropped_in_radio(1);
                self.drop_packet(now, DropSite::RadioBuffer, id, host);
            }
            return;
        }
        host.arrived(self, now, id, Exit::Link(dir));
    }
}
