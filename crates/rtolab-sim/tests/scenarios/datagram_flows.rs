//! UDP flows (`[[flows]] … udp = { rate, size }`): constant bit rate against closed forms,
//! beside TCP, over every kind of link and the radio network, recorded in pcaps and the event
//! log, and refused with the field named when written wrong.

use crate::common::{beside_bulk_cubic, flow, run};
use rtolab_sim::results::TransportKind;
use rtolab_sim::spec::from_toml;
use rtolab_sim::{EventKind, RunResult};

/// One link and one UDP flow; `link_extra` goes into the link, `flow_extra` into the flow.
fn cbr(rate: &str, link_rate: &str, link_extra: &str, flow_extra: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[[links]]
name = "l"
rate = "{link_rate}"
delay = "40ms"
{link_extra}
[[flows]]
name = "u"
route = ["l"]
udp = {{ rate = "{rate}", size = "1200B" }}
{flow_extra}
"#
    )
}

fn ms(s: f64) -> f64 {
    s * 1e3
}

/// Below capacity (1 Mbit/s of payload on a 10 Mbit/s link): nothing lost, every datagram
/// 40 ms of propagation plus its serialisation, (1200 + 28)·8 / 10⁷ s = 0.9824 ms, so mean
/// and 99th percentile equal that sum (to 0.1 ms, the acceptance line; here to the
/// nanosecond's rounding), and no jitter. 120 kB is exactly 100 datagrams, 9.6 ms apart; the
/// flow ends when the last arrives, 99·9.6 + 40.9824 ms after it started.
#[test]
fn cbr_below_capacity_loses_nothing_and_waits_only_for_the_path() {
    let r = run(&cbr("1Mbps", "10Mbps", "", "size = \"120kB\"", "10s"));
    let f = flow(&r, "u");
    assert_eq!(f.transport, TransportKind::Udp);
    assert_eq!((f.datagrams_sent, f.datagrams_received, f.datagrams_lost, f.datagrams_late), (Some(100), Some(100), Some(0), Some(0)));
    assert_eq!(f.bytes, 120_000);
    let path = 0.040 + 1228.0 * 8.0 / 1e7;
    for (what, v) in [("mean", f.delay_mean_s), ("p99", f.delay_p99_s)] {
        assert!((v.unwrap() - path).abs() < 1e-8, "{what} {:?} ms vs {} ms", v.map(ms), ms(path));
    }
    assert_eq!(f.jitter_s, Some(0.0));
    assert!((f.end_s.unwrap() - (99.0 * 0.0096 + path)).abs() < 1e-8, "{:?}", f.end_s);
    assert_eq!((f.segments_sent, f.timeouts, f.mos), (0, 0, None));
}

/// Above capacity, a CBR source loses 1 − C/r of what it sends, r its rate on the wire:
/// 4 Mbit/s of 1200-byte payloads is 4·1228/1200 = 4.0933 Mbit/s on a 2 Mbit/s link, so
/// 1 − 2/4.0933 = 51.14 % (the acceptance line: within a point). Counted over the
/// datagrams whose fate is known at the end (the queue's 50 and the wire's are not); over 60 s
/// the queue's filling moves it by about 50/25 000.
#[test]
fn cbr_above_capacity_loses_the_excess() {
    let r = run(&cbr("4Mbps", "2Mbps", "queue = { kind = \"droptail\", limit = \"50p\" }", "", "60s"));
    let f = flow(&r, "u");
    let (lost, received) = (f.datagrams_lost.unwrap() as f64, f.datagrams_received.unwrap() as f64);
    let want = 1.0 - 2e6 / (4e6 * 1228.0 / 1200.0);
    let loss = lost / (lost + received);
    assert!((loss - want).abs() < 0.01, "loss {loss:.4} vs 1 − C/r = {want:.4}");
    // The link is full: goodput is its rate less the headers' share.
    let goodput = f.goodput_bps.unwrap();
    assert!((goodput / (2e6 * 1200.0 / 1228.0) - 1.0).abs() < 0.01, "{goodput}");
}

/// The bytes of a flow of bounded size, and on and off periods: the same seed gives the same
/// table; the on share of exp(1 s)/exp(1 s) halves what is sent.
#[test]
fn on_off_runs_are_deterministic_and_send_half() {
    let text = cbr("1Mbps", "10Mbps", "", "udp.on = \"exp(1s)\"\nudp.off = \"exp(1s)\"", "200s").replace("udp = { rate = \"1Mbps\", size = \"1200B\" }\n", "");
    let text = text.replace("udp.on", "[flows.udp]\nrate = \"1Mbps\"\nsize = \"1200B\"\non").replace("udp.off", "off");
    let (a, b) = (run(&text), run(&text));
    assert_eq!(a.flows, b.flows);
    let sent = a.flows[0].datagrams_sent.unwrap() as f64;
    let peak = 200.0 * 1e6 / 9600.0;
    // About 100 on/off cycles: the on share's standard error is about 0.5/√100·… ≈ 3.5 %.
    assert!((sent / peak - 0.5).abs() < 0.15, "{}", sent / peak);
}

/// A flow carries exactly one of `tcp` and `udp`; the error names the flow and the field.
/// Bad UDP settings name their field too.
#[test]
fn bad_udp_flows_are_refused_by_field() {
    let both = cbr("1Mbps", "10Mbps", "", "tcp = { cc = \"cubic\" }", "1s");
    let e = from_toml(&both).unwrap_err();
    assert_eq!(e.path, "flows[0].udp");
    assert!(e.message.contains("\"u\"") && e.message.contains("exactly one"), "{}", e.message);
    for (flow, path) in [
        ("udp = { rate = \"0bps\", size = \"1200B\" }", "flows[0].udp.rate"),
        ("udp = { rate = \"1Mbps\", size = \"70000B\" }", "flows[0].udp.size"),
        ("udp = { rate = \"1Mbps\", size = \"1200B\", on = \"exp(1s)\" }", "flows[0].udp.off"),
        ("udp = { rate = \"1Mbps\", size = \"1200B\", rat = \"1s\" }", "flows[0].udp.rat"),
        ("udp = { rate = \"1Mbps\", size = \"1200B\", on = \"0s\", off = \"1s\" }", "flows[0].udp.on"),
    ] {
        let text = format!("duration = \"1s\"\n[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[flows]]\nname = \"u\"\nroute = [\"l\"]\n{flow}\n");
        let e = from_toml(&text).unwrap_err();
        assert_eq!(e.path, path, "{flow}: {}", e.message);
    }
}

/// A voice-rate UDP flow beside a bulk TCP flow on a 2 Mbit/s link of 20 ms: behind a
/// 200-packet drop-tail queue it waits for the queue TCP keeps full (200 · 1500 B at
/// 2 Mbit/s is 1.2 s); behind FQ-CoDel its datagrams have a queue of their own and stay within
/// a few milliseconds of the path (20 ms plus at most one bulk packet's 6 ms ahead of it).
#[test]
fn udp_beside_bulk_tcp_waits_for_the_queue_tcp_fills() {
    let voice = "[[flows]]\nname = \"voice\"\nroute = [\"l\"]\nstart = \"5s\"\nudp = { rate = \"64kbps\", size = \"160B\" }\n";
    let scenario = |queue: &str| beside_bulk_cubic(queue, "30s", voice);
    let droptail = run(&scenario("{ kind = \"droptail\", limit = \"200p\" }"));
    let fq = run(&scenario("{ kind = \"fq_codel\" }"));
    let (d, q) = (flow(&droptail, "voice").delay_mean_s.unwrap(), flow(&fq, "voice").delay_mean_s.unwrap());
    assert!(d > 0.150, "drop-tail: voice mean delay {} ms", ms(d));
    assert!(q < 0.020 + 0.015, "FQ-CoDel: voice mean delay {} ms", ms(q));
    assert!(flow(&fq, "bulk").goodput_bps.unwrap() > 1.5e6);
}

/// Datagram flows cross every kind of path: a spiky link (a 2 s spike holds them: the 99th
/// percentile is past 1 s), a lossy link (5 % Bernoulli, every drop one event of the log
/// naming the flow and the datagram's number), and the radio network both ways; packets are
/// conserved (checked at the end of every run).
#[test]
fn datagram_flows_cross_every_kind_of_path() {
    let spiky = run(&cbr("100kbps", "2Mbps", "spikes = { at = [\"3s\"], length = \"2s\" }", "", "10s"));
    assert!(flow(&spiky, "u").delay_p99_s.unwrap() > 1.0, "{:?}", flow(&spiky, "u").delay_p99_s);
    let lossy = run(&cbr("1Mbps", "2Mbps", "loss = 0.05", "[output]\nevents = [\"drop\"]", "20s"));
    let f = flow(&lossy, "u");
    let loss = f.datagrams_lost.unwrap() as f64 / f.datagrams_sent.unwrap() as f64;
    assert!((loss - 0.05).abs() < 0.015, "{loss}");
    let drops: Vec<_> = lossy.events.iter().filter(|e| e.kind == EventKind::Drop).collect();
    assert_eq!(drops.len() as u64, f.datagrams_lost.unwrap());
    assert!(drops.iter().all(|e| e.flow.as_deref() == Some("u") && e.seq.is_some()), "{:?}", drops.first());
    let radio = run(
        r#"
duration = "10s"
[radio]
cells = 1
shadowing_db = 0
[[flows]]
name = "down"
route = ["hsdpa"]
udp = { rate = "500kbps", size = "1000B" }
[[flows]]
name = "up"
route = ["hsdpa"]
uplink = true
udp = { rate = "50kbps", size = "200B" }
"#,
    );
    for name in ["down", "up"] {
        let f = flow(&radio, name);
        assert!(f.datagrams_received.unwrap() > 0 && f.delay_mean_s.unwrap() > 0.0, "{name}: {f:?}");
    }
}

/// A pcap of a link carrying a UDP flow holds IPv4/UDP datagrams of the flow's size.
#[test]
fn pcaps_show_udp_datagrams() {
    let r: RunResult = run(&cbr("1Mbps", "10Mbps", "", "size = \"12kB\"\n[output]\npcap = [\"l\"]", "1s"));
    let (_, bytes) = &r.pcaps[0];
    let mut reader = pcap_file::pcap::PcapReader::new(&bytes[..]).unwrap();
    let mut n = 0;
    while let Some(p) = reader.next_packet() {
        let p = p.unwrap();
        let ip = etherparse::Ipv4HeaderSlice::from_slice(&p.data).unwrap();
        assert_eq!(ip.protocol(), etherparse::IpNumber::UDP);
        let udp = etherparse::UdpHeaderSlice::from_slice(&p.data[ip.slice().len()..]).unwrap();
        assert_eq!((udp.length(), udp.destination_port(), p.orig_len), (1208, 5004, 1228));
        n += 1;
    }
    assert_eq!(n, 10);
}

/// Over a Gilbert–Elliott channel (bad state 20 % of the time, bit errors 1e-3 there: a
/// 1228-byte datagram is lost with probability 1 − (1 − 10⁻³)^9824 ≈ 1 in the bad state),
/// link-layer ARQ (6 attempts) recovers most of what the channel loses: fewer datagrams lost
/// than without it, at a longer mean delay (retransmissions wait), with every datagram's fate
/// known once the bounded flow ends.
#[test]
fn arq_recovers_datagrams_a_gilbert_elliott_channel_loses() {
    let channel = "loss = { kind = \"gilbert-elliott\", good = \"exp(8s)\", bad = \"exp(2s)\", ber_good = 1e-6, ber_bad = 1e-3 }";
    let text = |arq: &str| cbr("100kbps", "1Mbps", &format!("{channel}\n{arq}\nreverse = {{ arq = \"off\", loss = 0 }}"), "size = \"1MB\"", "300s");
    let plain = run(&text(""));
    let arq = run(&text("arq = { window = \"3p\", attempts = 6 }"));
    let (p, a) = (flow(&plain, "u"), flow(&arq, "u"));
    for f in [p, a] {
        assert!(f.end_s.is_some(), "{f:?}");
        assert_eq!(f.datagrams_received.unwrap() + f.datagrams_lost.unwrap(), f.datagrams_sent.unwrap());
    }
    assert!(p.datagrams_lost.unwrap() > 0 && a.datagrams_lost.unwrap() < p.datagrams_lost.unwrap(), "lost {:?} with ARQ vs {:?} without", a.datagrams_lost, p.datagrams_lost);
    assert!(a.delay_mean_s.unwrap() > p.delay_mean_s.unwrap());
}

/// A trace-driven link (a constant 12 Mbit/s trace: one 1500-byte delivery opportunity every
/// millisecond) carries a 1 Mbit/s CBR flow whole: nothing lost, each datagram waiting at most
/// one opportunity beyond the 40 ms path.
#[test]
fn a_trace_link_carries_datagrams() {
    let text = "duration = \"10s\"\n[[links]]\nname = \"l\"\ntrace = \"const-12mbps.trace\"\ndelay = \"40ms\"\nreverse = { rate = \"12Mbps\" }\n\
                [[flows]]\nname = \"u\"\nroute = [\"l\"]\nudp = { rate = \"1Mbps\", size = \"1200B\" }\n";
    let traces = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces"));
    let scenario = rtolab_sim::spec::parse_in(text, "toml", Some(traces)).unwrap();
    let r = rtolab_sim::run(&scenario, None).unwrap();
    let f = flow(&r, "u");
    assert_eq!(f.datagrams_lost, Some(0));
    let d = f.delay_mean_s.unwrap();
    assert!((0.040..=0.041 + 1e-6).contains(&d), "{d}");
}
