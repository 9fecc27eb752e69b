//! Link adaptation of HS-DSCH (paper 000, Table 1): the radio block a user receives in a TTI
//! follows its SIR, and whether the block arrives damaged follows the SIR too.
//!
//! Invariant: thresholds and sizes strictly increase (the spec layer checks it); the block
//! chosen is the largest whose threshold the SIR reaches, and below the lowest threshold the
//! smallest block is still sent, with the higher error rate (paper 000, Sec. 3.1: "When SIR
//! is less than –3.5 dB approximately every second block is received in error, for better
//! SIR conditions the block error rate is 10 percent").

use super::radio_spec::McsSpec;

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

    /// The block of one of `k` users code-multiplexed in a TTI, whose SIR with its 1/k of
    /// HS-DSCH's power is `sir` (`sir::Interference::sir` with k users), and the SIR that is
    /// compared with the table's thresholds.
    ///
    /// Table 1's sizes are the payload of the whole HS-DSCH code set in a TTI: its bit rates,
    /// 1.44 to 7.2 Mbit/s, are those of 12 codes at spreading factor 16 (240 ksymbol/s each:
    /// 12 · 480 kbit/s · 1/4 for QPSK 1/4, 12 · 960 kbit/s · 5/8 for 16QAM 5/8). Users
    /// multiplexed in a TTI share the codes as well as the power (3GPP TS 25.308; in TS 25.214's
    /// CQI tables a transport block size comes with its number of codes): each gets 1/k of
    /// both, so the energy per symbol on its own codes is what it would have on all the codes
    /// with all the power, and its block is 1/k of the row that k · `sir` reaches. With k = 1
    /// this is `block_at_ratio(sir)`. Without the split of the codes (`multiplex_split =
    /// "power"`, `MultiplexSplit::Power`), three users would each carry a whole code set's
    /// block, up to three times the channel's top rate.
    pub fn block_sharing_codes(&self, sir: f64, k: u32) -> (Block, f64) {
        let k = k.max(1);
        let whole = sir * k as f64;
        let block = self.block_at_ratio(whole);
        (Block { bytes: (block.bytes / k).max(1), ..block }, whole)
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
    use crate::radio::radio_spec::default_mcs;

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

    /// Three multiplexed users whose SIR with a third of the power is 1.02564 (the 0.11 dB of
    /// `sir::tests::code_multiplexing_with_common_channels`): on a third of the codes that is
    /// 3 · 1.02564 = 3.0769 (4.8812 dB), Table 1's 1080 B row (3.5 dB ≤ 4.88 < 7.5 dB), so
    /// each block carries 1080 / 3 = 360 B at the 10 % error rate; a lone user is
    /// `block_at_ratio` unchanged, and two users at 9 dB each on half the codes (18 = 12.55 dB
    /// on the whole set) carry 1800 / 2 = 900 B each.
    #[test]
    fn multiplexed_users_share_the_codes_of_a_block() {
        let la = table1();
        let (block, whole) = la.block_sharing_codes((0.8 / 3.0) / 0.26, 3);
        assert!((10.0 * whole.log10() - 4.8812).abs() < 1e-4);
        assert_eq!(block, Block { bytes: 360, error_rate: 0.1 });
        for sir_db in [-10.0, -3.5, 0.0, 5.0, 9.0] {
            assert_eq!(la.block_sharing_codes(ratio(sir_db), 1).0, la.block(sir_db));
        }
        assert_eq!(la.block_sharing_codes(ratio(9.0), 2).0, Block { bytes: 900, error_rate: 0.1 });
        // Below every threshold even on the whole set: a third of the smallest block, 50 % lost.
        assert_eq!(la.block_sharing_codes(ratio(-10.0), 3).0, Block { bytes: 120, error_rate: 0.5 });
    }

    /// Table 1's bit rates are block / TTI: 1800 B per 2 ms = 7.2 Mbit/s.
    #[test]
    fn largest_block_is_7_2_mbps_over_a_2_ms_tti() {
        assert_eq!(table1().largest() as f64 * 8.0 / 0.002, 7.2e6);
    }
}
