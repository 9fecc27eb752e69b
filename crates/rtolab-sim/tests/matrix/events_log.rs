//! The `events` table against the flows table: on the snapshot matrix's cases (every named
//! stack and RTO preset, with and without spikes) and on a lossy shared link with web users
//! and ARQ, each flow's rows agree exactly with its counts (timeouts, spurious by the oracle,
//! detected, undos, retransmits), and logging changes no other result.

use crate::common::{matrix_cases, run};
use rtolab_sim::{EventKind, EventRow, RunResult};

const ALL: &str = r#"[output]
events = ["timeout", "spurious", "undo", "retransmit", "drop", "spike"]"#;

fn rows<'a>(r: &'a RunResult, flow: &'a str, kind: EventKind) -> impl Iterator<Item = &'a EventRow> + 'a {
    r.events.iter().filter(move |e| e.kind == kind && e.flow.as_deref() == Some(flow))
}

/// Every flow's events add up to its row of the flows table; the run with the log has the
/// same flows and links tables as the run without.
fn check(scenario: &str) -> RunResult {
    let plain = run(scenario);
    let logged = run(&format!("{scenario}\n{ALL}"));
    assert!(plain.events.is_empty());
    assert_eq!(plain.flows, logged.flows, "logging changed the flows table");
    assert_eq!(plain.links, logged.links, "logging changed the links table");
    for f in &logged.flows {
        let timeouts: Vec<_> = rows(&logged, &f.name, EventKind::Timeout).collect();
        let counted = |p: fn(&EventRow) -> bool| timeouts.iter().filter(|e| p(e)).count() as u64;
        let facts = (
            timeouts.len() as u64,
            counted(|e| e.oracle.as_deref() == Some("spurious")),
            counted(|e| e.detected == Some(true)),
            rows(&logged, &f.name, EventKind::Undo).count() as u64,
            rows(&logged, &f.name, EventKind::Retransmit).count() as u64,
        );
        assert_eq!(facts, (f.timeouts, f.spurious_timeouts, f.spurious_detected, f.undos, f.retransmits), "flow {}: events (timeouts, spurious, detected, undos, retransmits)", f.name);
        let detections: u64 = rows(&logged, &f.name, EventKind::Spurious).map(|e| covered(e.detail.as_deref())).sum();
        assert_eq!(detections, f.spurious_detected, "flow {}: timeouts the detection rows cover", f.name);
    }
    let times: Vec<f64> = logged.events.iter().map(|e| e.time_s).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "rows in the order of time");
    logged
}

/// Timeouts named by a detection's detail: "timeout 3" → 1, "timeouts 2-4" → 3.
fn covered(detail: Option<&str>) -> u64 {
    let d = detail.expect("a detection names its timeouts");
    if let Some(range) = d.strip_prefix("timeouts ") {
        let (a, b) = range.split_once('-').expect("first-last");
        b.parse::<u64>().unwrap() - a.parse::<u64>().unwrap() + 1
    } else {
        assert!(d.starts_with("timeout "), "{d}");
        1
    }
}

#[test]
fn events_agree_with_the_flows_table_on_the_matrix() {
    let mut undos = 0;
    for (case, scenario) in matrix_cases() {
        let r = check(&scenario);
        undos += r.flows[0].undos;
        let spike_rows = r.events.iter().filter(|e| e.kind == EventKind::Spike).count();
        // Each spike holds both directions of the link: a start and an end row each.
        assert_eq!(spike_rows, if case.contains("spike=none") { 0 } else { 3 * 2 * 2 }, "{case}");
        let drops = r.events.iter().filter(|e| e.kind == EventKind::Drop).count() as u64;
        assert_eq!(drops, r.links.iter().map(|l| l.drops).sum::<u64>(), "{case}: drop rows and the links' drops");
    }
    assert!(undos > 0, "the matrix exercises undos");
}

#[test]
fn events_agree_with_the_flows_table_with_web_users_loss_and_arq() {
    let r = check(WEB_LOSS_ARQ);
    let causes: std::collections::BTreeSet<_> = r.events.iter().filter(|e| e.kind == EventKind::Drop).filter_map(|e| e.detail.clone()).collect();
    assert!(causes.contains("queue") && causes.contains("channel") && causes.contains("arq"), "{causes:?}");
    assert!(r.events.iter().filter(|e| e.kind == EventKind::Drop).all(|e| e.link.as_deref().is_some_and(|l| ["radio.", "core.", "edge."].iter().any(|p| l.starts_with(p)))));
}

/// The same with the web users' files on one connection per user: each file's events (named
/// by the file during which they happened; a detection by the file whose timeouts it judges)
/// agree with its row.
#[test]
fn events_agree_with_the_flows_table_with_per_session_web_users() {
    let scenario = WEB_LOSS_ARQ.replace("tcp = { stack = \"ns2-sack1\" }", "connection = \"per-session\"\ntcp = { stack = \"ns2-sack1\" }");
    assert_ne!(scenario, WEB_LOSS_ARQ);
    let r = check(&scenario);
    let web: Vec<_> = r.flows.iter().filter(|f| f.generator.is_some()).collect();
    assert!(web.len() > 8 && web.iter().any(|f| f.connection != f.flow), "{} files", web.len());
    assert!(web.iter().map(|f| f.timeouts).sum::<u64>() > 0);
}

/// Web users (ns-2's SACK agent) beside a Linux bulk flow and an RFC flow over ARQ: loss,
/// delay spikes, a full queue.
const WEB_LOSS_ARQ: &str = r#"
duration = "40s"
seed = 3
[[links]]
name = "core"
rate = "20Mbps"
delay = "10ms"
[[links]]
name = "radio"
rate = "1Mbps"
delay = "60ms"
queue = { kind = "droptail", limit = "12p" }
loss = 0.02
spikes = { interval = "uniform(5s, 10s)", length = "uniform(0.5s, 2s)" }
[[links]]
name = "edge"
rate = "384kbps"
delay = "50ms"
loss = 0.3
arq = { window = "3p", attempts = 2 }
[[flows]]
name = "bulk"
route = ["core", "radio"]
tcp = { stack = "linux" }
[[flows]]
name = "over-arq"
route = ["edge"]
size = "200kB"
tcp = { stack = "rfc" }
[[generators]]
kind = "web"
users = 4
size = "pareto(mean=25000B, shape=1.1)"
think = "exp(1s)"
route = ["core", "radio"]
tcp = { stack = "ns2-sack1" }
"#;
