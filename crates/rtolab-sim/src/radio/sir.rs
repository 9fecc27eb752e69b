//! The signal-to-interference ratio of a user in a TTI (paper 000, Sec. 3.1).
//!
//! Every base station that transmits in a TTI sends at the same total power (normalised to
//! 1), shared equally by the k users it code-multiplexes. A user u of cell c receives from
//! base station b the power gain g_b = d_b^(−n) · 10^(s_b / 10): distance path loss with
//! exponent n (3.5) and log-normal shadowing s_b in dB. Then
//!
//! ```text
//!   SIR_u = (g_c / k) / ( α · g_c / k  +  β · g_c · (k − 1) / k  +  Σ_{b ≠ c transmitting} g_b )
//! ```
//!
//! with α the self-interference share (10 %), β the share of the own cell's simultaneous
//! transmissions that interferes (40 %), and the other cells' interference dampened by their
//! distance through g_b. The model has no thermal noise: the system is interference-limited,
//! so a lone user with no interfering cell is capped at 1/α (10 dB) by self-interference.

/// Power gain from a base station `distance_m` away under shadowing `shadow_db`; the distance
/// is floored at 1 m, where the path-loss law stops being meaningful.
pub fn path_gain(distance_m: f64, exponent: f64, shadow_db: f64) -> f64 {
    distance_m.max(1.0).powf(-exponent) * 10f64.powf(shadow_db / 10.0)
}

/// The interference shares of the model.
#[derive(Clone, Copy, Debug)]
pub struct Interference {
    /// α: share of the user's own signal that interferes with it.
    pub self_share: f64,
    /// β: share of the own cell's other simultaneous transmissions that interferes.
    pub own_cell_share: f64,
}

impl Interference {
    /// SIR (linear) of a user of cell `own` served as one of `k` users in the TTI, where
    /// `gains[b]` is its gain from base station b and `transmitting(b)` says whether b sends
    /// in this TTI (cell `own` does, by definition).
    pub fn sir(&self, gains: &[f64], own: usize, k: u32, transmitting: impl Fn(usize) -> bool) -> f64 {
        let k = k.max(1) as f64;
        let signal = gains[own] / k;
        let own_cell = self.self_share * signal + self.own_cell_share * gains[own] * (k - 1.0) / k;
        let other: f64 = gains.iter().enumerate().filter(|&(b, _)| b != own && transmitting(b)).map(|(_, g)| g).sum();
        let interference = own_cell + other;
        if interference > 0.0 {
            signal / interference
        } else {
            f64::INFINITY
        }
    }
}

/// A power ratio in decibels.
pub fn db(ratio: f64) -> f64 {
    10.0 * ratio.log10()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAPER: Interference = Interference { self_share: 0.1, own_cell_share: 0.4 };

    /// A lone user with no other cell transmitting: SIR = 1/α = 10, i.e. 10 dB, whatever
    /// its distance.
    #[test]
    fn lone_user_is_capped_by_self_interference() {
        for d in [10.0, 250.0, 500.0] {
            let g = [path_gain(d, 3.5, 0.0), path_gain(900.0, 3.5, 0.0)];
            let sir = PAPER.sir(&g, 0, 1, |_| false);
            assert!((db(sir) - 10.0).abs() < 1e-12, "{}", db(sir));
        }
    }

    /// Hand computation: a user 250 m from its base station and 616 m from one other that
    /// transmits, no shadowing: the ratio g1/g0 = (250/616)^3.5 = 0.042585, so
    /// SIR = 1 / (0.1 + 0.042585) = 7.0134 (8.4593 dB).
    #[test]
    fn sir_with_one_interfering_cell_matches_hand_computation() {
        let g = [path_gain(250.0, 3.5, 0.0), path_gain(616.0, 3.5, 0.0)];
        let ratio = (250.0f64 / 616.0).powf(3.5);
        assert!((ratio - 0.042585).abs() < 1e-6, "{ratio}");
        let sir = PAPER.sir(&g, 0, 1, |_| true);
        assert!((sir - 1.0 / (0.1 + ratio)).abs() < 1e-12);
        assert!((db(sir) - 8.4593).abs() < 1e-4, "{}", db(sir));
    }

    /// Three users code-multiplexed, no other cell: each gets g/3 against α·g/3 + β·2g/3,
    /// so SIR = 1 / (0.1 + 0.8) = 1.111 (0.458 dB) — the price of sharing the power.
    #[test]
    fn code_multiplexing_shares_power_and_adds_own_cell_interference() {
        let g = [path_gain(100.0, 3.5, 0.0)];
        let sir = PAPER.sir(&g, 0, 3, |_| false);
        assert!((sir - 1.0 / 0.9).abs() < 1e-12);
        assert!((db(sir) - 0.4576).abs() < 1e-4);
    }

    /// Shadowing of +8 dB on the interferer multiplies its gain by 10^0.8 = 6.31.
    #[test]
    fn shadowing_scales_the_gain_by_its_decibels() {
        let plain = path_gain(400.0, 3.5, 0.0);
        assert!((path_gain(400.0, 3.5, 8.0) / plain - 6.309573).abs() < 1e-6);
        assert_eq!(path_gain(0.0, 3.5, 0.0), 1.0);
    }

    #[test]
    fn no_interference_at_all_is_an_infinite_sir() {
        let none = Interference { self_share: 0.0, own_cell_share: 0.4 };
        assert_eq!(none.sir(&[1e-9], 0, 1, |_| false), f64::INFINITY);
    }
}
