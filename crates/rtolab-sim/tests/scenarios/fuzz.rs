//! Property tests (issue 13 §6): random small scenarios run to their end without a panic,
//! keep the byte-stream invariant and packet conservation (both checked inside every run, see
//! `fabric/ledger.rs` and `DeliveryCheck`), and the scenario and quantity parsers answer any
//! text with an error that names a field or a line, never a panic.
//!
//! `cargo test` runs a fixed-seed slice (`DEFAULT_CASES` scenarios, more parser cases; the same on
//! every machine). The long run sets `RTOLAB_FUZZ_CASES` (and optionally `RTOLAB_FUZZ_SEED`);
//! `make fuzz` does so in release mode. `RTOLAB_FUZZ_PEEK=1` prints every scenario before it
//! runs (so a hang or an abort can be traced to its case) and its event and data-packet
//! counts after.

use proptest::prelude::*;
use proptest::sample::subsequence;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed, TestCaseError, TestRunner};
use rtolab_sim::spec::from_toml;
use rtolab_sim::units::{Bytes, Duration, DurationRv, FlowSize, Limit, Probability, Rate, SizeRv};
use rtolab_sim::{Scenario, SimError, SpecError};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Cases of the random-scenario property in the fixed slice of `cargo test` (the parser
/// properties run 2, 4 and 8 times as many); the slice takes about 4 s of one core in a
/// debug build, under 1 s in release.
const DEFAULT_CASES: u32 = 256;
/// Seed of the fixed slice: any constant keeps CI deterministic.
const DEFAULT_SEED: u64 = 0x0013_f022;
/// Event budget of a random scenario: a case is small, and one that exceeds it is cut short
/// (`SimError::EventBudget`), not failed.
const MAX_EVENTS: u64 = 300_000;

fn runner(default_cases: u32) -> TestRunner {
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let cases = env("RTOLAB_FUZZ_CASES").map_or(default_cases, |n| n as u32);
    let seed = env("RTOLAB_FUZZ_SEED").unwrap_or(DEFAULT_SEED);
    TestRunner::new(Config { cases, rng_algorithm: RngAlgorithm::ChaCha, rng_seed: RngSeed::Fixed(seed), failure_persistence: None, ..Config::default() })
}

// ---------------------------------------------------------------------------------------
// Random scenarios, as TOML text.

fn float(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo..hi).prop_map(|x| (x * 1e4).round() / 1e4)
}

fn queue() -> BoxedStrategy<String> {
    let red = (2u32..60, 0.0..1.0f64, 0.1..1.0f64, prop_oneof![Just(0.002), Just(0.02), Just(0.2), Just(1.0)], any::<[bool; 4]>(), 0.05..1.0f64)
        .prop_map(|(limit, t, m, w, [gentle, wait, bytes, in_bytes], max_p)| {
            let thresh = ((t * limit as f64 / 2.0) * 10.0).round() / 10.0;
            let maxthresh = thresh + ((m * limit as f64) * 10.0).round() / 10.0 + 0.5;
            let p = (max_p * 100.0).round() / 100.0;
            format!(
                "queue = {{ kind = \"red\", limit = \"{limit}p\", thresh = {thresh:?}, maxthresh = {maxthresh:?}, q_weight = {w:?}, max_p = {p:?}, gentle = {gentle}, wait = {wait}, bytes = {bytes}, queue_in_bytes = {in_bytes} }}"
            )
        });
    let target_interval = (1u32..30, 5u32..200, any::<bool>()).prop_map(|(t, i, exact)| format!("target = \"{t}ms\", interval = \"{i}ms\", control_law = \"{}\"", if exact { "exact" } else { "linux" }));
    let codel = (1u32..60, target_interval.clone()).prop_map(|(n, ti)| format!("queue = {{ kind = \"codel\", limit = \"{n}p\", {ti} }}"));
    let fq_codel = (1u32..60, 1u32..8, 256u32..3000, 1u32..8, target_interval)
        .prop_map(|(n, flows, quantum, batch, ti)| format!("queue = {{ kind = \"fq_codel\", limit = \"{n}p\", flows = {flows}, quantum = \"{quantum}B\", drop_batch_size = {batch}, {ti} }}"));
    let pie = (1u32..64, 1u32..30, 1u32..30, 0u32..=32, 0u32..=32, any::<bool>())
        .prop_map(|(k, t, u, a, b, bytemode)| format!("queue = {{ kind = \"pie\", limit = \"{k}kB\", target = \"{t}ms\", tupdate = \"{u}ms\", alpha = {a}, beta = {b}, bytemode = {bytemode} }}"));
    prop_oneof![
        (1u32..60).prop_map(|n| format!("queue = {{ kind = \"droptail\", limit = \"{n}p\" }}")),
        (1u32..64).prop_map(|k| format!("queue = {{ kind = \"droptail\", limit = \"{k}kB\" }}")),
        red,
        codel,
        fq_codel,
        pie,
    ]
    .boxed()
}

fn loss() -> BoxedStrategy<String> {
    prop_oneof![
        Just(String::new()),
        float(0.0, 0.3).prop_map(|p| format!("loss = {p:?}")),
        (float(0.05, 5.0), float(0.01, 1.0), 5i32..10, float(1.5, 5.0)).prop_map(|(g, b, bg, bb)| format!(
            "loss = {{ kind = \"gilbert-elliott\", good = \"exp({g}s)\", bad = \"exp({b}s)\", ber_good = 1e-{bg}, ber_bad = {:e} }}",
            10f64.powf(-bb)
        )),
        (float(0.0, 0.5), float(1.0, 10.0)).prop_map(|(l, b)| format!("loss = {{ kind = \"gilbert-elliott\", mean_loss = {l:?}, mean_burst = {b:?} }}")),
    ]
    .boxed()
}

fn arq_table() -> BoxedStrategy<String> {
    (1u32..8, any::<bool>(), 1u32..8, any::<bool>(), any::<bool>(), prop::option::of(0u32..40), 1u32..6)
        .prop_map(|(w, p_form, attempts, icmp, in_order, feedback, backlog)| {
            let window = if p_form { format!("\"{w}p\"") } else { w.to_string() };
            let fb = feedback.map(|ms| format!(", feedback_delay = \"{ms}ms\"")).unwrap_or_default();
            format!("{{ window = {window}, attempts = {attempts}, icmp = {icmp}, in_order = {in_order}, defer_backlog = {backlog}{fb} }}")
        })
        .boxed()
}

fn spikes() -> BoxedStrategy<String> {
    let direction = prop_oneof![Just("forward"), Just("reverse"), Just("both")];
    let hold = prop_oneof![Just("all"), Just("queue")];
    prop_oneof![
        3 => Just(String::new()),
        1 => (float(0.1, 3.0), float(0.0, 0.5), float(0.0, 1.5), direction, hold).prop_map(|(i, lo, d, dir, hold)| format!(
            "spikes = {{ interval = \"exp({i}s)\", length = \"uniform({lo}s, {}s)\", direction = \"{dir}\", hold = \"{hold}\" }}",
            lo + d
        )),
        1 => (prop::collection::vec(0u32..4000, 1..4), 0u32..2000)
            .prop_map(|(at, len)| format!("spikes = {{ at = [{}], length = \"{len}ms\" }}", at.iter().map(|t| format!("\"{t}ms\"")).collect::<Vec<_>>().join(", "))),
    ]
    .boxed()
}

fn reverse() -> BoxedStrategy<String> {
    prop_oneof![
        4 => Just(String::new()),
        1 => Just("reverse = { arq = \"off\" }".to_string()),
        1 => (loss(), prop::option::of(arq_table())).prop_map(|(l, a)| {
            let mut parts: Vec<String> = vec![];
            if let Some(v) = l.strip_prefix("loss = ") {
                parts.push(format!("loss = {v}"));
            }
            if let Some(a) = a {
                parts.push(format!("arq = {a}"));
            }
            format!("reverse = {{ {} }}", parts.join(", "))
        }),
        1 => (64u32..20_000, 0u32..100).prop_map(|(r, d)| format!("reverse = {{ rate = \"{r}kbps\", delay = \"{d}ms\" }}")),
    ]
    .boxed()
}

/// A per-packet delay law for `jitter`.
fn jitter() -> BoxedStrategy<String> {
    prop_oneof![(1u32..50).prop_map(|m| format!("exp({m}ms)")), (0u32..20, 1u32..40).prop_map(|(lo, d)| format!("uniform({lo}ms, {}ms)", lo + d)),].boxed()
}

/// A small HSDPA radio network (`[radio]`, named "hsdpa"): 1 or 7 cells, any scheduler, few
/// codes, small buffers, sometimes a jittered uplink.
fn radio() -> BoxedStrategy<String> {
    (
        prop_oneof![Just(1u32), Just(7u32)],
        prop_oneof![Just("rr"), Just("max-sir"), Just("pf")],
        1u32..=3,
        2u32..60,
        prop::option::weighted(0.5, jitter()),
        float(0.0, 10.0),
        1u32..20,
    )
        .prop_map(|(cells, scheduler, users_per_tti, buffer, jitter, shadowing, speed)| {
            let jitter = jitter.map(|j| format!(", jitter = \"{j}\"")).unwrap_or_default();
            format!(
                "[radio]\ncells = {cells}\nscheduler = \"{scheduler}\"\nusers_per_tti = {users_per_tti}\nbuffer = \"{buffer}p\"\nshadowing_db = {shadowing}\nspeed = \"{speed}km/h\"\nuplink = {{ rate = \"384kbps\", delay = \"10ms\", queue = \"{buffer}p\"{jitter} }}\n"
            )
        })
        .boxed()
}

fn link(i: usize) -> BoxedStrategy<String> {
    (
        prop_oneof![1 => 8u32..256, 4 => 256u32..20_000, 1 => 20_000u32..50_000],
        prop_oneof![4 => 0u32..150, 1 => 150u32..600],
        queue(),
        loss(),
        prop::option::weighted(0.4, arq_table()),
        spikes(),
        reverse(),
        prop::option::weighted(0.2, prop::collection::vec(1u64..60, 1..6)),
        prop::option::weighted(0.2, jitter()),
    )
        .prop_map(move |(rate, delay, q, l, arq, sp, rev, drops, jitter)| {
            let arq = arq.map(|a| format!("arq = {a}\n")).unwrap_or_default();
            let drops = drops.map(|d| format!("drop_packets = {d:?}\n")).unwrap_or_default();
            let jitter = jitter.map(|j| format!("jitter = \"{j}\"\n")).unwrap_or_default();
            format!("[[links]]\nname = \"l{i}\"\nrate = \"{rate}kbps\"\ndelay = \"{delay}ms\"\n{q}\n{l}\n{arq}{sp}\n{rev}\n{drops}{jitter}")
        })
        .boxed()
}

/// A flow's TCP table, drawn from values every stack accepts: detectors only where their
/// prerequisite is set, the ICMP-driven timeout only with RACK and TLP off.
fn tcp() -> BoxedStrategy<String> {
    let stack = prop_oneof![Just(None), Just(Some("rfc")), Just(Some("linux")), Just(Some("ns2-sack1")), Just(Some("ns2-newreno"))];
    let cc = prop::option::of(prop_oneof![Just("reno"), Just("newreno"), Just("cubic"), Just("cubic-2.6.24"), Just("bic"), Just("westwood")]);
    let rto = prop::option::of(prop_oneof![Just("rfc6298"), Just("linux"), Just("freebsd"), Just("ns2"), Just("ns3")]);
    (
        stack,
        cc,
        prop::option::of(any::<bool>()),
        prop::option::weighted(0.3, any::<bool>()),
        prop::option::of(1u32..11),
        prop::option::of(prop_oneof![Just(100u32), Just(536), Just(1000), Just(1448), Just(9000)]),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
        rto,
        prop::option::of(0u8..4),
        prop::option::weighted(0.2, 2u32..64),
        prop::collection::vec(prop::sample::select(TCP_EXTRAS), 0..4),
    )
        .prop_map(|(stack, cc, sack, icmp_rto, iw, mss, delayed_ack, timestamps, rto, detect, max_window, extras)| {
            let mut p: Vec<String> = vec![];
            if let Some(s) = stack {
                p.push(format!("stack = \"{s}\""));
            }
            if let Some(c) = cc {
                p.push(format!("cc = \"{c}\""));
            }
            if let Some(s) = sack {
                p.push(format!("sack = {s}"));
            }
            if let Some(on) = icmp_rto {
                p.push(format!("icmp_rto = {on}"));
                if on {
                    p.push("rack = false".into());
                    p.push("tlp = false".into());
                }
            }
            if let Some(n) = iw {
                p.push(format!("iw = {n}"));
            }
            if let Some(m) = mss {
                p.push(format!("mss = {m}"));
            }
            if let Some(d) = delayed_ack {
                p.push(format!("delayed_ack = {d}"));
            }
            if let Some(t) = timestamps {
                p.push(format!("timestamps = {t}"));
            }
            if let Some(r) = rto {
                p.push(format!("rto = \"{r}\""));
            }
            match detect {
                Some(0) => p.push("detect = \"none\"".into()),
                Some(1) => p.push("detect = [\"frto\"]".into()),
                Some(2) if timestamps == Some(true) => p.push("detect = [\"eifel\"]".into()),
                Some(3) if sack == Some(true) => p.push("detect = [\"dsack\", \"frto\"]".into()),
                _ => {}
            }
            if let Some(w) = max_window {
                p.push(format!("max_window = {w}"));
            }
            for e in extras {
                let key = e.split(" = ").next().unwrap_or(e);
                let needs_sack = ["recovery = \"sack\"", "recovery = \"prr\"", "rack = true", "tlp = true"].contains(&e);
                // Linux 2.6.24's per-ACK growth: controllers that have it (Reno on Linux's window).
                let counts_acks = matches!(cc, Some("bic" | "westwood" | "cubic-2.6.24")) || (matches!(cc, Some("reno" | "newreno")) && stack == Some("linux"));
                if p.iter().any(|q| q.starts_with(&format!("{key} ="))) || (needs_sack && sack != Some(true)) || (key == "ack_counting" && !counts_acks) {
                    continue;
                }
                p.push(e.to_string());
            }
            format!("tcp = {{ {} }}", p.join(", "))
        })
        .boxed()
}

/// Further TCP settings, each valid on its own; `tcp()` skips a key already set, the
/// SACK-only ones unless `sack = true`, and `ack_counting` unless `cc` has it.
const TCP_EXTRAS: &[&str] = &[
    "handshake = false",
    "handshake = true",
    "dupthresh = 1",
    "dupthresh = 5",
    "limited_transmit = true",
    "limited_transmit = false",
    "ack_every = 1",
    "ack_every = 3",
    "delack_timeout = \"40ms\"",
    "delack_timeout = \"500ms\"",
    "cwnd_validation = true",
    "sack_after_timeout = true",
    "max_burst = 1",
    "max_burst = 4",
    "min_rto = \"10ms\"",
    "min_rto = \"200ms\"",
    "max_rto = \"5s\"",
    "initial_rto = \"200ms\"",
    "initial_rto = \"3s\"",
    "granularity = \"100ms\"",
    "tick = \"500ms\"",
    "tick = \"10ms\"",
    "rto_extra = \"200ms\"",
    "syn_fallback_3s = true",
    "iw = \"rfc3390\"",
    "iw = \"rfc6928\"",
    "iw_after_syn_loss = 2",
    "response = \"none\"",
    "response = \"rfc4015\"",
    "response = \"undo\"",
    "response = \"ns2-1\"",
    "response = \"ns2-2\"",
    "response = \"ns2-3\"",
    "dupack = \"rfc5681\"",
    "dupack = \"rfc6675\"",
    "min_rto_applies_to = \"variance\"",
    "icmp_rto_case7 = \"rejudge\"",
    "icmp_rto_extension = 0.5",
    "icmp_rto_extension = 0",
    "icmp_rto_backoff = false",
    "dsack = true",
    "k = 1",
    "alpha = 0.5",
    "beta = 1.0",
    "recovery = \"reno\"",
    "recovery = \"newreno\"",
    "recovery = \"sack\"",
    "recovery = \"prr\"",
    "rack = true",
    "tlp = true",
    "ack_counting = true",
];

fn route(links: usize) -> BoxedStrategy<String> {
    subsequence((0..links).collect::<Vec<_>>(), 1..=links)
        .prop_shuffle()
        .prop_map(|r| format!("route = [{}]", r.iter().map(|i| format!("\"l{i}\"")).collect::<Vec<_>>().join(", ")))
        .boxed()
}

/// A route over the links, or, with a radio network, one that ends at a mobile user (the
/// radio last) or starts at one (`uplink = true`, the radio first).
fn any_route(links: usize, radio: bool) -> BoxedStrategy<String> {
    if !radio {
        return route(links);
    }
    let mobile = |r: String, uplink: bool| {
        let names = r.trim_start_matches("route = [").trim_end_matches(']').to_string();
        if uplink {
            format!("route = [\"hsdpa\", {names}]\nuplink = true")
        } else {
            format!("route = [{names}, \"hsdpa\"]")
        }
    };
    prop_oneof![
        1 => route(links),
        2 => route(links).prop_map(move |r| mobile(r, false)),
        1 => route(links).prop_map(move |r| mobile(r, true)),
        1 => Just("route = [\"hsdpa\"]".to_string()),
        1 => Just("route = [\"hsdpa\"]\nuplink = true".to_string()),
    ]
    .boxed()
}

fn flow(i: usize, links: usize, radio: bool) -> BoxedStrategy<String> {
    (any_route(links, radio), prop::option::weighted(0.8, 1u64..400_000), 0u32..1000, tcp())
        .prop_map(move |(r, size, start, t)| {
            let size = size.map_or("\"inf\"".to_string(), |b| format!("\"{b}B\""));
            format!("[[flows]]\nname = \"f{i}\"\n{r}\nsize = {size}\nstart = \"{start}ms\"\n{t}\n")
        })
        .boxed()
}

fn generator(links: usize, radio: bool) -> BoxedStrategy<String> {
    let size = prop_oneof![
        (500u32..50_000).prop_map(|m| format!("exp({m}B)")),
        (2_000u32..50_000, float(1.1, 2.5)).prop_map(|(m, s)| format!("pareto(mean={m}B, shape={s})")),
        (1u32..20, 1u32..30).prop_map(|(lo, d)| format!("uniform({lo}kB, {}kB)", lo + d)),
    ];
    prop_oneof![
        4 => Just(String::new()),
        2 => (1u32..4, size, float(0.05, 2.0), 0u32..1000, any_route(links, radio), tcp()).prop_map(|(users, size, think, start, r, t)| format!(
            "[[generators]]\nkind = \"web\"\nusers = {users}\nsize = \"{size}\"\nthink = \"exp({think}s)\"\nstart = \"{start}ms\"\n{r}\n{t}\n"
        )),
        1 => (1u32..5, 1u32..200, 0u32..1000, any_route(links, radio), tcp()).prop_map(|(flows, total, start, r, t)| format!(
            "[[generators]]\nkind = \"burst\"\nflows = {flows}\ntotal = \"{total}kB\"\nstart = \"{start}ms\"\n{r}\n{t}\n"
        )),
    ]
    .boxed()
}

/// A whole scenario: 1–3 links, 1–4 flows, sometimes a generator, in one of four a radio
/// network that routes may reach, a short duration and an event budget.
fn scenario() -> BoxedStrategy<String> {
    (1usize..=3, 1usize..=4, prop::bool::weighted(0.25))
        .prop_flat_map(|(n_links, n_flows, with_radio)| {
            let links: Vec<_> = (0..n_links).map(link).collect();
            let flows: Vec<_> = (0..n_flows).map(|i| flow(i, n_links, with_radio)).collect();
            let radio = if with_radio { radio() } else { Just(String::new()).boxed() };
            (links, flows, generator(n_links, with_radio), radio, 500u32..10_000, 0u64..1_000_000)
        })
        .prop_map(|(links, flows, generator, radio, duration, seed)| {
            format!(
                "duration = \"{duration}ms\"\nseed = {seed}\n[limits]\nmax_events = {MAX_EVENTS}\n{radio}\n{}\n{}\n{generator}",
                links.join("\n"),
                flows.join("\n")
            )
        })
        .boxed()
}

#[derive(Default)]
struct Tally {
    runs: AtomicU64,
    budget: AtomicU64,
    finished_flows: AtomicU64,
}

/// Runs a scenario: it must parse, must not panic, and must end with every invariant kept.
/// Running out of events is a cut-short case, not a failure (counted in `tally`).
fn run_scenario(scenario: &Scenario, text: &str, tally: &Tally) -> Result<(), TestCaseError> {
    tally.runs.fetch_add(1, Relaxed);
    let peek = std::env::var("RTOLAB_FUZZ_PEEK").is_ok();
    if peek {
        eprintln!("--- run {} ---\n{text}", tally.runs.load(Relaxed));
    }
    let result = match rtolab_sim::run(scenario, None) {
        Ok(r) => r,
        Err(SimError::EventBudget { .. }) => {
            tally.budget.fetch_add(1, Relaxed);
            return Ok(());
        }
        Err(e) => return Err(TestCaseError::fail(format!("{e}\n--- scenario ---\n{text}"))),
    };
    if peek {
        eprintln!("=> {} events, {} data packets, t = {}", result.meta.events, result.meta.data_packets, result.meta.sim_time_s);
    }
    for f in &result.flows {
        if let (Some(size), Some(_)) = (f.size, f.end_s) {
            tally.finished_flows.fetch_add(1, Relaxed);
            prop_assert_eq!(f.bytes, size, "finished flow {} delivered {} of {} bytes\n{}", f.name, f.bytes, size, text);
        }
    }
    Ok(())
}

#[test]
fn random_scenarios_end_and_keep_every_invariant() {
    let tally = Tally::default();
    let outcome = runner(DEFAULT_CASES).run(&scenario(), |text| {
        let scenario = from_toml(&text).map_err(|e| TestCaseError::fail(format!("generated scenario rejected: {e}\n{text}")))?;
        run_scenario(&scenario, &text, &tally)
    });
    eprintln!(
        "random scenarios: {} runs, {} cut short by the event budget, {} finished finite flows",
        tally.runs.load(Relaxed),
        tally.budget.load(Relaxed),
        tally.finished_flows.load(Relaxed)
    );
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

/// The same random scenarios (the first of the slice above) with their web users' files on
/// one connection per user (`connection = "per-session"`): every invariant kept, and each
/// connection's files are rows in order, each ending before the next begins.
#[test]
fn random_per_session_scenarios_end_and_keep_every_invariant() {
    let tally = Tally::default();
    let sessions = AtomicU64::new(0);
    let per_session = scenario().prop_map(|text| text.replace("kind = \"web\"\n", "kind = \"web\"\nconnection = \"per-session\"\n"));
    let outcome = runner(DEFAULT_CASES / 2).run(&per_session, |text| {
        let scenario = from_toml(&text).map_err(|e| TestCaseError::fail(format!("generated scenario rejected: {e}\n{text}")))?;
        run_scenario(&scenario, &text, &tally)?;
        if !text.contains("per-session") {
            return Ok(());
        }
        sessions.fetch_add(1, Relaxed);
        if let Ok(r) = rtolab_sim::run(&scenario, None) {
            let mut last: std::collections::HashMap<u64, &rtolab_sim::FlowRow> = Default::default();
            for f in &r.flows {
                prop_assert!(f.connection <= f.flow, "{}: connection {} after its file {}\n{}", f.name, f.connection, f.flow, text);
                if let Some(prev) = last.insert(f.connection, f) {
                    prop_assert!(prev.end_s.is_some_and(|e| e <= f.start_s), "{} begins before {} ends\n{}", f.name, prev.name, text);
                }
            }
        }
        Ok(())
    });
    eprintln!("per-session scenarios: {} runs, {} with web users, {} cut short", tally.runs.load(Relaxed), sessions.load(Relaxed), tally.budget.load(Relaxed));
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

// ---------------------------------------------------------------------------------------
// Parsers on arbitrary and mutated text.

/// An error a user can act on: it names a field path, or, for a syntax error (empty path),
/// the line (`toml_message` writes "line L, column C: ...").
fn check_error(e: &SpecError, text: &str) -> Result<(), TestCaseError> {
    prop_assert!(!e.message.trim().is_empty(), "empty message for path {:?}\n{}", e.path, text);
    prop_assert!(!e.path.is_empty() || e.message.starts_with("line "), "error names neither a field nor a line: {:?}\n--- text ---\n{}", e, text);
    Ok(())
}

/// Values that probe the quantity and distribution parsers' edges.
const NASTY_STRINGS: &[&str] = &[
    "",
    " ",
    "-1ms",
    "0",
    "0s",
    "0p",
    "-0p",
    "1e400s",
    "1e-400s",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "infinite",
    "1.5.5Mbps",
    "18446744073709551616B",
    "1e30B",
    "99999999999999999999p",
    "1e19kB",
    "1e300Mbps",
    "0bps",
    "1 Mbps",
    "Mbps",
    "1MBps",
    "exp(-1s)",
    "exp(0s)",
    "exp(1e300s)",
    "exp()",
    "exp(",
    "uniform(2s, 1s)",
    "uniform(1s)",
    "uniform(,)",
    "pareto(mean=0B, shape=0)",
    "pareto(mean=1kB, shape=1)",
    "pareto(scale=1B, shape=1e-300)",
    "lognormal(mean=0s, sd=0s)",
    "lognormal(mu=1e300, sigma=1e300)",
    "lognormal(mu=nan, sigma=1)",
    "gilbert-elliott",
    "red",
    "droptail",
    "off",
    "3kB",
    "=",
    "()",
    "(((",
    "é",
    "\u{0}",
    "p",
    "1e18s",
    "584y",
    "1.8e10s",
];
const NASTY_NUMBERS: &[&str] = &[
    "-1",
    "0",
    "1",
    "-0.0",
    "1e309",
    "-1e309",
    "nan",
    "inf",
    "-inf",
    "18446744073709551615",
    "9223372036854775807",
    "-9223372036854775808",
    "0.5",
    "1.0000001",
    "4294967296",
    "65536",
    "1e-320",
    "true",
    "[]",
    "{}",
];

/// One edit of a valid scenario text.
#[derive(Clone, Debug)]
enum Mutation {
    /// Replace the n-th quoted string with this text.
    String(usize, String),
    /// Replace the n-th bare number with this text.
    Number(usize, String),
    /// Delete line n.
    DeleteLine(usize),
    /// Repeat line n.
    DuplicateLine(usize),
    /// Insert this line before line n.
    InsertLine(usize, String),
    /// Cut the text at byte n (kept on a character boundary).
    Truncate(usize),
}

fn mutation() -> BoxedStrategy<Mutation> {
    let nasty_string = prop_oneof![3 => prop::sample::select(NASTY_STRINGS).prop_map(String::from), 1 => "[ -~]{0,12}"];
    let nasty_number = prop_oneof![3 => prop::sample::select(NASTY_NUMBERS).prop_map(String::from), 1 => "[-+.e0-9]{1,8}"];
    prop_oneof![
        4 => (0usize..64, nasty_string).prop_map(|(n, s)| Mutation::String(n, s)),
        4 => (0usize..64, nasty_number).prop_map(|(n, s)| Mutation::Number(n, s)),
        1 => (0usize..64).prop_map(Mutation::DeleteLine),
        1 => (0usize..64).prop_map(Mutation::DuplicateLine),
        1 => (0usize..64, "[ -~]{0,40}").prop_map(|(n, s)| Mutation::InsertLine(n, s)),
        1 => (0usize..4000).prop_map(Mutation::Truncate),
    ]
    .boxed()
}

/// Byte ranges `[start, end)` in a text.
type Spans = Vec<(usize, usize)>;

/// Byte ranges of quoted strings (contents only) and of bare numbers in `text`.
fn tokens(text: &str) -> (Spans, Spans) {
    let b = text.as_bytes();
    let (mut strings, mut numbers) = (vec![], vec![]);
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' {
            let end = text[i + 1..].find('"').map_or(b.len(), |j| i + 1 + j);
            strings.push((i + 1, end));
            i = end + 1;
        } else if b[i].is_ascii_digit() && (i == 0 || b" =[,".contains(&b[i - 1])) {
            let end = text[i..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '-')).map_or(b.len(), |j| i + j);
            numbers.push((i, end));
            i = end;
        } else {
            i += 1;
        }
    }
    (strings, numbers)
}

fn apply(text: &str, m: &Mutation) -> String {
    let (strings, numbers) = tokens(text);
    let replace = |spans: &[(usize, usize)], n: usize, with: &str| match spans.get(n % spans.len().max(1)) {
        Some(&(a, z)) => format!("{}{}{}", &text[..a], with, &text[z.min(text.len())..]),
        None => text.to_string(),
    };
    let mut lines: Vec<&str> = text.lines().collect();
    let at = |n: usize| n % lines.len().max(1);
    match m {
        Mutation::String(n, s) => replace(&strings, *n, &s.replace('"', "'")),
        Mutation::Number(n, s) => replace(&numbers, *n, s),
        Mutation::DeleteLine(n) => {
            if !lines.is_empty() {
                lines.remove(at(*n));
            }
            lines.join("\n")
        }
        Mutation::DuplicateLine(n) => {
            if !lines.is_empty() {
                let l = lines[at(*n)];
                lines.insert(at(*n), l);
            }
            lines.join("\n")
        }
        Mutation::InsertLine(n, s) => {
            let i = at(*n);
            lines.insert(i, s);
            lines.join("\n")
        }
        Mutation::Truncate(n) => {
            let mut cut = (*n).min(text.len());
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text[..cut].to_string()
        }
    }
}

#[test]
fn mutated_scenarios_fail_with_a_field_or_line_or_run_cleanly() {
    let tally = Tally::default();
    let rejected = AtomicU64::new(0);
    let strategy = (scenario(), prop::collection::vec(mutation(), 1..4));
    let outcome = runner(DEFAULT_CASES * 2).run(&strategy, |(text, mutations)| {
        let text = mutations.iter().fold(text, |t, m| apply(&t, m));
        match from_toml(&text) {
            Err(e) => {
                rejected.fetch_add(1, Relaxed);
                check_error(&e, &text)
            }
            // Accepted: it must run like any scenario, within a small budget.
            Ok(mut s) => {
                s.limits.max_events = s.limits.max_events.min(MAX_EVENTS);
                let d = s.duration.map_or(5.0, |d| d.sim().as_secs_f64()).min(5.0);
                s.duration = Some(Duration::from_secs_f64(d));
                run_scenario(&s, &text, &tally)
            }
        }
    });
    eprintln!("mutated scenarios: {} rejected, {} ran ({} cut short)", rejected.load(Relaxed), tally.runs.load(Relaxed), tally.budget.load(Relaxed));
    if let Err(e) = outcome {
        panic!("{e}");
    }
}

#[test]
fn arbitrary_text_fails_with_a_field_or_line() {
    let text = prop_oneof!["\\PC{0,200}", "[\\[\\]{}=\"a-z0-9_.,#\\n -]{0,300}"];
    runner(DEFAULT_CASES * 4)
        .run(&text, |text| match from_toml(&text) {
            Err(e) => check_error(&e, &text),
            Ok(_) => Ok(()),
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Every quantity type and both distribution parsers, on arbitrary and edge-case strings:
/// an error with a message, never a panic.
#[test]
fn quantity_parsers_never_panic() {
    let text = prop_oneof![prop::sample::select(NASTY_STRINGS).prop_map(String::from), "\\PC{0,30}", "[-+.eE0-9]{1,12}[a-zA-Z]{0,4}"];
    runner(DEFAULT_CASES * 8)
        .run(&text, |s| {
            fn check<T: serde::de::DeserializeOwned>(s: &str) -> Result<(), TestCaseError> {
                if let Err(e) = toml::Value::String(s.to_string()).try_into::<T>() {
                    prop_assert!(!e.to_string().trim().is_empty());
                }
                Ok(())
            }
            check::<Rate>(&s)?;
            check::<Duration>(&s)?;
            check::<Bytes>(&s)?;
            check::<Limit>(&s)?;
            check::<FlowSize>(&s)?;
            check::<Probability>(&s)?;
            for r in [DurationRv::parse(&s).err(), SizeRv::parse(&s).err()].into_iter().flatten() {
                prop_assert!(!r.trim().is_empty());
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}

// ---------------------------------------------------------------------------------------
// Reproductions of what the fuzzer found.

/// Found by `random_scenarios_end_and_keep_every_invariant` (seed 1, case 78 701 of the long
/// run), reduced by hand: the Linux stack with an ns-2 spurious-timeout response
/// (`response = "ns2-1" | "ns2-2" | "ns2-3"`) on an ARQ link that delivers out of order.
/// A spurious episode is detected and `respond_ns2` restores ssthresh to
/// max(prior cwnd, prior ssthresh), which before any loss is the initial "infinite" ssthresh
/// (`u64::MAX / 4`), while the sender is still in fast recovery (the episode was a fast
/// retransmit, and `respond_ns2` leaves only Loss); `exit_recovery` then sets cwnd to the
/// recovery's exit window, that ssthresh (4.6e18 B), and without a receiver window
/// (`max_window` unset) `send_allowed` then loops, pushing segments until memory runs out.
/// Here `max_window` bounds the loop so that the run ends and the window can be read.
///
/// Expectation (RFC 5681 3.1; Linux's ABC limit L = 2): cwnd starts at IW and grows by at
/// most 2·SMSS per ACK, so it never exceeds SMSS·(IW + 2·segments sent).
#[test]
fn ns2_spurious_response_keeps_cwnd_finite_with_linux_stack() {
    let text = r#"
duration = "6660ms"
[[links]]
name = "l1"
rate = "9186kbps"
delay = "138ms"
loss = 0.2398
arq = { window = "5p", attempts = 7, in_order = false, feedback_delay = "4ms" }
[[flows]]
name = "f1"
route = ["l1"]
size = "inf"
start = "799ms"
tcp = { stack = "linux", cc = "reno", response = "ns2-3", max_window = 1000 }
[output]
series = ["cwnd"]
"#;
    let r = rtolab_sim::run(&from_toml(text).unwrap(), None).unwrap();
    let mss = 1448.0;
    let bound = mss * (10.0 + 2.0 * r.flows[0].segments_sent as f64);
    let max_cwnd = r.series.value.iter().copied().fold(0.0, f64::max);
    assert!(max_cwnd <= bound, "cwnd reached {max_cwnd:e} B, above SMSS·(IW + 2·segments sent) = {bound:e} B");
}
