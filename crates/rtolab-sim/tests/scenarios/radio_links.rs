//! Radio links end to end: link-layer ARQ behind a wired hop, ICMP DROP / DEFER travelling
//! back to the sender, paper 001's adaptive timeout, and bad input naming its field.

use rtolab_sim::results::{LinkDirection};
use crate::common::{flow, run};
use rtolab_sim::spec::from_toml;

/// Paper 001's set-up in miniature: 64 kbps wired and wireless hops of 250 ms each (RTT
/// 1 s), ARQ with a 3-packet buffer and 6 attempts on the wireless hop, NewReno with a
/// 100 ms tick. Transmissions `lost_from..=lost_to` of the wireless hop are lost: a bad
/// period long enough for several flushes.
fn paper_001(icmp_rto: bool, lost: (u64, u64)) -> String {
    paper_001_with(&format!("icmp_rto = {icmp_rto}"), lost)
}

fn paper_001_with(icmp: &str, lost: (u64, u64)) -> String {
    let drops: Vec<String> = (lost.0..=lost.1).map(|n| n.to_string()).collect();
    format!(
        r#"
[[links]]
name = "wired"
rate = "64kbps"
delay = "250ms"
[[links]]
name = "wireless"
rate = "64kbps"
delay = "250ms"
arq = {{ window = "3p", attempts = 6, icmp = true }}
drop_packets = [{}]
[[flows]]
name = "f"
route = ["wired", "wireless"]
size = "40kB"
tcp = {{ cc = "newreno", sack = false, mss = 1460, tick = "100ms", {icmp} }}
"#,
        drops.join(", ")
    )
}

/// A bad period of 30 transmissions (6 attempts × 3 packets, then more) flushes the buffer:
/// each flush sends one ICMP DROP, which reaches the sender over the wired hop's reverse
/// direction; without the scheme they are only counted, with it the sender's timer moves.
#[test]
fn drops_reach_the_sender_and_the_scheme_acts_on_them() {
    let plain = run(&paper_001(false, (12, 41)));
    let scheme = run(&paper_001(true, (12, 41)));
    let wireless = |r: &rtolab_sim::RunResult| r.links.iter().find(|l| l.link == "wireless" && l.direction == LinkDirection::Forward).unwrap().clone();
    for r in [&plain, &scheme] {
        let (f, w) = (flow(r, "f"), wireless(r));
        assert!(w.arq_flushes >= 2, "{w:?}");
        assert_eq!(w.icmp_drop, w.arq_flushes, "one DROP per flush");
        assert_eq!(f.icmp_drop, w.icmp_drop, "every DROP reaches the sender (nothing is lost on the way back)");
        assert!(f.end_s.is_some());
    }
    let (p, s) = (flow(&plain, "f"), flow(&scheme, "f"));
    assert_eq!(p.icmp_early_timeouts + p.icmp_shrinks, 0, "without icmp_rto nothing acts");
    assert!(s.icmp_early_timeouts + s.icmp_shrinks >= 1, "{s:?}");
    assert!(s.end_s.unwrap() < p.end_s.unwrap(), "the scheme times out earlier: {} vs {}", s.end_s.unwrap(), p.end_s.unwrap());
}

/// A bad period of 69 transmissions: every premature timeout that backs off doubles a, so
/// later DROPs find b < a/4 and are ignored (case 3); without that back-off the timer stays
/// at a and each flush can shrink it again, so the transfer ends sooner.
#[test]
fn premature_timeouts_without_back_off_keep_the_scheme_acting() {
    let backoff = run(&paper_001_with("icmp_rto = true, icmp_rto_backoff = true", (12, 80)));
    let keep = run(&paper_001_with("icmp_rto = true, icmp_rto_backoff = false", (12, 80)));
    let (b, k) = (flow(&backoff, "f"), flow(&keep, "f"));
    assert!(k.icmp_shrinks > b.icmp_shrinks, "{} vs {}", k.icmp_shrinks, b.icmp_shrinks);
    assert!(k.end_s.unwrap() < b.end_s.unwrap(), "{} vs {}", k.end_s.unwrap(), b.end_s.unwrap());
}

/// With a perfect channel the scheme never fires and changes nothing.
#[test]
fn without_a_bad_period_the_scheme_is_inert() {
    let plain = run(&paper_001(false, (100_000, 100_000)));
    let scheme = run(&paper_001(true, (100_000, 100_000)));
    assert_eq!(flow(&plain, "f").end_s, flow(&scheme, "f").end_s);
    assert_eq!(flow(&scheme, "f").icmp_drop, 0);
}

/// A time-based Gilbert–Elliott channel on the wireless hop, recorded as a series; the
/// links table reports the bad share, and each direction draws its own state process.
#[test]
fn gilbert_elliott_channel_is_reported_and_traced() {
    let text = r#"
duration = "600s"
output = { series = ["channel"] }
[[links]]
name = "wireless"
rate = "64kbps"
delay = "250ms"
loss = { kind = "gilbert-elliott", good = "exp(8s)", bad = "exp(2s)", ber_good = 1e-6, ber_bad = 1e-3 }
arq = { window = "3p", attempts = 6 }
reverse = { arq = "off", loss = 0 }
[[flows]]
name = "f"
route = ["wireless"]
tcp = { cc = "newreno", sack = false }
"#;
    let r = run(text);
    let fwd = &r.links[0];
    let share = fwd.bad_share.unwrap();
    assert!(share > 0.05 && share < 0.4, "600 s of an 8 s / 2 s process: about 0.2, got {share}");
    assert!(fwd.arq_attempts > fwd.arq_successes && fwd.arq_successes > 0);
    assert_eq!(r.links[1].bad_share, None, "the reverse direction is perfect");
    assert_eq!(r.links[1].arq_attempts, 0);
    let channel = r.series.metric.iter().filter(|&&m| m == rtolab_sim::SeriesMetric::Channel).count();
    assert!(channel > 20, "{channel} state changes recorded");
}

fn error_of(link_extra: &str, tcp: &str) -> (String, String) {
    let text = format!(
        "[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\n{link_extra}\n[[flows]]\nname = \"f\"\nroute = [\"l\"]\nsize = \"10kB\"\ntcp = {{ {tcp} }}\n"
    );
    let e = from_toml(&text).expect_err("must be refused");
    (e.path.clone(), e.to_string())
}

/// Each malformed radio setting names its field (issue: bad input exits 2 naming it).
#[test]
fn bad_radio_settings_name_the_field() {
    let cases = [
        ("arq = { window = \"0p\", attempts = 6 }", "", "links[0].arq.window"),
        ("arq = { window = \"3kB\", attempts = 6 }", "", "links[0].arq.window"),
        ("arq = { window = \"3p\", attempts = 0 }", "", "links[0].arq.attempts"),
        ("arq = { window = \"3p\", attempts = 6, colour = 1 }", "", "links[0].arq.colour"),
        ("reverse = { arq = \"of\" }", "", "links[0].reverse.arq"),
        ("loss = { kind = \"gilbert-elliott\", good = \"exp(8s)\", bad = \"exp(2s)\", ber_good = 1e-6, ber_bad = 1.5 }", "", "links[0].loss.ber_bad"),
        ("loss = { kind = \"gilbert-elliott\", good = \"exp(8s)\", bad = \"exp(2s)\", ber_good = -1e-6, ber_bad = 1e-3 }", "", "links[0].loss.ber_good"),
        ("loss = { kind = \"gilbert-elliott\", good = \"exp(0s)\", bad = \"exp(2s)\", ber_good = 1e-6, ber_bad = 1e-3 }", "", "links[0].loss.good"),
        ("loss = { kind = \"gilbert-elliott\", good = \"exp(8s)\", ber_good = 1e-6, ber_bad = 1e-3 }", "", "links[0].loss.bad"),
        ("loss = { kind = \"gilbert-elliott\", mean_loss = 0.1, mean_burst = 0.5 }", "", "links[0].loss.mean_burst"),
        ("loss = { kind = \"gilbert-elliott\", mean_loss = 0.1, mean_burst = 3, good = \"exp(8s)\" }", "", "links[0].loss.mean_loss"),
        ("loss = { kind = \"markov\", mean_loss = 0.1 }", "", "links[0].loss.kind"),
        ("loss = 1.5", "", "links[0].loss"),
        ("", "sack = true, rack = true, icmp_rto = true", "flows[0].tcp.icmp_rto"),
        ("", "stack = \"linux\", icmp_rto = true", "flows[0].tcp.icmp_rto"),
        ("", "icmp_rto = true, icmp_rto_extension = -1", "flows[0].tcp.icmp_rto_extension"),
        ("", "icmp_rto = true, icmp_rto_case7 = \"later\"", "flows[0].tcp.icmp_rto_case7"),
        ("", "icmp_rto = true, icmp_rto_backoff = 1", "flows[0].tcp.icmp_rto_backoff"),
    ];
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|&(link_extra, tcp, path)| {
            let (got, message) = error_of(link_extra, tcp);
            (got != path).then(|| format!("{link_extra} {tcp}: expected {path}, got {message}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
