//! The real-time forwarder: packets the kernel routes into one namespace's TUN device cross
//! the scenario's link directions — the simulator's own `LinkDir` and `SpikeProcess`, driven
//! by the simulator's event queue — and are written into the other namespace's TUN device
//! when the last direction releases them. A route into the radio network ends at a base
//! station instead: the simulator's `RadioNetwork` holds the packet until a TTI of the user's
//! cell hands it over.
//!
//! Time is the monotonic clock since the start (`Clock`). Events run at their own (virtual)
//! time as soon as the clock reaches it, so queueing, serialisation and propagation follow
//! the configured rates exactly; the forwarder sleeps in `ppoll` until the next event or
//! packet (no busy polling), with a 1 µs timer slack. How late each release was is measured.

use crate::conn::ConnTrack;
use crate::error::{EmuError, EmuResult};
use crate::shared::{connection_of_port, Shared};
use crate::wire::{self, TcpView};
use rtolab_sim::engine::{Event, EventQueue};
use rtolab_sim::net::{DirId, LinkDir, Offer, PacketId, SpikeProcess, Way};
use rtolab_sim::pcap::Capture;
use rtolab_sim::radio::RadioNetwork;
use rtolab_sim::results::{SeriesMetric, SeriesTable};
use rtolab_sim::{SimDuration, SimTime};
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsFd;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A packet between ingress and egress.
struct Slot {
    data: Vec<u8>,
    conn: u32,
    way: Way,
    hop: u16,
    /// When it entered the forwarder (its "send" time for the oracle and one-way delay).
    entered: SimTime,
    view: TcpView,
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
    /// Packets the forwarder could not attribute to a connection (not TCP, unknown port).
    pub foreign_packets: u64,
    /// The forwarder ran under `SCHED_FIFO`.
    pub realtime: bool,
}

/// The link directions of one route and, when it reaches the radio network, its mobile
/// user: `(ue, way)`, where packets of `way` finish at a base station and cross the shared
/// channel to the user.
pub struct Route {
    pub forward: Vec<DirId>,
    pub reverse: Vec<DirId>,
    pub mobile: Option<(u32, Way)>,
}

pub struct Forwarder {
    /// TUN devices: 0 in the sender's namespace, 1 in the receiver's.
    tuns: [File; 2],
    links: Vec<LinkDir>,
    spikes: Vec<SpikeProcess>,
    events: EventQueue,
    /// Per route id.
    routes: Vec<Route>,
    radio: Option<RadioNetwork>,
    slots: Vec<Slot>,
    free: Vec<u32>,
    pub conns: Vec<Option<ConnTrack>>,
    captures: Vec<Option<Capture>>,
    shared: Arc<Shared>,
    pub accuracy: Accuracy,
    record_delay: bool,
    pub series: SeriesTable,
    arrivals: Vec<PacketId>,
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
        routes: Vec<Route>,
        radio: Option<RadioNetwork>,
        captures: Vec<Option<Capture>>,
        shared: Arc<Shared>,
        record_delay: bool,
    ) -> Self {
        let n = links.len();
        let mut events = EventQueue::default();
        let mut spikes = spikes;
        for (i, s) in spikes.iter_mut().enumerate() {
            if let Some(t) = s.first_start() {
                events.schedule(t, Event::SpikeStart(i as u32));
            }
        }
        Forwarder {
            tuns,
            links,
            spikes,
            events,
            routes,
            radio,
            slots: Vec::new(),
            free: Vec::new(),
            conns: Vec::new(),
            captures,
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
            arrivals: Vec::new(),
            control_messages: 0,
        }
    }

    /// Forwards until `shared.stop` is set.
    pub fn run(mut self) -> EmuResult<ForwarderReport> {
        // SAFETY: prctl(PR_SET_TIMERSLACK) only changes this thread's timer slack.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong, 0, 0, 0) };
        self.accuracy.realtime = request_realtime();
        let mut buf = vec![0u8; 1 << 16];
        while !self.shared.stop.load(Ordering::Relaxed) {
            self.run_due();
            for side in 0..2 {
                loop {
                    match self.tuns[side].read(&mut buf) {
                        Ok(n) => {
                            let now = self.shared.clock.now();
                            self.run_due_until(now);
                            self.ingress(side, now, &buf[..n]);
                        }
                        Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                        Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                        Err(e) => return Err(EmuError::system("reading a TUN device", e)),
                    }
                }
            }
            self.run_due();
            let now = self.shared.clock.now();
            let wait = self.events.peek_time().map(|t| t.0.saturating_sub(now.0)).unwrap_or(u64::MAX).min(20_000_000);
            if wait > 0 {
                let timeout = nix::sys::time::TimeSpec::from_duration(std::time::Duration::from_nanos(wait));
                let mut fds = [
                    nix::poll::PollFd::new(self.tuns[0].as_fd(), nix::poll::PollFlags::POLLIN),
                    nix::poll::PollFd::new(self.tuns[1].as_fd(), nix::poll::PollFlags::POLLIN),
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
        let now = self.shared.clock.now();
        self.run_due_until(now);
    }

    fn run_due_until(&mut self, now: SimTime) {
        while self.events.peek_time().is_some_and(|t| t <= now) {
            let Some((t, event)) = self.events.pop() else {
                break;
            };
            self.dispatch(t, event);
        }
    }

    fn dispatch(&mut self, t: SimTime, event: Event) {
        match event {
            Event::TxDone(d) => {
                if let Some(lost) = self.links[d.index()].on_tx_done(t, &mut self.events) {
                    self.drop_slot(lost.0);
                }
                self.take_notices(d);
            }
            Event::Arrive(d) => {
                let mut arrivals = std::mem::take(&mut self.arrivals);
                self.links[d.index()].on_arrival(t, &mut self.events, &mut arrivals);
                for id in arrivals.drain(..) {
                    self.advance(t, d, id.0);
                }
                self.arrivals = arrivals;
            }
            Event::ArqFeedback(d) => {
                self.links[d.index()].on_feedback(t, &mut self.events);
                self.take_notices(d);
            }
            Event::SpikeStart(i) => self.spikes[i as usize].begin(i, t, &mut self.links, &mut self.events),
            Event::SpikeEnd(i) => {
                let mut arrivals = std::mem::take(&mut self.arrivals);
                for d in self.spikes[i as usize].dirs().collect::<Vec<_>>() {
                    self.links[d].release(t, &mut self.events, &mut arrivals);
                    for id in arrivals.drain(..) {
                        self.advance(t, DirId(d as u32), id.0);
                    }
                }
                self.arrivals = arrivals;
                if let Some(next) = self.spikes[i as usize].next_start(t) {
                    self.events.schedule(next, Event::SpikeStart(i));
                }
            }
            Event::Tti(c) => {
                let mut handed = std::mem::take(&mut self.arrivals);
                if let Some(radio) = &mut self.radio {
                    radio.on_tti(t, c as usize, &mut self.events, &mut handed);
                }
                for id in handed.drain(..) {
                    self.egress(t, None, id.0);
                }
                self.arrivals = handed;
            }
            // Flows, timers and web users live in the kernel and the applications.
            Event::FlowStart(_) | Event::Timer { .. } | Event::UserWake(_) | Event::Stop => {}
        }
    }

    /// Acts on what direction `dir` noted: control messages are counted (kernel TCP has no
    /// use for paper 001's ICMP DROP / DEFER), drops of a flushed ARQ buffer recorded.
    fn take_notices(&mut self, dir: DirId) {
        if !self.links[dir.index()].has_notices() {
            return;
        }
        let mut notices = self.links[dir.index()].take_notices();
        self.control_messages += notices.signals.len() as u64;
        for id in notices.dropped.drain(..) {
            self.drop_slot(id.0);
        }
        self.links[dir.index()].return_notices(notices);
    }

    /// Connection `k`'s tracker, made at its first packet (`now`); a connection of a mobile
    /// user starts a new transfer from a new place, as in the simulator, and what the user's
    /// base-station buffer still held is dropped.
    fn track(&mut self, k: u32, now: SimTime) -> Option<&mut ConnTrack> {
        let i = k as usize;
        if self.conns.len() <= i {
            self.conns.resize_with(i + 1, || None);
        }
        if self.conns[i].is_none() {
            let meta = self.shared.connection(k)?;
            let mobile = self.routes.get(meta.route as usize).and_then(|r| r.mobile);
            self.conns[i] = Some(ConnTrack::new(meta));
            if let (Some((ue, _)), Some(radio)) = (mobile, &mut self.radio) {
                let mut flushed = Vec::new();
                radio.relocate(now, ue, &mut flushed);
                for id in flushed {
                    self.drop_slot(id.0);
                }
            }
        }
        self.conns[i].as_mut()
    }

    /// A packet the kernel of one side sent: into the first direction of its route.
    fn ingress(&mut self, side: usize, now: SimTime, bytes: &[u8]) {
        let Some(view) = wire::parse(bytes) else {
            self.accuracy.foreign_packets += 1;
            return;
        };
        let way = if side == 0 { Way::Forward } else { Way::Reverse };
        let port = if way == Way::Forward { view.sport } else { view.dport };
        let Some(k) = connection_of_port(port) else {
            self.accuracy.foreign_packets += 1;
            return;
        };
        let Some(track) = self.track(k, now) else {
            self.accuracy.foreign_packets += 1;
            return;
        };
        if way == Way::Forward {
            track.sent(now, &view);
        }
        let route = track.meta.route as usize;
        let first = match way {
            Way::Forward => self.routes[route].forward[0],
            Way::Reverse => self.routes[route].reverse[0],
        };
        let id = self.alloc(Slot { data: Vec::new(), conn: k, way, hop: 0, entered: now, view }, bytes);
        self.offer(now, first, id);
    }

    fn alloc(&mut self, mut slot: Slot, bytes: &[u8]) -> u32 {
        match self.free.pop() {
            Some(id) => {
                let old = &mut self.slots[id as usize];
                slot.data = std::mem::take(&mut old.data);
                slot.data.clear();
                slot.data.extend_from_slice(bytes);
                *old = slot;
                id
            }
            None => {
                slot.data = bytes.to_vec();
                self.slots.push(slot);
                (self.slots.len() - 1) as u32
            }
        }
    }

    fn offer(&mut self, now: SimTime, dir: DirId, id: u32) {
        let slot = &self.slots[id as usize];
        if let Some(c) = &mut self.captures[dir.index()] {
            c.record_ip(now, &slot.data);
        }
        let len = slot.data.len() as u32;
        if self.links[dir.index()].offer(now, PacketId(id), len, &mut self.events) == Offer::Dropped {
            self.drop_slot(id);
        }
        self.take_notices(dir);
    }

    fn drop_slot(&mut self, id: u32) {
        let (k, way, entered, view) = {
            let s = &self.slots[id as usize];
            (s.conn, s.way, s.entered, s.view)
        };
        if way == Way::Forward {
            if let Some(track) = self.conns.get_mut(k as usize).and_then(|c| c.as_mut()) {
                track.dropped(entered, &view);
            }
        }
        self.free.push(id);
    }

    /// A packet left direction `dir` at virtual time `t`: on to the next hop, to its mobile
    /// user's base station, or out.
    fn advance(&mut self, t: SimTime, dir: DirId, id: u32) {
        let slot = &mut self.slots[id as usize];
        let route = &self.routes[self.conns[slot.conn as usize].as_ref().map(|c| c.meta.route).unwrap_or(0) as usize];
        let hops = if slot.way == Way::Forward { &route.forward } else { &route.reverse };
        let next = slot.hop as usize + 1;
        if next < hops.len() {
            slot.hop = next as u16;
            let d = hops[next];
            self.offer(t, d, id);
            return;
        }
        if let (Some((ue, _)), Some(radio)) = (route.mobile.filter(|&(_, way)| way == slot.way), &mut self.radio) {
            let len = slot.data.len() as u32;
            if radio.offer(t, ue, PacketId(id), len, &mut self.events) == Offer::Dropped {
                self.drop_slot(id);
            }
            return;
        }
        self.egress(t, Some(dir.index()), id);
    }

    /// A packet leaves the network at virtual time `t`, from direction `dir` (or the radio
    /// network): into the TUN device of the side it was going to.
    fn egress(&mut self, t: SimTime, dir: Option<usize>, id: u32) {
        let slot = &self.slots[id as usize];
        let side = if slot.way == Way::Forward { 1 } else { 0 };
        // A write to a TUN device is taken by the kernel at once; an error (device gone at
        // the end of the run) loses only this packet.
        self.tuns[side].write_all(&slot.data).ok();
        let real = self.shared.clock.now();
        let (k, way, entered, view, len) = (slot.conn, slot.way, slot.entered, slot.view, slot.data.len() as u64);
        self.note_release(dir, t, real, len);
        if let Some(track) = self.conns.get_mut(k as usize).and_then(|c| c.as_mut()) {
            match way {
                Way::Forward => {
                    track.arrived(real, entered, &view);
                    if self.record_delay && view.len > 0 {
                        self.series.push(real.as_secs_f64(), k, SeriesMetric::Delay, real.since(entered).as_secs_f64());
                    }
                }
                Way::Reverse => track.acked(real, &view),
            }
        }
        self.free.push(id);
    }

    /// Lateness of this release, and, for releases back to back on a link direction's
    /// transmitter (their scheduled gap is exactly one transmission time), the real spacing
    /// the receiver saw. A release by the radio network (`dir` None) counts for lateness only.
    fn note_release(&mut self, dir: Option<usize>, scheduled: SimTime, real: SimTime, bytes: u64) {
        let acc = &mut self.accuracy;
        acc.lateness_ns.push(real.0.saturating_sub(scheduled.0));
        let Some(dir) = dir else {
            return;
        };
        let rate = self.links[dir].cfg.rate_bps.max(1) as u128;
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

    fn finish(mut self) -> ForwarderReport {
        let end = self.shared.clock.now();
        for l in &mut self.links {
            l.finish(end.max(self.events.now()));
        }
        ForwarderReport {
            links: self.links,
            conns: self.conns,
            accuracy: self.accuracy,
            series: self.series,
            pcaps: self.captures.into_iter().flatten().map(|c| c.into_bytes()).collect(),
            radio: self.radio,
            events: self.events.processed(),
            peak_slots: self.slots.len() as u64,
        }
    }
}

/// Asks for `SCHED_FIFO` at a middle priority for the calling thread, so that other work on
/// the machine cannot hold a release back (sched(7)); the forwarder sleeps in `ppoll`
/// between releases, so it never monopolises a core. Returns whether it was granted (root
/// without an `RLIMIT_RTPRIO` or cgroup restriction); without it the forwarder runs at normal
/// priority and the accuracy figures say how late it was.
fn request_realtime() -> bool {
    let param = libc::sched_param { sched_priority: 50 };
    // SAFETY: sched_setscheduler(0, ...) changes only the calling thread's policy; `param`
    // outlives the call.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}
