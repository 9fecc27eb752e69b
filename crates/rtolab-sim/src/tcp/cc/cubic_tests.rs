//! CUBIC against numbers computed by hand from RFC 9438 and `tcp_cubic.c`'s constants.

use super::super::test_acks::{at_ms, ms, Stream, MSS};
use super::super::{CongestionControl, WindowArith, WindowCore};
use super::*;
use crate::time::SimDuration;

fn cubic(iw_segments: u64) -> Cubic {
    Cubic::new(WindowCore::new(MSS as u32, iw_segments * MSS, WindowArith::Bytes), CubicParams::default())
}

/// W(t) = C·(t − K)³ + W_max with C = 0.4 (RFC 9438 eq. 1).
fn w_cubic(t: f64, k: f64, w_max: f64) -> f64 {
    0.4 * (t - k).powi(3) + w_max
}

/// A flow with delay_min = `rtt` whose window of `w_max` segments meets a loss at the
/// second ACK, recovers to ssthresh, and resumes with window-limited ACKs at a fixed RTT.
fn after_a_loss(w_max: u64, rtt: SimDuration) -> (Cubic, Stream) {
    let mut cc = cubic(10);
    let mut s = Stream::start(&mut cc, SimTime::ZERO);
    s.ack(&mut cc, SimTime::ZERO + rtt, 1, Some(rtt));
    cc.set_cwnd(w_max * MSS);
    cc.on_congestion_event(s.now, s.snd_max - s.snd_una);
    let ssthresh = cc.ssthresh();
    cc.set_cwnd(ssthresh);
    cc.on_recovery_exit(s.now);
    s.snd_max = s.snd_una + cc.cwnd();
    (cc, s)
}

/// The jiffy at which the epoch began, as a time.
fn epoch_start(cc: &Cubic) -> SimTime {
    at_ms(cc.bictcp.epoch_start.expect("an epoch") as u64)
}

/// A loss at W_max = 100 segments: ssthresh = ⌊100·717/1024⌋ = 70 and cwnd resumes at 70.
/// K = ∛(W_max·(1 − β)/C) = ∛(100 · 0.2998 / 0.4) = ∛74.95 = 4.2153 s; the kernel's
/// K = ∛(⌊2⁴⁰/410⌋·30) = 4316 in 1/1024 s = 4.2148 s. With ACKs at a fixed 100 ms RTT,
/// cwnd against W(t): W(K/2) = 100 − 0.4·2.1077³ = 96.25, W(K) = 100,
/// W(2K) = 100 + 0.4·4.2153³ = 129.98. Tolerance: 2 segments at K/2 and K, 3 at 2K. cwnd is
/// whole segments and grows in per-ACK steps towards the curve one RTT ahead (the kernel adds
/// delay_min to t), so it is off by up to the curve's growth in an RTT (0.5 segment at K/2,
/// 2.1 at 2K) plus a segment of rounding; the kernel's C is 410/1024 = 0.4004.
#[test]
fn window_follows_the_cubic_curve_after_a_loss_at_one_hundred_segments() {
    let (mut cc, mut s) = after_a_loss(100, ms(100));
    assert_eq!(cc.ssthresh(), 70 * MSS);
    assert_eq!(cc.bictcp.last_max_cwnd, 100);
    s.run(&mut cc, ms(100), s.now + ms(1));
    assert_eq!(cc.bictcp.k, 4316);
    let k = 4.2153;
    let start = epoch_start(&cc);
    for (t, tol) in [(k / 2.0, 2.0), (k, 2.0), (2.0 * k, 3.0)] {
        s.run(&mut cc, ms(100), start + SimDuration::from_secs_f64(t));
        let cwnd = (cc.cwnd() / MSS) as f64;
        let want = w_cubic(t, k, 100.0);
        assert!((cwnd - want).abs() <= tol, "t = {t:.3} s: cwnd {cwnd}, W(t) = {want:.2}");
    }
}

/// Fast convergence: a second loss at cwnd 90 < W_max 100 sets W_max = ⌊90·(1024 + 717)/2048⌋
/// = ⌊76.5⌋ = 76 and ssthresh = ⌊90·717/1024⌋ = ⌊63.02⌋ = 63; the next epoch's
/// K = ∛(⌊2⁴⁰/410⌋·(76 − 63)) = 3266/1024 s = 3.19 s (exact root 3266.8).
#[test]
fn fast_convergence_lowers_w_max() {
    let (mut cc, mut s) = after_a_loss(100, ms(100));
    cc.set_cwnd(90 * MSS);
    cc.on_congestion_event(s.now, 0);
    assert_eq!(cc.bictcp.last_max_cwnd, 76);
    assert_eq!(cc.ssthresh(), 63 * MSS);
    cc.set_cwnd(63 * MSS);
    s.snd_max = s.snd_una + cc.cwnd();
    s.run(&mut cc, ms(100), s.now + ms(1));
    assert_eq!((cc.bictcp.k, cc.bictcp.origin_point), (3266, 76));
}

/// At a 10 ms RTT the cubic curve is slow (W(1.01 s) = 100 − 0.4·(4.2153 − 1.01)³ = 86.8)
/// while Reno's estimate gains 8/15 segment per RTT (one per cwnd·15/8 segments
/// acknowledged, `beta_scale` 15; RFC 9438's α = 3(1 − β)/(1 + β) = 0.529): after 1 s,
/// 70 + 100·8/15 = 123.3. cwnd follows the estimate, within 4 segments: the estimate is
/// brought up to date only when `cnt` is recomputed (cwnd changed, or HZ/32 = 31 ms = 3 RTTs
/// passed), so up to 3 RTTs of its growth (1.6 segments) can be pending, and cwnd trails it
/// by up to a segment.
#[test]
fn tcp_friendly_region_dominates_at_small_rtt() {
    let (mut cc, mut s) = after_a_loss(100, ms(10));
    s.run(&mut cc, ms(10), s.now + ms(1));
    let start = epoch_start(&cc);
    s.run(&mut cc, ms(10), start + ms(1000));
    let cwnd = (cc.cwnd() / MSS) as f64;
    assert!((cwnd - 123.3).abs() <= 4.0, "cwnd {cwnd}");
    assert!(cwnd > w_cubic(1.01, 4.2153, 100.0) + 30.0);
}

/// ACKs 1 ms apart (a saturated bottleneck) at a constant 100 ms RTT, from IW 10. Rounds turn
/// over below cwnd 16 too (Linux 6.13 on): the first ACK starts one ending at SND.MAX then,
/// segment 10; the 11th starts one ending at segment 30, the 31st one ending at 70 (cwnd 40:
/// the detectors run from here), the 71st one ending at 150. A round needs a train of
/// (delay_min + ack delay)/2 = (100 + 1)/2 = 50.5 ms (the pacing rate 2·cwnd·mss/srtt ≈
/// 2.2 MB/s caps the ack delay at 1 ms); the round of ACKs 31–70 lasts 39 ms, so the 51st ACK
/// after the 71st, the 122nd in all, ends slow start with ssthresh = cwnd = 10 + 121 = 131.
#[test]
fn hystart_ack_train_ends_slow_start() {
    let mut cc = cubic(10);
    let mut s = Stream::start(&mut cc, SimTime::ZERO);
    let acks = s.train(&mut cc, ms(1), |_| ms(100), |c| c.ssthresh() < u64::MAX / 8);
    assert_eq!(acks, 122);
    assert_eq!(cc.ssthresh(), 131 * MSS);
    assert!(cc.hystart.found());
}

/// ACKs 5 ms apart (no train: more than 2 ms between ACKs); RTT 40 ms until the 15th ACK,
/// 46 ms after. Threshold: 40 + clamp(40/8, 4, 16) = 45 ms. Rounds start at ACKs 1, 11 and 31
/// (ending at segments 10, 30 and 70, as above); the round of ACKs 11–30 holds 40 ms samples;
/// the next takes 8 samples of 46 ms (ACKs 31–38), and the 39th ACK ends slow start with
/// ssthresh = cwnd = 10 + 38 = 48.
#[test]
fn hystart_delay_increase_ends_slow_start() {
    let mut cc = cubic(10);
    let mut s = Stream::start(&mut cc, SimTime::ZERO);
    let rtt = |i: u64| if i < 15 { ms(40) } else { ms(46) };
    let acks = s.train(&mut cc, ms(5), rtt, |c| c.ssthresh() < u64::MAX / 8);
    assert_eq!(acks, 39);
    assert_eq!(cc.ssthresh(), 48 * MSS);
}

/// The delay rises at the second ACK (40 → 50 ms, over the 45 ms threshold) from IW 4, but
/// HyStart waits for cwnd 16 (the 13th ACK): 8 samples (ACKs 13–20), then the 21st ACK ends
/// slow start at cwnd 4 + 20 = 24. Without `hystart_low_window` it would have ended at the
/// 10th ACK, cwnd 13.
#[test]
fn hystart_not_below_sixteen_segments() {
    let mut cc = cubic(4);
    let mut s = Stream::start(&mut cc, SimTime::ZERO);
    let rtt = |i: u64| if i < 2 { ms(40) } else { ms(50) };
    let acks = s.train(&mut cc, ms(5), rtt, |c| c.ssthresh() < u64::MAX / 8);
    assert_eq!(acks, 21);
    assert_eq!(cc.ssthresh(), 24 * MSS);
}

/// Before any loss W_max is 0 and `cnt` is at most 20: after HyStart's exit at 115 segments
/// the curve starts at cwnd with K = 0, far below one segment per RTT, so cnt = 20
/// (cwnd grows 5 % per RTT).
#[test]
fn cnt_is_capped_before_any_loss() {
    let mut cc = cubic(10);
    let mut s = Stream::start(&mut cc, SimTime::ZERO);
    s.train(&mut cc, ms(1), |_| ms(100), |c| c.ssthresh() < u64::MAX / 8);
    s.ack(&mut cc, s.now + ms(1), 1, Some(ms(100)));
    assert_eq!(cc.bictcp.last_max_cwnd, 0);
    assert_eq!(cc.bictcp.cnt, 20);
}

/// A timeout: ssthresh = ⌊120·717/1024⌋ = 84, cwnd one segment, and `cubictcp_state(Loss)`
/// clears W_max, delay_min, the epoch and HyStart's exit; a repeated timeout keeps ssthresh.
#[test]
fn timeout_resets_cubic() {
    let (mut cc, mut s) = after_a_loss(100, ms(100));
    s.run(&mut cc, ms(100), s.now + ms(500));
    cc.set_cwnd(120 * MSS);
    cc.on_rto(s.now, s.snd_max - s.snd_una, true);
    assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 84 * MSS));
    assert_eq!((cc.bictcp.last_max_cwnd, cc.bictcp.delay_min, cc.bictcp.epoch_start, cc.hystart.found()), (0, 0, None, false));
    cc.on_rto(s.now + ms(1000), 0, false);
    assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 84 * MSS));
}

/// Sending after 2 s idle moves the epoch on by 500 jiffies (HZ 250); an idle spell longer
/// than the time since the epoch began moves it to now, not beyond.
#[test]
fn tx_start_shifts_the_epoch() {
    let (mut cc, mut s) = after_a_loss(100, ms(100));
    s.run(&mut cc, ms(100), s.now + ms(300));
    let epoch = cc.bictcp.epoch_start.unwrap();
    let last_send = s.now;
    cc.on_tx_start(last_send + ms(2000), last_send);
    assert_eq!(cc.bictcp.epoch_start, Some(epoch + 500));
    let now = jiffies::jiffies(last_send + ms(2000));
    cc.bictcp.epoch_start = Some(now - 10);
    cc.on_tx_start(last_send + ms(2000), last_send);
    assert_eq!(cc.bictcp.epoch_start, Some(now));
}

/// An undo restores cwnd 100 and ssthresh max(70, ⌊¾·100⌋ = 75, 80) = 80 segments (Linux's
/// `prior_ssthresh` is `tcp_current_ssthresh` before the reduction); W_max and the ended
/// epoch stay as the reduction left them.
#[test]
fn undo_restores_the_window_only() {
    let (mut cc, mut s) = after_a_loss(100, ms(100));
    s.run(&mut cc, ms(100), s.now + ms(300));
    cc.set_cwnd(100 * MSS);
    cc.set_ssthresh(80 * MSS);
    let prior = cc.clone();
    cc.on_congestion_event(s.now, 0);
    cc.set_cwnd(cc.ssthresh());
    cc.undo(&prior);
    assert_eq!((cc.cwnd(), cc.ssthresh()), (100 * MSS, 80 * MSS));
    assert_eq!((cc.bictcp.last_max_cwnd, cc.bictcp.epoch_start), (100, None));
}

/// Linux 2.6.24's CUBIC (module 2.1): no HyStart and β = 819/1024.
fn cubic_2_6_24() -> Cubic {
    Cubic::new(WindowCore::new(MSS as u32, 10 * MSS, WindowArith::Bytes), CubicParams { hystart: false, beta: 819 })
}

/// Without HyStart, the ACK train that ends slow start at 115 segments with it (above)
/// leaves slow start running: 300 ACKs later cwnd is 10 + 300 segments and ssthresh unset.
#[test]
fn without_hystart_slow_start_runs_on() {
    let mut cc = cubic_2_6_24();
    let mut s = Stream::start(&mut cc, SimTime::ZERO);
    let acks = s.train(&mut cc, ms(1), |_| ms(100), |c| c.cwnd() >= 310 * MSS);
    assert_eq!(acks, 300);
    assert!(cc.ssthresh() >= u64::MAX / 8);
    assert!(!cc.hystart.found());
}

/// β = 819/1024: a loss at 100 segments leaves ssthresh ⌊100·819/1024⌋ = ⌊79.98⌋ = 79;
/// fast convergence after a second loss at 90 sets W_max = ⌊90·1843/2048⌋ = ⌊80.99⌋ = 80;
/// `beta_scale` = ⌊⌊8·1843/3⌋/205⌋ = ⌊4914/205⌋ = 23 (α = 3·0.2/1.8 = 1/3 per RTT).
#[test]
fn beta_819_reduces_to_four_fifths() {
    let mut cc = cubic_2_6_24();
    let mut s = Stream::start(&mut cc, SimTime::ZERO);
    s.ack(&mut cc, at_ms(100), 1, Some(ms(100)));
    cc.set_cwnd(100 * MSS);
    cc.on_congestion_event(s.now, 0);
    assert_eq!(cc.ssthresh(), 79 * MSS);
    assert_eq!(cc.bictcp.last_max_cwnd, 100);
    cc.set_cwnd(90 * MSS);
    cc.on_congestion_event(s.now, 0);
    assert_eq!(cc.bictcp.last_max_cwnd, 80);
    assert_eq!(cc.friendly_scale, 23);
}

/// CUBIC in congestion avoidance at cwnd 10 = ssthresh after a loss at `w_max`, its epoch
/// begun at jiffy 1000 with K = `k` and the plateau at `origin`, Reno's estimate at
/// `tcp_cwnd`. No RTT samples (delay_min 0), so an ACK at jiffy 1025 (4.1 s) reads the curve
/// at t = ⌊25·1024/250⌋ = 102 (1/1024 s), where ⌊410·102³/2⁴⁰⌋ = 0: the target is `origin`
/// when t = K or K = 0.
fn in_an_epoch(w_max: u32, k: u32, origin: u32, tcp_cwnd: u32) -> (Cubic, Stream) {
    let mut cc = cubic(10);
    let s = Stream::start(&mut cc, at_ms(4000));
    cc.set_ssthresh(10 * MSS);
    let b = &mut cc.bictcp;
    (b.last_max_cwnd, b.epoch_start, b.k, b.origin_point, b.tcp_cwnd) = (w_max, Some(1000), k, origin, tcp_cwnd);
    (cc, s)
}

/// Just after a reduction, Reno's estimate (12) ahead of cwnd (10) and the curve flat at 10
/// (K = 0: cnt = 100·10 = 1000): the TCP-friendly cap 10/(12 − 10) = 5 sets cnt, and the
/// ACK is linear growth. It stays so while that cnt is in force: the next ACK (4 segments,
/// the same jiffy and cwnd) keeps it (`count_and_hold`) and takes cwnd to 11
/// (1 + 4 ≥ 5); the one after, still in that jiffy, caps the same cnt again (10/(12 − 11)
/// = 11 does not lower 5: it was the cap's already).
#[test]
fn friendly_cap_below_the_curve_is_linear_growth() {
    let (mut cc, mut s) = in_an_epoch(10, 0, 10, 12);
    assert_eq!(s.ack(&mut cc, at_ms(4100), 1, None), Growth::Avoidance { linear: true });
    assert_eq!((cc.bictcp.cnt, cc.bictcp.tcp_cwnd), (5, 12));
    assert_eq!(s.ack(&mut cc, at_ms(4101), 4, None), Growth::Avoidance { linear: true });
    assert_eq!(cc.cwnd(), 11 * MSS);
    assert_eq!(s.ack(&mut cc, at_ms(4102), 1, None), Growth::Avoidance { linear: true });
    assert_eq!((cc.bictcp.cnt, cc.bictcp.last_time), (5, 1025));
}

/// The curve flat at 10 (cnt 1000) with Reno's estimate level with cwnd: no cap yet, cnt
/// stays 1000, but the estimate's next step caps it at 10/1 = 10 and pays out the segments
/// counted meanwhile, so cwnd moves at Reno's pace: linear. With the estimate behind (9)
/// the curve's 1000 paces the window until the estimate catches up: not linear.
#[test]
fn estimate_level_with_a_flat_curve_is_linear_growth() {
    let (mut cc, mut s) = in_an_epoch(10, 0, 10, 10);
    assert_eq!(s.ack(&mut cc, at_ms(4100), 1, None), Growth::Avoidance { linear: true });
    assert_eq!(cc.bictcp.cnt, 1000);

    let (mut cc, mut s) = in_an_epoch(10, 0, 10, 9);
    assert_eq!(s.ack(&mut cc, at_ms(4100), 1, None), Growth::Avoidance { linear: false });
    assert_eq!(cc.bictcp.cnt, 1000);
}

/// Along the curve (t = K = 102, plateau 12: cnt = 10/(12 − 10) = 5) Reno's estimate one
/// segment ahead caps cnt at 10/1 = 10, above 5, and level with cwnd (its next step's cap
/// 10) neither: the curve's growth, not linear. With the plateau at 15 (cnt 10/5 = 2) and the
/// estimate at 20, the cap 10/10 = 1 lowers cnt but the floor of 2 takes it back: the
/// curve's cnt stands, not linear.
#[test]
fn friendly_cap_above_the_curve_is_not_linear() {
    for tcp_cwnd in [11, 10] {
        let (mut cc, mut s) = in_an_epoch(12, 102, 12, tcp_cwnd);
        assert_eq!(s.ack(&mut cc, at_ms(4100), 1, None), Growth::Avoidance { linear: false }, "tcp_cwnd {tcp_cwnd}");
        assert_eq!(cc.bictcp.cnt, 5);
    }

    let (mut cc, mut s) = in_an_epoch(15, 102, 15, 20);
    assert_eq!(s.ack(&mut cc, at_ms(4100), 1, None), Growth::Avoidance { linear: false });
    assert_eq!(cc.bictcp.cnt, 2);
}

/// What `on_ack` answers outside congestion avoidance: slow start below ssthresh (IW 10,
/// ssthresh infinite); nothing for a duplicate, an ACK when the window does not limit the
/// sender, or one in fast recovery.
#[test]
fn growth_outside_congestion_avoidance() {
    let mut cc = cubic(10);
    let mut s = Stream::start(&mut cc, SimTime::ZERO);
    assert_eq!(s.ack(&mut cc, at_ms(1), 1, None), Growth::SlowStart);
    assert_eq!(s.ack(&mut cc, at_ms(2), 0, None), Growth::Held);
    let mut idle = s.sample(at_ms(3), 1, None);
    idle.cwnd_limited = false;
    assert_eq!(s.deliver(&mut cc, &idle), Growth::Held);
    let mut recovery = s.sample(at_ms(4), 1, None);
    recovery.state = crate::tcp::state::LossState::Recovery { point: u64::MAX };
    assert_eq!(s.deliver(&mut cc, &recovery), Growth::Held);
}
