//! BBR's arithmetic against numbers worked by hand from `tcp_bbr.c`.

use super::*;
use crate::tcp::cc::WindowArith;

const MSS: u32 = 1448;

fn bbr() -> Bbr {
    Bbr::new(WindowCore::new(MSS, 10 * MSS as u64, WindowArith::Linux))
}

fn sample(delivered: i64, interval_us: i64, prior_delivered: u32, total_delivered: u32, mstamp_us: u64) -> RateSample {
    RateSample {
        delivered,
        interval_us,
        prior_delivered,
        acked_sacked: 1,
        losses: 0,
        rtt_us: 100_000,
        is_ack_delayed: false,
        is_app_limited: false,
        prior_in_flight: 10,
        in_flight: 10,
        total_delivered,
        total_lost: 0,
        delivered_mstamp_us: mstamp_us,
        edt_ahead_us: 0,
        ca_state: LossState::Open,
    }
}

/// `bbr_init_pacing_rate_from_rtt` with cwnd 10 and SRTT 100 ms: bw = 10·2^24 / 100000 µs =
/// 1677 (truncated); the rate is ((1677·1448·739) >> 8) · 990000 >> 24 bytes/s, within 1 % of
/// 2.885 · 10 · 1448 B / 0.1 s · 0.99 (the gain, the window over SRTT, the 1 % margin).
#[test]
fn initial_pacing_rate_is_high_gain_times_window_over_srtt() {
    let mut b = bbr();
    b.on_established(SimTime::ZERO, Some(SimDuration::from_millis(100)), Some(SimDuration::from_millis(100)), 1);
    let bw: u64 = 10 * (1 << 24) / 100_000;
    assert_eq!(bw, 1677);
    let expected = ((bw * 1448 * HIGH_GAIN as u64) >> 8) * 990_000 >> 24;
    assert_eq!(b.pacing().unwrap().0, expected);
    let exact = 2.885 * 10.0 * 1448.0 / 0.1 * 0.99;
    assert!(((expected as f64) - exact).abs() / exact < 0.01);
}

/// `bbr_bdp` rounds up: bw of 1 packet/ms (2^24/1000 = 16777) over 100 ms with gain 1 is
/// ⌈16777·100000/2^24⌉ = ⌈99.998⌉ = 100 packets; with the 2.885 gain (739/256) ⌈288.67⌉.
#[test]
fn bdp_rounds_up() {
    let mut b = bbr();
    b.min_rtt_us = 100_000;
    let bw = (1u64 << 24) / 1000;
    assert_eq!(b.bdp(bw as u32, BBR_UNIT), 100);
    assert_eq!(b.bdp(bw as u32, HIGH_GAIN), 289);
}

/// STARTUP ends after three rounds whose bandwidth grew less than 25 % (`bbr_full_bw_cnt`),
/// then DRAIN sets ssthresh to the BDP-based inflight and PROBE_BW follows once the flight
/// is no larger.
#[test]
fn startup_ends_after_three_flat_rounds_and_drains() {
    let mut b = bbr();
    b.on_established(SimTime::ZERO, Some(SimDuration::from_millis(100)), Some(SimDuration::from_millis(100)), 1);
    // One round per call: prior_delivered reaches next_rtt_delivered each time; the same
    // 100 packets per 100 ms sample every round.
    let mut delivered = 1u32;
    let mut t = 0u64;
    let mut rounds = 0;
    while b.mode() == BbrMode::Startup && rounds < 10 {
        let prior = delivered;
        delivered += 100;
        t += 100_000;
        let mut rs = sample(100, 100_000, prior, delivered, t);
        rs.in_flight = 1000;
        b.main(SimTime(t * 1000), &rs, Some(SimDuration::from_millis(100)));
        rounds += 1;
    }
    // Round 1 sets full_bw; rounds 2, 3, 4 do not grow it by 25 %.
    assert_eq!(rounds, 4);
    assert_eq!(b.mode(), BbrMode::Drain);
    // bw 1 packet/ms · 100 ms = 100, + 3 TSO packets of 2 (the rate is above 150 kB/s), even.
    let tso = b.tso_segs_goal();
    assert_eq!(b.core.ssthresh_packets(), (100 + 3 * tso + 1) & !1);
}

/// Entering recovery starts packet conservation: cwnd = packets in flight + acked; leaving
/// it restores the window saved when it began (`bbr_set_cwnd_to_recover_or_restore`).
#[test]
fn recovery_conserves_packets_then_restores() {
    let mut b = bbr();
    b.on_established(SimTime::ZERO, Some(SimDuration::from_millis(100)), Some(SimDuration::from_millis(100)), 1);
    b.core.set_cwnd_packets(40);
    b.on_congestion_event(SimTime::ZERO, 0);
    assert_eq!(b.prior_cwnd, 40);
    let mut rs = sample(1, 100_000, 1, 2, 100_000);
    rs.ca_state = LossState::Recovery { point: 0 };
    rs.in_flight = 30;
    rs.acked_sacked = 1;
    b.main(SimTime(100_000_000), &rs, None);
    assert_eq!(b.core.cwnd_packets(), 31);
    let mut rs = sample(1, 100_000, 2, 3, 110_000);
    rs.ca_state = LossState::Open;
    rs.in_flight = 20;
    b.main(SimTime(110_000_000), &rs, None);
    assert!(b.core.cwnd_packets() >= 40, "the saved window comes back: {}", b.core.cwnd_packets());
}

/// The first gain phase is never the draining one (index 1): `CYCLE_LEN − 1 − rand(7)` is
/// 1..=7, and the phase after it is 2..=7 or 0.
#[test]
fn the_first_probe_bw_phase_is_not_the_drain_phase() {
    let mut b = bbr();
    for seed in 0..200u64 {
        b.rng = seed;
        b.reset_probe_bw_mode(0);
        assert_ne!(b.cycle_idx, 1);
    }
}

/// The policer detector (`bbr_lt_bw_sampling`): sampling starts at the first loss; an
/// interval ends at a lossy sample once 4 rounds passed, here after 300 packets delivered and
/// 75 lost in 300 ms (75·256 = 19200 ≥ 50·300: 25 % lost, above the 20 % threshold), bw =
/// 300·2^24 / 300000 µs = 16777 (1 packet/ms); the next interval measures the same, within
/// 1/8, so BBR takes the average of the two as the policed rate (`lt_use_bw`).
#[test]
fn two_consistent_lossy_intervals_mean_a_policer() {
    let mut b = bbr();
    b.on_established(SimTime::ZERO, Some(SimDuration::from_millis(50)), Some(SimDuration::from_millis(50)), 1);
    let (mut delivered, mut lost, mut t_us) = (1u32, 0u32, 0u64);
    for round in 1..=8 {
        let prior = delivered;
        delivered += 100;
        lost += 25;
        t_us += 100_000;
        let mut rs = sample(100, 100_000, prior, delivered, t_us);
        rs.losses = 25;
        rs.total_lost = lost;
        b.main(SimTime(t_us * 1000), &rs, Some(SimDuration::from_millis(50)));
        if round == 4 {
            assert_eq!(b.lt_bw, 16777, "the first interval's rate");
            assert!(!b.lt_use_bw, "one interval is not enough");
        }
    }
    assert!(b.lt_use_bw);
    assert_eq!(b.lt_bw, 16777);
    assert_eq!(b.bw(), 16777);
}
