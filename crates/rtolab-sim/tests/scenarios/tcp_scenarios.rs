//! Whole-simulation TCP behaviour, with expected values derived independently (by hand from
//! the RFCs or from link arithmetic) and stated beside each assertion.

use rtolab_sim::results::{LinkDirection, FlowKind};
use crate::common::{flow, run, single_flow};

const BIG_QUEUE: &str = "queue = { kind = \"droptail\", limit = \"1000p\" }";

/// Payload share of the wire with timestamps: 1448 / (1448 + 40 + 12).
const PAYLOAD_SHARE: f64 = 1448.0 / 1500.0;

#[test]
fn lossless_bulk_flow_reaches_99_percent_of_payload_share() {
    let text = format!(
        "duration = \"200s\"\n{}",
        single_flow("10Mbps", "10ms", "inf", "queue = { kind = \"droptail\", limit = \"50p\" }", "sack = true")
    );
    let r = run(&text);
    let f = flow(&r, "f");
    let share = f.goodput_bps.unwrap() / (10e6 * PAYLOAD_SHARE);
    assert!(share >= 0.99, "goodput {:.4} of the payload share", share);
    assert!(r.links[0].utilisation > 0.99);
}

#[test]
fn lost_syn_is_retransmitted_after_the_initial_rto_of_each_preset() {
    for (preset, irto) in [("rfc6298", 1.0), ("linux", 1.0), ("ns2", 3.0), ("ns3", 1.0), ("freebsd", 1.0)] {
        let tcp = format!("rto = \"{preset}\"");
        let clean = run(&single_flow("1Mbps", "10ms", "20kB", BIG_QUEUE, &tcp));
        // The first packet on the forward direction is the SYN.
        let lossy = run(&single_flow("1Mbps", "10ms", "20kB", &format!("{BIG_QUEUE}\ndrop_packets = [1]"), &tcp));
        let (a, b) = (flow(&clean, "f"), flow(&lossy, "f"));
        assert_eq!(b.syn_timeouts, 1, "{preset}");
        // Everything after the SYN shifts by exactly the initial RTO (no data timeouts).
        let shift = b.end_s.unwrap() - a.end_s.unwrap();
        assert!((shift - irto).abs() < 1e-6, "{preset}: shift {shift}");
        assert_eq!(b.timeouts, 0, "{preset}");
    }
}

fn drops(packets: &[u64], sack: bool) -> (rtolab_sim::FlowRow, Vec<f64>) {
    let extra = format!("{BIG_QUEUE}\ndrop_packets = {packets:?}");
    let tcp = format!("sack = {sack}, cc = \"newreno\", rto = \"linux\", delayed_ack = false");
    let r = run(&format!("{}\n[output]\npcap = [\"l\"]", single_flow("10Mbps", "20ms", "1MB", &extra, &tcp)));
    (flow(&r, "f").clone(), retransmission_times(&r.pcaps[0].1))
}

/// Capture times of data segments whose sequence number was seen before, read back from the
/// pcap the run wrote (an independent path: the wire, not the sender's counters).
fn retransmission_times(pcap: &[u8]) -> Vec<f64> {
    let mut reader = pcap_file::pcap::PcapReader::new(pcap).unwrap();
    let mut seen = std::collections::HashSet::new();
    let mut times = vec![];
    while let Some(pkt) = reader.next_packet() {
        let pkt = pkt.unwrap();
        let ip = etherparse::Ipv4HeaderSlice::from_slice(&pkt.data).unwrap();
        let tcp = etherparse::TcpHeaderSlice::from_slice(&pkt.data[ip.slice().len()..]).unwrap();
        let payload = ip.total_len() as usize - ip.slice().len() - tcp.slice().len();
        if payload > 0 && !seen.insert(tcp.sequence_number()) {
            times.push(pkt.timestamp.as_secs_f64());
        }
    }
    times
}

#[test]
fn one_drop_is_recovered_by_fast_retransmit_with_newreno_and_sack() {
    for sack in [false, true] {
        let (f, _) = drops(&[30], sack);
        assert_eq!((f.fast_retransmits, f.timeouts, f.retransmits), (1, 0, 1), "sack={sack}");
    }
}

#[test]
fn three_drops_in_one_window_sack_in_one_round_newreno_one_per_rtt() {
    let (sack, sack_times) = drops(&[30, 32, 34], true);
    let (newreno, newreno_times) = drops(&[30, 32, 34], false);
    assert_eq!((sack.fast_retransmits, sack.timeouts, sack.retransmits), (1, 0, 3));
    assert_eq!((newreno.fast_retransmits, newreno.timeouts, newreno.retransmits), (1, 0, 3));
    // RTT = 2 × 20 ms propagation + queueing of the window at 10 Mb/s (≥ 1.2 ms per packet).
    let rtt = 0.040 + 1500.0 * 8.0 / 10e6;
    assert_eq!(sack_times.len(), 3);
    // RFC 6675: all three go out in the round of the first (before its ACK can return); the
    // later two wait until the pipe falls below cwnd = FlightSize/2 (RFC 5681 3.2 step 2,
    // without the two limited-transmit segments).
    assert!(sack_times[2] - sack_times[0] < rtt, "SACK retransmits {sack_times:?}");
    // NewReno learns of each further hole from a partial ACK: one RTT apart.
    assert_eq!(newreno_times.len(), 3);
    for w in newreno_times.windows(2) {
        assert!(w[1] - w[0] >= rtt, "NewReno retransmits {newreno_times:?}");
    }
}

#[test]
fn deterministic_spike_produces_only_spurious_timeouts_and_no_loss() {
    // RTT 300 ms (2 × 150 ms); a 3 s spike at t = 5 s on both directions.
    let text = format!(
        "duration = \"30s\"\n{}",
        single_flow(
            "1Mbps",
            "150ms",
            "inf",
            &format!("{BIG_QUEUE}\nspikes = {{ at = [\"5s\"], length = \"3s\" }}"),
            "rto = \"linux\", max_window = 26"
        )
    );
    let r = run(&text);
    let f = flow(&r, "f");
    assert!(f.timeouts >= 2, "timeouts {}", f.timeouts);
    assert_eq!(f.spurious_timeouts, f.timeouts);
    assert!(r.links.iter().all(|l| l.drops == 0));
    assert_eq!(r.links[0].spikes, 1);
    assert!((r.links[0].spike_time_s - 3.0).abs() < 1e-9);
    assert!(f.duplicate_bytes > 0, "go-back-N after a spurious timeout resends delivered data");
}

#[test]
fn tail_loss_with_short_rto_gives_a_genuine_timeout() {
    // 10 segments; the last data packet (packet 11 after the SYN) is lost: no duplicate ACKs
    // can follow it, so only the timer recovers it, and its first copy never arrived.
    let tcp = "rto = \"linux\", mss = 1000, iw = 10, sack = true";
    let f = flow(&run(&single_flow("10Mbps", "20ms", "10kB", &format!("{BIG_QUEUE}\ndrop_packets = [11]"), tcp)), "f").clone();
    assert_eq!((f.timeouts, f.spurious_timeouts, f.retransmits), (1, 0, 1));
}

#[test]
fn quickstart_study_runs_as_written() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../studies/quickstart.toml")).unwrap();
    let r = run(&text);
    assert_eq!(r.meta.seed, 7);
    assert_eq!(r.meta.sim_time_s, 120.0);
    let bursts: Vec<_> = r.flows.iter().filter(|f| f.kind == FlowKind::Burst).collect();
    assert_eq!(bursts.len(), 6);
    assert!(bursts.iter().all(|f| f.size == Some(30_000)));
    assert!(r.flows.iter().filter(|f| f.kind == FlowKind::Web).count() > 4);
    assert!(r.links.iter().find(|l| l.link == "radio" && l.direction == LinkDirection::Forward).unwrap().spikes >= 3);
    assert!(!r.series.is_empty());
    assert_eq!(r.pcaps.len(), 1);
    assert_eq!(r.pcaps[0].0, "radio"); // both directions of the link, one file
}

#[test]
fn same_seed_same_tables_other_seed_other_draws() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../studies/quickstart.toml")).unwrap();
    let s = rtolab_sim::spec::from_toml(&text).unwrap();
    let a = rtolab_sim::run(&s, None).unwrap();
    let b = rtolab_sim::run(&s, None).unwrap();
    let c = rtolab_sim::run(&s, Some(8)).unwrap();
    assert_eq!(a.flows, b.flows);
    assert_eq!(a.links, b.links);
    assert_eq!(a.series, b.series);
    assert_eq!(a.pcaps, b.pcaps);
    assert_ne!(a.flows, c.flows);
}

#[test]
fn one_way_delay_series_has_propagation_plus_serialisation_floor() {
    // 1 Mb/s, 50 ms: a 1500 B packet needs 12 ms on the wire, so no data packet can arrive
    // sooner than 62 ms after it was sent, and the first one (empty queue) takes exactly that.
    let text = format!("{}\n[output]\nseries = [\"delay\"]", single_flow("1Mbps", "50ms", "100kB", BIG_QUEUE, "sack = true"));
    let r = run(&text);
    let delays: Vec<f64> = (0..r.series.len()).filter(|&i| r.series.metric[i] == rtolab_sim::SeriesMetric::Delay).map(|i| r.series.value[i]).collect();
    assert_eq!(delays.len() as u64, flow(&r, "f").segments_sent);
    let min = delays.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!((min - 0.062).abs() < 1e-9, "min delay {min}");
    assert!((delays[0] - 0.062).abs() < 1e-9);
}

#[test]
fn burst_jitter_spreads_starts_within_its_range() {
    let text = |seed: u64| {
        format!(
            "seed = {seed}\n[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\n\
             [[generators]]\nkind = \"burst\"\nflows = 5\ntotal = \"50kB\"\nstart = \"1s\"\n\
             jitter = \"uniform(0s, 100ms)\"\nroute = [\"l\"]\n"
        )
    };
    let starts = |seed| run(&text(seed)).flows.iter().map(|f| f.start_s).collect::<Vec<_>>();
    let a = starts(1);
    assert!(a.iter().all(|&s| (1.0..=1.1).contains(&s)), "{a:?}");
    assert!(a.windows(2).any(|w| w[0] != w[1]));
    assert_ne!(a, starts(2));
}

#[test]
fn delayed_syn_times_out_spuriously_lost_syn_genuinely() {
    // A 2 s spike from t = 0 on the forward direction holds the SYN until 2 s. The timer fires
    // at 1 s (initial RTO) and resends the SYN; the next expiry would be at 3 s (backed off),
    // but the SYN-ACK of the first SYN is back at ≈ 2.02 s. So: one SYN timeout, spurious.
    let held = run(&single_flow("1Mbps", "10ms", "20kB", &format!("{BIG_QUEUE}\nspikes = {{ at = [\"0s\"], length = \"2s\", direction = \"forward\" }}"), "rto = \"rfc6298\""));
    let f = flow(&held, "f");
    assert_eq!((f.syn_timeouts, f.spurious_syn_timeouts), (1, 1));
    let lost = run(&single_flow("1Mbps", "10ms", "20kB", &format!("{BIG_QUEUE}\ndrop_packets = [1]"), "rto = \"rfc6298\""));
    let f = flow(&lost, "f");
    assert_eq!((f.syn_timeouts, f.spurious_syn_timeouts), (1, 0));
}

/// The flows table's `ca_acks` and `linear_acks` (the congestion controls' `Growth`), on a
/// 60 s bulk flow of the `linux` stack. A short path (1 Mbit/s, 20 ms, 4 packets: at most
/// 1e6·0.04/12 000 + 4 ≈ 7.3 segments in flight before the queue overflows) keeps every
/// window at or below BIC's `low_window` of 14, where BIC is Reno; a long one (10 Mbit/s,
/// 100 ms, 100 packets: about 167 + 100 segments at a loss, ssthresh about 0.8 of that, no
/// timeout) keeps BIC's congestion avoidance far above it. Reno and Westwood+ are linear on
/// every congestion-avoidance ACK; CUBIC's Reno-friendly region dominates at a 4 ms RTT
/// (RFC 9438 4.3: Reno's estimate outgrows the curve when RTTs are short) and not at
/// 200 ms, where the curve climbs far faster (K ≈ ∛(267·0.3/0.4) ≈ 5.8 s, about 25 RTTs, in
/// which Reno's estimate gains some 13 segments and the curve 80); BBR has no congestion
/// avoidance and reports none.
#[test]
fn congestion_avoidance_acks_by_controller() {
    let run_one = |rate: &str, delay: &str, queue: &str, cc: &str| {
        let link = format!("queue = {{ kind = \"droptail\", limit = \"{queue}\" }}");
        let tcp = format!("stack = \"linux\", cc = \"{cc}\"");
        let r = run(&format!("duration = \"60s\"\n{}", single_flow(rate, delay, "inf", &link, &tcp)));
        let f = flow(&r, "f");
        (f.ca_acks.unwrap(), f.linear_acks.unwrap())
    };
    let short = |cc: &str| run_one("1Mbps", "20ms", "4p", cc);
    let long = |cc: &str| run_one("10Mbps", "100ms", "100p", cc);
    for cc in ["reno", "westwood", "bic"] {
        let (ca, linear) = short(cc);
        assert!(ca > 1000 && linear == ca, "{cc}: {linear} of {ca}");
    }
    for cc in ["reno", "westwood"] {
        let (ca, linear) = long(cc);
        assert!(ca > 1000 && linear == ca, "{cc}: {linear} of {ca}");
    }
    let (ca, linear) = long("bic");
    assert!(ca > 1000 && linear == 0, "bic: {linear} of {ca}");
    let (ca, linear) = run_one("50Mbps", "2ms", "50p", "cubic");
    assert!(ca > 1000 && 2 * linear > ca, "cubic, short RTT: {linear} of {ca}");
    let (ca, linear) = long("cubic");
    assert!(ca > 1000 && 10 * linear < ca, "cubic, long RTT: {linear} of {ca}");
    assert_eq!(short("bbr"), (0, 0));
}
