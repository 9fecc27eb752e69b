//! Turns a validated `Scenario` into the run-time world.

use super::configs::SenderConfigs;
use super::datagram_flow::DatagramFlow;
use super::events::EventLog;
use super::flow::FlowRuntime;
use super::plan::plan;
use super::session::RowSource;
use super::users::{UserGroup, UserSlot};
use super::{Simulation, World};
use crate::build::links::{captures, link_dirs, reported_links, route_dirs, spike_processes, LinkRecording};
use crate::build::radio;
use crate::engine::Event;
use crate::fabric::{Fabric, FlowRoute};
use crate::net::FlowId;
use crate::spec::{Scenario, SeriesMetric};
use crate::time::SimTime;

impl Simulation {
    /// Builds the network and the world for `scenario` under `seed`. The scenario must be
    /// validated.
    pub fn new(scenario: &Scenario, seed: u64) -> Self {
        let series = &scenario.output.series;
        let record = LinkRecording::of(series);
        // What a QUIC flow's server records, from its qlog metrics.
        let quic_series = SeriesMetric::ALL.map(|m| matches!(m, SeriesMetric::Cwnd | SeriesMetric::Ssthresh | SeriesMetric::Srtt | SeriesMetric::Rttvar) && series.contains(&m));
        let quic_record = quic_series.iter().any(|&r| r);
        let mut links = link_dirs(scenario, seed, record);
        let (planned, planned_users) = plan(scenario, seed);
        // Every flow and web user whose route ends in the radio network is a mobile user.
        let mut ues = 0u32;
        let mut mobile = |route: &[String], uplink: bool| {
            scenario.reaches_radio(route, uplink).then(|| {
                ues += 1;
                ues - 1
            })
        };
        let mut configs = SenderConfigs::default();
        // The flows are collected once, into an allocation of exactly their number, and then
        // completed in place: `FlowRuntime` is over-aligned (64), and the system allocator
        // grows or shrinks such a block by allocating another one and copying, so collecting
        // them through a wider element (say, a tuple with each flow's UE) and then into
        // `Vec<FlowRuntime>` held two copies of every flow at once (the run's peak RSS).
        // A flow's id, route and mobile user, in the plan's order (its row); datagram flows
        // are numbered apart (`FlowId::datagram`).
        let mut routed: Vec<(FlowId, FlowRoute, Option<u32>, bool)> = Vec::with_capacity(planned.len());
        let mut rows = Vec::with_capacity(planned.len());
        let mut datagram_flows = Vec::new();
        let n_tcp = planned.iter().filter(|f| f.datagrams.is_none() && f.quic.is_none()).count();
        let mut flows: Vec<FlowRuntime> = Vec::with_capacity(n_tcp);
        for (i, f) in planned.into_iter().enumerate() {
            let (fwd, rev) = route_dirs(scenario, f.route, f.uplink);
            let id = match (&f.datagrams, f.quic) {
                (_, Some(quic)) => {
                    let mut flow = DatagramFlow::quic(f.name, f.origin, f.start, f.size, quic, seed, quic_record);
                    flow.row = i as u32;
                    datagram_flows.push(flow);
                    rows.push(RowSource::Datagram(FlowId::datagram(datagram_flows.len() as u32 - 1)));
                    FlowId::datagram(datagram_flows.len() as u32 - 1)
                }
                (Some(plan), None) => {
                    let mut flow = DatagramFlow::planned(f.name, f.origin, f.start, f.size, plan, seed);
                    flow.row = i as u32;
                    datagram_flows.push(flow);
                    rows.push(RowSource::Datagram(FlowId::datagram(datagram_flows.len() as u32 - 1)));
                    FlowId::datagram(datagram_flows.len() as u32 - 1)
                }
                (None, None) => {
                    let mut flow = FlowRuntime::new(f.name, f.origin, f.start, f.size, f.tcp, seed, &mut configs);
                    flow.row = i as u32;
                    flows.push(flow);
                    rows.push(RowSource::Flow(FlowId(flows.len() as u32 - 1)));
                    FlowId(flows.len() as u32 - 1)
                }
            };
            routed.push((id, FlowRoute::new(fwd, rev), mobile(f.route, f.uplink), f.uplink));
        }
        let mut users = Vec::new();
        let mut user_groups = Vec::new();
        for (group, w) in planned_users.into_iter().enumerate() {
            let (forward, reverse) = route_dirs(scenario, w.route, w.uplink);
            for (user, behaviour) in w.users.into_iter().enumerate() {
                let ue = mobile(w.route, w.uplink);
                users.push(UserSlot { group: group as u32, user: user as u32, files: 0, ue, connection: None, behaviour });
            }
            user_groups.push(UserGroup { name: w.name, forward, reverse, tcp: w.tcp.clone(), quic: w.quic.cloned(), start: w.start, uplink: w.uplink, one_connection: w.one_connection });
        }
        let radio = radio::build(scenario, ues as usize, &mut links, seed, record);
        if let Some(radio) = &radio {
            for (_, route, ue, uplink) in &mut routed {
                if let Some(ue) = *ue {
                    route.reach_mobile(ue, radio.uplink(ue), *uplink);
                }
            }
        }
        let spikes = spike_processes(scenario, seed);
        let captures = captures(scenario, &links);
        let mut net = Fabric::new(links, spikes, radio, captures);
        for (id, route, _, _) in routed {
            net.set_route(id, route);
        }

        let world = World {
            scenario_name: scenario.name.clone(),
            seed,
            reported_links: reported_links(scenario),
            rows,
            files: Vec::new(),
            flows,
            datagram_flows,
            users,
            user_groups,
            configs,
            stop_at: scenario.duration.map(|d| SimTime::ZERO + d.sim()),
            max_events: scenario.limits.max_events,
            max_time: SimTime::ZERO + scenario.limits.max_time.sim(),
            flow_series: SeriesMetric::SENDER.map(|m| series.contains(&m)),
            record_delay: series.contains(&SeriesMetric::Delay),
            record_rtt: series.contains(&SeriesMetric::Rtt),
            series: Default::default(),
            events: EventLog::new(&scenario.output.events),
            completed: 0,
            data_packets: 0,
            segments: Vec::new(),
            datagrams: Vec::new(),
            quic_out: Vec::new(),
            quic_wire: Default::default(),
            quic_series,
            error: None,
        };
        let mut sim = Simulation { net, world };
        sim.schedule_initial_events();
        sim
    }

    /// The stop, the flows' starts, the spikes, the users' first wake-ups, in this order
    /// (which fixes the order of events at the same instant).
    fn schedule_initial_events(&mut self) {
        let (net, world) = (&mut self.net, &mut self.world);
        if let Some(t) = world.stop_at {
            net.events.schedule(t, Event::Stop);
        }
        for row in &world.rows {
            let (id, start) = match *row {
                RowSource::Flow(f) => (f, world.flows[f.index()].start),
                RowSource::Datagram(f) => (f, world.datagram_flows[f.slot()].start),
                RowSource::File(_) => continue,
            };
            net.events.schedule(start, Event::FlowStart(id));
        }
        net.schedule_spikes();
        for u in 0..world.users.len() {
            let start = world.user_groups[world.users[u].group as usize].start;
            let wake = world.users[u].behaviour.first_wake(start);
            net.events.schedule(wake, Event::UserWake(u as u32));
        }
    }
}
