//! The signal-to-interference ratio of a user in a TTI (paper 000, Sec. 3.1).
//!
//! Every base station radiates the same total power (normalised to 1) in a TTI in which it
//! sends HS-DSCH blocks: a share c on its common channels (pilot and control) and the rest,
//! 1 − c, on HS-DSCH, shared equally by the k users it code-multiplexes. In a TTI in which it
//! sends no block it still radiates its common channels, c. A user u of cell c receives from
//! base station b the power gain g_b = d_b^(−n) · 10^(s_b / 10): distance path loss with
//! exponent n (3.5) and log-normal shadowing s_b in dB. Then
//!
//! ```text
//!   S     = (1 − c) · g_own / k
//!   SIR_u = S / ( α · (S + c · g_own)  +  β · (1 − c) · g_own · (k − 1) / k
//!                 +  Σ_{b ≠ own} p_b · g_b  +  N ),   p_b = 1 if b transmits, else c
//! ```
//!
//! with α the self-interference share (10 %), β the share of the own cell's other users'
//! simultaneous transmissions that interferes (40 %), the other cells' interference dampened
//! by their distance through g_b, and N thermal noise (none unless asked for).
//!
//! Paper 000 gives α, β and the distance damping. Its model is the case c = 0, N = 0: HS-DSCH
//! has all of a base station's power and an idle cell is silent, so a lone user is capped at
//! 1/α (10 dB). Real base stations radiate their common channels all the time; with c = 0.2
//! (the default, `RadioSpec::common_power`) a lone user gets 0.8 / (0.1 · 1) = 8 (9.03 dB),
//! still above Table 1's top threshold of 7.5 dB. The own cell's common channels travel the
//! user's own radio path, so they lose orthogonality as its own signal does (α), as in the
//! usual HSDPA SINR, SF · P_HS-DSCH / ((1 − ρ) · P_own + P_other + P_noise) with one
//! orthogonality factor ρ for all of the own cell's power (Holma and Toskala, "HSDPA/HSUPA for
//! UMTS", 2006); β stays the paper's share for the other code-multiplexed users.

/// Power gain from a base station `distance_m` away under shadowing `shadow_db`; the distance
/// is floored at 1 m, where the path-loss law stops being meaningful.
pub fn path_gain(distance_m: f64, exponent: f64, shadow_db: f64) -> f64 {
    distance_m.max(1.0).powf(-exponent) * 10f64.powf(shadow_db / 10.0)
}

/// The interference shares of the model, the base stations' power budget and the noise.
#[derive(Clone, Copy, Debug)]
pub struct Interference {
    /// α: share of the power reaching the user over its own cell's path (its signal and its
    /// cell's common channels) that interferes with it.
    pub self_share: f64,
    /// β: share of the own cell's other users' simultaneous transmissions that interferes.
    pub own_cell_share: f64,
    /// c: share of every base station's power on its common channels, radiated in every TTI.
    pub common: f64,
    /// Thermal noise at the user's receiver, in the units of the gains (a base station's
    /// whole power times a gain).
    pub noise: f64,
}

impl Interference {
    /// Paper 000's model: the shares α and β, HS-DSCH on all of a base station's power,
    /// silent idle cells and no noise.
    pub const fn shares(self_share: f64, own_cell_share: f64) -> Self {
        Interference { self_share, own_cell_share, common: 0.0, noise: 0.0 }
    }

    /// Thermal noise given as the signal-to-noise ratio `snr_db` of a user at `distance_m`
    /// without shadowing that receives its base station's whole power: N = gain / SNR.
    pub fn noise_at(distance_m: f64, exponent: f64, snr_db: f64) -> f64 {
        path_gain(distance_m, exponent, 0.0) / 10f64.powf(snr_db / 10.0)
    }

    /// SIR (linear) of a user of cell `own` served as one of `k` users in the TTI, where
    /// `gains[b]` is its gain from base station b and `transmitting(b)` says whether b sends
    /// HS-DSCH blocks in this TTI (cell `own` does, by definition).
    pub fn sir(&self, gains: &[f64], own: usize, k: u32, transmitting: impl Fn(usize) -> bool) -> f64 {
        let k = k.max(1) as f64;
        let g = gains[own];
        let hs = 1.0 - self.common;
        let signal = hs * g / k;
        let own_cell = self.self_share * (signal + self.common * g) + self.own_cell_share * hs * g * (k - 1.0) / k;
        let other: f64 =
            gains.iter().enumerate().filter(|&(b, _)| b != own).map(|(b, &gb)| if transmitting(b) { gb } else { self.common * gb }).sum();
        let interference = own_cell + other + self.noise;
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

    const PAPER: Interference = Interference::shares(0.1, 0.4);

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

    /// The default budget: 20 % of every base station's power on common channels.
    const COMMON: Interference = Interference { common: 0.2, ..PAPER };

    /// A lone user with common channels: HS-DSCH has 0.8 of the power and the own cell's
    /// common channels (0.2) interfere through α with the signal, so SIR = 0.8 / (0.1 · (0.8
    /// + 0.2)) = 8, i.e. 10 · log10(8) = 9.0309 dB, whatever its distance; still above Table
    /// 1's 7.5 dB.
    #[test]
    fn lone_user_with_common_channels_is_capped_at_9_db() {
        for d in [10.0, 250.0, 500.0] {
            let g = [path_gain(d, 3.5, 0.0)];
            let sir = COMMON.sir(&g, 0, 1, |_| false);
            assert!((sir - 8.0).abs() < 1e-12, "{sir}");
            assert!((db(sir) - 9.0309).abs() < 1e-4, "{}", db(sir));
        }
    }

    /// The user 250 m from its base station and 616 m from one other (gain ratio
    /// r = (250/616)^3.5 = 0.042585, as above), 20 % on common channels. The other cell
    /// idle still radiates its common channels: SIR = 0.8 / (0.1 + 0.2 · r) = 7.3721
    /// (8.6759 dB, Table 1's 1800 B). The other cell transmitting radiates all its power:
    /// SIR = 0.8 / (0.1 + r) = 5.6107 (7.4902 dB, just under 7.5 dB: 1080 B).
    #[test]
    fn an_idle_cell_interferes_with_its_common_channels() {
        let g = [path_gain(250.0, 3.5, 0.0), path_gain(616.0, 3.5, 0.0)];
        let r = 0.042585087;
        let idle = COMMON.sir(&g, 0, 1, |_| false);
        assert!((idle - 0.8 / (0.1 + 0.2 * r)).abs() < 1e-7 && (db(idle) - 8.6759).abs() < 1e-4, "{}", db(idle));
        let busy = COMMON.sir(&g, 0, 1, |_| true);
        assert!((busy - 0.8 / (0.1 + r)).abs() < 1e-7 && (db(busy) - 7.4902).abs() < 1e-4, "{}", db(busy));
        // Paper 000's model (no common channels): the idle cell is silent, the lone-cell 10 dB.
        assert!((PAPER.sir(&g, 0, 1, |_| false) - 10.0).abs() < 1e-12);
    }

    /// Three users code-multiplexed with common channels, no other cell: each gets
    /// S = 0.8/3 = 0.26667 against α · (S + 0.2) + β · 0.8 · 2/3 = 0.046667 + 0.213333 = 0.26,
    /// so SIR = 1.02564 (0.1100 dB).
    #[test]
    fn code_multiplexing_with_common_channels() {
        let g = [path_gain(100.0, 3.5, 0.0)];
        let sir = COMMON.sir(&g, 0, 3, |_| false);
        assert!((sir - (0.8 / 3.0) / 0.26).abs() < 1e-12, "{sir}");
        assert!((db(sir) - 0.1100).abs() < 1e-4);
    }

    /// Noise given as a 10 dB SNR at the 500 m cell edge, paper 000's shares, no other cell.
    /// At the edge N = g/10, so SIR = 1 / (0.1 + 0.1) = 5 (6.9897 dB). At 250 m the gain is
    /// 2^3.5 = 11.314 times the edge's, so SIR = 1 / (0.1 + 0.1 / 11.314) = 9.1879 (9.6322 dB).
    #[test]
    fn thermal_noise_given_as_the_cell_edge_snr() {
        let noisy = Interference { noise: Interference::noise_at(500.0, 3.5, 10.0), ..PAPER };
        let edge = noisy.sir(&[path_gain(500.0, 3.5, 0.0)], 0, 1, |_| false);
        assert!((edge - 5.0).abs() < 1e-9, "{edge}");
        let inner = noisy.sir(&[path_gain(250.0, 3.5, 0.0)], 0, 1, |_| false);
        assert!((inner - 9.187897).abs() < 1e-6 && (db(inner) - 9.6322).abs() < 1e-4, "{inner}");
    }

    #[test]
    fn no_interference_at_all_is_an_infinite_sir() {
        let none = Interference::shares(0.0, 0.4);
        assert_eq!(none.sir(&[1e-9], 0, 1, |_| false), f64::INFINITY);
    }
}
