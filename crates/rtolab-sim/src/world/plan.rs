//! What traffic a scenario starts: its flows, the flows of its burst generators, and its web
//! users, with every start time, size and random draw fixed by the seed. The simulator and
//! the real-time emulator both start traffic from this plan, so a flow has the same name,
//! size and start in either.

use super::flow::Origin;
use super::traffic::{Datagrams, WebUser};
use crate::rng::stream;
use crate::spec::{BurstSpec, GeneratorSpec, Scenario, TcpSpec, UdpSpec, WebConnection, WebSpec};
use crate::time::{SimDuration, SimTime};
use crate::units::{Duration, FlowSize, RvSampler};

/// A connection known before the run: a scenario flow or one of a burst's flows.
pub struct PlannedFlow<'a> {
    pub name: String,
    pub origin: Origin,
    pub start: SimTime,
    /// `None` for an unbounded flow.
    pub size: Option<u64>,
    pub route: &'a [String],
    /// The mobile user at the start of `route` sends (`FlowSpec::uplink`).
    pub uplink: bool,
    pub tcp: &'a TcpSpec,
    /// A UDP flow's source, in place of TCP (`FlowSpec::udp`).
    pub udp: Option<&'a UdpSpec>,
}

/// A web generator: its users fetch files until the run ends, each over a new connection or
/// all of a user's over one (`connection`).
pub struct PlannedWeb<'a> {
    pub name: String,
    pub start: SimTime,
    pub route: &'a [String],
    pub uplink: bool,
    pub tcp: &'a TcpSpec,
    pub connection: WebConnection,
    pub users: Vec<WebUser>,
}

fn at(d: Option<Duration>) -> SimTime {
    SimTime::ZERO + d.map(|d| d.sim()).unwrap_or(SimDuration::ZERO)
}

/// The plan of `scenario` under `seed`. `web` numbers the web generators from 0 (their
/// users' `spec` field indexes the returned list).
pub fn plan(scenario: &Scenario, seed: u64) -> (Vec<PlannedFlow<'_>>, Vec<PlannedWeb<'_>>) {
    let mut flows: Vec<PlannedFlow> = scenario
        .flows
        .iter()
        .map(|f| PlannedFlow {
            name: f.name.clone(),
            origin: Origin::Static,
            start: at(f.start),
            size: match f.size {
                FlowSize::Finite(b) => Some(b),
                FlowSize::Infinite => None,
            },
            route: &f.route,
            uplink: f.uplink,
            tcp: f.tcp(),
            udp: f.udp.as_ref(),
        })
        .collect();
    let mut web = Vec::new();
    for (g, gen) in scenario.generators.iter().enumerate() {
        match gen {
            GeneratorSpec::Burst(BurstSpec { name, flows: n, total, start, jitter, route, uplink, tcp }) => {
                let name = name.clone().unwrap_or_else(|| format!("burst{g}"));
                let (share, extra) = (total.0 / *n as u64, total.0 % *n as u64);
                let mut jitter = jitter.as_ref().map(|j| RvSampler::new(j.0.clone()));
                let mut rng = stream(seed, &format!("generators/{name}"), "jitter");
                for k in 0..*n as u64 {
                    let offset = jitter.as_mut().map(|j| SimDuration::from_secs_f64(j.sample(&mut rng)));
                    flows.push(PlannedFlow {
                        name: format!("{name}.{k}"),
                        origin: Origin::Burst(name.clone()),
                        start: at(*start) + offset.unwrap_or(SimDuration::ZERO),
                        size: Some(share + u64::from(k < extra)),
                        route,
                        uplink: *uplink,
                        tcp,
                        udp: None,
                    });
                }
            }
            GeneratorSpec::Web(WebSpec { name, users, size, think, start, route, uplink, tcp, datagrams, connection }) => {
                let name = name.clone().unwrap_or_else(|| format!("web{g}"));
                let spec = web.len() as u32;
                let datagrams = datagrams.as_ref().map(|d| Datagrams { mean_count: d.mean_count, max_size: d.max_size.map_or(f64::INFINITY, |b| b.0 as f64) });
                let users = (0..*users)
                    .map(|u| WebUser {
                        spec,
                        user: u,
                        files: 0,
                        ue: None,
                        size: RvSampler::new(size.0.clone()),
                        think: RvSampler::new(think.0.clone()),
                        datagrams,
                        rng: stream(seed, &format!("generators/{name}/user{u}"), "size-and-think"),
                        connection: None,
                    })
                    .collect();
                web.push(PlannedWeb { name, start: at(*start), route, uplink: *uplink, tcp, connection: *connection, users });
            }
        }
    }
    (flows, web)
}
