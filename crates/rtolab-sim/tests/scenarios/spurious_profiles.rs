//! Spurious timeouts per stack profile and per detector, with expectations derived by hand.
//!
//! The spike case: 1 Mbps, 100 ms one way, DropTail 200 p, one bulk flow limited to 20
//! segments by the receiver window, a 2.5 s spike on both directions at 50 s; nothing is
//! ever dropped. (The issue's example spike lasts 3 s; with a 1 s RTO the second timeout then
//! falls within a few ms of the spike's end, so its count would hang on the ACK spacing.
//! 2.5 s leaves every expiry at least 0.5 s from the end.) With MSS 1448 and timestamps a segment is 1500 B on the wire (12 ms), so
//! the 20-segment window takes 240 ms to send and the path (200 ms + 12 ms + the ACK) is
//! kept busy: every RTT sample is ≈ 240 ms and RTTVAR decays towards 0.
//!
//! The last ACK before the spike arrives at t0 ≈ 50 s and restarts the timer (RFC 6298
//! (5.3)); it fires at t0 + RTO and then after each doubled RTO until the first ACK after the
//! spike, which arrives at ≈ 52.5 s.
//! - RTO 1 s (RFC 6298 (2.4) floor, `rfc`): 51.0, next 53.0 → 1 timeout.
//! - Linux: RTO = SRTT + max(4·RTTVAR, 200 ms) ≈ 0.24–0.25 + 0.2 ≈ 0.45 s (delayed ACKs add
//!   up to 12 ms): 50.45, 51.35, next ≈ 53.15 → 2 timeouts.
//! - ns-2 (MSS 1000, 1040 B = 8.3 ms a packet; 20 packets = 166 ms < 208 ms RTT, so the
//!   window, not the link, limits): t_rtxcur ≈ SRTT + 3 ticks ≈ 0.24 s; 50.24, 50.72, 51.68,
//!   next ≈ 53.6 → 3 timeouts.
//!
//! No segment is lost, so the oracle calls every timeout spurious, every retransmitted byte
//! reaches the receiver twice (duplicate bytes = retransmitted bytes), and no ACK carries
//! new SACK information without new data — so no fast retransmit under RFC 6675's
//! duplicate-ACK rule. A detector that fires declares the whole episode (all its timeouts)
//! spurious once; an undo then stops the go-back-N, so only the timeouts' own
//! retransmissions (one segment each) are sent.

use crate::common::{flow, run, single_flow};
use rtolab_sim::FlowRow;

/// The issue's link (1 Mbps, 100 ms, DropTail 200 p) with one bulk flow held to 20 segments
/// by the receiver window, for `duration`; `link` and `rest` are spliced in.
fn window_20_flow(duration: &str, link: &str, tcp: &str, rest: &str) -> rtolab_sim::RunResult {
    run(&format!(
        r#"
duration = "{duration}"
[[links]]
name = "l"
rate = "1Mbps"
delay = "100ms"
queue = {{ kind = "droptail", limit = "200p" }}
{link}
[[flows]]
name = "f"
route = ["l"]
tcp = {{ max_window = 20, {tcp} }}
{rest}
"#
    ))
}

fn spike_case(tcp: &str) -> FlowRow {
    let r = window_20_flow("80s", "spikes = { at = [\"50s\"], length = \"2.5s\" }", tcp, "");
    assert!(r.links.iter().all(|l| l.drops == 0));
    let f = flow(&r, "f").clone();
    // Nothing lost: every retransmission is a duplicate at the receiver.
    assert_eq!(f.duplicate_bytes, f.retransmitted_bytes, "{tcp}");
    assert_eq!(f.spurious_timeouts, f.timeouts, "{tcp}: no loss, every timeout is spurious");
    assert_eq!(f.spurious_detected_correct, f.spurious_detected, "{tcp}: no false positive");
    assert_eq!(f.fast_retransmits, 0, "{tcp}");
    f
}

/// (timeouts, detected, undos, retransmits) of a flow.
fn counts(f: &FlowRow) -> (u64, u64, u64, u64) {
    (f.timeouts, f.spurious_detected, f.undos, f.retransmits)
}

#[test]
fn spike_without_detection_goes_back_n() {
    for stack in ["rfc", "ns3"] {
        let f = spike_case(&format!("stack = \"{stack}\""));
        assert_eq!((f.timeouts, f.spurious_detected, f.undos), (1, 0, 0), "{stack}");
        // go-back-N resends the whole window that was held: at least 10 segments.
        assert!(f.retransmits >= 10, "{stack}: {}", f.retransmits);
    }
    let f = spike_case("stack = \"ns2-sack1\"");
    assert_eq!((f.timeouts, f.spurious_detected, f.undos), (3, 0, 0));
    assert!(f.retransmits >= 10);
}

#[test]
fn spike_linux_detects_by_timestamps_and_undoes_once() {
    let f = spike_case("stack = \"linux\"");
    // Three retransmissions with RACK-TLP on (two before it).
    assert_eq!(counts(&f), (2, 2, 1, 3));
}

#[test]
fn spike_each_detector_with_and_without_timestamps() {
    // Eifel (needs timestamps): the first ACK after the spike echoes an original's
    // timestamp, older than the retransmission's.
    let eifel = spike_case("stack = \"rfc\", timestamps = true, detect = [\"eifel\"], response = \"rfc4015\"");
    assert_eq!(counts(&eifel), (1, 1, 1, 1));
    // F-RTO: the first ACK after the spike acknowledges the retransmitted head, two new
    // segments go out, the next ACK acknowledges pre-timeout data: spurious (RFC 5682 3b).
    for ts in [false, true] {
        for sack in [false, true] {
            let f = spike_case(&format!("stack = \"rfc\", timestamps = {ts}, sack = {sack}, detect = [\"frto\"], response = \"rfc4015\""));
            assert_eq!(counts(&f), (1, 1, 1, 1), "frto ts={ts} sack={sack}");
        }
    }
    // DSACK: detection comes late (after go-back-N), when every retransmission was reported
    // as a duplicate; the undo restores the window but the retransmissions were sent. Every
    // retransmission arrives as a duplicate, so the receiver sends one DSACK for each.
    for ts in [false, true] {
        let f = spike_case(&format!("stack = \"rfc\", timestamps = {ts}, detect = [\"dsack\"], response = \"undo\""));
        assert_eq!((f.timeouts, f.spurious_detected, f.undos), (1, 1, 1), "dsack ts={ts}");
        assert!(f.retransmits >= 10);
        assert_eq!(f.dsacks, f.retransmits, "dsack ts={ts}");
    }
    // Detection without a response only counts.
    let f = spike_case("stack = \"rfc\", detect = [\"dsack\"], response = \"none\"");
    assert_eq!((f.spurious_detected, f.undos), (1, 0));
}

/// Genuine timeouts must not be called spurious: the last three data segments of a
/// 20-segment transfer are dropped, so no duplicate ACK can trigger fast retransmit and the
/// timer must fire; nothing of the lost segments reached the receiver. (Linux's tail loss
/// probe would repair the tail without a timeout, so it is off here.)
#[test]
fn tail_loss_timeout_is_genuine_for_every_detector() {
    // Packet 1 is the SYN; data segments 18, 19, 20 are forward packets 19, 20, 21, or 20,
    // 21, 22 where a pure ACK ends the handshake (Linux). Linux's FIN goes alone after data
    // that all left with one write (`tcp_send_fin`), as forward packet 23: delivered, the
    // receiver would SACK it and RACK would repair the tail without a timeout, so it is
    // dropped too.
    for (tcp, drops) in [
        ("stack = \"linux\", tlp = false", "[20, 21, 22, 23]"),
        ("stack = \"rfc\", detect = [\"frto\"], response = \"rfc4015\"", "[19, 20, 21]"),
        ("stack = \"rfc\", timestamps = true, detect = [\"eifel\", \"frto\", \"dsack\"], response = \"undo\"", "[19, 20, 21]"),
    ] {
        let link = format!("queue = {{ kind = \"droptail\", limit = \"100p\" }}\ndrop_packets = {drops}");
        let r = run(&single_flow("10Mbps", "20ms", "28960B", &link, &format!("{tcp}, iw = 20, mss = 1448")));
        let f = flow(&r, "f");
        assert!(f.timeouts >= 1, "{tcp}");
        assert_eq!((f.spurious_timeouts, f.spurious_detected, f.undos), (0, 0, 0), "{tcp}");
    }
}

/// RFC 7661 / Linux `tcp_is_cwnd_limited`: a flow held to 20 segments by the receiver
/// window grows cwnd in slow start only to twice its flight: 40 segments = 57 920 B (each
/// ACK adds one SMSS, RFC 5681 (2), so the last step lands exactly on it). Without the rule
/// cwnd grows on every ACK for as long as the run lasts.
#[test]
fn cwnd_grows_only_while_cwnd_limited_in_linux() {
    let cwnd_peak = |tcp: &str| {
        let r = window_20_flow("40s", "", tcp, "[output]\nseries = [\"cwnd\"]");
        r.series.value.iter().copied().fold(0.0, f64::max)
    };
    assert_eq!(cwnd_peak("stack = \"linux\""), 57_920.0);
    assert!(cwnd_peak("stack = \"rfc\"") > 1e6);
}

/// One flow over 100 Mbps / 50 ms (RTT 100 ms) whose first SYN is lost, so the SYN is resent
/// at 1 s (every stack here starts at 1 s) and the handshake completes at 1.1 s.
fn after_a_lost_syn(size: &str, tcp: &str, output: &str) -> rtolab_sim::RunResult {
    let link = "queue = { kind = \"droptail\", limit = \"1000p\" }\ndrop_packets = [1]";
    let tcp = format!("{tcp}, mss = 1448, timestamps = true, delayed_ack = false");
    let r = run(&format!("{}{output}\n", single_flow("100Mbps", "50ms", size, link, &tcp)));
    assert_eq!(flow(&r, "f").syn_timeouts, 1);
    r
}

/// RFC 5681 3.1: after a lost SYN the initial window is one segment (`rfc`), while rtolab's
/// default keeps its IW (10 here). 14 segments (20 272 B) after the handshake at 1.1 s, one
/// round trip (100 ms) per window: IW 10 sends 10 then 4 → done at ≈ 1.3 s; IW 1 sends
/// 1, 2, 4, 7 → done at ≈ 1.5 s.
#[test]
fn initial_window_after_a_lost_syn_per_profile() {
    let done = |tcp: &str| flow(&after_a_lost_syn("20272B", tcp, ""), "f").end_s.unwrap();
    let (default_time, rfc_time) = (done("stack = \"rtolab\", iw = 10"), done("stack = \"rfc\", iw = 10"));
    assert!((default_time - 1.3).abs() < 0.01, "{default_time}");
    assert!((rfc_time - 1.5).abs() < 0.01, "{rfc_time}");
}

/// The `linux` timer keeps a measured RTO after a retransmitted SYN when the SYN-ACK's
/// timestamp gave a sample (`tcp_init_transfer`); RFC 6298 (5.7) read literally resets it
/// to 3 s. Read from the `rto` series when the handshake completes (t = 1.1 s).
#[test]
fn syn_fallback_only_without_a_sample_in_linux() {
    let rto_after_handshake = |tcp: &str, by_ms: u64| {
        let r = after_a_lost_syn("1448B", tcp, "[output]\nseries = [\"rto\"]");
        let s = &r.series;
        let at = |i: usize| (s.time_s[i] * 1000.0).round() as u64;
        let i = (0..s.len()).rev().find(|&i| at(i) <= by_ms).expect("an rto value after the handshake");
        s.value[i]
    };
    // Linux: the SYN-ACK sample (100 ms plus 10 µs of transmission) gives
    // 100.01 + max(2·50, 200) = 300.01 ms, rounded up to a whole 4 ms jiffy: 304 ms, kept.
    // (The SYN's 1 s timer runs on the timer wheel, up to 32 ms late: the handshake ends
    // by 1.14 s, before the first data is acknowledged.)
    assert!((rto_after_handshake("stack = \"linux\"", 1150) - 0.304).abs() < 1e-6);
    // RFC 6298 (5.7): 3 s when data transmission begins, sample or not.
    assert!((rto_after_handshake("stack = \"rfc\"", 1100) - 3.0).abs() < 1e-3);
}
