//! `cargo bench`: runs the named benchmark scenarios and prints simulated and wall time,
//! data packets and events, and their rates. Targets are stated in the README, not asserted.

use rtolab_sim::bench::{scenario, NAMES, SCALE_FLOWS};
use std::time::Instant;

fn main() {
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    println!("{:<12} {:>9} {:>8} {:>12} {:>12} {:>12} {:>12}", "scenario", "sim s", "wall s", "data pkts", "events", "pkts/s", "events/s");
    let scale: Vec<String> = SCALE_FLOWS.iter().map(|n| format!("scale-{n}")).collect();
    // A filter that is a scenario's name selects that scenario alone, any other the names that
    // contain it; `scale-N` runs only when named (they take minutes in all).
    let selects = |n: &str, f: &str| n == f || (!NAMES.contains(&f) && n.contains(f));
    let named = NAMES.iter().map(|s| s.to_string()).filter(|n| filter.is_empty() || filter.iter().any(|f| selects(n, f)));
    let chosen: Vec<String> = named.chain(scale.into_iter().filter(|n| filter.iter().any(|f| n == f))).collect();
    for name in &chosen {
        let s = scenario(name).expect("named scenario");
        let t = Instant::now();
        let r = rtolab_sim::run(&s, None).expect("benchmark runs");
        let wall = t.elapsed().as_secs_f64();
        let m = &r.meta;
        println!(
            "{:<12} {:>9.0} {:>8.3} {:>12} {:>12} {:>12.0} {:>12.0}",
            name,
            m.sim_time_s,
            wall,
            m.data_packets,
            m.events,
            m.data_packets as f64 / wall,
            m.events as f64 / wall
        );
    }
}
