//! Code multiplexing on HS-DSCH: which backlogged users of a cell share a TTI, and how the k
//! users of a TTI share the channel.
//!
//! Paper 000, Sec. 3.1, says only "Code multiplexing for up to three users in the same time
//! slot for a given cell is supported" (`RadioSpec::users_per_tti`), and of Table 1 "Size
//! refers to the radio-block sizes". It leaves open when a second and a third user join a
//! TTI and whether Table 1's sizes are the whole channel's block or each user's, so each is a
//! setting with two readings (`radio.multiplex`, `radio.multiplex_split`) that a calibration
//! can run; the defaults are the model docs/hsdpa.md describes.
//!
//! Invariant: with k = 1 both splits give the block `LinkAdaptation::block_at_ratio` gives at
//! the user's SIR, so the readings differ only when users are multiplexed.

use super::link_adaptation::{Block, LinkAdaptation};
use super::scheduler::Candidate;
use schemars::JsonSchema;
use serde::Deserialize;

/// Which backlogged users of a cell share a TTI by code multiplexing (paper 000, Sec. 3.1:
/// "up to three users in the same time slot", `users_per_tti`; when more than one is served
/// is not said).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum Multiplex {
    /// The scheduler's first user is served; the next in its order joins while the users
    /// chosen so far cannot fill their blocks (what they can put in them, summed, is less
    /// than their blocks' sizes, summed), up to `users_per_tti`. A user is added only to use
    /// room that would otherwise be padding.
    #[default]
    #[serde(rename = "fill")]
    Fill,
    /// min(`users_per_tti`, backlogged users) users in every TTI, the scheduler's order
    /// choosing which, even when the first could fill its block alone.
    #[serde(rename = "backlogged")]
    Backlogged,
}

impl Multiplex {
    /// How many of the cell's `ranked` candidates (at least one; the scheduler's first
    /// `users_per_tti` at the front, in service order) share this TTI. `carries(x)` is what
    /// user x can put in its block (its backlog, or with `concatenation = false` the rest of
    /// its head packet), compared under `Fill` with `x.block_bytes`, its block if served
    /// alone. Allocates nothing; `Fill` reads the candidates once, up to the last one chosen.
    pub fn users(self, ranked: &[Candidate], users_per_tti: usize, carries: impl Fn(&Candidate) -> u64) -> usize {
        let most = users_per_tti.min(ranked.len());
        match self {
            Multiplex::Backlogged => most,
            Multiplex::Fill => {
                let (mut carried, mut room) = (0u64, 0u64);
                for (i, x) in ranked[..most].iter().enumerate() {
                    carried += carries(x);
                    room += x.block_bytes as u64;
                    if carried >= room {
                        return i + 1;
                    }
                }
                most
            }
        }
    }
}

/// How the k users code-multiplexed in a TTI share HS-DSCH (paper 000, Table 1: "Size refers
/// to the radio-block sizes", not saying whether a size is the whole channel's block in a TTI
/// or each multiplexed user's). Every reading gives each user 1/k of HS-DSCH's power
/// (`sir::Interference::sir` with k users): a base station's power is fixed, so a split of
/// neither codes nor power, which would let three users each receive the whole channel's
/// power and block, is not offered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub enum MultiplexSplit {
    /// Each user gets 1/k of the power and 1/k of the channelisation codes: its block is 1/k
    /// of the Table 1 row that k times its SIR reaches (3GPP TS 25.308; TS 25.214's CQI
    /// tables pair a transport block size with its number of codes;
    /// `LinkAdaptation::block_sharing_codes`).
    #[default]
    #[serde(rename = "codes-and-power")]
    CodesAndPower,
    /// Each user gets 1/k of the power and a whole Table 1 block at its own SIR (Table 1's
    /// sizes read as per-user blocks): k users carry up to k times the channel's top rate.
    /// rtolab's model before the codes were split (docs/hsdpa.md's row "paper 000's model
    /// (before)").
    #[serde(rename = "power")]
    Power,
}

impl MultiplexSplit {
    /// The block of one of `k` users multiplexed in a TTI whose SIR with its 1/k of the power
    /// is `sir`, and the SIR compared with Table 1's thresholds (what the cell's mean SIR and
    /// the `sir` series record).
    pub fn block(self, adaptation: &LinkAdaptation, sir: f64, k: u32) -> (Block, f64) {
        match self {
            MultiplexSplit::CodesAndPower => adaptation.block_sharing_codes(sir, k),
            MultiplexSplit::Power => (adaptation.block_at_ratio(sir), sir),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::radio::radio_spec::default_mcs;
    use crate::radio::scheduler::candidate;

    /// Candidates 0, 1, 2 (in service order) with blocks of 1800, 720 and 360 B.
    fn ranked() -> [Candidate; 3] {
        [candidate(0, 9.0, 1800), candidate(1, 1.0, 720), candidate(2, -3.0, 360)]
    }

    /// Under `Fill`: user 0 with 2000 B can fill its 1800 B block, so it is served alone;
    /// with 1000 B it cannot (1000 < 1800), so user 1 joins, and with its 5000 B the two
    /// fill their blocks (6000 ≥ 2520): k = 2. With 100 B each, three users carry
    /// 300 < 2880 B, yet no more than `users_per_tti` (3, or 2) join.
    #[test]
    fn fill_adds_users_while_the_chosen_cannot_fill_their_blocks() {
        let c = ranked();
        let backlog = |bytes: [u64; 3]| move |x: &Candidate| bytes[x.ue as usize];
        assert_eq!(Multiplex::Fill.users(&c, 3, backlog([2000, 0, 0])), 1);
        assert_eq!(Multiplex::Fill.users(&c, 3, backlog([1000, 5000, 0])), 2);
        assert_eq!(Multiplex::Fill.users(&c, 3, backlog([100, 100, 100])), 3);
        assert_eq!(Multiplex::Fill.users(&c, 2, backlog([100, 100, 100])), 2);
        assert_eq!(Multiplex::Fill.users(&c[..1], 3, backlog([100, 0, 0])), 1);
    }

    /// Under `Backlogged`: min(users_per_tti, candidates) whatever they carry, even when the
    /// first fills its block (2000 B ≥ 1800 B): 3 of 3, 2 of 2, 1 with `users_per_tti` = 1.
    #[test]
    fn backlogged_serves_as_many_users_as_allowed_and_backlogged() {
        let c = ranked();
        let full = |_: &Candidate| 2000;
        assert_eq!(Multiplex::Backlogged.users(&c, 3, full), 3);
        assert_eq!(Multiplex::Backlogged.users(&c[..2], 3, full), 2);
        assert_eq!(Multiplex::Backlogged.users(&c, 1, full), 1);
        assert_eq!(Multiplex::Backlogged.users(&c, 15, full), 3);
    }

    /// Three users at the 1/3-power SIR 1.02564 (0.1100 dB, `sir::tests::
    /// code_multiplexing_with_common_channels`): sharing the codes, 3 · 1.02564 = 4.88 dB
    /// reaches the 1080 B row and each carries 1080 / 3 = 360 B; sharing only the power,
    /// 0.11 dB reaches the 720 B row (0 dB ≤ 0.11 < 3.5 dB) and each carries all 720 B,
    /// recorded at 0.11 dB. Two users at 1.81818 (2.5964 dB: S = 0.8/2 = 0.4 against
    /// 0.1 · (0.4 + 0.2) + 0.4 · 0.8 · 1/2 = 0.22): 5.6067 dB on the whole code set, 1080 / 2
    /// = 540 B each; their own 720 B row each on power alone. A lone user is the same block
    /// at the same SIR either way.
    #[test]
    fn power_split_gives_each_user_the_whole_block_of_its_row() {
        let la = LinkAdaptation::new(&default_mcs(), 0.1, 0.5);
        let three = (0.8 / 3.0) / 0.26;
        let (codes, whole) = MultiplexSplit::CodesAndPower.block(&la, three, 3);
        assert_eq!(codes, Block { bytes: 360, error_rate: 0.1 });
        assert!((10.0 * whole.log10() - 4.8812).abs() < 1e-4);
        assert_eq!(MultiplexSplit::Power.block(&la, three, 3), (Block { bytes: 720, error_rate: 0.1 }, three));
        let two: f64 = 0.4 / 0.22;
        assert!((10.0 * two.log10() - 2.5964).abs() < 1e-4);
        assert_eq!(MultiplexSplit::CodesAndPower.block(&la, two, 2).0.bytes, 540);
        assert_eq!(MultiplexSplit::Power.block(&la, two, 2).0.bytes, 720);
        for sir in [0.1, 1.0, 3.0, 8.0] {
            assert_eq!(MultiplexSplit::Power.block(&la, sir, 1), MultiplexSplit::CodesAndPower.block(&la, sir, 1));
        }
    }
}
