//! Helpers shared by the whole-simulation tests.

use rtolab_sim::{results::TransportKind, spec::from_toml, FlowRow, RunResult};

/// Runs a TOML scenario; every run checks the delivery invariant as it goes, and every
/// finished TCP flow delivered its size (a finished datagram flow is one whose datagrams all
/// arrived or were dropped).
pub fn run(text: &str) -> RunResult {
    let scenario = from_toml(text).unwrap_or_else(|e| panic!("bad test scenario: {e}"));
    let result = rtolab_sim::run(&scenario, None).unwrap_or_else(|e| panic!("run failed: {e}"));
    for f in &result.flows {
        if let (Some(size), Some(_), TransportKind::Tcp) = (f.size, f.end_s, f.transport) {
            assert_eq!(f.bytes, size, "finished flow {} delivered {} of {} bytes", f.name, f.bytes, size);
        }
    }
    result
}

#[allow(dead_code)] // not every test binary uses every helper
pub fn flow<'a>(r: &'a RunResult, name: &str) -> &'a FlowRow {
    r.flows.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("no flow {name}"))
}

/// One link and one finite flow; `link_extra` and `tcp` are spliced into the TOML.
#[allow(dead_code)] // not every test binary uses every helper
pub fn single_flow(rate: &str, delay: &str, size: &str, link_extra: &str, tcp: &str) -> String {
    format!(
        r#"
[[links]]
name = "l"
rate = "{rate}"
delay = "{delay}"
{link_extra}
[[flows]]
name = "f"
route = ["l"]
size = "{size}"
tcp = {{ {tcp} }}
"#
    )
}

/// The snapshot matrix's cases: (label, scenario) for rate × spike length × RTO preset or
/// named stack, one 60 s bulk flow each.
#[allow(dead_code)] // not every test binary uses every helper
pub fn matrix_cases() -> Vec<(String, String)> {
    let mut cases = vec![];
    for rate in ["500kbps", "4Mbps"] {
        for spike in ["none", "1s", "4s"] {
            let presets = ["rto=rfc6298", "rto=linux", "rto=ns2"];
            let stacks = ["stack=rfc", "stack=linux", "stack=freebsd", "stack=ns3", "stack=ns2-sack1", "stack=ns2-newreno"];
            for variant in presets.into_iter().chain(stacks) {
                let spikes = match spike {
                    "none" => String::new(),
                    len => format!("spikes = {{ at = [\"10s\", \"25s\", \"40s\"], length = \"{len}\" }}"),
                };
                let link = format!("queue = {{ kind = \"droptail\", limit = \"30p\" }}\n{spikes}");
                let (key, value) = variant.split_once('=').expect("key=value");
                let sack = if key == "rto" { ", sack = true" } else { "" };
                let tcp = format!("{key} = \"{value}\"{sack}");
                cases.push((format!("{rate} spike={spike} {variant}"), format!("duration = \"60s\"\n{}", single_flow(rate, "50ms", "inf", &link, &tcp))));
            }
        }
    }
    cases
}

/// A bulk CUBIC flow "bulk" on a 2 Mbit/s, 20 ms link "l" behind `queue` for `duration`, with
/// `traffic` (more flows or generators) spliced after it: the set-up where voice meets a
/// queue TCP keeps full.
#[allow(dead_code)] // not every test binary uses every helper
pub fn beside_bulk_cubic(queue: &str, duration: &str, traffic: &str) -> String {
    format!(
        "duration = \"{duration}\"\n[[links]]\nname = \"l\"\nrate = \"2Mbps\"\ndelay = \"20ms\"\nqueue = {queue}\n\
         [[flows]]\nname = \"bulk\"\nroute = [\"l\"]\ntcp = {{ cc = \"cubic\", max_window = 1000 }}\n{traffic}"
    )
}
