//! What traffic a scenario starts: its flows, the flows its generators plan, and their users,
//! with every start time, size and random draw fixed by the seed (`crate::traffic`). The
//! simulator and the real-time emulator both start traffic from this plan, so a flow has the
//! same name, size and start in either.

pub use crate::traffic::{DatagramPlan, PlannedFlow, PlannedUsers};
use crate::spec::Scenario;
use crate::traffic::{start_time, Origin, Traffic};
use crate::units::FlowSize;

/// The plan of `scenario` under `seed`: the scenario's flows, then each generator's in
/// order; and the generators that have users, in order (their index is the users' group).
pub fn plan(scenario: &Scenario, seed: u64) -> (Vec<PlannedFlow<'_>>, Vec<PlannedUsers<'_>>) {
    let mut flows: Vec<PlannedFlow> = scenario
        .flows
        .iter()
        .map(|f| PlannedFlow {
            name: f.name.clone(),
            origin: Origin::Static,
            start: start_time(f.start),
            size: match f.size {
                FlowSize::Finite(b) => Some(b),
                FlowSize::Infinite => None,
            },
            route: &f.route,
            uplink: f.uplink,
            tcp: f.tcp(),
            datagrams: f.udp.as_ref().map(DatagramPlan::udp),
            quic: f.quic.as_ref(),
        })
        .collect();
    let mut users = Vec::new();
    for (g, generator) in scenario.generators.iter().enumerate() {
        match generator.plan(g, seed) {
            Traffic::Flows(planned) => flows.extend(planned),
            Traffic::Users(planned) => users.push(planned),
        }
    }
    (flows, users)
}
