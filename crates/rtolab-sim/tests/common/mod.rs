//! Helpers shared by the whole-simulation tests.

use rtolab_sim::{spec::from_toml, FlowRow, RunResult};

/// Runs a TOML scenario; every run checks the delivery invariant as it goes.
pub fn run(text: &str) -> RunResult {
    let scenario = from_toml(text).unwrap_or_else(|e| panic!("bad test scenario: {e}"));
    let result = rtolab_sim::run(&scenario, None).unwrap_or_else(|e| panic!("run failed: {e}"));
    for f in &result.flows {
        if let (Some(size), Some(_)) = (f.size, f.end_s) {
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
