//! Named benchmark scenarios, shared by `cargo bench` and `rtolab bench`.

use crate::spec::{from_toml, Scenario};

/// `bulk-lte`: one 50 Mbps / 15 ms bottleneck, DropTail 125 packets, four NewReno SACK bulk
/// flows, MSS 1448, 1000 s simulated.
const BULK_LTE: &str = r#"
name = "bulk-lte"
duration = "1000s"
[[links]]
name = "lte"
rate = "50Mbps"
delay = "15ms"
queue = { kind = "droptail", limit = "125p" }
[[flows]]
name = "bulk0"
route = ["lte"]
tcp = { cc = "newreno", sack = true, mss = 1448 }
[[flows]]
name = "bulk1"
route = ["lte"]
tcp = { cc = "newreno", sack = true, mss = 1448 }
[[flows]]
name = "bulk2"
route = ["lte"]
tcp = { cc = "newreno", sack = true, mss = 1448 }
[[flows]]
name = "bulk3"
route = ["lte"]
tcp = { cc = "newreno", sack = true, mss = 1448 }
"#;

/// `spiky-hspa`: 2 Mbps / 70 ms radio link with random delay spikes behind an 11 ms core
/// link, one bulk flow and web users, 600 s simulated.
const SPIKY_HSPA: &str = r#"
name = "spiky-hspa"
duration = "600s"
[[links]]
name = "core"
rate = "100Mbps"
delay = "11ms"
[[links]]
name = "radio"
rate = "2Mbps"
delay = "70ms"
queue = { kind = "droptail", limit = "48p" }
spikes = { interval = "exp(10s)", length = "uniform(0.5s, 2s)" }
[[flows]]
name = "bulk"
route = ["core", "radio"]
tcp = { rto = "linux" }
[[generators]]
kind = "web"
users = 20
size = "pareto(mean=25000B, shape=1.1)"
think = "exp(1.5s)"
route = ["core", "radio"]
"#;

/// The names `scenario` accepts. `bulk-lte-linux` is `bulk-lte` with the `linux` stack
/// (CUBIC, RACK-TLP, PRR, Linux's RTT samples and ACK policy).
pub const NAMES: [&str; 3] = ["bulk-lte", "bulk-lte-linux", "spiky-hspa"];

/// The scenario of a named benchmark.
pub fn scenario(name: &str) -> Option<Scenario> {
    let text = match name {
        "bulk-lte" => BULK_LTE.to_string(),
        "bulk-lte-linux" => BULK_LTE.replace("name = \"bulk-lte\"", "name = \"bulk-lte-linux\"").replace("cc = \"newreno\", sack = true", "stack = \"linux\""),
        "spiky-hspa" => SPIKY_HSPA.to_string(),
        _ => return None,
    };
    Some(from_toml(&text).expect("benchmark scenarios are valid"))
}
