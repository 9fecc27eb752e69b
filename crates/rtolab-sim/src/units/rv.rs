//! Random variables written in specs: `"3s"`, `"exp(1.5s)"`, `"uniform(10s, 30s)"`,
//! `"pareto(mean=25000B, shape=1.1)"`, `"pareto(mean=25000B, shape=1.1, max=2MB)"` (3GPP's
//! "Pareto with cut-off"), `"lognormal(mean=2s, sd=1s)"`, and the two-state
//! Markov-modulated exponential of paper 003, Sec. 3.1, as a table:
//! `{ markov = { means = ["2.5s", "17.5s"], p01 = 0.5, p10 = 0.5 } }`.
//!
//! Values are in SI base units (seconds or bytes) once parsed. Sampling is by inversion or by
//! `rand_distr`, from a stream the caller owns, so every draw is reproducible.

use super::quantity::{parse_bytes, parse_duration_secs, parse_speed_mps, ScalarRepr};
use rand::Rng;
use rand_distr::{Distribution, Exp, LogNormal, Pareto, Uniform};
use serde::{Deserialize, Serialize};

/// Two-state Markov-modulated exponential (paper 003, Sec. 3.1): the modulating chain moves
/// at each draw with probabilities `p01` (state 0 → 1) and `p10` (1 → 0); in state i the draw
/// is exponential with mean `means[i]`. Stationary law: π0 = p10/(p01+p10), π1 = p01/(p01+p10).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkovSpec {
    pub means: [ScalarText; 2],
    pub p01: f64,
    pub p10: f64,
}

/// A quantity kept as written (string or number) until the surrounding kind parses it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ScalarText {
    Num(f64),
    Text(String),
}

/// A parsed random variable; values in SI base units.
#[derive(Clone, Debug, PartialEq)]
pub enum RandomVar {
    Const(f64),
    Exp { mean: f64 },
    Uniform { lo: f64, hi: f64 },
    /// Pareto of minimum `scale` and `shape`; with a finite `max`, 3GPP's "Pareto with
    /// cut-off" (3GPP TR 25.848 Annex A and TR 25.892 web traffic; UMTS 30.03): draws
    /// above `max` are set to `max`, a point mass of (scale/max)^shape there.
    Pareto { scale: f64, shape: f64, max: f64 },
    LogNormal { mu: f64, sigma: f64 },
    Markov { means: [f64; 2], p01: f64, p10: f64 },
}

impl RandomVar {
    /// The expectation, where it is finite (Pareto with shape ≤ 1 has none).
    pub fn mean(&self) -> Option<f64> {
        match *self {
            RandomVar::Const(v) => Some(v),
            RandomVar::Exp { mean } => Some(mean),
            RandomVar::Uniform { lo, hi } => Some(0.5 * (lo + hi)),
            RandomVar::Pareto { scale, shape, max } => pareto_mean(scale, shape, max),
            RandomVar::LogNormal { mu, sigma } => Some((mu + 0.5 * sigma * sigma).exp()),
            RandomVar::Markov { means, p01, p10 } => {
                let pi1 = p01 / (p01 + p10);
                Some((1.0 - pi1) * means[0] + pi1 * means[1])
            }
        }
    }

    /// Parses the text form with `unit` parsing each quantity argument (seconds or bytes).
    fn parse(text: &str, unit: fn(&str) -> Result<f64, String>, form: &str) -> Result<Self, String> {
        let bad = |why: &str| format!("got {text:?}, expected {form} ({why})");
        let t = text.trim();
        let Some(open) = t.find('(') else {
            return unit(t).map(RandomVar::Const).map_err(|e| format!("{e}, or {form}"));
        };
        if !t.ends_with(')') {
            return Err(bad("missing ')'"));
        }
        let name = t[..open].trim();
        let mut positional = Vec::new();
        let mut named = Vec::new();
        for arg in t[open + 1..t.len() - 1].split(',') {
            let arg = arg.trim();
            match arg.split_once('=') {
                Some((k, v)) => named.push((k.trim(), v.trim())),
                None => positional.push(arg),
            }
        }
        let get = |key: &str, pos: usize| -> Option<&str> { named.iter().find(|(k, _)| *k == key).map(|(_, v)| *v).or(positional.get(pos).copied()) };
        let qty = |key: &str, pos: usize| -> Result<f64, String> {
            let v = get(key, pos).ok_or_else(|| bad(&format!("missing {key}")))?;
            unit(v).map_err(|e| bad(&e))
        };
        let number = |key: &str| -> Result<f64, String> {
            let v = get(key, usize::MAX).ok_or_else(|| bad(&format!("missing {key}")))?;
            v.parse::<f64>().map_err(|_| bad(&format!("{key} must be a number")))
        };
        let rv = match name {
            "exp" | "exponential" => RandomVar::Exp { mean: qty("mean", 0)? },
            "uniform" => {
                let (lo, hi) = (qty("lo", 0)?, qty("hi", 1)?);
                if lo > hi {
                    return Err(bad("lo must not exceed hi"));
                }
                RandomVar::Uniform { lo, hi }
            }
            "pareto" => {
                let shape = number("shape")?;
                if shape <= 0.0 {
                    return Err(bad("shape must be positive"));
                }
                let max = match get("max", usize::MAX) {
                    Some(_) => qty("max", usize::MAX)?,
                    None => f64::INFINITY,
                };
                let scale = match (get("scale", usize::MAX), get("mean", usize::MAX)) {
                    (Some(_), _) => qty("scale", usize::MAX)?,
                    (None, Some(_)) if max.is_finite() => {
                        let mean = qty("mean", usize::MAX)?;
                        if !(mean > 0.0 && mean < max) {
                            return Err(bad("mean must lie between 0 and max"));
                        }
                        pareto_scale_for_mean(mean, shape, max)
                    }
                    (None, Some(_)) if shape > 1.0 => qty("mean", usize::MAX)? * (shape - 1.0) / shape,
                    (None, Some(_)) => return Err(bad("a mean needs shape > 1 or a max")),
                    (None, None) => return Err(bad("give mean= or scale=")),
                };
                if scale > max {
                    return Err(bad("scale must not exceed max"));
                }
                RandomVar::Pareto { scale, shape, max }
            }
            "lognormal" => match (get("mu", usize::MAX), get("sigma", usize::MAX)) {
                (Some(_), Some(_)) => RandomVar::LogNormal { mu: number("mu")?, sigma: number("sigma")? },
                _ => {
                    let (mean, sd) = (qty("mean", 0)?, qty("sd", 1)?);
                    if mean <= 0.0 {
                        return Err(bad("mean must be positive"));
                    }
                    let sigma2 = (1.0 + (sd / mean).powi(2)).ln();
                    RandomVar::LogNormal { mu: mean.ln() - 0.5 * sigma2, sigma: sigma2.sqrt() }
                }
            },
            other => return Err(bad(&format!("unknown distribution {other:?}"))),
        };
        Ok(rv)
    }

    fn from_repr(repr: RvRepr, unit: fn(&str) -> Result<f64, String>, form: &str) -> Result<Self, String> {
        let scalar = |s: &ScalarText| match s {
            ScalarText::Num(n) if n.is_finite() && *n >= 0.0 => Ok(*n),
            ScalarText::Num(n) => Err(format!("got {n}, expected {form}")),
            ScalarText::Text(t) => unit(t),
        };
        match repr {
            RvRepr::Scalar(ScalarRepr::Num(n)) => scalar(&ScalarText::Num(n)).map(RandomVar::Const),
            RvRepr::Scalar(ScalarRepr::Text(t)) => RandomVar::parse(&t, unit, form),
            RvRepr::Table { markov } => {
                let ok = |p: f64| (0.0..=1.0).contains(&p);
                if !(ok(markov.p01) && ok(markov.p10)) || markov.p01 + markov.p10 <= 0.0 {
                    return Err("markov p01 and p10 must be probabilities, not both zero".into());
                }
                Ok(RandomVar::Markov { means: [scalar(&markov.means[0])?, scalar(&markov.means[1])?], p01: markov.p01, p10: markov.p10 })
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RvRepr {
    Scalar(ScalarRepr),
    Table { markov: MarkovSpec },
}

const DURATION_RV_FORM: &str = "a duration (\"3s\") or a distribution such as \"exp(1.5s)\", \
    \"uniform(10s, 30s)\", \"pareto(mean=2s, shape=1.5)\", \"lognormal(mean=2s, sd=1s)\", \
    or a table { markov = { means = [..], p01 = .., p10 = .. } }";
const SIZE_RV_FORM: &str = "a size (\"25kB\") or a distribution such as \"exp(25000B)\", \
    \"pareto(mean=25000B, shape=1.1)\", \"uniform(1kB, 9kB)\" or \"lognormal(mean=25kB, sd=10kB)\"";

const SPEED_RV_FORM: &str = "a speed (\"3km/h\") or a distribution such as \"uniform(0km/h, 6km/h)\" or \"exp(3km/h)\"";

macro_rules! rv_newtype {
    ($name:ident, $unit:path, $form:ident, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Debug, PartialEq, Deserialize)]
        #[serde(try_from = "RvRepr")]
        pub struct $name(pub RandomVar);

        impl TryFrom<RvRepr> for $name {
            type Error = String;
            fn try_from(r: RvRepr) -> Result<Self, String> {
                RandomVar::from_repr(r, $unit, $form).map($name)
            }
        }

        impl $name {
            pub fn parse(text: &str) -> Result<Self, String> {
                RandomVar::parse(text, $unit, $form).map($name)
            }
        }
    };
}

rv_newtype!(DurationRv, parse_duration_secs, DURATION_RV_FORM, "A random duration, in seconds.");
rv_newtype!(SizeRv, parse_bytes, SIZE_RV_FORM, "A random size, in bytes.");
rv_newtype!(SpeedRv, parse_speed_mps, SPEED_RV_FORM, "A random speed, in m/s.");

/// Draws from a `RandomVar`, holding the modulating state of a Markov variable.
#[derive(Clone, Debug)]
pub struct RvSampler {
    rv: RandomVar,
    state: usize,
}

impl RvSampler {
    pub fn new(rv: RandomVar) -> Self {
        RvSampler { rv, state: 0 }
    }

    /// One draw, in SI base units; never negative.
    pub fn sample<R: Rng + ?Sized>(&mut self, rng: &mut R) -> f64 {
        let v = match self.rv {
            RandomVar::Const(v) => v,
            RandomVar::Exp { mean } => exp_draw(mean, rng),
            RandomVar::Uniform { lo, hi } if hi > lo => Uniform::new(lo, hi).map(|u| u.sample(rng)).unwrap_or(lo),
            RandomVar::Uniform { lo, .. } => lo,
            RandomVar::Pareto { scale, shape, max } => Pareto::new(scale, shape).map(|d| d.sample(rng)).unwrap_or(scale).min(max),
            RandomVar::LogNormal { mu, sigma } => LogNormal::new(mu, sigma).map(|d| d.sample(rng)).unwrap_or(mu.exp()),
            RandomVar::Markov { means, p01, p10 } => {
                let switch = if self.state == 0 { p01 } else { p10 };
                if rng.random::<f64>() < switch {
                    self.state ^= 1;
                }
                exp_draw(means[self.state], rng)
            }
        };
        v.max(0.0)
    }
}

/// E[min(X, m)] for X Pareto(k, α): k + ∫_k^m (k/x)^α dx = k + k/(α−1)·(1 − (k/m)^(α−1))
/// (k + k·ln(m/k) at α = 1); k·α/(α−1) without a cut-off. 3GPP TR 25.848 Annex A writes the
/// same as αk/(α−1) − k^α·m^(1−α)/(α−1): k = 4.5 kB, α = 1.1, m = 2 MB give 25 kB.
fn pareto_mean(k: f64, alpha: f64, m: f64) -> Option<f64> {
    if m.is_finite() {
        if (alpha - 1.0).abs() < 1e-12 {
            return Some(k + k * (m / k).ln());
        }
        return Some(k + k / (alpha - 1.0) * (1.0 - (k / m).powf(alpha - 1.0)));
    }
    (alpha > 1.0).then(|| k * alpha / (alpha - 1.0))
}

/// The minimum k whose cut-off Pareto (shape α, cut-off m) has the given mean. The mean grows
/// with k from 0 (k → 0) to m (k = m), so bisection on [0, mean] (the mean is at least k)
/// finds it; 200 halvings reach f64's resolution.
fn pareto_scale_for_mean(mean: f64, alpha: f64, m: f64) -> f64 {
    let (mut lo, mut hi) = (0.0_f64, mean);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if pareto_mean(mid, alpha, m).unwrap_or(f64::INFINITY) < mean {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

fn exp_draw<R: Rng + ?Sized>(mean: f64, rng: &mut R) -> f64 {
    if mean <= 0.0 {
        return 0.0;
    }
    Exp::new(1.0 / mean).map(|d| d.sample(rng)).unwrap_or(mean)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn parses_the_issue_examples() {
        assert_eq!(DurationRv::parse("uniform(10s, 30s)").unwrap().0, RandomVar::Uniform { lo: 10.0, hi: 30.0 });
        assert_eq!(DurationRv::parse("exp(1.5s)").unwrap().0, RandomVar::Exp { mean: 1.5 });
        let p = SizeRv::parse("pareto(mean=25000B, shape=1.1)").unwrap().0;
        // scale = mean (shape - 1) / shape = 25000 · 0.1 / 1.1 = 2272.73 B
        let RandomVar::Pareto { scale, shape, max } = p else { panic!("{p:?}") };
        assert!((scale - 25000.0 * 0.1 / 1.1).abs() < 1e-9 && shape == 1.1 && max == f64::INFINITY);
        assert!((p.mean().unwrap() - 25000.0).abs() < 1e-9);
        assert_eq!(DurationRv::parse("3s").unwrap().0, RandomVar::Const(3.0));
    }

    #[test]
    fn rejects_malformed_distributions() {
        assert!(DurationRv::parse("uniform(30s, 10s)").is_err());
        assert!(DurationRv::parse("gamma(1s)").unwrap_err().contains("unknown distribution"));
        assert!(SizeRv::parse("pareto(mean=1kB, shape=0.9)").is_err());
        assert!(DurationRv::parse("exp(1.5q)").is_err());
    }

    #[test]
    fn lognormal_from_mean_and_sd_has_that_mean() {
        let rv = DurationRv::parse("lognormal(mean=2s, sd=1s)").unwrap().0;
        assert!((rv.mean().unwrap() - 2.0).abs() < 1e-12);
    }

    /// Sample means converge to the analytic mean (law of large numbers; 200k draws give a
    /// standard error below 0.5 % for these laws, so 2 % is a safe tolerance).
    #[test]
    fn sample_means_match_analytic_means() {
        let cases = [
            RandomVar::Exp { mean: 1.5 },
            RandomVar::Uniform { lo: 10.0, hi: 30.0 },
            RandomVar::Pareto { scale: 1.0, shape: 3.0, max: f64::INFINITY },
            RandomVar::Pareto { scale: 4500.0, shape: 1.1, max: 2e6 },
            RandomVar::LogNormal { mu: 0.5, sigma: 0.5 },
            RandomVar::Markov { means: [2.5, 17.5], p01: 0.5, p10: 0.5 },
        ];
        for rv in cases {
            let mut s = RvSampler::new(rv.clone());
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
            let n = 200_000;
            let mean: f64 = (0..n).map(|_| s.sample(&mut rng)).sum::<f64>() / n as f64;
            let want = rv.mean().unwrap();
            assert!((mean / want - 1.0).abs() < 0.02, "{rv:?}: {mean} vs {want}");
        }
    }

    /// Paper 000's file sizes, Pareto of mean 25 000 B and shape 1.1 (infinite variance, so
    /// the plain sample mean has no usable interval). Over 200 000 draws: the maximum-
    /// likelihood shape n / Σ ln(x/k) lies within 4 standard errors (α/√n = 0.0025) of 1.1,
    /// and the mean of min(X, M) for M = 1 MB, whose variance is finite, lies within 4 of its
    /// standard errors of k/(α − 1)·(α − (k/M)^(α−1)) = 12 634 B, k = 25 000·0.1/1.1.
    #[test]
    fn paper_000_file_sizes_have_the_pareto_shape_and_mean() {
        let rv = SizeRv::parse("pareto(mean=25000B, shape=1.1)").unwrap().0;
        let RandomVar::Pareto { scale: k, shape: alpha, .. } = rv else { panic!("{rv:?}") };
        let mut s = RvSampler::new(rv);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2005);
        let n = 200_000;
        let draws: Vec<f64> = (0..n).map(|_| s.sample(&mut rng)).collect();
        let shape = n as f64 / draws.iter().map(|x| (x / k).ln()).sum::<f64>();
        assert!((shape - alpha).abs() < 4.0 * alpha / (n as f64).sqrt(), "shape {shape}");
        let m = 1e6;
        let cut: Vec<f64> = draws.iter().map(|&x| x.min(m)).collect();
        let mean = cut.iter().sum::<f64>() / n as f64;
        let sd = (cut.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
        let want = k / (alpha - 1.0) * (alpha - (k / m).powf(alpha - 1.0));
        assert!((want - 12_634.0).abs() < 1.0, "{want}");
        assert!((mean - want).abs() < 4.0 * sd / (n as f64).sqrt(), "mean of min(X, 1 MB) {mean} vs {want} (sd {sd})");
    }

    /// 3GPP's web packet call (TR 25.848 Annex A, TR 25.892): Pareto with cut-off, k = 4.5 kB,
    /// α = 1.1, m = 2 MB, "μ = 25 kB". The closed form gives 4500 + 45 000·(1 − 0.00225^0.1)
    /// = 4500 + 45 000·0.45648 = 25 041 B by hand; given the mean, the solved k is within
    /// 0.3 % of 4.5 kB, and draws never exceed m.
    #[test]
    fn cut_off_pareto_matches_the_3gpp_web_model() {
        let rv = SizeRv::parse("pareto(scale=4.5kB, shape=1.1, max=2MB)").unwrap().0;
        assert!((rv.mean().unwrap() - 25_041.4).abs() < 0.5, "{:?}", rv.mean());
        let solved = SizeRv::parse("pareto(mean=25000B, shape=1.1, max=2MB)").unwrap().0;
        let RandomVar::Pareto { scale, .. } = solved else { panic!("{solved:?}") };
        assert!((scale / 4500.0 - 1.0).abs() < 0.003, "k = {scale}");
        assert!((solved.mean().unwrap() - 25_000.0).abs() < 1e-6);
        let mut s = RvSampler::new(solved);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        assert!((0..100_000).map(|_| s.sample(&mut rng)).all(|x| x <= 2e6 && x >= scale));
        assert!(SizeRv::parse("pareto(mean=3MB, shape=1.1, max=2MB)").unwrap_err().contains("between 0 and max"));
    }
}
