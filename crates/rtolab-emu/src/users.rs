//! Generators' users over the kernel's TCP: each user is a thread that follows the
//! behaviour its generator gave it (`traffic::User`, the very code the simulator drives):
//! it sleeps until its wake-up, opens a connection for the file it requests, sends it, and
//! asks for its next wake-up when the file is acknowledged. A QUIC user's file is a QUIC
//! transfer (`quic_apps`): its server on the connection's port in the sender's namespace,
//! its client in the receiver's; the next wake-up comes when the client has read it all (or
//! the connection failed), as in the simulator.

use crate::apps::{self, SendPlan};
use crate::netns::Namespace;
use crate::quic_apps;
use crate::shared::{ConnMeta, QuicFlow, SenderOutcome, Shared};
use rtolab_sim::quic::QuicSpec;
use rtolab_sim::traffic::User;
use rtolab_sim::world::Origin;
use rtolab_sim::SimTime;
use std::sync::Arc;

/// Where a user belongs: its generator's name, its number there, its route, its congestion
/// control, when its generator starts, and for a QUIC user its settings, the receiver's
/// namespace (where its clients' sockets are made) and whether its servers' metrics are
/// recorded.
pub struct UserPlace {
    pub generator: String,
    pub user: u32,
    pub route: u32,
    pub cc: Option<&'static str>,
    pub start: SimTime,
    pub quic: Option<(QuicSpec, Arc<Namespace>, bool)>,
}

/// Runs one user until the run stops (the calling thread must be in the sender's
/// namespace). Files are named "GENERATOR.uUSER.FILE", as in the simulator.
pub fn drive(shared: &Arc<Shared>, place: UserPlace, mut behaviour: Box<dyn User + Send>) {
    let mut wake = behaviour.first_wake(place.start);
    let mut files = 0u32;
    while shared.clock.sleep_until(wake, &shared.apps_stop) {
        let size = behaviour.request();
        let origin = Origin::Web { user: place.user, generator: place.generator.clone() };
        let meta = ConnMeta { name: format!("{}.u{}.{files}", place.generator, place.user), origin, route: place.route, size: Some(size), cc: place.cc };
        files += 1;
        let Some(k) = shared.add_connection(meta) else {
            break;
        };
        let out = match &place.quic {
            Some((spec, receivers, record)) => quic_file(shared, k, spec, size, receivers, *record),
            None => apps::send(shared, SendPlan { connection: k, size: Some(size), cc: place.cc }),
        };
        shared.senders.lock().unwrap_or_else(|e| e.into_inner()).insert(k, out);
        wake = behaviour.next_wake(shared.clock.now());
    }
}

/// File `k` of `size` bytes over QUIC (the calling thread in the sender's namespace), the
/// server's metrics kept when `record`: its
/// sockets, its transfer and its outcome. A socket that cannot be bound is the transfer's
/// setup error, which fails the run at its end.
fn quic_file(shared: &Arc<Shared>, k: u32, spec: &QuicSpec, size: u64, receivers: &Namespace, record: bool) -> SenderOutcome {
    let now = shared.clock.now();
    shared.quic_flows.lock().unwrap_or_else(|e| e.into_inner()).insert(k, QuicFlow { start: now, ..Default::default() });
    let server = quic_apps::server_socket(k).map_err(|e| format!("binding its server's socket: {e}"));
    let client = receivers.run(|| Ok(quic_apps::client_socket())).unwrap_or_else(|e| Err(std::io::Error::other(e.to_string()))).map_err(|e| format!("binding its client's socket: {e}"));
    let outcome = match (server, client) {
        (Ok(server), Ok(client)) => quic_apps::run(shared, spec, Some(size), quic_apps::Sockets { server, client }, record),
        (Err(e), _) | (_, Err(e)) => quic_apps::QuicOutcome { start: now, setup_error: Some(e), ..Default::default() },
    };
    let connect_at = outcome.start;
    shared.with_quic_flow(k, |q| q.outcome = Some(outcome));
    SenderOutcome { connect_at, ..Default::default() }
}
