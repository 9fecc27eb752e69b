//! The world's side of datagram flows: starting them, waking their sources, handing arrivals
//! to their sinks and counting drops. The source and the sink are driven through
//! `transport::Endpoint` alone; a sink that answers (not UDP's) would need its replies sent
//! back over the reverse route, which this file does not do yet.

use super::World;
use crate::engine::{Event, Side};
use crate::fabric::{DropSite, Fabric};
use crate::net::{FlowId, Packet, PacketId, Payload};
use crate::results::SeriesMetric;
use crate::time::SimTime;
use crate::transport::Endpoint;

impl World {
    /// Datagram flow `j` starts: its mobile user (if any) is placed, and its source sends what
    /// is due.
    pub(super) fn datagram_start(&mut self, net: &mut Fabric<Packet>, now: SimTime, j: usize) {
        if let Some(ue) = net.route(FlowId::datagram(j as u32)).ue {
            net.relocate(now, ue, self);
        }
        self.datagram_flows[j].started = true;
        self.datagram_wake(net, now, j);
    }

    /// Datagram flow `j`'s timer event of `generation` fired.
    pub(super) fn datagram_timer(&mut self, net: &mut Fabric<Packet>, now: SimTime, j: usize, generation: u32) {
        let flow = &mut self.datagram_flows[j];
        if flow.timer_generation != generation {
            return; // superseded
        }
        flow.timer_at = None;
        self.datagram_wake(net, now, j);
    }

    /// Wakes flow `j`'s source if it is due, sends what it produced and re-arms its timer.
    fn datagram_wake(&mut self, net: &mut Fabric<Packet>, now: SimTime, j: usize) {
        let mut out = std::mem::take(&mut self.datagrams);
        let flow = &mut self.datagram_flows[j];
        if flow.source.next_wakeup().is_some_and(|t| t <= now) {
            flow.source.wake(now, &mut out);
        }
        let f = FlowId::datagram(j as u32);
        for d in out.drain(..) {
            let packet = Packet::datagram(f, d);
            self.datagram_flows[j].ledger.allocated(&packet);
            self.data_packets += 1;
            let id = net.alloc(packet);
            net.enter(now, id, self);
        }
        self.datagrams = out;
        self.datagram_sync_timer(net, j);
        self.datagram_check_done(now, j);
    }

    fn datagram_sync_timer(&mut self, net: &mut Fabric<Packet>, j: usize) {
        let flow = &mut self.datagram_flows[j];
        if let Some(t) = flow.source.next_wakeup() {
            if flow.timer_at.is_none_or(|pending| t < pending) {
                flow.timer_generation = flow.timer_generation.wrapping_add(1);
                flow.timer_at = Some(t);
                net.events.schedule(t, Event::Timer { flow: FlowId::datagram(j as u32), side: Side::Sender, generation: flow.timer_generation });
            }
        }
    }

    /// Datagram packet `id` reached its sink.
    pub(super) fn datagram_arrived(&mut self, net: &mut Fabric<Packet>, now: SimTime, id: PacketId) {
        let p = net.packet(id);
        let j = p.flow.slot();
        let flow = &mut self.datagram_flows[j];
        flow.ledger.delivered(p);
        if let Payload::Datagram(d) = p.payload() {
            if self.record_delay {
                self.series.push(now.as_secs_f64(), flow.row, SeriesMetric::Delay, now.since(d.sent_at).as_secs_f64());
            }
            let mut replies = std::mem::take(&mut self.datagrams);
            flow.sink.receive(now, &d, &mut replies);
            debug_assert!(replies.is_empty(), "a UDP sink sends nothing back");
            replies.clear();
            self.datagrams = replies;
        }
        net.release(id);
        self.datagram_check_done(now, j);
    }

    /// Datagram packet `p` was dropped at `site`.
    pub(super) fn datagram_dropped(&mut self, now: SimTime, site: DropSite, p: &Packet) {
        let j = p.flow.slot();
        let flow = &mut self.datagram_flows[j];
        flow.ledger.dropped(p);
        flow.lost += 1;
        if let Some(log) = &mut self.events {
            let seq = match p.payload() {
                Payload::Datagram(d) => Some(d.seq),
                _ => None,
            };
            log.dropped(now, (p.flow, flow.row), site, seq);
        }
        self.datagram_check_done(now, j);
    }

    /// Flow `j` ends once every datagram is sent and accounted for.
    fn datagram_check_done(&mut self, now: SimTime, j: usize) {
        let flow = &mut self.datagram_flows[j];
        if flow.end.is_none() && flow.source.all_accounted(flow.sink.received, flow.lost) {
            flow.end = Some(now);
            self.completed += 1;
        }
    }
}
