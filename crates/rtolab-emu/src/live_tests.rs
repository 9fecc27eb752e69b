//! Live emulations through the kernel (need root and /dev/net/tun; skipped with the reason
//! otherwise). A module of the unit tests rather than an integration test: each test binary
//! is one more crate to compile and link in `make test`.

use crate::{emulate, EmuOptions};
use std::sync::atomic::AtomicBool;

fn machine_can_emulate() -> bool {
    match crate::netns::check_machine() {
        Ok(()) => true,
        Err(e) => {
            eprintln!("skipped: {e}");
            false
        }
    }
}

fn scenario(text: &str) -> rtolab_sim::Scenario {
    rtolab_sim::spec::parse_for_any_target(text, "toml").expect("valid scenario")
}

/// 1 MB over 10 Mbps / 20 ms arrives whole; its completion time is the serialisation time of
/// every packet (payload 1448 B in 1500-B packets: 691 packets) plus a handshake and the last
/// packet's trip, within 2 % (slow start adds a few RTTs at 40 ms: bounded above).
#[test]
fn a_megabyte_crosses_a_plain_link_at_its_rate() {
    if !machine_can_emulate() {
        return;
    }
    let s = scenario(
        "[[links]]\nname = \"l\"\nrate = \"10Mbps\"\ndelay = \"20ms\"\nqueue = { kind = \"droptail\", limit = \"1000p\" }\n\
         [[flows]]\nname = \"f\"\nroute = [\"l\"]\nsize = \"1MB\"\ntcp = { iw = 100 }\n",
    );
    let run = emulate(&s, None, &EmuOptions::default(), &AtomicBool::new(false)).expect("emulation runs");
    let f = &run.result.flows[0];
    assert_eq!(f.bytes, 1_000_000);
    let packets = (1_000_000f64 / 1448.0).ceil();
    let ideal = packets * 1500.0 * 8.0 / 10e6 + 0.040 + 0.040;
    let took = f.end_s.unwrap() - f.start_s;
    eprintln!("took {took:.4} s, ideal {ideal:.4} s; meta {:?}", run.meta);
    assert!((took - ideal).abs() / ideal < 0.02, "took {took} s, ideal {ideal} s");
    assert!(netns_left().is_empty());
}

fn netns_left() -> Vec<(String, i32)> {
    crate::netns::existing().into_iter().filter(|(_, pid)| *pid == std::process::id() as i32).collect()
}
