//! The world's side of datagram flows: starting them, waking their ends, handing arrivals to
//! the end they travel to and counting drops. A UDP source and sink are driven through
//! `transport::Endpoint` alone; a QUIC transfer through `QuicTransfer`, whose server sends
//! forward along the route and whose client sends the reverse way, its datagrams' bytes
//! kept aside (`quic_wire`).

use super::datagram_flow::Ends;
use super::World;
use crate::engine::{Event, Side};
use crate::fabric::{DropSite, Fabric};
use crate::net::{FlowId, Packet, PacketId, Payload, Way};
use crate::quic::{Outgoing, Role};
use crate::results::SeriesMetric;
use crate::time::SimTime;
use crate::traffic::Origin;
use crate::transport::{Datagram, Endpoint};

/// A QUIC server sends forward along the flow's route (as a TCP sender), its client the
/// reverse way.
fn way_of(from: Role) -> Way {
    match from {
        Role::Server => Way::Forward,
        Role::Client => Way::Reverse,
    }
}

fn sender_of(way: Way) -> Role {
    match way {
        Way::Forward => Role::Server,
        Way::Reverse => Role::Client,
    }
}

impl World {
    /// Datagram flow `j` starts: its mobile user (if any) is placed, and its source sends what
    /// is due (a QUIC client, its first flight).
    pub(super) fn datagram_start(&mut self, net: &mut Fabric<Packet>, now: SimTime, j: usize) {
        if let Some(ue) = net.route(FlowId::datagram(j as u32)).ue {
            net.relocate(now, ue, self);
        }
        self.datagram_flows[j].started = true;
        if let Ends::Quic(t) = &mut self.datagram_flows[j].ends {
            let mut out = std::mem::take(&mut self.quic_out);
            t.start(now, &mut out);
            return self.quic_after(net, now, j, out);
        }
        self.datagram_wake(net, now, j);
    }

    /// Datagram flow `j`'s timer event of `generation` fired.
    pub(super) fn datagram_timer(&mut self, net: &mut Fabric<Packet>, now: SimTime, j: usize, generation: u32) {
        let flow = &mut self.datagram_flows[j];
        if flow.timer_generation != generation {
            return; // superseded
        }
        flow.timer_at = None;
        if let Ends::Quic(t) = &mut flow.ends {
            let mut out = std::mem::take(&mut self.quic_out);
            t.wake(now, &mut out);
            return self.quic_after(net, now, j, out);
        }
        self.datagram_wake(net, now, j);
    }

    /// Wakes UDP flow `j`'s source if it is due, sends what it produced and re-arms its timer.
    fn datagram_wake(&mut self, net: &mut Fabric<Packet>, now: SimTime, j: usize) {
        let mut out = std::mem::take(&mut self.datagrams);
        let Ends::Udp { source, .. } = &mut self.datagram_flows[j].ends else {
            unreachable!("only a UDP flow's source wakes here");
        };
        if source.next_wakeup().is_some_and(|t| t <= now) {
            source.wake(now, &mut out);
        }
        let f = FlowId::datagram(j as u32);
        for d in out.drain(..) {
            self.datagram_send(net, now, f, Way::Forward, d);
        }
        self.datagrams = out;
        self.datagram_sync_timer(net, j);
        self.datagram_check_done(net, now, j);
    }

    /// Puts datagram `d` of flow `f` into the network, travelling `way`.
    fn datagram_send(&mut self, net: &mut Fabric<Packet>, now: SimTime, f: FlowId, way: Way, d: Datagram) {
        let packet = Packet::datagram_on(f, way, d);
        self.datagram_flows[f.slot()].ledger.allocated(&packet);
        if way == Way::Forward {
            self.data_packets += 1;
        }
        let id = net.alloc(packet);
        net.enter(now, id, self);
    }

    /// Sends what QUIC flow `j`'s ends produced, files its server's metrics, re-arms its
    /// timer and checks whether it ended.
    fn quic_after(&mut self, net: &mut Fabric<Packet>, now: SimTime, j: usize, mut out: Vec<Outgoing>) {
        let f = FlowId::datagram(j as u32);
        for (from, d) in out.drain(..) {
            let way = way_of(from);
            let len = d.bytes.len() as u32;
            let key = self.quic_wire.put(d);
            self.datagram_send(net, now, f, way, Datagram { seq: key, len, sent_at: now });
        }
        self.quic_out = out;
        self.quic_samples(j);
        self.quic_log(j);
        self.datagram_sync_timer(net, j);
        self.datagram_check_done(net, now, j);
    }

    /// Moves QUIC flow `j`'s server's metrics into the series asked for.
    fn quic_samples(&mut self, j: usize) {
        let flow = &mut self.datagram_flows[j];
        let Ends::Quic(t) = &mut flow.ends else { return };
        for (at, m) in t.server.samples.drain(..) {
            let at = at.as_secs_f64();
            let metrics = [(SeriesMetric::Cwnd, m.congestion_window.map(|w| w as f64)), (SeriesMetric::Ssthresh, m.ssthresh.map(|w| w as f64)), (SeriesMetric::Srtt, m.smoothed_rtt_s), (SeriesMetric::Rttvar, m.rtt_variance_s)];
            for (metric, value) in metrics {
                if let Some(v) = value.filter(|_| self.quic_series[metric as usize]) {
                    self.series.push(at, flow.row, metric, v);
                }
            }
        }
    }

    /// Puts QUIC flow `j`'s new PTOs and declared losses in the event log.
    fn quic_log(&mut self, j: usize) {
        let Some(log) = &mut self.events else { return };
        let flow = &mut self.datagram_flows[j];
        let Ends::Quic(t) = &flow.ends else { return };
        let f = (FlowId::datagram(j as u32), flow.row);
        for (k, (end, server)) in [(&t.client, false), (&t.server, true)].into_iter().enumerate() {
            let (ptos, losses) = end.oracle.counts();
            let (logged_ptos, logged_losses) = flow.logged[k];
            for i in logged_ptos..ptos {
                log.pto(end.oracle.pto(i).0, f, server, i as u32);
            }
            for i in logged_losses..losses {
                let (at, pn, _) = end.oracle.declared(i);
                log.lost(at, f, server, i as u32, pn);
            }
            flow.logged[k] = (ptos, losses);
        }
    }

    fn datagram_sync_timer(&mut self, net: &mut Fabric<Packet>, j: usize) {
        let flow = &mut self.datagram_flows[j];
        let next = match &flow.ends {
            Ends::Udp { source, .. } => source.next_wakeup(),
            Ends::Quic(t) => t.next_wakeup(),
        };
        if let Some(t) = next {
            if flow.timer_at.is_none_or(|pending| t < pending) {
                flow.timer_generation = flow.timer_generation.wrapping_add(1);
                flow.timer_at = Some(t);
                net.events.schedule(t, Event::Timer { flow: FlowId::datagram(j as u32), side: Side::Sender, generation: flow.timer_generation });
            }
        }
    }

    /// Datagram packet `id` reached the end it was travelling to.
    pub(super) fn datagram_arrived(&mut self, net: &mut Fabric<Packet>, now: SimTime, id: PacketId) {
        let p = net.packet(id);
        let (j, way) = (p.flow.slot(), p.way);
        let flow = &mut self.datagram_flows[j];
        flow.ledger.delivered(p);
        let Payload::Datagram(d) = p.payload() else {
            unreachable!("a datagram flow's packets carry datagrams");
        };
        net.release(id);
        if self.record_delay && way == Way::Forward {
            self.series.push(now.as_secs_f64(), flow.row, SeriesMetric::Delay, now.since(d.sent_at).as_secs_f64());
        }
        match &mut flow.ends {
            Ends::Udp { sink, .. } => {
                let mut replies = std::mem::take(&mut self.datagrams);
                sink.receive(now, &d, &mut replies);
                debug_assert!(replies.is_empty(), "a UDP sink sends nothing back");
                replies.clear();
                self.datagrams = replies;
            }
            Ends::Quic(t) => {
                let bytes = self.quic_wire.take(d.seq);
                let mut out = std::mem::take(&mut self.quic_out);
                t.deliver(now, sender_of(way), &bytes, &mut out);
                return self.quic_after(net, now, j, out);
            }
        }
        self.datagram_check_done(net, now, j);
    }

    /// Datagram packet `p` was dropped at `site`.
    pub(super) fn datagram_dropped(&mut self, now: SimTime, site: DropSite, p: &Packet) {
        let j = p.flow.slot();
        let flow = &mut self.datagram_flows[j];
        flow.ledger.dropped(p);
        flow.lost += 1;
        let Payload::Datagram(d) = p.payload() else {
            unreachable!("a datagram flow's packets carry datagrams");
        };
        let seq = match &mut flow.ends {
            Ends::Udp { .. } => d.seq,
            Ends::Quic(t) => {
                let bytes = self.quic_wire.take(d.seq);
                t.dropped(sender_of(p.way), bytes.index);
                bytes.index as u64
            }
        };
        if let Some(log) = &mut self.events {
            log.dropped(now, (p.flow, flow.row), site, Some(seq));
        }
        self.datagram_ended_by_drop(now, j);
    }
}

impl World {
    /// Flow `j` ends once a UDP source's every datagram is sent and accounted for, or once a
    /// QUIC transfer has ended; a web user's next request is then scheduled.
    fn datagram_check_done(&mut self, net: &mut Fabric<Packet>, now: SimTime, j: usize) {
        if self.datagram_mark_end(now, j) {
            if let Origin::Web { user, .. } = self.datagram_flows[j].origin {
                let wake = self.users[user as usize].behaviour.next_wake(now);
                net.events.schedule(wake, Event::UserWake(user));
            }
        }
    }

    /// A drop can end a bounded UDP flow (its last datagram's fate), never a QUIC transfer,
    /// so no user waits on it.
    fn datagram_ended_by_drop(&mut self, now: SimTime, j: usize) {
        let ended = self.datagram_mark_end(now, j);
        debug_assert!(!ended || matches!(self.datagram_flows[j].ends, Ends::Udp { .. }));
    }

    /// Marks flow `j` ended if it has; whether it did just now.
    fn datagram_mark_end(&mut self, now: SimTime, j: usize) -> bool {
        let flow = &mut self.datagram_flows[j];
        if flow.end.is_some() {
            return false;
        }
        let end = match &flow.ends {
            Ends::Udp { source, sink } => source.all_accounted(sink.received, flow.lost).then_some(now),
            Ends::Quic(t) => t.ended(),
        };
        match end {
            Some(t) => {
                flow.end = Some(t);
                self.completed += 1;
                true
            }
            None => false,
        }
    }
}
