//! The channels against closed forms: PER from BER and size (paper 001 Sec. III), the
//! stationary shares of the two-state processes, and the share-weighted PER of a packet that
//! spans a state change.

use super::*;
use crate::rng::stream;
use crate::time::SimDuration;
use crate::units::{RandomVar, RvSampler};

fn ms(v: u64) -> SimTime {
    SimTime(v * 1_000_000)
}

/// Paper 001: 480 B packets, BER 1e-6 → "about 0.37 %", BER 1e-3 → 97.85 %. Exactly,
/// 1 − (1 − 1e-6)^3840 = 0.38326 % and 1 − (1 − 1e-3)^3840 = 97.854 %.
#[test]
fn packet_error_rates_of_the_paper() {
    assert!((packet_error_rate(1e-6, 3840.0) - 0.0038326).abs() < 1e-6);
    assert!((packet_error_rate(1e-3, 3840.0) - 0.978540).abs() < 1e-5);
    assert_eq!(packet_error_rate(0.0, 3840.0), 0.0);
    assert_eq!(packet_error_rate(1.0, 8.0), 1.0);
}

fn ge(good_s: f64, bad_s: f64, ber_good: f64, ber_bad: f64, exp: bool) -> GilbertElliott {
    let rv = |m: f64| if exp { RandomVar::Exp { mean: m } } else { RandomVar::Const(m) };
    GilbertElliott::new(RvSampler::new(rv(good_s)), RvSampler::new(rv(bad_s)), ber_good, ber_bad, stream(7, "test", "ge"), true)
}

/// Mean good 8 s, mean bad 2 s (exponential): bad 20 % of the time. Back-to-back 480 B
/// packets at 64 kbps (60 ms each) over 40 000 s (about 4 000 cycles): the loss rate is
/// 0.8 · 0.38326 % + 0.2 · 97.854 % = 19.877 %. Tolerances: 4 standard errors of the bad
/// share (cycle-level variance, ≈ 0.003) and of the loss rate.
#[test]
fn time_based_channel_shares_and_loss_rate() {
    let mut ch = Channel::new(ChannelModel::GilbertElliott(GilbertElliottChannel::Time(Box::new(ge(8.0, 2.0, 1e-6, 1e-3, true)))), vec![]);
    let mut rng = stream(7, "test", "draws");
    let n = 40_000_000 / 60;
    for i in 0..n {
        ch.lost(ms(60 * i), ms(60 * (i + 1)), 480, &mut rng);
    }
    let end = ms(60 * n);
    ch.finish(end);
    let share = ch.bad_share(end).unwrap();
    assert!((share - 0.2).abs() < 0.012, "bad share {share}");
    let rate = ch.losses as f64 / n as f64;
    let expected = (1.0 - share) * 0.0038326 + share * 0.978540;
    assert!((rate - expected).abs() < 0.004, "loss rate {rate} vs {expected} at share {share}");
    assert!((rate - 0.19877).abs() < 0.012, "loss rate {rate}");
    let trace = ch.trace().unwrap();
    assert_eq!(trace[0], (SimTime::ZERO, 0));
    assert!(trace.windows(2).all(|w| w[0].1 != w[1].1 && w[0].0 < w[1].0));
}

/// Fixed sojourns of 1 s: a 1000 B packet sent over [0.5 s, 1.5 s] has half its bits in the
/// good state (BER 0) and half in the bad one (BER 1e-3): PER = 1 − (1 − 1e-3)^4000.
#[test]
fn a_packet_across_a_state_change_sees_each_state_for_its_share() {
    let mut g = ge(1.0, 1.0, 0.0, 1e-3, false);
    let per = g.error_rate(ms(500), ms(1500), 1000);
    assert!((per - packet_error_rate(1e-3, 4000.0)).abs() < 1e-12, "{per}");
    assert_eq!(g.state(), 1);
    // Wholly inside the bad state, then across bad → good at 2 s.
    assert!((g.error_rate(ms(1600), ms(1700), 1000) - packet_error_rate(1e-3, 8000.0)).abs() < 1e-12);
    assert!((g.error_rate(ms(1900), ms(2100), 1000) - packet_error_rate(1e-3, 4000.0)).abs() < 1e-12);
    assert_eq!(g.bad_time(ms(2100)), SimDuration::from_millis(1000));
}

/// mean_loss 5 %, mean burst 4 packets: p = 0.25 · 0.05 / 0.95, r = 0.25. Over 10⁶ packets
/// the loss share is 5 % ± 0.3 % and the mean run of losses 4 ± 0.15 (about 4 standard errors).
#[test]
fn packet_based_chain_matches_its_loss_rate_and_burst_length() {
    let mut g = GilbertPackets::new(0.05, 4.0);
    let mut rng = stream(3, "test", "gilbert");
    let (mut lost, mut bursts, mut prev) = (0u64, 0u64, false);
    for _ in 0..1_000_000 {
        let l = g.next_lost(&mut rng);
        lost += l as u64;
        bursts += (l && !prev) as u64;
        prev = l;
    }
    let rate = lost as f64 / 1e6;
    let burst = lost as f64 / bursts as f64;
    assert!((rate - 0.05).abs() < 0.003, "{rate}");
    assert!((burst - 4.0).abs() < 0.15, "{burst}");
}

/// Scripted losses apply by transmission ordinal on top of any model.
#[test]
fn scripted_losses_count_transmissions() {
    let mut ch = Channel::new(ChannelModel::Perfect, vec![3, 1]);
    let mut rng = stream(1, "test", "x");
    let lost: Vec<bool> = (0..4).map(|i| ch.lost(ms(i), ms(i + 1), 100, &mut rng)).collect();
    assert_eq!(lost, vec![true, false, true, false]);
}
