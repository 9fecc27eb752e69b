//! Turns a validated `Scenario` into the run-time world.

use super::configs::SenderConfigs;
use super::events::EventLog;
use super::flow::FlowRuntime;
use super::plan::plan;
use super::session::RowSource;
use super::traffic::WebGenerator;
use super::{Simulation, World};
use crate::build::links::{captures, link_dirs, reported_links, route_dirs, spike_processes, LinkRecording};
use crate::build::radio;
use crate::engine::Event;
use crate::fabric::{Fabric, FlowRoute};
use crate::net::FlowId;
use crate::spec::{Scenario, SeriesMetric, WebConnection};
use crate::time::SimTime;

impl Simulation {
    /// Builds the network and the world for `scenario` under `seed`. The scenario must be
    /// validated.
    pub fn new(scenario: &Scenario, seed: u64) -> Self {
        let series = &scenario.output.series;
        let record = LinkRecording::of(series);
        let mut links = link_dirs(scenario, seed, record);
        let (planned, planned_web) = plan(scenario, seed);
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
        let mut ues_of_flows: Vec<(Option<u32>, bool)> = Vec::with_capacity(planned.len());
        let mut routes: Vec<FlowRoute> = Vec::with_capacity(planned.len());
        let flows: Vec<FlowRuntime> = planned
            .into_iter()
            .enumerate()
            .map(|(i, f)| {
                let (fwd, rev) = route_dirs(scenario, f.route, f.uplink);
                routes.push(FlowRoute::new(fwd, rev));
                let mut flow = FlowRuntime::new(f.name, f.origin, f.start, f.size, f.tcp, seed, &mut configs);
                flow.row = i as u32;
                ues_of_flows.push((mobile(f.route, f.uplink), f.uplink));
                flow
            })
            .collect();
        let mut web_users = Vec::new();
        let mut web_specs = Vec::new();
        for w in planned_web {
            let (forward, reverse) = route_dirs(scenario, w.route, w.uplink);
            let per_session = w.connection == WebConnection::PerSession;
            web_specs.push(WebGenerator { name: w.name, forward, reverse, tcp: w.tcp.clone(), start: w.start, uplink: w.uplink, per_session });
            for mut user in w.users {
                user.ue = mobile(w.route, w.uplink);
                web_users.push(user);
            }
        }
        let radio = radio::build(scenario, ues as usize, &mut links, seed, record);
        if let Some(radio) = &radio {
            for (route, &(ue, uplink)) in routes.iter_mut().zip(&ues_of_flows) {
                if let Some(ue) = ue {
                    route.reach_mobile(ue, radio.uplink(ue), uplink);
                }
            }
        }
        let spikes = spike_processes(scenario, seed);
        let captures = captures(scenario, &links);
        let mut net = Fabric::new(links, spikes, radio, captures);
        for (i, route) in routes.into_iter().enumerate() {
            net.set_route(FlowId(i as u32), route);
        }

        let world = World {
            scenario_name: scenario.name.clone(),
            seed,
            reported_links: reported_links(scenario),
            rows: (0..flows.len() as u32).map(|i| RowSource::Flow(FlowId(i))).collect(),
            files: Vec::new(),
            flows,
            web_users,
            web_specs,
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
            error: None,
        };
        let mut sim = Simulation { net, world };
        sim.schedule_initial_events();
        sim
    }

    /// The stop, the flows' starts, the spikes, the web users' first wake-ups, in this order
    /// (which fixes the order of events at the same instant).
    fn schedule_initial_events(&mut self) {
        let (net, world) = (&mut self.net, &mut self.world);
        if let Some(t) = world.stop_at {
            net.events.schedule(t, Event::Stop);
        }
        for (i, f) in world.flows.iter().enumerate() {
            net.events.schedule(f.start, Event::FlowStart(FlowId(i as u32)));
        }
        net.schedule_spikes();
        for u in 0..world.web_users.len() {
            let start = world.web_specs[world.web_users[u].spec as usize].start;
            let think = world.web_users[u].draw_think();
            net.events.schedule(start + think, Event::UserWake(u as u32));
        }
    }
}
