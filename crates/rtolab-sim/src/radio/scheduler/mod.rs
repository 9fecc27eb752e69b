//! HS-DSCH schedulers: which backlogged users of a cell go first in a TTI. One file per
//! policy; each is a strict order on candidates, so a cell's choice is deterministic.
//!
//! Common to all: a user whose last block arrived damaged goes first (paper 000, Sec. 3.1:
//! "damaged radio-blocks are immediately retransmitted"), then the policy's order, then the
//! lower user index.
//!
//! Adding a scheduler: a file with a `compare` function (a `Policy`), then a `mod` line and
//! one entry in `register_schedulers!` below (`registry.rs`), which makes its
//! `SchedulerKind` variant (the spec's name) and has `rank` run it.

mod max_sir;
pub mod proportional_fair;
mod registry;
mod round_robin;

use std::cmp::Ordering;

/// A scheduler's order on two candidates: `Less` when `a` goes before `b`. `rank` breaks
/// its ties (damaged blocks first before it, the lower user index after it).
pub type Policy = fn(&Candidate, &Candidate) -> Ordering;

// The registry: each scheduler's spec name and policy, in the schema's order.
registry::register_schedulers! {
    /// Round robin: the backlogged user served longest ago goes first (paper 000).
    #[default]
    Rr = "rr" => round_robin::compare,
    /// Maximum SIR: the backlogged user with the best SIR goes first (paper 000).
    MaxSir = "max-sir" => max_sir::compare,
    /// Proportional fair: the highest ratio of achievable rate to average throughput.
    Pf = "pf" => proportional_fair::compare,
}

/// What a scheduler knows of a backlogged user at the start of a TTI.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    pub ue: u32,
    /// SIR (a power ratio) if served alone in this TTI.
    pub sir: f64,
    /// Block it would receive if served alone (its achievable rate per TTI).
    pub block_bytes: u32,
    /// Its last block arrived damaged.
    pub retransmit: bool,
    /// The TTI (index) in which it was last served; 0 if never.
    pub last_served: u64,
    /// Exponentially averaged bytes per TTI it received (proportional fair).
    pub average: f64,
}

/// Puts the first `n` candidates in service order under `kind` at the front of
/// `candidates`, sorted; the rest follow in no particular order. The order is total (ties go
/// to the lower user index), so the choice never depends on where a candidate started.
pub fn rank(kind: SchedulerKind, candidates: &mut [Candidate], n: usize) {
    let policy = kind.policy();
    let order = |a: &Candidate, b: &Candidate| b.retransmit.cmp(&a.retransmit).then_with(|| policy(a, b)).then(a.ue.cmp(&b.ue));
    let n = n.min(candidates.len());
    if n == 0 {
        return;
    }
    if n < candidates.len() {
        candidates.select_nth_unstable_by(n - 1, order);
    }
    candidates[..n].sort_unstable_by(order);
}

#[cfg(test)]
pub(crate) fn candidate(ue: u32, sir_db: f64, block_bytes: u32) -> Candidate {
    Candidate { ue, sir: 10f64.powf(sir_db / 10.0), block_bytes, retransmit: false, last_served: 0, average: 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_block_goes_first_under_every_policy() {
        for kind in SchedulerKind::ALL {
            let mut c = [candidate(0, 9.0, 1800), Candidate { retransmit: true, last_served: 5, average: 900.0, ..candidate(1, -5.0, 360) }];
            rank(kind, &mut c, 3);
            assert_eq!(c[0].ue, 1, "{kind:?}");
        }
    }

    /// Selecting the first n gives the same n, in the same order, as sorting everyone.
    #[test]
    fn partial_ranking_agrees_with_a_full_sort() {
        let all: Vec<Candidate> = (0..40u32)
            .map(|u| Candidate {
                last_served: (u * 7919) as u64 % 13,
                average: (u % 5) as f64,
                ..candidate(u, ((u * 31) % 17) as f64 - 5.0, 360 * (1 + u % 4))
            })
            .collect();
        for kind in SchedulerKind::ALL {
            let mut full = all.clone();
            rank(kind, &mut full, all.len());
            for n in 1..5 {
                let mut part = all.clone();
                rank(kind, &mut part, n);
                assert_eq!(part[..n], full[..n], "{kind:?} n = {n}");
            }
        }
    }

    #[test]
    fn ties_go_to_the_lower_user_index() {
        for kind in SchedulerKind::ALL {
            let mut c = [candidate(4, 3.0, 720), candidate(2, 3.0, 720), candidate(3, 3.0, 720)];
            rank(kind, &mut c, 3);
            assert_eq!(c.map(|x| x.ue), [2, 3, 4], "{kind:?}");
        }
    }
}
