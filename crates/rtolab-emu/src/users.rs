//! Generators' users over the kernel's TCP: each user is a thread that follows the
//! behaviour its generator gave it (`traffic::User`, the very code the simulator drives):
//! it sleeps until its wake-up, opens a connection for the file it requests, sends it, and
//! asks for its next wake-up when the file is acknowledged.

use crate::apps::{self, SendPlan};
use crate::shared::{ConnMeta, Shared};
use rtolab_sim::traffic::User;
use rtolab_sim::world::Origin;
use rtolab_sim::SimTime;

/// Where a user belongs: its generator's name, its number there, its route, its congestion
/// control, and when its generator starts.
pub struct UserPlace {
    pub generator: String,
    pub user: u32,
    pub route: u32,
    pub cc: Option<&'static str>,
    pub start: SimTime,
}

/// Runs one user until the run stops (the calling thread must be in the sender's
/// namespace). Files are named "GENERATOR.uUSER.FILE", as in the simulator.
pub fn drive(shared: &Shared, place: UserPlace, mut behaviour: Box<dyn User + Send>) {
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
        let out = apps::send(shared, SendPlan { connection: k, size: Some(size), cc: place.cc });
        shared.senders.lock().unwrap_or_else(|e| e.into_inner()).insert(k, out);
        wake = behaviour.next_wake(shared.clock.now());
    }
}
