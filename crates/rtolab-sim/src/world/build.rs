//! Turns a validated `Scenario` into the run-time world.

use super::flow::{FlowRuntime, Origin};
use super::traffic::WebUser;
use super::Simulation;
use crate::engine::{Event, EventQueue};
use crate::net::{DirConfig, LinkDir, PacketArena, SpikeProcess};
use crate::pcap::Capture;
use crate::rng::stream;
use crate::spec::{BurstSpec, GeneratorSpec, Scenario, SeriesMetric, WebSpec};
use crate::time::{SimDuration, SimTime};
use crate::units::{FlowSize, RvSampler};

const DIRECTIONS: [&str; 2] = ["forward", "reverse"];

impl Simulation {
    /// Builds the world for `scenario` under `seed`. The scenario must be validated.
    pub fn new(scenario: &Scenario, seed: u64) -> Self {
        let series = &scenario.output.series;
        let record_queue = series.contains(&SeriesMetric::Queue);
        let mut links = Vec::with_capacity(2 * scenario.links.len());
        for (i, l) in scenario.links.iter().enumerate() {
            for (d, way) in DIRECTIONS.iter().enumerate() {
                let rev = l.reverse.clone().filter(|_| d == 1).unwrap_or_default();
                let cfg = DirConfig {
                    name: format!("{}.{way}", l.name),
                    rate_bps: rev.rate.unwrap_or(l.rate).bps().round().max(1.0) as u64,
                    delay: rev.delay.unwrap_or(l.delay).sim(),
                    queue: rev.queue.unwrap_or_else(|| l.queue.clone()),
                    loss: rev.loss.or(l.loss).map(|p| p.0).unwrap_or(0.0),
                    drop_packets: if d == 0 { l.drop_packets.clone() } else { rev.drop_packets.unwrap_or_default() },
                };
                let rng = stream(seed, &format!("links/{}/{way}", l.name), "queue-and-loss");
                links.push(LinkDir::new((2 * i + d) as u32, cfg, rng, record_queue));
            }
        }
        let link_index = |name: &str| scenario.links.iter().position(|l| l.name == name).expect("validated route") as u32;
        let routes = |route: &[String]| -> (Vec<u32>, Vec<u32>) {
            let fwd: Vec<u32> = route.iter().map(|n| 2 * link_index(n)).collect();
            let rev: Vec<u32> = fwd.iter().rev().map(|d| d + 1).collect();
            (fwd, rev)
        };
        let at = |d: Option<crate::units::Duration>| SimTime::ZERO + d.map(|d| d.sim()).unwrap_or(SimDuration::ZERO);

        let mut flows = Vec::new();
        for f in &scenario.flows {
            let (fwd, rev) = routes(&f.route);
            let size = match f.size {
                FlowSize::Finite(b) => Some(b),
                FlowSize::Infinite => None,
            };
            flows.push(FlowRuntime::new(f.name.clone(), Origin::Static, at(f.start), size, fwd, rev, &f.tcp, seed));
        }
        let mut web_users = Vec::new();
        let mut web_specs = Vec::new();
        for (g, gen) in scenario.generators.iter().enumerate() {
            match gen {
                GeneratorSpec::Burst(BurstSpec { name, flows: n, total, start, jitter, route, tcp }) => {
                    let name = name.clone().unwrap_or_else(|| format!("burst{g}"));
                    let (fwd, rev) = routes(route);
                    let (share, extra) = (total.0 / *n as u64, total.0 % *n as u64);
                    let mut jitter = jitter.as_ref().map(|j| RvSampler::new(j.0.clone()));
                    let mut rng = stream(seed, &format!("generators/{name}"), "jitter");
                    for k in 0..*n as u64 {
                        let size = share + u64::from(k < extra);
                        let offset = jitter.as_mut().map(|j| SimDuration::from_secs_f64(j.sample(&mut rng)));
                        flows.push(FlowRuntime::new(
                            format!("{name}.{k}"),
                            Origin::Burst(name.clone()),
                            at(*start) + offset.unwrap_or(SimDuration::ZERO),
                            Some(size),
                            fwd.clone(),
                            rev.clone(),
                            tcp,
                            seed,
                        ));
                    }
                }
                GeneratorSpec::Web(WebSpec { name, users, size, think, start, route, tcp }) => {
                    let name = name.clone().unwrap_or_else(|| format!("web{g}"));
                    let spec_index = web_specs.len() as u32;
                    web_specs.push((name.clone(), routes(route), tcp.clone(), at(*start)));
                    for u in 0..*users {
                        let component = format!("generators/{name}/user{u}");
                        web_users.push(WebUser {
                            spec: spec_index,
                            user: u,
                            files: 0,
                            size: RvSampler::new(size.0.clone()),
                            think: RvSampler::new(think.0.clone()),
                            rng: stream(seed, &component, "size-and-think"),
                        });
                    }
                }
            }
        }
        let spikes: Vec<SpikeProcess> = scenario
            .links
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                let s = l.spikes.as_ref()?;
                Some(SpikeProcess::new(i as u32, s, stream(seed, &format!("links/{}", l.name), "spikes")))
            })
            .collect();
        let captures = links
            .iter()
            .map(|l| {
                let wanted = scenario.output.pcap.iter().any(|p| {
                    let base = l.cfg.name.rsplit_once('.').map(|(b, _)| b).unwrap_or(&l.cfg.name);
                    *p == l.cfg.name || (p == base && l.cfg.name.ends_with(".forward"))
                });
                wanted.then(|| Capture::new(l.cfg.name.clone()))
            })
            .collect();

        let mut sim = Simulation {
            scenario_name: scenario.name.clone(),
            seed,
            events: EventQueue::default(),
            links,
            flows,
            packets: PacketArena::default(),
            spikes,
            web_users,
            web_specs,
            captures,
            stop_at: scenario.duration.map(|d| SimTime::ZERO + d.sim()),
            max_events: scenario.limits.max_events,
            max_time: SimTime::ZERO + scenario.limits.max_time.sim(),
            flow_series: [SeriesMetric::Cwnd, SeriesMetric::Ssthresh, SeriesMetric::Srtt, SeriesMetric::Rto]
                .map(|m| series.contains(&m)),
            record_delay: series.contains(&SeriesMetric::Delay),
            series: Default::default(),
            completed: 0,
            data_packets: 0,
            segments: Vec::new(),
            arrivals: Vec::new(),
            error: None,
        };
        sim.schedule_initial_events();
        sim
    }

    fn schedule_initial_events(&mut self) {
        if let Some(t) = self.stop_at {
            self.events.schedule(t, Event::Stop);
        }
        for (i, f) in self.flows.iter().enumerate() {
            self.events.schedule(f.start, Event::FlowStart(i as u32));
        }
        for i in 0..self.spikes.len() {
            if let Some(t) = self.spikes[i].first_start() {
                self.events.schedule(t, Event::SpikeStart(i as u32));
            }
        }
        for u in 0..self.web_users.len() {
            let start = self.web_specs[self.web_users[u].spec as usize].3;
            let think = self.web_users[u].draw_think();
            self.events.schedule(start + think, Event::UserWake(u as u32));
        }
    }
}
