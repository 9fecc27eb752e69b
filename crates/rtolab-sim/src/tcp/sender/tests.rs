//! Sender behaviour driven by hand-made segments, no network: `test_<state>_<event>`.

use super::*;
use crate::spec::{RtoPreset, TcpSpec};
use crate::tcp::segment::{FLAG_ACK, FLAG_SYN};

const MSS: u32 = 1000;

/// rtolab's defaults with MSS 1000, IW 4, no limited transmit, and the given timer,
/// recovery and timestamps; 100 kB to send.
fn config(preset: RtoPreset, recovery: RecoveryKind, timestamps: bool) -> SenderConfig {
    let mut c = TcpSpec::default().resolve(Some(100_000)).sender;
    c.mss = MSS;
    c.initial_window = 4 * MSS as u64;
    c.recovery = recovery;
    c.sack = recovery == RecoveryKind::Sack;
    c.limited_transmit = false;
    c.timestamps = timestamps;
    c.rto = RtoConfig::preset(preset);
    c
}

fn secs(s: f64) -> SimTime {
    SimTime(SimDuration::from_secs_f64(s).as_nanos())
}

fn syn_ack(ts_ecr: u64) -> Segment {
    Segment { flags: FLAG_SYN | FLAG_ACK, wnd: 1 << 30, ts_ecr, ..Default::default() }
}

fn ack(n: u64) -> Segment {
    Segment { flags: FLAG_ACK, ack: n, wnd: 1 << 30, ..Default::default() }
}

/// An established sender that has sent its initial window at t = 0.1 s (RTT 100 ms, no
/// timestamps).
fn flow_established(recovery: RecoveryKind) -> (TcpSender, Vec<Segment>) {
    let mut s = TcpSender::new(config(RtoPreset::Linux, recovery, false));
    let mut out = vec![];
    s.open(SimTime::ZERO, &mut out);
    out.clear();
    s.on_segment(secs(0.1), &syn_ack(0), &mut out);
    (s, out)
}

fn syn_times(preset: RtoPreset) -> Vec<f64> {
    let mut s = TcpSender::new(config(preset, RecoveryKind::Sack, true));
    let mut out = vec![];
    s.open(SimTime::ZERO, &mut out);
    let mut times = vec![0.0];
    for _ in 0..3 {
        let t = s.next_wakeup().unwrap();
        s.on_timer(t, &mut out);
        times.push(t.as_secs_f64());
    }
    assert!(out.iter().all(|seg| seg.is_syn()));
    times
}

#[test]
fn test_syn_sent_timeout_retransmits_at_initial_rto_with_backoff() {
    assert_eq!(syn_times(RtoPreset::Rfc6298), vec![0.0, 1.0, 3.0, 7.0]);
    assert_eq!(syn_times(RtoPreset::Linux), vec![0.0, 1.0, 3.0, 7.0]);
    assert_eq!(syn_times(RtoPreset::Ns2), vec![0.0, 3.0, 9.0, 21.0]);
}

#[test]
fn test_syn_sent_syn_ack_after_retransmission_applies_3s_fallback() {
    let mut s = TcpSender::new(config(RtoPreset::Rfc6298, RecoveryKind::Sack, false));
    let mut out = vec![];
    s.open(SimTime::ZERO, &mut out);
    s.on_timer(secs(1.0), &mut out);
    s.on_segment(secs(1.2), &syn_ack(0), &mut out);
    assert_eq!(s.phase(), Phase::Established);
    assert_eq!(s.rto(), SimDuration::from_secs(3)); // RFC 6298 (5.7); Karn: no sample
    assert_eq!(s.srtt(), None);
}

#[test]
fn test_syn_sent_syn_ack_sends_initial_window_and_samples_rtt() {
    let (s, out) = flow_established(RecoveryKind::Sack);
    assert_eq!(out.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![0, 1000, 2000, 3000]);
    assert_eq!(s.srtt(), Some(SimDuration::from_millis(100)));
    assert_eq!(s.rto(), SimDuration::from_millis(300)); // Linux: 3·RTT
    assert_eq!(s.next_wakeup(), Some(secs(0.4)));
}

#[test]
fn test_established_ack_grows_window_in_slow_start() {
    let (mut s, _) = flow_established(RecoveryKind::Sack);
    let mut out = vec![];
    s.on_segment(secs(0.2), &ack(1000), &mut out);
    assert_eq!(s.cwnd(), 5000);
    assert_eq!(out.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![4000, 5000]);
}

#[test]
fn test_established_three_dupacks_fast_retransmit_newreno() {
    let (mut s, _) = flow_established(RecoveryKind::NewReno);
    let mut out = vec![];
    for _ in 0..3 {
        s.on_segment(secs(0.2), &ack(0), &mut out);
    }
    // The retransmission, then one new segment: the inflated window (5000) exceeds the
    // 4000 bytes outstanding by one segment.
    assert_eq!(out.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![0, 4000]);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.ssthresh(), 2000); // max(4000 / 2, 2·MSS)
    assert_eq!(s.cwnd(), 5000); // ssthresh + 3·MSS
    // A partial ACK retransmits the next hole and stays in recovery (RFC 6582).
    out.clear();
    s.on_segment(secs(0.3), &ack(2000), &mut out);
    assert!(s.in_recovery());
    assert_eq!(out[0].seq, 2000);
    s.on_segment(secs(0.4), &ack(4000), &mut out);
    assert!(!s.in_recovery());
}

#[test]
fn test_established_timeout_goes_back_n_with_one_segment_window() {
    let (mut s, _) = flow_established(RecoveryKind::Sack);
    let mut out = vec![];
    s.on_segment(secs(0.2), &ack(1000), &mut out); // cwnd 5000, sends 4000, 5000
    out.clear();
    let t = s.next_wakeup().unwrap();
    s.on_timer(t, &mut out);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(out.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![1000]);
    assert_eq!(s.cwnd(), 1000);
    assert_eq!(s.ssthresh(), 2500); // flight 5000 / 2
    assert_eq!(s.drain_notes().collect::<Vec<_>>(), vec![SenderNote::Timeout { seq: 1000, id: 0 }]);
    // The RTO doubled: next expiry one doubled RTO later.
    assert_eq!(s.next_wakeup().unwrap().since(t), SimDuration::from_millis(600));
    // ACK of the retransmission: slow start resends 2000 and 3000 (go-back-N).
    out.clear();
    s.on_segment(t + SimDuration::from_millis(100), &ack(2000), &mut out);
    assert_eq!(out.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![2000, 3000]);
    assert_eq!(s.stats.retransmits, 3);
}

#[test]
fn test_established_karn_ignores_ack_of_retransmitted_segment() {
    let (mut s, _) = flow_established(RecoveryKind::Sack);
    let mut out = vec![];
    let t = s.next_wakeup().unwrap();
    s.on_timer(t, &mut out);
    let before = s.stats.rtt_samples;
    s.on_segment(t + SimDuration::from_millis(50), &ack(1000), &mut out);
    assert_eq!(s.stats.rtt_samples, before); // no sample from a retransmitted segment
    assert_eq!(s.rto(), SimDuration::from_millis(600)); // back-off kept
}

#[test]
fn test_established_sack_three_holes_recovered_in_one_round() {
    // IW 10 segments 0..10000 with segments 1, 3 and 5 lost; the others arrive and are SACKed.
    let mut cfg = config(RtoPreset::Linux, RecoveryKind::Sack, false);
    cfg.initial_window = 10_000;
    let mut s = TcpSender::new(cfg);
    let mut out = vec![];
    s.open(SimTime::ZERO, &mut out);
    s.on_segment(secs(0.1), &syn_ack(0), &mut out);
    out.clear();
    let sacked = |blocks: &[(u64, u64)]| {
        let mut seg = ack(1000);
        for &b in blocks {
            seg.sack.push(b);
        }
        seg
    };
    s.on_segment(secs(0.2), &ack(1000), &mut out); // segment 0 acked
    s.on_segment(secs(0.2), &sacked(&[(2000, 3000)]), &mut out);
    s.on_segment(secs(0.2), &sacked(&[(4000, 5000), (2000, 3000)]), &mut out);
    s.on_segment(secs(0.2), &sacked(&[(6000, 10000), (4000, 5000), (2000, 3000)]), &mut out);
    let retx: Vec<u64> = out.iter().filter(|x| x.seq < 10_000).map(|x| x.seq).collect();
    assert_eq!(retx, vec![1000, 3000, 5000], "{out:?}");
    assert_eq!(s.stats.fast_retransmits, 1);
}
