//! Web users with one TCP connection per session (`connection = "per-session"`, paper 001's
//! "single user running a single session"): one handshake, the sender's timer and RTT state
//! carried from file to file, one row per file that adds up to the connection.

use crate::common::run;
use rtolab_sim::{EventKind, FlowRow, RunResult};

/// One user fetching 1000-byte files with 1 s of thought before each over a 1 Gb/s link of
/// 50 ms each way (RTT R = 100 ms and some µs), RFC 6298 with a 10 ms floor, no delayed
/// ACKs, captured. The first file is requested at 1 s, the next 1 s after each ends; in 4 s
/// three files end.
fn one_user(connection: &str, tcp: &str, link_extra: &str, duration: &str) -> String {
    format!(
        r#"
duration = "{duration}"
[[links]]
name = "l"
rate = "1Gbps"
delay = "50ms"
queue = {{ kind = "droptail", limit = "1000p" }}
{link_extra}
[[generators]]
kind = "web"
name = "w"
users = 1
size = "1000B"
think = "1s"
route = ["l"]
connection = "{connection}"
tcp = {{ {tcp} }}
[output]
pcap = ["l"]
events = ["timeout", "spurious", "undo", "retransmit"]
series = ["rto"]
"#
    )
}

const RFC: &str = "rto = \"rfc6298\", min_rto = \"10ms\", delayed_ack = false";

/// The capture's SYNs (without ACK), SYN-ACKs and FINs, and the data segments' sequence
/// numbers relative to the SYN's (the wire, read back from the pcap: an independent path).
fn handshakes_and_data(r: &RunResult) -> (usize, usize, usize, Vec<u32>) {
    let mut reader = pcap_file::pcap::PcapReader::new(&r.pcaps[0].1[..]).unwrap();
    let (mut syns, mut syn_acks, mut fins, mut isn, mut data) = (0, 0, 0, None, vec![]);
    while let Some(pkt) = reader.next_packet() {
        let pkt = pkt.unwrap();
        let ip = etherparse::Ipv4HeaderSlice::from_slice(&pkt.data).unwrap();
        let tcp = etherparse::TcpHeaderSlice::from_slice(&pkt.data[ip.slice().len()..]).unwrap();
        let payload = ip.total_len() as usize - ip.slice().len() - tcp.slice().len();
        match (tcp.syn(), tcp.ack()) {
            (true, false) => {
                syns += 1;
                isn = Some(tcp.sequence_number());
            }
            (true, true) => syn_acks += 1,
            _ => {}
        }
        fins += tcp.fin() as usize;
        if payload > 0 {
            data.push(tcp.sequence_number().wrapping_sub(isn.expect("the SYN comes first") + 1));
        }
    }
    (syns, syn_acks, fins, data)
}

/// RFC 6298 (2.2)–(2.3) after n equal samples R: SRTT = R, RTTVAR = R/2 · (3/4)^(n−1), so
/// RTO = R + 2R · (3/4)^(n−1): 3R, 2.5R, 2.125R, 1.84375R.
fn rto_after(n: i32, r: f64) -> f64 {
    r + 2.0 * r * 0.75f64.powi(n - 1)
}

/// One handshake for the session: a single SYN and SYN-ACK on the wire, no FIN, and the
/// files one after the other in the byte stream (0, 1000, 2000: the sender's own sequence
/// space starts each write on a segment boundary, the wire does not). File 0 takes the
/// handshake's round trip and its data's (2R) and two RTT samples (the SYN-ACK's and the
/// data's: mean RTO (3R + 2.5R)/2); files 1 and 2 take one round trip and one sample each,
/// and that sample updates the estimator the earlier files left: 2.125R, then 1.84375R. Per
/// file, every file repeats file 0 (a handshake each, mean RTO 2.75R).
#[test]
fn per_session_user_makes_one_handshake_and_keeps_its_rtt_estimates() {
    let r_ = 0.1;
    let session = run(&one_user("per-session", RFC, "", "4s"));
    assert_eq!(session.flows.len(), 3);
    let (syns, syn_acks, fins, data) = handshakes_and_data(&session);
    assert_eq!((syns, syn_acks, fins), (1, 1, 0));
    assert_eq!(data, vec![0, 1000, 2000]);
    let f = &session.flows;
    assert!(f.iter().all(|x| x.connection == 0 && x.size == Some(1000) && x.bytes == 1000), "{f:#?}");
    assert_eq!(f.iter().map(|x| x.flow).collect::<Vec<_>>(), vec![0, 1, 2]);
    assert_eq!(f.iter().map(|x| x.name.as_str()).collect::<Vec<_>>(), vec!["w.u0.0", "w.u0.1", "w.u0.2"]);
    assert_eq!(f.iter().map(|x| x.rtt_samples).collect::<Vec<_>>(), vec![Some(2), Some(1), Some(1)]);
    let completion: Vec<f64> = f.iter().map(|x| x.completion_s.unwrap()).collect();
    assert!((completion[0] - 2.0 * r_).abs() < 1e-3, "{completion:?}");
    assert!(completion[1..].iter().all(|c| (c - r_).abs() < 1e-3), "{completion:?}");
    let mean_rto: Vec<f64> = f.iter().map(|x| x.mean_rto_s.unwrap()).collect();
    let want = [(rto_after(1, r_) + rto_after(2, r_)) / 2.0, rto_after(3, r_), rto_after(4, r_)];
    for (got, want) in mean_rto.iter().zip(want) {
        assert!((got - want).abs() < 1e-3, "mean RTO {mean_rto:?}, want {want}");
    }
    // The think time starts when a file's last byte is acknowledged, as per file.
    for w in f.windows(2) {
        assert!((w[1].start_s - w[0].end_s.unwrap() - 1.0).abs() < 1e-9);
    }

    let per_file = run(&one_user("per-file", RFC, "", "4s"));
    let (syns, _, fins, _) = handshakes_and_data(&per_file);
    assert_eq!((per_file.flows.len(), syns, fins), (3, 3, 3));
    for (i, x) in per_file.flows.iter().enumerate() {
        assert_eq!((x.connection, x.rtt_samples), (i as u64, Some(2)));
        assert!((x.completion_s.unwrap() - 2.0 * r_).abs() < 1e-3);
        assert!((x.mean_rto_s.unwrap() - want[0]).abs() < 1e-3);
    }
}

/// The window carries over too: files of 60 segments of 1448 B, IW 10 (RFC 6928), one ACK
/// per segment, no window validation. File 0 takes the handshake and three rounds of slow
/// start (10, 20, 40 segments: 4 round trips) and leaves cwnd at 10 + 60 = 70 segments; files
/// 1 and 2 go in one round. Per file each starts again from IW 10: 4 round trips each.
#[test]
fn per_session_user_keeps_its_window() {
    let rounds = |connection: &str| {
        let r = run(&one_user(connection, "mss = 1448, delayed_ack = false", "", "4.5s").replace("size = \"1000B\"", "size = \"86880B\""));
        r.flows.iter().map(|f| (f.completion_s.unwrap() / 0.1).round() as u32).collect::<Vec<_>>()
    };
    assert_eq!(rounds("per-session"), vec![4, 1, 1]);
    assert_eq!(rounds("per-file"), vec![4, 4, 4]);
}

/// ns-2's one-way NewReno agent, as paper 001 ran it (`handshake = false`: data at once;
/// initial RTO 3 s; `newack` clears the back-off only with an RTT sample, and a
/// retransmitted segment gives none, Karn). The link loses the
/// 1st and the 3rd data packet: file 0's only segment (sent at 1 s) and file 1's. File 0
/// times out after 3 s, is resent, the timer backed off to 6 s; its ACK ends the file
/// without a sample. Under "per-session" file 1's segment is sent on that connection with the
/// back-off still on: it times out 6 s after it left (then 12 s is the back-off). Under
/// "per-file" file 1 is a new agent: 3 s. `timeout_idle_s` is that wait: from the last
/// transmission to the expiry.
#[test]
fn per_session_ns2_agent_keeps_a_backed_off_timer_into_the_next_file() {
    let tcp = "stack = \"ns2-newreno\", handshake = false";
    let drops = "drop_packets = [1, 3]";
    let session = run(&one_user("per-session", tcp, drops, "30s"));
    let per_file = run(&one_user("per-file", tcp, drops, "30s"));
    let idle = |r: &RunResult| r.flows.iter().take(2).map(|f| (f.timeouts, f.retransmits, f.timeout_idle_s.unwrap())).collect::<Vec<_>>();
    let close = |got: Vec<(u64, u64, f64)>, want: [(u64, u64, f64); 2]| {
        got.iter().zip(want).all(|(g, w)| g.0 == w.0 && g.1 == w.1 && (g.2 - w.2).abs() < 1e-6)
    };
    assert!(close(idle(&session), [(1, 1, 3.0), (1, 1, 6.0)]), "{:?}", idle(&session));
    assert!(close(idle(&per_file), [(1, 1, 3.0), (1, 1, 3.0)]), "{:?}", idle(&per_file));
    // The timeout rows of the event log name the file during which each fired.
    let timeouts: Vec<(String, f64)> =
        session.events.iter().filter(|e| e.kind == EventKind::Timeout).map(|e| (e.flow.clone().unwrap(), e.time_s)).collect();
    let f = &session.flows;
    assert_eq!(timeouts.iter().map(|t| t.0.as_str()).collect::<Vec<_>>(), vec!["w.u0.0", "w.u0.1"]);
    assert!((timeouts[0].1 - (f[0].start_s + 3.0)).abs() < 1e-6 && (timeouts[1].1 - (f[1].start_s + 6.0)).abs() < 1e-6, "{timeouts:?}");
    // File 2's segment arrives; its ACK is the first sample since the timeouts.
    assert_eq!((f[2].timeouts, f[2].rtt_samples, f[2].bytes), (0, Some(1), 1000));
    // Each file's `rto` series starts with the timer as the file finds it, at its start: the
    // initial 3 s, then the 6 s file 0's timeout left (per file: 3 s again), then the 12 s
    // file 1's left.
    assert_eq!(first_rto(&session)[..3], [(f[0].start_s, 3.0), (f[1].start_s, 6.0), (f[2].start_s, 12.0)]);
    let p = &per_file.flows;
    assert_eq!(first_rto(&per_file)[..3], [(p[0].start_s, 3.0), (p[1].start_s, 3.0), (p[2].start_s, 3.0)]);
}

/// The first point of each flow's `rto` series: (time, value).
fn first_rto(r: &RunResult) -> Vec<(f64, f64)> {
    (0..r.flows.len() as u32)
        .map(|k| {
            let s = &r.series;
            let i = (0..s.len()).find(|&i| s.entity[i] == k && s.metric[i] == rtolab_sim::SeriesMetric::Rto).expect("an rto series per flow");
            (s.time_s[i], s.value[i])
        })
        .collect()
}

/// The rows of one connection, in order.
fn connections(r: &RunResult) -> std::collections::BTreeMap<u64, Vec<&FlowRow>> {
    let mut by: std::collections::BTreeMap<u64, Vec<&FlowRow>> = Default::default();
    for f in &r.flows {
        by.entry(f.connection).or_default().push(f);
    }
    by
}

/// Per-session users on a lossy link with spikes, for several stacks: each user's files are
/// rows of one connection (the `connection` of its first file), in order, each ending
/// before the next begins; what the rows count adds up to the connection's totals read from
/// independent paths: data segments sent (the run's data packets: only these users send),
/// timeouts and retransmissions (the event log), RTT samples (the `rtt` series, recorded
/// under each file's row); and a finished file delivered its size (`common::run`).
#[test]
fn per_session_rows_add_up_to_their_connections() {
    for tcp in ["stack = \"ns2-sack1\"", "stack = \"linux\"", "stack = \"rfc\"", "cc = \"newreno\", sack = true, rto = \"linux\", handshake = false"] {
        let text = format!(
            r#"
duration = "60s"
seed = 5
[[links]]
name = "l"
rate = "1Mbps"
delay = "40ms"
queue = {{ kind = "droptail", limit = "15p" }}
loss = 0.03
spikes = {{ interval = "exp(8s)", length = "uniform(0.5s, 2s)" }}
[[generators]]
kind = "web"
users = 3
size = "pareto(mean=15000B, shape=1.2)"
think = "exp(1s)"
route = ["l"]
connection = "per-session"
tcp = {{ {tcp} }}
[output]
series = ["rtt"]
events = ["timeout", "retransmit"]
"#
        );
        let r = run(&text);
        let conns = connections(&r);
        assert_eq!(conns.len(), 3, "{tcp}");
        assert!(r.flows.len() > 3 * 5, "{tcp}: {} files", r.flows.len());
        assert_eq!(r.flows.iter().map(|f| f.segments_sent).sum::<u64>(), r.meta.data_packets, "{tcp}");
        for (conn, rows) in &conns {
            assert_eq!(rows[0].flow, *conn, "{tcp}");
            let user = rows[0].name.rsplit_once('.').unwrap().0;
            assert!(rows.iter().all(|f| f.name.rsplit_once('.').unwrap().0 == user), "{tcp}: one user per connection");
            for w in rows.windows(2) {
                assert!(w[0].end_s.is_some_and(|e| e <= w[1].start_s), "{tcp}: {} ends before {} begins", w[0].name, w[1].name);
            }
            let names: Vec<&str> = rows.iter().map(|f| f.name.as_str()).collect();
            let events = |kind: EventKind| r.events.iter().filter(|e| e.kind == kind && names.contains(&e.flow.as_deref().unwrap())).count() as u64;
            assert_eq!(rows.iter().map(|f| f.timeouts).sum::<u64>(), events(EventKind::Timeout), "{tcp}");
            assert_eq!(rows.iter().map(|f| f.retransmits).sum::<u64>(), events(EventKind::Retransmit), "{tcp}");
            let entities: Vec<u32> = rows.iter().map(|f| f.flow as u32).collect();
            let samples = r.series.entity.iter().zip(&r.series.metric).filter(|(e, m)| **m == rtolab_sim::SeriesMetric::Rtt && entities.contains(e)).count() as u64;
            assert_eq!(rows.iter().map(|f| f.rtt_samples.unwrap()).sum::<u64>(), samples, "{tcp}");
            for f in rows {
                assert!(f.spurious_detected_correct <= f.spurious_detected.min(f.spurious_timeouts) && f.spurious_timeouts <= f.timeouts, "{tcp}: {f:?}");
                assert!(f.linear_acks.unwrap() <= f.ca_acks.unwrap(), "{tcp}: {f:?}");
            }
        }
        assert!(r.flows.iter().map(|f| f.timeouts).sum::<u64>() > 0, "{tcp}: the link makes timeouts");
    }
}

/// A mobile user of the HSDPA network keeps its connection (placed once, when it opens) and
/// the run keeps every invariant (packet conservation, the byte stream).
#[test]
fn per_session_users_of_the_radio_network() {
    let text = "duration = \"20s\"\n[radio]\n[[generators]]\nkind = \"web\"\nusers = 8\nsize = \"pareto(mean=25000B, shape=1.1)\"\n\
                think = \"exp(1.5s)\"\nroute = [\"hsdpa\"]\nconnection = \"per-session\"\ntcp = { stack = \"ns2-sack1\", min_rto = \"200ms\" }\n";
    let r = run(text);
    assert_eq!(connections(&r).len(), 8);
    assert!(r.flows.iter().filter(|f| f.end_s.is_some()).count() > 8);
}

/// `connection` takes "per-file" (the default) or "per-session"; anything else is refused at
/// its field path with both names.
#[test]
fn connection_setting_parses_and_refuses_others() {
    let text = |c: &str| format!("duration = \"1s\"\n[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[generators]]\nkind = \"web\"\nusers = 1\nsize = \"1kB\"\nthink = \"1s\"\nroute = [\"l\"]\n{c}");
    for ok in ["", "connection = \"per-file\"\n", "connection = \"per-session\"\n"] {
        rtolab_sim::spec::from_toml(&text(ok)).unwrap();
    }
    let e = rtolab_sim::spec::from_toml(&text("connection = \"keep-alive\"\n")).unwrap_err();
    assert_eq!(e.path, "generators[0].connection", "{e}");
    assert!(e.message.contains("per-file") && e.message.contains("per-session"), "{e}");
}
