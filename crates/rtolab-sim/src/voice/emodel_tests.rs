//! The E-model against G.107's own statements, Annex B's closed form at G.109's category
//! boundaries, a published simplification of Id, and Ie,eff computed by hand.

use super::*;

/// `Params` at default except the three delays, tied as `score_call` ties them.
fn at_delay(t_ms: f64) -> Params {
    Params { t: t_ms, ta: t_ms, tr: 2.0 * t_ms, ..Params::default() }
}

/// G.107 clause 7.7: with every parameter at its default, R = 93.2.
#[test]
fn defaults_give_r_93_2() {
    let r = Params::default().r();
    assert!((r - 93.2).abs() < 0.05, "R at defaults = {r}");
}

/// Annex B at R = 93.2: 1 + 0.035·93.2 + 93.2·33.2·6.8·7·10⁻⁶ = 4.262 + 0.14728 = 4.4093,
/// 4.41 to two decimals.
#[test]
fn defaults_give_mos_4_41() {
    let mos = mos_from_r(Params::default().r());
    assert!((mos - 4.41).abs() < 0.005, "MOS at defaults = {mos}");
    assert!((mos_from_r(93.2) - 4.40928).abs() < 1e-5);
}

/// Annex B's closed form at G.109's category boundaries (R = 50, 60, 70, 80, 90), computed by
/// hand: 50 → 2.75 − 0.175 = 2.575; 60 → 3.1; 70 → 3.45 + 0.147 = 3.597; 80 → 3.8 + 0.224 =
/// 4.024; 90 → 4.15 + 0.189 = 4.339. G.109 Table 1 prints 2.58, 3.10, 3.60, 4.03, 4.34: the
/// closed form rounds to each of them except at R = 80, where it gives 4.02 (G.109's 4.03 is
/// 0.006 above it).
#[test]
fn mos_at_g109_boundaries() {
    for (r, mos) in [(50.0, 2.575), (60.0, 3.1), (70.0, 3.597), (80.0, 4.024), (90.0, 4.339)] {
        assert!((mos_from_r(r) - mos).abs() < 1e-9, "MOS({r}) = {}", mos_from_r(r));
    }
    for (r, printed) in [(50.0, 2.58), (60.0, 3.10), (70.0, 3.60), (90.0, 4.34)] {
        assert!((mos_from_r(r) - printed).abs() <= 0.005, "MOS({r}) = {} vs G.109 {printed}", mos_from_r(r));
    }
}

/// Annex B's clamps, and the closed form meets them at R = 0 (1) and R = 100 (4.5).
#[test]
fn mos_clamps() {
    assert_eq!(mos_from_r(-5.0), 1.0);
    assert_eq!(mos_from_r(120.0), 4.5);
    assert!((mos_from_r(0.0) - 1.0).abs() < 1e-12);
    assert!((mos_from_r(100.0) - 4.5).abs() < 1e-12);
}

/// Id is nearly 0 with no delay and steep past ~177 ms: Id(0) < 0.5 and the mean slope over
/// 200..300 ms is at least 3 times the mean slope over 0..150 ms (bounds fixed before the
/// first run; Cole & Rosenbluth's fit has slopes 0.024 and 0.134 per ms). The full model is
/// not that fit: it stays within 1.5 R-points of it up to 363 ms and falls 2.99 below it at
/// 400 ms, where Idd bends toward its asymptote (measured once; no test holds the model to a
/// fit).
#[test]
fn id_small_then_steep() {
    let id = |d: f64| at_delay(d).id();
    assert!(id(0.0) < 0.5, "Id(0) = {}", id(0.0));
    let low = (id(150.0) - id(0.0)) / 150.0;
    let high = (id(300.0) - id(200.0)) / 100.0;
    assert!(high >= 3.0 * low, "slopes {low} and {high} per ms");
}

/// Ie,eff = Ie + (95 − Ie)·Ppl/(Ppl/BurstR + Bpl) by hand, BurstR = 1:
/// G.711 (Ie 0, Bpl 25.1) at 1 %: 95/26.1 = 3.639846743…; at 5 %: 475/30.1 = 15.780730897…;
/// AMR 12.2 (Ie 5, Bpl 10) at 0 %: 5.
#[test]
fn ie_eff_by_hand() {
    let g711 = |ppl: f64| Params { ie: Codec::G711.ie(), bpl: Codec::G711.bpl(), ppl, ..Params::default() }.ie_eff();
    assert!((g711(1.0) - 3.639_846_743_295).abs() < 1e-9);
    assert!((g711(5.0) - 15.780_730_897_010).abs() < 1e-9);
    let amr = Params { ie: Codec::Amr122.ie(), bpl: Codec::Amr122.bpl(), ..Params::default() }.ie_eff();
    assert_eq!(amr, 5.0);
}

/// The feature's acceptance line: G.711 at 40 ms one way without loss scores MOS ≥ 4.0.
#[test]
fn g711_at_40_ms_scores_at_least_4() {
    let s = score_call(Codec::G711, 0.040, 0.0);
    assert!(s.mos >= 4.0, "{s:?}");
}

/// `score_call` is the documented mapping onto `Params`.
#[test]
fn score_call_mapping() {
    let by_hand = Params { t: 100.0, ta: 100.0, tr: 200.0, ie: 0.0, bpl: 25.1, ppl: 2.0, burst_r: 1.0, ..Params::default() }.score();
    assert_eq!(score_call(Codec::G711, 0.1, 0.02), by_hand);
}

/// MOS falls strictly as random loss grows, for both codecs at 40 ms.
#[test]
fn mos_falls_with_loss() {
    for codec in [Codec::G711, Codec::Amr122] {
        let mos: Vec<f64> = [0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2].iter().map(|&p| score_call(codec, 0.040, p).mos).collect();
        assert!(mos.windows(2).all(|w| w[1] < w[0]), "{codec:?}: {mos:?}");
    }
}

/// MOS falls strictly as the one-way delay grows past 200 ms, for both codecs, with and
/// without loss.
#[test]
fn mos_falls_with_delay_past_200_ms() {
    for codec in [Codec::G711, Codec::Amr122] {
        for loss in [0.0, 0.01] {
            let mos: Vec<f64> = [0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6].iter().map(|&d| score_call(codec, d, loss).mos).collect();
            assert!(mos.windows(2).all(|w| w[1] < w[0]), "{codec:?} at loss {loss}: {mos:?}");
        }
    }
}

/// The MOS never leaves the scale [1, 4.5]: Annex B's polynomial dips to 0.9888 near R = 3.3
/// (1 + 0.1155 − 3.3·56.7·96.7·7·10⁻⁶), where the score is the floor, 1; it is 1 at R = 0 and
/// rises again from R ≈ 6.5 on.
#[test]
fn mos_stays_on_its_scale() {
    assert_eq!(mos_from_r(3.3), 1.0);
    assert_eq!(mos_from_r(0.0), 1.0);
    assert!(mos_from_r(7.0) > 1.0);
    for k in -100..=1100 {
        let m = mos_from_r(k as f64 / 10.0);
        assert!((1.0..=4.5).contains(&m), "R {} gives {m}", k as f64 / 10.0);
    }
}
