//! The real-time forwarder: packets the kernel routes into one namespace's TUN device cross
//! the scenario's network — the simulator's own fabric (`rtolab_sim::fabric`: its link
//! directions, spike processes, radio network and routes, driven by the same event queue and
//! dispatch as in the simulator) — and are written into the other namespace's TUN device
//! when they leave it. The forwarder's `Edge` is the fabric's host: the TUN devices and the
//! TCP connections' trackers; the drops of a datagram flow's datagrams go to the flow
//! (`DatagramFlow::dropped`), and a QUIC transfer's to its `QuicFlow`, as the simulator's
//! world counts them. A route into the radio
//! network ends at a base station: the radio network holds the packet until a TTI of the
//! user's cell hands it over.
//!
//! Time is the monotonic clock since the start (`Clock`). Events run at their own (virtual)
//! time as soon as the clock reaches it, so queueing, serialisation and propagation follow
//! the configured rates exactly; the forwarder sleeps in `ppoll` until the next event or
//! packet (no busy polling), with a 1 µs timer slack. How late each release was is measured.

use crate::conn::ConnTrack;
use crate::error::{EmuError, EmuResult};
use crate::realtime;
use crate::shared::{connection_of_port, Shared};
use crate::wire::{self, View};
use rtolab_sim::engine::Event;
use rtolab_sim::fabric::{Carried, DropSite, Exit, Fabric, FlowRoute, Host, Parts};
use rtolab_sim::net::{DirId, FlowId, IcmpSignal, LinkDir, PacketId, SpikeProcess, Way};
use rtolab_sim::pcap::{Capture, Captures};
use rtolab_sim::radio::RadioNetwork;
use rtolab_sim::results::{SeriesMetric, SeriesTable};
use rtolab_sim::{SimDuration, SimTime};
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A kernel's datagram between ingress and egress: what the fabric carries in the emulator.
///
/// Invariant: `view` is the parse of `data` (a TCP segment or a UDP datagram); `conn` is the
/// connection (the fabric's flow) whose route it follows.
pub struct Datagram {
    data: Vec<u8>,
    conn: FlowId,
    way: Way,
    hop: u16,
    /// When it entered the forwarder (its "send" time for the oracle and one-way delay).
    entered: SimTime,
    view: View,
}

impl Carried for Datagram {
    #[inline]
    fn flow(&self) -> FlowId {
        self.conn
    }
    #[inline]
    fn way(&self) -> Way {
        self.way
    }
    #[inline]
    fn hop(&self) -> u16 {
        self.hop
    }
    #[inline]
    fn set_hop(&mut self, hop: u16) {
        self.hop = hop;
    }
    #[inline]
    fn wire_bytes(&self) -> u32 {
        self.data.len() as u32
    }
    #[inline]
    fn is_data(&self) -> bool {
        self.way == Way::Forward && self.view.carries_data()
    }
    fn record(&self, capture: &mut Capture, now: SimTime) {
        capture.record_ip(now, &self.data);
    }
}

/// How faithfully the forwarder kept time, per link direction and overall.
#[derive(Clone, Debug, Default)]
pub struct Accuracy {
    /// Per direction: payload of back-to-back releases and the real time between them.
    pub paced_bytes: Vec<u64>,
    pub paced_real_ns: Vec<u64>,
    pub paced_packets: Vec<u64>,
    last_release: Vec<Option<(SimTime, SimTime)>>,
    /// Real release time minus scheduled time, per released packet, in ns.
    pub lateness_ns: Vec<u64>,
    /// Packets the forwarder could not attribute to a connection (neither TCP nor UDP, an
    /// unknown port).
    pub foreign_packets: u64,
    /// The forwarder ran under `SCHED_FIFO`.
    pub realtime: bool,
}

pub struct Forwarder {
    net: Fabric<Datagram>,
    edge: Edge,
}

/// The fabric's host in the emulator: the TUN devices at the ends of every route and what
/// the forwarder learns of each connection there.
pub struct Edge {
    /// TUN devices: 0 in the sender's namespace, 1 in the receiver's.
    tuns: [File; 2],
    /// Per route id (a connection's `ConnMeta::route`); a connection's route is given to the
    /// fabric at its first packet.
    routes: Vec<FlowRoute>,
    /// Per connection: its route has been given to the fabric.
    routed: Vec<bool>,
    /// Per connection: a TCP connection's tracker (none for a datagram flow).
    pub conns: Vec<Option<ConnTrack>>,
    shared: Arc<Shared>,
    pub accuracy: Accuracy,
    record_delay: bool,
    pub series: SeriesTable,
    /// Control messages the links' elements sent; the kernel has no use for them.
    pub control_messages: u64,
}

/// What the forwarder hands back at the end of the run.
pub struct ForwarderReport {
    pub links: Vec<LinkDir>,
    pub conns: Vec<Option<ConnTrack>>,
    pub accuracy: Accuracy,
    pub series: SeriesTable,
    pub pcaps: Vec<(String, Vec<u8>)>,
    /// The radio network, for its cells table and per-user series.
    pub radio: Option<RadioNetwork>,
    pub events: u64,
    pub peak_slots: u64,
}

impl Forwarder {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        tuns: [File; 2],
        links: Vec<LinkDir>,
        spikes: Vec<SpikeProcess>,
        routes: Vec<FlowRoute>,
        radio: Option<RadioNetwork>,
        captures: Captures,
        shared: Arc<Shared>,
        record_delay: bool,
    ) -> Self {
        let n = links.len();
        let mut net = Fabric::new(links, spikes, radio, captures);
        net.schedule_spikes();
        let edge = Edge {
            tuns,
            routes,
            routed: Vec::new(),
            conns: Vec::new(),
            shared,
            accuracy: Accuracy {
                paced_bytes: vec![0; n],
                paced_real_ns: vec![0; n],
                paced_packets: vec![0; n],
                last_release: vec![None; n],
                ..Default::default()
            },
            record_delay,
            series: SeriesTable::default(),
            control_messages: 0,
        };
        Forwarder { net, edge }
    }

    /// Forwards until `shared.stop` is set.
    pub fn run(mut self) -> EmuResult<ForwarderReport> {
        realtime::fine_timer_slack();
        self.edge.accuracy.realtime = realtime::request(realtime::FORWARDER_PRIORITY);
        let mut buf = vec![0u8; 1 << 16];
        while !self.edge.shared.stop.load(Ordering::Relaxed) {
            self.run_due();
            for side in 0..2 {
                loop {
                    match self.edge.tuns[side].read(&mut buf) {
                        Ok(n) => {
                            let now = self.edge.shared.clock.now();
                            self.run_due_until(now);
                            self.edge.ingress(&mut self.net, side, now, &buf[..n]);
                        }
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                        Err(e) => return Err(EmuError::system("reading a TUN device", e)),
                    }
                }
            }
            self.run_due();
            let now = self.edge.shared.clock.now();
            let wait = self.net.events.peek_time().map(|t| t.0.saturating_sub(now.0)).unwrap_or(u64::MAX).min(20_000_000);
            if wait > 0 {
                let timeout = nix::sys::time::TimeSpec::from_duration(std::time::Duration::from_nanos(wait));
                let mut fds = [
                    nix::poll::PollFd::new(self.edge.tuns[0].as_fd(), nix::poll::PollFlags::POLLIN),
                    nix::poll::PollFd::new(self.edge.tuns[1].as_fd(), nix::poll::PollFlags::POLLIN),
                ];
                match nix::poll::ppoll(&mut fds, Some(timeout), None) {
                    Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                    Err(e) => return Err(EmuError::system("waiting for packets", std::io::Error::from(e))),
                }
            }
        }
        Ok(self.finish())
    }

    fn run_due(&mut self) {
        let now = self.edge.shared.clock.now();
        self.run_due_until(now);
    }

    fn run_due_until(&mut self, now: SimTime) {
        while self.net.events.peek_time().is_some_and(|t| t <= now) {
            let Some((t, event)) = self.net.events.pop() else {
                break;
            };
            self.net.dispatch(t, event, &mut self.edge);
        }
    }

    fn finish(self) -> ForwarderReport {
        let Forwarder { net, edge } = self;
        let end = edge.shared.clock.now();
        let Parts { mut links, radio, captures, events, packets } = net.into_parts();
        for l in &mut links {
            l.finish(end.max(events.now()));
        }
        ForwarderReport {
            links,
            conns: edge.conns,
            accuracy: edge.accuracy,
            series: edge.series,
            pcaps: captures.into_files(),
            radio,
            events: events.processed(),
            peak_slots: packets.capacity() as u64,
        }
    }
}

impl Host<Datagram> for Edge {
    /// A packet leaves the network at virtual time `t`, from the last direction of its route
    /// (or the radio network): into the TUN device of the side it was going to.
    fn arrived(&mut self, net: &mut Fabric<Datagram>, t: SimTime, id: PacketId, exit: Exit) {
        let d = net.packet(id);
        let side = if d.way == Way::Forward { 1 } else { 0 };
        // A write to a TUN device is taken by the kernel at once; an error (device gone at
        // the end of the run) loses only this packet.
        self.tuns[side].write_all(&d.data).ok();
        let real = self.shared.clock.now();
        let (k, way, entered, view, len) = (d.conn, d.way, d.entered, d.view, d.data.len() as u64);
        net.release(id);
        let dir = match exit {
            Exit::Link(dir) => Some(dir.index()),
            Exit::Radio => None,
        };
        self.note_release(net.links(), dir, t, real, len);
        // A datagram's arrival is the sink's to see, in the receiver's namespace.
        let View::Tcp(view) = view else {
            return;
        };
        if let Some(track) = self.conns.get_mut(k.index()).and_then(|c| c.as_mut()) {
            match way {
                Way::Forward => {
                    track.arrived(real, entered, &view);
                    if self.record_delay && view.len > 0 {
                        self.series.push(real.as_secs_f64(), k.0, SeriesMetric::Delay, real.since(entered).as_secs_f64());
                    }
                }
                Way::Reverse => track.acked(real, &view),
            }
        }
    }

    fn dropped(&mut self, now: SimTime, _site: DropSite, d: &Datagram) {
        // A QUIC transfer's datagrams count in both directions, as the simulator counts them.
        if matches!(d.view, View::Udp(_)) && self.shared.with_quic_flow(d.conn.0, |q| q.drops.push(d.entered)).is_some() {
            return;
        }
        if d.way != Way::Forward {
            return;
        }
        match &d.view {
            View::Tcp(view) => {
                if let Some(track) = self.conns.get_mut(d.conn.index()).and_then(|c| c.as_mut()) {
                    track.dropped(d.entered, view);
                }
            }
            View::Udp(_) => {
                self.shared.with_datagram_flow(d.conn.0, |f| f.dropped(now));
            }
        }
    }

    /// Control messages are counted: kernel TCP has no use for paper 001's ICMP DROP / DEFER.
    fn signals(&mut self, _net: &mut Fabric<Datagram>, _now: SimTime, _dir: DirId, signals: &[(PacketId, IcmpSignal)]) {
        self.control_messages += signals.len() as u64;
    }

    /// The emulator schedules no endpoint events: its flows, timers and web users live in
    /// the kernel and the applications.
    fn on_event(&mut self, _net: &mut Fabric<Datagram>, _now: SimTime, _event: Event) {}
}

impl Edge {
    /// Gives the fabric connection `k`'s route at its first packet (`now`); a connection of
    /// a mobile user starts a new transfer from a new place, as in the simulator, and what
    /// the user's base-station buffer still held is dropped. False for a connection the
    /// registry does not know.
    fn open(&mut self, net: &mut Fabric<Datagram>, k: u32, now: SimTime) -> bool {
        let i = k as usize;
        if self.routed.get(i).copied().unwrap_or(false) {
            return true;
        }
        let Some(meta) = self.shared.connection(k) else {
            return false;
        };
        if self.routed.len() <= i {
            self.routed.resize(i + 1, false);
        }
        let route = self.routes.get(meta.route as usize).cloned().unwrap_or_default();
        let ue = route.ue;
        net.set_route(FlowId(k), route);
        self.routed[i] = true;
        if let Some(ue) = ue {
            net.relocate(now, ue, self);
        }
        true
    }

    /// TCP connection `k`'s tracker, made at its first packet.
    fn track(&mut self, k: u32) -> Option<&mut ConnTrack> {
        let i = k as usize;
        if self.conns.len() <= i {
            self.conns.resize_with(i + 1, || None);
        }
        if self.conns[i].is_none() {
            self.conns[i] = Some(ConnTrack::new(self.shared.connection(k)?));
        }
        self.conns[i].as_mut()
    }

    /// A packet the kernel of one side sent: into the first direction of its route.
    fn ingress(&mut self, net: &mut Fabric<Datagram>, side: usize, now: SimTime, bytes: &[u8]) {
        let Some(view) = wire::parse(bytes) else {
            self.accuracy.foreign_packets += 1;
            return;
        };
        let way = if side == 0 { Way::Forward } else { Way::Reverse };
        let port = if way == Way::Forward { view.sport() } else { view.dport() };
        let Some(k) = connection_of_port(port).filter(|&k| self.open(net, k, now)) else {
            self.accuracy.foreign_packets += 1;
            return;
        };
        if let View::Tcp(tcp) = &view {
            let Some(track) = self.track(k) else {
                self.accuracy.foreign_packets += 1;
                return;
            };
            if way == Way::Forward {
                track.sent(now, tcp);
            }
        }
        let conn = FlowId(k);
        let id = net.alloc_with(
            |d| {
                d.data.clear();
                d.data.extend_from_slice(bytes);
                (d.conn, d.way, d.hop, d.entered, d.view) = (conn, way, 0, now, view);
            },
            || Datagram { data: bytes.to_vec(), conn, way, hop: 0, entered: now, view },
        );
        net.enter(now, id, self);
    }

    /// Lateness of this release, and, for releases back to back on a link direction's
    /// transmitter (their scheduled gap is exactly one transmission time), the real spacing
    /// the receiver saw. A release by the radio network (`dir` None) counts for lateness only.
    fn note_release(&mut self, links: &[LinkDir], dir: Option<usize>, scheduled: SimTime, real: SimTime, bytes: u64) {
        let acc = &mut self.accuracy;
        acc.lateness_ns.push(real.0.saturating_sub(scheduled.0));
        let Some(dir) = dir else {
            return;
        };
        let rate = links[dir].cfg.rate_bps.max(1) as u128;
        let tx = SimDuration((bytes as u128 * 8 * 1_000_000_000 / rate) as u64);
        if let Some((prev_scheduled, prev_real)) = acc.last_release[dir] {
            let gap = scheduled.since(prev_scheduled);
            if gap.as_nanos().abs_diff(tx.as_nanos()) <= 1 {
                acc.paced_bytes[dir] += bytes;
                acc.paced_packets[dir] += 1;
                acc.paced_real_ns[dir] += real.0.saturating_sub(prev_real.0);
            }
        }
        acc.last_release[dir] = Some((scheduled, real));
    }
}
