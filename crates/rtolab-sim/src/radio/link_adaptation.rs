//! Link adaptation of HS-DSCH (paper 000, Table 1): the radio block a user receives in a TTI
//! follows its SIR, and whether the block arrives damaged follows the SIR too.
//!
//! Invariant: thresholds and sizes strictly increase (the spec layer checks it); the block
//! chosen is the largest whose threshold the SIR reaches, and below the lowest threshold the
//! smallest block is still sent, with the higher error rate (paper 000, Sec. 3.1: "When SIR
//! is less than –3.5 dB approximately every second block is received in error, for better
//! SIR conditions the block error rate is 10 percent").

use crate::spec::McsSpec;

/// What one user's radio block in a TTI carries and how likely it is damaged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Block {
    pub bytes: u32,
    pub error_rate: f64,
}

#[derive(Clone, Debug)]
pub struct LinkAdaptation {
    /// The thresholds as power ratios (10^(dB/10)), so that a TTI compares without a
    /// logarithm.
    thresholds: Vec<f64>,
    sizes: Vec<u32>,
    bler: f64,
    bler_low: f64,
}

impl LinkAdaptation {
    pub fn new(table: &[McsSpec], bler: f64, bler_low: f64) -> Self {
        LinkAdaptation {
            thresholds: table.iter().map(|m| ratio(m.sir_db)).collect(),
            sizes: table.iter().map(|m| m.size.0.min(u32::MAX as u64) as u32).collect(),
            bler,
            bler_low,
        }
    }

    /// The block for a user at `sir_db`.
    pub fn block(&self, sir_db: f64) -> Block {
        self.block_at_ratio(ratio(sir_db))
    }

    /// The block for a user whose SIR is the power ratio `sir`.
    pub fn block_at_ratio(&self, sir: f64) -> Block {
        match self.thresholds.iter().rposition(|&t| sir >= t) {
            Some(row) => Block { bytes: self.sizes[row], error_rate: self.bler },
            None => Block { bytes: self.sizes[0], error_rate: self.bler_low },
        }
    }

    /// The largest block of the table.
    pub fn largest(&self) -> u32 {
        self.sizes.last().copied().unwrap_or(0)
    }
}

fn ratio(db: f64) -> f64 {
    10f64.powf(db / 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::default_mcs;

    fn table1() -> LinkAdaptation {
        LinkAdaptation::new(&default_mcs(), 0.1, 0.5)
    }

    /// Table 1 at and just below each threshold: −3.5 dB → 360 B, 0 dB → 720 B,
    /// 3.5 dB → 1080 B, 7.5 dB → 1800 B; a threshold belongs to the row it starts.
    #[test]
    fn block_size_follows_table_1_at_the_thresholds() {
        let la = table1();
        let cases = [(-3.5, 360), (-0.01, 360), (0.0, 720), (3.49, 720), (3.5, 1080), (7.49, 1080), (7.5, 1800), (30.0, 1800)];
        for (sir, bytes) in cases {
            assert_eq!(la.block(sir), Block { bytes, error_rate: 0.1 }, "at {sir} dB");
        }
    }

    #[test]
    fn below_the_lowest_threshold_the_smallest_block_fails_every_second_time() {
        let la = table1();
        assert_eq!(la.block(-3.51), Block { bytes: 360, error_rate: 0.5 });
        assert_eq!(la.block(-40.0), Block { bytes: 360, error_rate: 0.5 });
        assert_eq!(la.block(f64::NEG_INFINITY), Block { bytes: 360, error_rate: 0.5 });
    }

    /// Table 1's bit rates are block / TTI: 1800 B per 2 ms = 7.2 Mbit/s.
    #[test]
    fn largest_block_is_7_2_mbps_over_a_2_ms_tti() {
        assert_eq!(table1().largest() as f64 * 8.0 / 0.002, 7.2e6);
    }
}
