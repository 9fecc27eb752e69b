//! Sender behaviour driven by hand-made segments, no network: `test_<state>_<event>`.

use super::*;
use crate::spec::{RtoPreset, TcpSpec};
use crate::tcp::segment::{FLAG_ACK, FLAG_SYN};
use crate::tcp::spurious::{DetectorName, Detectors, Response};

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
    assert_eq!(syn_times(RtoPreset::Linux), vec![0.0, 1.0, 2.0, 3.0]); // tcp_syn_linear_timeouts 4
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

/// The window counts what `SenderConfig::ack_counting` says: in Linux's packet window a
/// delayed ACK of two segments in slow start adds two segments (today's `tcp_slow_start`),
/// or one with Linux 2.6.24's per-ACK counting: 4 → 6 or 4 → 5.
#[test]
fn test_established_delayed_ack_grows_window_per_segment_or_per_ack() {
    for (ack_counting, cwnd) in [(false, 6000), (true, 5000)] {
        let mut c = config(RtoPreset::Linux, RecoveryKind::Sack, false);
        c.window_arith = WindowArith::Linux;
        c.ack_counting = ack_counting;
        let mut s = TcpSender::new(c);
        let mut out = vec![];
        s.open(SimTime::ZERO, &mut out);
        s.on_segment(secs(0.1), &syn_ack(0), &mut out);
        s.on_segment(secs(0.2), &ack(2000), &mut out);
        assert_eq!(s.cwnd(), cwnd, "ack_counting {ack_counting}");
    }
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
    // The note carries the window before the reduction: 5000 bytes, ssthresh still unset.
    let notes: Vec<_> = s.drain_notes().collect();
    assert!(matches!(notes[..], [SenderNote::Timeout { seq: 1000, id: 0, cwnd: 5000, ssthresh }] if ssthresh > 1 << 40), "{notes:?}");
    // The RTO doubled: next expiry one doubled RTO later.
    assert_eq!(s.next_wakeup().unwrap().since(t), SimDuration::from_millis(600));
    // ACK of the retransmission: slow start resends 2000 and 3000 (go-back-N).
    out.clear();
    s.on_segment(t + SimDuration::from_millis(100), &ack(2000), &mut out);
    assert_eq!(out.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![2000, 3000]);
    assert_eq!(s.stats.retransmits, 3);
}

#[test]
fn test_established_timeout_idle_is_the_wait_since_the_last_transmission() {
    // The ACK at 0.2 s sends 4000 and 5000 (the last transmission); the timer then runs out
    // with nothing sent in between, so the sender sat idle from 0.2 s to the expiry; the
    // retransmission at the expiry ends that wait (paper 001's source idle time).
    let (mut s, _) = flow_established(RecoveryKind::Sack);
    let mut out = vec![];
    s.on_segment(secs(0.2), &ack(1000), &mut out);
    let t = s.next_wakeup().unwrap();
    s.on_timer(t, &mut out);
    let waited = t.since(secs(0.2)).as_secs_f64();
    assert_eq!(s.stats.timeout_idle_s, waited);
    // The second expiry waits one doubled RTO after the retransmission.
    let t2 = s.next_wakeup().unwrap();
    s.on_timer(t2, &mut out);
    assert!((s.stats.timeout_idle_s - (waited + t2.since(t).as_secs_f64())).abs() < 1e-12);
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

fn sack_ack(n: u64, blocks: &[(u64, u64)]) -> Segment {
    let mut seg = ack(n);
    for &b in blocks {
        seg.sack.push(b);
    }
    seg
}

/// RFC 6675 2 ("DupAck"): with SACK, an ACK counts as a duplicate only if it SACKs data not
/// SACKed before. Three ACKs of 0 that repeat the same block are one duplicate, so no fast
/// retransmit; under RFC 5681's rule they are three.
#[test]
fn test_disorder_repeated_sack_block_is_one_duplicate() {
    for (rule, expected_fr) in [(DupAckRule::Rfc6675, 0), (DupAckRule::Rfc5681, 1)] {
        let mut cfg = config(RtoPreset::Linux, RecoveryKind::Sack, false);
        cfg.dupack_rule = rule;
        let mut s = TcpSender::new(cfg);
        let mut out = vec![];
        s.open(SimTime::ZERO, &mut out);
        s.on_segment(secs(0.1), &syn_ack(0), &mut out);
        for _ in 0..3 {
            s.on_segment(secs(0.2), &sack_ack(0, &[(1000, 2000)]), &mut out);
        }
        assert_eq!(s.stats.fast_retransmits, expected_fr, "{rule:?}");
    }
}

/// RFC 5681 3.2 step 2: data sent by limited transmit is not part of FlightSize when
/// ssthresh is set. IW 4 segments (4000 B) out; the first two duplicates each send one new
/// segment (RFC 3042), so 6000 B are outstanding at the third; ssthresh = max((6000 −
/// 2000)/2, 2·MSS) = 2000 B, not 3000.
#[test]
fn test_disorder_limited_transmit_not_in_flightsize() {
    let mut cfg = config(RtoPreset::Linux, RecoveryKind::NewReno, false);
    cfg.limited_transmit = true;
    let mut s = TcpSender::new(cfg);
    let mut out = vec![];
    s.open(SimTime::ZERO, &mut out);
    s.on_segment(secs(0.1), &syn_ack(0), &mut out);
    out.clear();
    s.on_segment(secs(0.2), &ack(0), &mut out);
    s.on_segment(secs(0.2), &ack(0), &mut out);
    assert_eq!(out.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![4000, 5000]);
    s.on_segment(secs(0.2), &ack(0), &mut out);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(s.ssthresh(), 2000);
}

/// RFC 6675 5.1: after a timeout the scoreboard is kept and SACKed segments are not resent
/// (SND.UNA always is). IW 4: segments 2 and 3 were SACKed before the timer fired. After
/// the timeout resends 0, the ACK of 1000 lets slow start send two segments: 1000, then —
/// skipping the SACKed 2000 and 3000 — new data at 4000. Without it (ns-2) 2000 is resent.
#[test]
fn test_loss_timeout_resends_only_what_is_not_sacked() {
    for (keep, expected) in [(true, vec![1000, 4000]), (false, vec![1000, 2000])] {
        let mut cfg = config(RtoPreset::Linux, RecoveryKind::Sack, false);
        cfg.sack_after_timeout = keep;
        let mut s = TcpSender::new(cfg);
        let mut out = vec![];
        s.open(SimTime::ZERO, &mut out);
        s.on_segment(secs(0.1), &syn_ack(0), &mut out);
        s.on_segment(secs(0.2), &sack_ack(0, &[(2000, 3000)]), &mut out);
        s.on_segment(secs(0.2), &sack_ack(0, &[(2000, 4000)]), &mut out);
        let t = s.next_wakeup().unwrap();
        out.clear();
        s.on_timer(t, &mut out);
        assert_eq!(out.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![0], "keep={keep}");
        out.clear();
        s.on_segment(t + SimDuration::from_millis(100), &sack_ack(1000, &[(2000, 4000)]), &mut out);
        assert_eq!(out.iter().map(|x| x.seq).collect::<Vec<_>>(), expected, "keep={keep}");
    }
}

/// The undo restores what was saved before the reduction: a spurious timeout detected by
/// Eifel on the first ACK after it (echoing the original's timestamp) gives back cwnd and
/// ssthresh and clears the back-off (Linux `tcp_try_undo_loss`), and the ACK then grows the
/// window as any ACK in slow start does.
#[test]
fn test_loss_eifel_undo_restores_window_and_backoff() {
    let mut cfg = config(RtoPreset::Linux, RecoveryKind::Sack, true);
    cfg.detect = Detectors::of(&[DetectorName::Eifel]);
    cfg.response = Response::Undo;
    let mut s = TcpSender::new(cfg);
    let mut out = vec![];
    s.open(SimTime::ZERO, &mut out);
    s.on_segment(secs(0.1), &syn_ack(1), &mut out);
    let sent_at = out.last().unwrap().ts_val; // the IW went out at 0.1 s
    let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
    let t = s.next_wakeup().unwrap();
    s.on_timer(t, &mut out);
    assert_eq!(s.cwnd(), 1000);
    let mut late = ack(1000);
    late.ts_ecr = sent_at; // older than the retransmission's timestamp
    s.on_segment(t + SimDuration::from_millis(10), &late, &mut out);
    assert_eq!((s.stats.spurious_detected, s.stats.undos), (1, 1));
    // restored to 4000, then the undoing ACK's own slow-start step (RFC 5681 (2)): +1000
    assert_eq!(s.cwnd(), cwnd + 1000);
    assert_eq!(s.ssthresh(), ssthresh);
    assert_eq!(s.state(), LossState::Open);
    // The detection, then the undo of the same timeout from the reduced window.
    let notes: Vec<_> = s.drain_notes().collect();
    assert!(matches!(notes[..], [.., SenderNote::SpuriousDetected { first: 0, last: 0 }, SenderNote::Undone { timeouts: Some((0, 0)), cwnd: 1000, ssthresh: 2000 }]), "{notes:?}");
}

/// RFC 5682 3.1 step 1: a timeout while fast recovery is under way (RecoveryPoint ≥
/// SND.UNA) is recovered conventionally, not by F-RTO. IW 4 (0..4000), three duplicates: fast
/// retransmit of 0, NewReno inflation sends 4000. The timer fires: 0 again; the ACK of 1000
/// then slow-starts go-back-N (1000, 2000) instead of F-RTO's two new segments (5000, 6000).
#[test]
fn test_recovery_timeout_is_not_frto() {
    let mut cfg = config(RtoPreset::Linux, RecoveryKind::NewReno, false);
    cfg.detect = Detectors::of(&[DetectorName::Frto]);
    cfg.response = Response::Undo;
    let mut s = TcpSender::new(cfg);
    let mut out = vec![];
    s.open(SimTime::ZERO, &mut out);
    s.on_segment(secs(0.1), &syn_ack(0), &mut out);
    for _ in 0..3 {
        s.on_segment(secs(0.2), &ack(0), &mut out);
    }
    assert!(s.in_recovery());
    let t = s.next_wakeup().unwrap();
    out.clear();
    s.on_timer(t, &mut out);
    assert_eq!(out.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![0]);
    out.clear();
    s.on_segment(t + SimDuration::from_millis(100), &ack(1000), &mut out);
    assert_eq!(out.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![1000, 2000]);
    assert_eq!(s.stats.spurious_detected, 0);
}

/// Linux `tcp_init_transfer`: IW 10 survives one SYN retransmission; after two it is one
/// segment, unless the SYN-ACK echoes the first SYN's timestamp (`tcp_try_undo_spurious_syn`).
/// The SYN timer runs on the timer wheel (phase 0 here): 1 s = 250 jiffies goes to level 1
/// and runs at (⌊250 / 8⌋ + 1) · 8 = 256 jiffies, 1.024 s; the next 1 s (linear SYN timeouts,
/// `tcp_syn_linear_timeouts`) from jiffy 256 expires at 506 and runs at (⌊506 / 8⌋ + 1) · 8 =
/// 512, 2.048 s.
#[test]
fn test_syn_sent_linux_cuts_iw_only_after_two_syn_retransmissions() {
    let linux = TcpSpec { stack: Some(crate::tcp::profile::Stack::Linux), ..TcpSpec::default() };
    let window_after = |timeouts: &[f64], echo_first: bool| {
        let mut s = TcpSender::new(linux.resolve(Some(100_000)).sender);
        let mut out = vec![];
        s.open(SimTime::ZERO, &mut out);
        for &t in timeouts {
            assert_eq!(s.next_wakeup(), Some(secs(t)));
            s.on_timer(secs(t), &mut out);
        }
        let last = timeouts.last().map_or(SimTime::ZERO, |&t| secs(t));
        let echoed = if echo_first { SimTime::ZERO } else { last };
        s.on_segment(last + SimDuration::from_millis(100), &syn_ack(ts_now(echoed)), &mut out);
        s.cwnd() / 1448
    };
    assert_eq!(window_after(&[], false), 10);
    assert_eq!(window_after(&[1.024], false), 10);
    assert_eq!(window_after(&[1.024, 2.048], false), 1);
    assert_eq!(window_after(&[1.024, 2.048], true), 10);
}

/// The Linux stack with MSS 1000, no timestamps and its timers exactly on time.
fn linux_exact() -> TcpSender {
    let linux = TcpSpec { stack: Some(crate::tcp::profile::Stack::Linux), timestamps: Some(false), mss: Some(1000), ..TcpSpec::default() };
    let mut cfg = linux.resolve(Some(100_000)).sender;
    cfg.wheel = None;
    TcpSender::new(cfg)
}

/// Linux `tcp_fastretrans_alert`: the ACK that ends a recovery goes on to the Open state's
/// `tcp_time_to_recover`, which is `lost_out != 0`. Segments of 1000 B, IW 10 sent at
/// 0.1 s; segment 2 lost. ACK of 2 at 0.2 s (cwnd 12: 10–13 sent); SACKs of 3, 4, 5 mark 2
/// lost (RACK, 3 SACKed): recovery, point 16, ssthresh ⌊12·717/1024⌋ = 8. PRR sends 16–22
/// as 6–15 are SACKed; 16 is lost. SACKs of 17–19 (sent after 16) mark 16 lost, and the
/// retransmission of 2 (sent at 0.203, before 17) too: both resent at 0.305. The ACK of 16
/// at 0.405 (SACKing 17–22) reaches the point and ends the recovery with 16 still marked
/// lost (resent, not yet delivered): a new recovery starts at once, point SND.MAX = 26,
/// ssthresh ⌊8·717/1024⌋ = 5, and 16 is not resent again (`tcp_enter_recovery` keeps
/// `TCPCB_SACKED_RETRANS`).
#[test]
fn test_recovery_ack_of_the_point_with_a_segment_still_lost_starts_the_next_recovery() {
    let mut s = linux_exact();
    let mut out = vec![];
    s.open(SimTime::ZERO, &mut out);
    s.on_segment(secs(0.1), &syn_ack(0), &mut out);
    s.on_segment(secs(0.2), &ack(2000), &mut out);
    for (end, t) in [(4000u64, 0.201), (5000, 0.202), (6000, 0.203), (7000, 0.204), (8000, 0.205), (9000, 0.206), (10000, 0.207)] {
        s.on_segment(secs(t), &sack_ack(2000, &[(3000, end)]), &mut out);
    }
    assert_eq!((s.state(), s.ssthresh()), (LossState::Recovery { point: 16_000 }, 8000));
    for (end, t) in [(11000u64, 0.300), (12000, 0.3005), (13000, 0.301), (14000, 0.3015), (15000, 0.302), (16000, 0.3025)] {
        s.on_segment(secs(t), &sack_ack(2000, &[(3000, end)]), &mut out);
    }
    out.clear();
    for (end, t) in [(18000u64, 0.305), (19000, 0.306), (20000, 0.307)] {
        s.on_segment(secs(t), &sack_ack(2000, &[(17000, end), (3000, 16000)]), &mut out);
    }
    assert_eq!(out.iter().filter(|x| x.seq < 17_000).map(|x| x.seq).collect::<Vec<_>>(), vec![2000, 16_000]);
    out.clear();
    s.on_segment(secs(0.405), &sack_ack(16_000, &[(17000, 23000)]), &mut out);
    assert_eq!((s.state(), s.ssthresh(), s.stats.fast_retransmits), (LossState::Recovery { point: 26_000 }, 5000, 2));
    assert_eq!(out.iter().map(|x| x.seq).collect::<Vec<_>>(), vec![26_000]);
}

/// Linux `tcp_schedule_loss_probe` on the kernel's timer wheel (HZ 250, phase 0). SYN-ACK at
/// 0.1 s: SRTT 100 ms, RTO 300 ms; 2 of 2 segments out at 0.1 s (jiffy 25). PTO = 2·SRTT +
/// 2 ms = 202 ms → 51 jiffies (204 ms), below the RTO's 300 ms left. Exactly: 0.304 s. On
/// the wheel (51 < 63 jiffies, level 0) the expiry jiffy 76 runs at tick 77: 0.308 s. The
/// probe then re-arms the RTO, 300 ms = 75 jiffies from jiffy 77: level 1, expiry 152,
/// runs at (⌊152 / 8⌋ + 1) · 8 = 160 jiffies, 0.64 s (0.608 s exactly).
#[test]
fn test_established_probe_and_rto_run_on_the_timer_wheel() {
    for (wheel, probe_at, rto_at) in [(None, 0.304, 0.604), (Some(crate::tcp::jiffies::Wheel::default()), 0.308, 0.64)] {
        let linux = TcpSpec { stack: Some(crate::tcp::profile::Stack::Linux), timestamps: Some(false), mss: Some(1000), ..TcpSpec::default() };
        let mut cfg = linux.resolve(Some(2000)).sender;
        cfg.wheel = wheel;
        let mut s = TcpSender::new(cfg);
        let mut out = vec![];
        s.open(SimTime::ZERO, &mut out);
        s.on_segment(secs(0.1), &syn_ack(0), &mut out);
        assert_eq!(s.next_wakeup(), Some(secs(probe_at)), "{wheel:?}");
        s.on_timer(secs(probe_at), &mut out);
        assert_eq!(s.stats.loss_probes, 1);
        assert_eq!(s.next_wakeup(), Some(secs(rto_at)), "{wheel:?}");
    }
}

/// Linux `tcp_send_fin` and `tcp_send_loss_probe`, by hand: 2500 B in segments of 1000 B
/// all leave in the initial window at 0.1 s (the handshake's RTT 100 ms), so the FIN goes
/// alone after them: seq 2500, no payload, and the last data segment carries none. The
/// probe (2 · SRTT + 2 ms in whole 4 ms jiffies = 204 ms later) resends the lone FIN, not
/// the last data segment. A SACK of the FIN at 0.35 s, 46 ms after the probe and so below
/// the minimum RTT (100 ms), says nothing to RACK (`tcp_rack_advance`): no loss is marked.
#[test]
fn test_established_lone_fin_after_the_data_and_probed_alone() {
    let linux = TcpSpec { stack: Some(crate::tcp::profile::Stack::Linux), timestamps: Some(false), mss: Some(1000), ..TcpSpec::default() };
    let mut cfg = linux.resolve(Some(2500)).sender;
    cfg.wheel = None;
    let mut s = TcpSender::new(cfg);
    let mut out = vec![];
    s.open(SimTime::ZERO, &mut out);
    out.clear();
    s.on_segment(secs(0.1), &syn_ack(0), &mut out);
    let sent: Vec<(u64, u32, bool)> = out.iter().filter(|g| !g.is_syn() && (g.len > 0 || g.is_fin())).map(|g| (g.seq, g.len, g.is_fin())).collect();
    assert_eq!(sent, vec![(0, 1000, false), (1000, 1000, false), (2000, 500, false), (2500, 0, true)]);
    out.clear();
    assert_eq!(s.next_wakeup(), Some(secs(0.304)));
    s.on_timer(secs(0.304), &mut out);
    assert_eq!(out.iter().map(|g| (g.seq, g.len, g.is_fin())).collect::<Vec<_>>(), vec![(2500, 0, true)]);
    assert_eq!((s.stats.loss_probes, s.stats.retransmits), (1, 1));
    out.clear();
    s.on_segment(secs(0.35), &sack_ack(0, &[(2500, 2501)]), &mut out);
    assert!(out.is_empty());
    assert_eq!(s.state(), LossState::Open);
}

/// A profile without `lone_fin` keeps the FIN on the last data segment.
#[test]
fn test_established_fin_rides_without_lone_fin() {
    let mut cfg = config(RtoPreset::Linux, RecoveryKind::Sack, false);
    cfg.size = Some(2500);
    cfg.initial_window = 3 * MSS as u64;
    let mut s = TcpSender::new(cfg);
    let mut out = vec![];
    s.open(SimTime::ZERO, &mut out);
    s.on_segment(secs(0.1), &syn_ack(0), &mut out);
    let last = out.iter().filter(|g| g.len > 0).last().unwrap();
    assert!(last.is_fin() && last.end() == 2500);
    assert!(!out.iter().any(|g| g.len == 0 && g.is_fin()));
}

/// A sender that takes its data by `write` (`expect_writes`: one connection carrying a web
/// user's files), RFC 6298 with its 1 s floor. Write 1, 1500 B: segments [0, 1000) and
/// [1000, 1500) at 0.1 s (the SYN-ACK's sample: RTO 1 s); the first is acknowledged at 0.2 s
/// (a sample, the timer restarts: 1.2 s), the second's timer fires at 1.2 s: resent, RTO
/// backed off to 2 s, `recover` = 1500. Its ACK (Karn: no sample) ends the write: the note,
/// the timer stopped, the back-off kept. Write 2 at 5 s starts at the next segment boundary,
/// 2000 (so its segments tile on MSS boundaries), with the recovery point lifted with it,
/// and its first segment's timer is the backed-off 2 s (7 s); the first sample of write 2
/// clears the back-off (RFC 6298 (5.7)).
#[test]
fn test_established_write_after_idle_keeps_the_backed_off_timer_and_aligns() {
    let mut cfg = config(RtoPreset::Rfc6298, RecoveryKind::NewReno, false);
    cfg.size = None;
    let mut s = TcpSender::new(cfg);
    let mut out = vec![];
    s.expect_writes();
    assert_eq!(s.write(SimTime::ZERO, 1500, &mut out), 0);
    assert!(out.is_empty(), "nothing before the connection opens");
    s.open(SimTime::ZERO, &mut out);
    out.clear();
    s.on_segment(secs(0.1), &syn_ack(0), &mut out);
    assert_eq!(out.iter().map(|g| (g.seq, g.len)).collect::<Vec<_>>(), vec![(0, 1000), (1000, 500)]);
    assert!(out.iter().all(|g| !g.is_fin()), "a connection of writes never closes");
    s.on_segment(secs(0.2), &ack(1000), &mut out);
    assert_eq!(s.next_wakeup(), Some(secs(1.2)));
    out.clear();
    s.on_timer(secs(1.2), &mut out);
    assert_eq!((out[0].seq, out[0].len, s.rto()), (1000, 500, SimDuration::from_secs(2)));
    s.drain_notes().for_each(drop);
    s.on_segment(secs(1.3), &ack(1500), &mut out);
    assert_eq!(s.drain_notes().collect::<Vec<_>>(), vec![SenderNote::WritesAcked]);
    assert_eq!((s.next_wakeup(), s.rto(), s.recover), (None, SimDuration::from_secs(2), 1500));
    out.clear();
    assert_eq!(s.write(secs(5.0), 2500, &mut out), 2000);
    assert_eq!((s.snd_una(), s.recover, s.data_end()), (2000, 2000, 4500));
    assert_eq!(out[0].seq, 2000);
    assert!(out.iter().all(|g| g.seq % MSS as u64 == 0));
    assert_eq!(s.next_wakeup(), Some(secs(7.0)), "the backed-off RTO carried over the idle gap");
    s.on_segment(secs(5.1), &ack(3000), &mut out);
    assert_eq!(s.rto(), SimDuration::from_secs(1), "the first sample of write 2 ends the back-off");
    assert!(!s.has_notes());
}

/// A write that follows data ending on a segment boundary starts right after it.
#[test]
fn test_established_write_after_whole_segments_follows_at_once() {
    let mut cfg = config(RtoPreset::Rfc6298, RecoveryKind::NewReno, false);
    cfg.size = None;
    let mut s = TcpSender::new(cfg);
    let mut out = vec![];
    s.expect_writes();
    s.write(SimTime::ZERO, 2000, &mut out);
    s.open(SimTime::ZERO, &mut out);
    s.on_segment(secs(0.1), &syn_ack(0), &mut out);
    s.on_segment(secs(0.2), &ack(2000), &mut out);
    assert_eq!(s.drain_notes().collect::<Vec<_>>(), vec![SenderNote::WritesAcked]);
    out.clear();
    assert_eq!(s.write(secs(1.0), 10, &mut out), 2000);
    assert_eq!(out.iter().map(|g| (g.seq, g.len)).collect::<Vec<_>>(), vec![(2000, 10)]);
}
