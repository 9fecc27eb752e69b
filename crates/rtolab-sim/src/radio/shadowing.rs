//! Log-normal shadowing, correlated along a user's path.
//!
//! Each (user, base station) pair has its own shadowing value s in dB, marginally N(0, σ²)
//! (paper 000, Sec. 3.1: σ = 8 dB), independent across base stations. Along the user's path
//! values Δx metres apart have correlation ρ = exp(−Δx / d_corr) (M. Gudmundson, "Correlation
//! model for shadow fading in mobile radio systems", Electronics Letters 27(23), 1991), where
//! d_corr is the decorrelation distance. The exponential correlation is that of a first-order
//! autoregressive (Gauss–Markov) process, so moving Δx applies
//!
//!   s' = ρ·s + √(1 − ρ²)·σ·n,  n ~ N(0, 1),
//!
//! which keeps the marginal exactly N(0, σ²) (Var s' = ρ²σ² + (1 − ρ²)σ² = σ²) and composes:
//! two moves of Δx/2 give correlation exp(−Δx/(2·d_corr))² = exp(−Δx/d_corr), as one move of Δx.
//!
//! Nothing is validated here (the spec layer does it). Expected ranges: σ ≥ 0 dB (typically
//! 4–10; σ = 0 gives all zeros), d_corr > 0 m (tens of metres; d_corr = 0 makes every move a
//! fresh draw), moved distances ≥ 0 m (zero, negative or NaN moves change nothing).

use rand::Rng;
use rand_distr::StandardNormal;

/// The shadowing of one user towards every base station, in dB.
#[derive(Clone, Debug, PartialEq)]
pub struct Shadowing {
    sigma_db: f64,
    decorrelation_m: f64,
    /// One value per cell, indexed like the layout's cells.
    values_db: Vec<f64>,
}

impl Shadowing {
    /// Independent N(0, σ²) values towards `cells` base stations.
    pub fn new<R: Rng + ?Sized>(cells: usize, sigma_db: f64, decorrelation_m: f64, rng: &mut R) -> Self {
        let mut s = Shadowing { sigma_db, decorrelation_m, values_db: vec![0.0; cells] };
        s.redraw(rng);
        s
    }

    /// Fresh independent values (the user jumped to a new, unrelated position).
    pub fn redraw<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        for v in &mut self.values_db {
            *v = self.sigma_db * rng.sample::<f64, _>(StandardNormal);
        }
    }

    /// Moves the user `moved_m` metres along its path: the AR(1) update on every value. A move
    /// of zero (or a negative or NaN one) changes nothing and draws nothing.
    pub fn advance<R: Rng + ?Sized>(&mut self, moved_m: f64, rng: &mut R) {
        if moved_m.is_nan() || moved_m <= 0.0 {
            return;
        }
        let rho = (-moved_m / self.decorrelation_m).exp();
        let innovation = (1.0 - rho * rho).sqrt() * self.sigma_db;
        for v in &mut self.values_db {
            *v = rho * *v + innovation * rng.sample::<f64, _>(StandardNormal);
        }
    }

    /// The shadowing towards cell `cell`, in dB (panics if out of range).
    pub fn db(&self, cell: usize) -> f64 {
        self.values_db[cell]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    const SIGMA: f64 = 8.0;
    const D_CORR: f64 = 50.0;
    /// Independent values per draw: one Shadowing with N "cells" is N independent users' worth
    /// of values, since cells are independent and identically distributed.
    const N: usize = 100_000;

    fn values(s: &Shadowing) -> Vec<f64> {
        (0..N).map(|c| s.db(c)).collect()
    }

    /// (mean, standard deviation) with the 1/n variance.
    fn moments(x: &[f64]) -> (f64, f64) {
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        (mean, (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt())
    }

    fn correlation(a: &[f64], b: &[f64]) -> f64 {
        let ((ma, sa), (mb, sb)) = (moments(a), moments(b));
        a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum::<f64>() / a.len() as f64 / (sa * sb)
    }

    /// Mean within 5·σ/√n = 0.126 dB of 0; standard deviation within 5·σ/√(2n) = 0.089 dB of σ
    /// (standard errors of the sample mean and standard deviation of a normal sample).
    fn assert_marginal(x: &[f64]) {
        let (mean, sd) = moments(x);
        let n = x.len() as f64;
        assert!(mean.abs() < 5.0 * SIGMA / n.sqrt(), "mean {mean}");
        assert!((sd - SIGMA).abs() < 5.0 * SIGMA / (2.0 * n).sqrt(), "sd {sd}");
    }

    #[test]
    fn marginal_is_normal_with_sigma() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);
        let mut s = Shadowing::new(N, SIGMA, D_CORR, &mut rng);
        assert_marginal(&values(&s));
        for _ in 0..50 {
            s.advance(7.0, &mut rng);
        }
        assert_marginal(&values(&s));
        s.redraw(&mut rng);
        assert_marginal(&values(&s));
    }

    #[test]
    fn lag_correlation_is_exponential() {
        // ρ(d_corr) = e^{-1} = 0.3679; standard error of a sample correlation ≈ (1 − ρ²)/√n
        // = 0.8647/316.2 = 0.00273; allow 5 of them. Two steps of d_corr/2 and one of d_corr
        // must both match; two steps of d_corr give e^{-2} = 0.1353 (se 0.00310).
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(22);
        let se = |rho: f64| (1.0 - rho * rho) / (N as f64).sqrt();
        let mut s = Shadowing::new(N, SIGMA, D_CORR, &mut rng);
        let before = values(&s);
        s.advance(D_CORR, &mut rng);
        let one = correlation(&before, &values(&s));
        assert!((one - (-1f64).exp()).abs() < 5.0 * se((-1f64).exp()), "one step: {one}");
        s.advance(D_CORR, &mut rng);
        let two = correlation(&before, &values(&s));
        assert!((two - (-2f64).exp()).abs() < 5.0 * se((-2f64).exp()), "lag 2·d_corr: {two}");

        let mut s = Shadowing::new(N, SIGMA, D_CORR, &mut rng);
        let before = values(&s);
        s.advance(D_CORR / 2.0, &mut rng);
        let half = correlation(&before, &values(&s));
        assert!((half - (-0.5f64).exp()).abs() < 5.0 * se((-0.5f64).exp()), "half step: {half}");
        s.advance(D_CORR / 2.0, &mut rng);
        let halves = correlation(&before, &values(&s));
        assert!((halves - (-1f64).exp()).abs() < 5.0 * se((-1f64).exp()), "two half steps: {halves}");
        assert_marginal(&values(&s));
    }

    #[test]
    fn redraw_is_independent() {
        // Correlation of independent samples: 0 with standard error 1/√n = 0.00316.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(23);
        let mut s = Shadowing::new(N, SIGMA, D_CORR, &mut rng);
        let before = values(&s);
        s.redraw(&mut rng);
        let r = correlation(&before, &values(&s));
        assert!(r.abs() < 5.0 / (N as f64).sqrt(), "{r}");
    }

    #[test]
    fn standing_still_changes_and_draws_nothing() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(24);
        let mut s = Shadowing::new(7, SIGMA, D_CORR, &mut rng);
        let (snapshot, mut untouched) = (s.clone(), rng.clone());
        for moved in [0.0, -3.0, f64::NAN] {
            s.advance(moved, &mut rng);
        }
        assert_eq!(s, snapshot);
        assert_eq!(rng.random::<u64>(), untouched.random::<u64>());
    }

    #[test]
    fn zero_sigma_gives_zeros() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(25);
        let mut s = Shadowing::new(7, 0.0, D_CORR, &mut rng);
        s.advance(30.0, &mut rng);
        assert!((0..7).all(|c| s.db(c) == 0.0));
    }
}
