//! Voice calls (`[[generators]] kind = "voip"`): frames of the codec's size every 20 ms while
//! talking, P.59's talk spurts and silences, late packets lost to the listener, and the
//! E-model's MOS per call, on clean, lossy, spiky and shared links and over the radio network.

use crate::common::{beside_bulk_cubic, run};
use rtolab_sim::results::{FlowKind, TransportKind};
use rtolab_sim::spec::from_toml;
use rtolab_sim::{FlowRow, RunResult};

/// `users` calls of `codec` over one link of `rate` and 40 ms; `link_extra` goes into the
/// link, `calls_extra` into the generator, `extra` at the end of the scenario.
fn calls(users: u32, codec: &str, link_extra: &str, calls_extra: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[[links]]
name = "l"
rate = "10Mbps"
delay = "40ms"
{link_extra}
[[generators]]
kind = "voip"
name = "v"
users = {users}
codec = "{codec}"
route = ["l"]
{calls_extra}
"#
    )
}

fn call_rows(r: &RunResult) -> Vec<&FlowRow> {
    r.flows.iter().filter(|f| f.kind == FlowKind::Generator("voip")).collect()
}

/// G.711 on a clean 40 ms link: every packet 40 ms and its serialisation late (no queue), so
/// R = 93.2 less Id at 40 ms and the MOS is at least 4.0 (the acceptance line; G.107 Annex B
/// at R ≈ 92 gives 4.39). Each call is one row, transport udp, named "v.uU".
#[test]
fn g711_on_a_clean_link_scores_at_least_4() {
    let r = run(&calls(3, "g711", "", "", "60s"));
    let rows = call_rows(&r);
    assert_eq!(rows.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["v.u0", "v.u1", "v.u2"]);
    for f in rows {
        assert_eq!((f.transport, f.datagrams_lost, f.datagrams_late), (TransportKind::Udp, Some(0), Some(0)));
        let serialisation = (172.0 + 28.0) * 8.0 / 10e6;
        assert!((f.delay_mean_s.unwrap() - (0.040 + serialisation)).abs() < 1e-6, "{:?}", f.delay_mean_s);
        assert!(f.mos.unwrap() >= 4.0, "{}: MOS {:?}", f.name, f.mos);
    }
}

/// Random loss lowers the score: 5 % Bernoulli loss on the link gives Ie,eff ≈ 15.8 for
/// G.711 (Bpl 25.1), so every call scores lower than on the clean link, by more than 0.3
/// MOS (R falls about 15 points near R = 92, where dMOS/dR ≈ 0.025).
#[test]
fn random_loss_lowers_the_mos() {
    let clean = run(&calls(3, "g711", "", "", "60s"));
    let lossy = run(&calls(3, "g711", "loss = 0.05", "", "60s"));
    for (c, l) in call_rows(&clean).iter().zip(call_rows(&lossy)) {
        assert!(l.datagrams_lost.unwrap() > 0);
        assert!(l.mos.unwrap() < c.mos.unwrap() - 0.3, "{}: {:?} vs {:?}", l.name, l.mos, c.mos);
    }
}

/// A 1 s delay spike holds every packet sent from 40 ms before it (on the wire) to 150 ms
/// before its end past the 150 ms playout: about 47 of each call's packets per spike, late,
/// counted apart from the lost ones (none: the queue holds both calls' 100 packets), and a
/// lower MOS than the clean link's 4.39.
#[test]
fn delay_spikes_make_packets_late() {
    let link = "queue = { kind = \"droptail\", limit = \"1000p\" }\nspikes = { at = [\"10s\", \"30s\"], length = \"1s\" }";
    let spiky = run(&calls(2, "g711", link, "talk = \"60s\"\nsilence = \"1s\"", "40s"));
    for f in call_rows(&spiky) {
        assert!(f.datagrams_late.unwrap() >= 2 * 40, "{}: {:?} late", f.name, f.datagrams_late);
        assert_eq!(f.datagrams_lost, Some(0));
        assert!(f.mos.unwrap() < 4.0, "{}: {:?}", f.name, f.mos);
    }
}

/// P.59's talk spurts (exp 1.004 s) and silences (exp 1.587 s): a speaker talks
/// 1.004/2.591 = 38.75 % of the time, so a call sends that share of one frame per 20 ms.
/// Over 20 calls of 300 s (about 2300 spurts; the on-share's relative standard error is
/// about 2 %), within 8 %. AMR 12.2's packets are 45 + 28 = 73 bytes on the wire.
#[test]
fn talk_spurts_follow_p59_and_amr_packets_are_small() {
    let r = run(&calls(20, "amr-12.2", "", "", "300s"));
    let sent: u64 = call_rows(&r).iter().map(|f| f.datagrams_sent.unwrap()).sum();
    let share = sent as f64 / (20.0 * 300.0 / 0.020);
    let want = 1.004 / (1.004 + 1.587);
    assert!((share / want - 1.0).abs() < 0.08, "talk share {share} vs {want}");
    let f = call_rows(&r)[0];
    assert_eq!(f.bytes, f.datagrams_received.unwrap() * 45);
}

/// The acceptance line: beside a bulk CUBIC flow on a 2 Mbit/s link, a call's mean delay
/// goes past 150 ms behind a 200-packet drop-tail queue (CUBIC keeps it full: 200 · 1500 B is
/// 1.2 s at 2 Mbit/s) and stays near the base delay (20 ms; within 15 ms of it) behind
/// FQ-CoDel, whose flow queues keep the voice apart.
#[test]
fn voice_beside_bulk_cubic_droptail_against_fq_codel() {
    let call = "[[generators]]\nkind = \"voip\"\nusers = 1\nstart = \"10s\"\nroute = [\"l\"]\n";
    let scenario = |queue: &str| beside_bulk_cubic(queue, "40s", call);
    let droptail = run(&scenario("{ kind = \"droptail\", limit = \"200p\" }"));
    let fq = run(&scenario("{ kind = \"fq_codel\" }"));
    let (d, q) = (call_rows(&droptail)[0], call_rows(&fq)[0]);
    assert!(d.delay_mean_s.unwrap() > 0.150, "drop-tail: {:?}", d.delay_mean_s);
    assert!(q.delay_mean_s.unwrap() < 0.020 + 0.015, "FQ-CoDel: {:?}", q.delay_mean_s);
    assert!(q.mos.unwrap() > d.mos.unwrap() + 1.0, "MOS {:?} (FQ-CoDel) vs {:?} (drop-tail)", q.mos, d.mos);
}

/// Callers are users of the radio network: ten listeners and ten speakers in one HSDPA
/// cell, each a mobile user of its own; same seed, same table.
#[test]
fn calls_cross_the_radio_network_both_ways() {
    let text = r#"
duration = "20s"
[radio]
cells = 1
shadowing_db = 0
[[generators]]
kind = "voip"
name = "down"
users = 10
route = ["hsdpa"]
[[generators]]
kind = "voip"
name = "up"
users = 10
route = ["hsdpa"]
uplink = true
"#;
    let (a, b) = (run(text), run(text));
    assert_eq!(a.flows, b.flows);
    assert_eq!(call_rows(&a).len(), 20);
    for f in call_rows(&a) {
        assert!(f.datagrams_received.unwrap() > 0 && f.mos.unwrap() > 1.0, "{f:?}");
    }
}

/// Bad calls are refused naming the field; `users = 0` is not bad: it switches the generator
/// off (so `--set generators.0.users=0` can).
#[test]
fn bad_calls_are_refused_by_field() {
    let off = calls(0, "g711", "", "", "1s");
    assert!(call_rows(&run(&off)).is_empty());
    for (extra, users, duration, path) in [
        ("codec = \"g729\"", 1, "duration = \"1s\"", "generators[0].codec"),
        ("playout = \"0s\"", 1, "duration = \"1s\"", "generators[0].playout"),
        ("", 1, "", "generators[0]"),
        ("talk = \"fast\"", 1, "duration = \"1s\"", "generators[0].talk"),
        ("talk = \"0s\"", 1, "duration = \"1s\"", "generators[0].talk"),
    ] {
        let text = format!("{duration}\n[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[generators]]\nkind = \"voip\"\nusers = {users}\nroute = [\"l\"]\n{extra}\n");
        let e = from_toml(&text).unwrap_err();
        assert_eq!(e.path, path, "{extra}: {}", e.message);
    }
}
