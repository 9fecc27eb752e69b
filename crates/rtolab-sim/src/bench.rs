//! Named benchmark scenarios, shared by `cargo bench` and `rtolab bench`.

use crate::spec::{from_toml, Scenario};

/// The TCP of the NewReno SACK bulk flows (`bulk-lte`, `scale-N`).
const NEWRENO_SACK: &str = "cc = \"newreno\", sack = true, mss = 1448";

/// A `[[flows]]` entry: the bulk flow `name` over the link `link`, starting `start_ms` into
/// the run (at 0 if `None`), with `tcp` spliced into its `tcp` table.
fn bulk_flow(name: &str, link: &str, start_ms: Option<u64>, tcp: &str) -> String {
    let start = start_ms.map(|ms| format!("start = \"{ms}ms\"\n")).unwrap_or_default();
    format!("[[flows]]\nname = \"{name}\"\nroute = [\"{link}\"]\n{start}tcp = {{ {tcp} }}\n")
}

/// `bulk-lte` but its flows: one 50 Mbps / 15 ms bottleneck, DropTail 125 packets, 1000 s
/// simulated.
const BULK_LTE: &str = r#"
name = "bulk-lte"
duration = "1000s"
[[links]]
name = "lte"
rate = "50Mbps"
delay = "15ms"
queue = { kind = "droptail", limit = "125p" }
"#;

/// `bulk-lte` named `name`: four bulk flows with `tcp` (NewReno SACK, MSS 1448, or for
/// `bulk-lte-linux` the `linux` stack) through its bottleneck (`BULK_LTE`).
fn bulk_lte(name: &str, tcp: &str) -> String {
    let mut text = BULK_LTE.replace("name = \"bulk-lte\"", &format!("name = \"{name}\""));
    for i in 0..4 {
        text.push_str(&bulk_flow(&format!("bulk{i}"), "lte", None, tcp));
    }
    text
}

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

/// `hsdpa-150`: paper 000's HSDPA system at its highest load: seven cells, round robin,
/// 150 web users (Pareto files, mean 25 kB, shape 1.1; exponential think time, mean 1.5 s)
/// over ns-2's SACK agent with a 200 ms minimum RTO, 300 s simulated.
const HSDPA_150: &str = r#"
name = "hsdpa-150"
duration = "300s"
[radio]
scheduler = "rr"
[[generators]]
kind = "web"
users = 150
size = "pareto(mean=25000B, shape=1.1)"
think = "exp(1.5s)"
route = ["hsdpa"]
tcp = { stack = "ns2-sack1", min_rto = "200ms" }
"#;

/// `quic-bulk`: one unbounded QUIC transfer (quinn-proto, CUBIC, 1200-byte datagrams) through
/// `bulk-lte`'s bottleneck for 100 s: the cost of a datagram with everything real QUIC does
/// to it (AES-128-GCM and header protection both ways, ACK frames, loss detection, pacing)
/// and rtolab's reading of the library's qlog.
fn quic_bulk() -> String {
    let text = BULK_LTE.replace("name = \"bulk-lte\"", "name = \"quic-bulk\"").replace("duration = \"1000s\"", "duration = \"100s\"");
    format!("{text}[[flows]]\nname = \"bulk\"\nroute = [\"lte\"]\nquic = {{ cc = \"cubic\" }}\n")
}

/// The names `scenario` accepts. `bulk-lte-linux` is `bulk-lte` with the `linux` stack
/// (CUBIC, RACK-TLP, PRR, Linux's RTT samples and ACK policy); `bulk-lte-bbr` the same with
/// BBR (its delivery-rate estimator and internal pacing); `quic-bulk` one QUIC transfer.
pub const NAMES: [&str; 6] = ["bulk-lte", "bulk-lte-linux", "bulk-lte-bbr", "spiky-hspa", "hsdpa-150", "quic-bulk"];

/// The flow counts of `rtolab bench --scale` (issue targets at 4 000 and 40 000 flows).
pub const SCALE_FLOWS: [u32; 4] = [4, 400, 4_000, 40_000];

/// `scale-N`: N NewReno SACK bulk flows sharing one 1 Gbps / 10 ms link with a 10 000-packet
/// DropTail queue, starts spread over the first second, 100 s simulated: the engine's cost
/// per packet as the number of flows grows.
fn scale(flows: u32) -> String {
    let mut text = format!(
        "name = \"scale-{flows}\"\nduration = \"100s\"\n[[links]]\nname = \"l\"\nrate = \"1Gbps\"\ndelay = \"10ms\"\nqueue = {{ kind = \"droptail\", limit = \"10000p\" }}\n"
    );
    for i in 0..flows {
        let start_ms = (i as u64 * 1000) / flows as u64;
        text.push_str(&bulk_flow(&format!("f{i}"), "l", Some(start_ms), NEWRENO_SACK));
    }
    text
}

/// The scenario of a named benchmark (`NAMES`, or `scale-N` for N in `SCALE_FLOWS`).
pub fn scenario(name: &str) -> Option<Scenario> {
    if let Some(n) = name.strip_prefix("scale-").and_then(|n| n.parse::<u32>().ok()).filter(|n| SCALE_FLOWS.contains(n)) {
        return Some(from_toml(&scale(n)).expect("benchmark scenarios are valid"));
    }
    let text = match name {
        "bulk-lte" => bulk_lte(name, NEWRENO_SACK),
        "bulk-lte-linux" => bulk_lte(name, "stack = \"linux\", mss = 1448"),
        "bulk-lte-bbr" => bulk_lte(name, "stack = \"linux\", cc = \"bbr\", mss = 1448"),
        "spiky-hspa" => SPIKY_HSPA.to_string(),
        "hsdpa-150" => HSDPA_150.to_string(),
        "quic-bulk" => quic_bulk(),
        _ => return None,
    };
    Some(from_toml(&text).expect("benchmark scenarios are valid"))
}
