//! What the previous ACK's SACK blocks covered (Linux `tp->recv_sack_cache`, read by
//! `tcp_sacktag_write_queue` to skip "already-known blocks"): ranges of whole segments, each
//! of them SACKed on the scoreboard when they were remembered. The walks a new block needs
//! (`rack_delivered`, `Scoreboard::mark_sacked`) do nothing on a SACKed segment, so they may
//! skip what the cache covers.
//!
//! Invariant: while the scoreboard's `unsack_generation` is the one remembered, every segment
//! of every range is SACKed (a SACK mark leaves only with `Scoreboard::clear`, which moves the
//! generation, or below the board's base, which no new block reaches).

/// At most the four blocks one ACK carries.
const MAX: usize = 4;

#[derive(Clone, Debug, Default)]
pub(super) struct SackCache {
    /// Segment ranges `[a, b)` in ascending order of their starts (they may overlap); `len`
    /// of them in use.
    ranges: [(u64, u64); MAX],
    len: usize,
    generation: u64,
}

/// The parts of one range a cache does not cover, ascending (at most `MAX + 1`).
pub(super) struct Uncovered {
    parts: [(u64, u64); MAX + 1],
    len: usize,
}

impl Uncovered {
    pub(super) fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.parts[..self.len].iter().copied()
    }
}

impl SackCache {
    /// The parts of segments `a..b` not covered, given the scoreboard's `generation` now (a
    /// different one than remembered means nothing is covered).
    pub(super) fn uncovered(&self, a: u64, b: u64, generation: u64) -> Uncovered {
        let mut out = Uncovered { parts: [(0, 0); MAX + 1], len: 0 };
        let mut push = |lo: u64, hi: u64| {
            if lo < hi {
                out.parts[out.len] = (lo, hi);
                out.len += 1;
            }
        };
        let ranges = if generation == self.generation { &self.ranges[..self.len] } else { &[] };
        let mut from = a;
        for &(lo, hi) in ranges {
            if hi <= from {
                continue;
            }
            if lo >= b {
                break;
            }
            push(from, lo.min(b));
            from = from.max(hi);
        }
        push(from, b);
        out
    }

    /// Remembers `ranges` (segment ranges now wholly SACKed, in ascending order of their
    /// starts; empty ones are left out) for the next ACK, at the scoreboard's `generation`.
    pub(super) fn remember(&mut self, ranges: &[(u64, u64)], generation: u64) {
        self.len = 0;
        for &r in ranges.iter().filter(|r| r.0 < r.1).take(MAX) {
            debug_assert!(self.len == 0 || self.ranges[self.len - 1].0 <= r.0, "ranges ascend");
            self.ranges[self.len] = r;
            self.len += 1;
        }
        self.generation = generation;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(c: &SackCache, a: u64, b: u64, generation: u64) -> Vec<(u64, u64)> {
        c.uncovered(a, b, generation).iter().collect()
    }

    proptest::proptest! {
        /// The uncovered parts are exactly the segments of `a..b` in no remembered range, in
        /// ascending order, whatever ranges were remembered; a new generation covers nothing.
        #[test]
        fn uncovered_is_the_set_difference(
            ranges in proptest::collection::vec((0u64..60, 0u64..12), 0..6), a in 0u64..70, len in 0u64..40,
        ) {
            let mut ranges: Vec<(u64, u64)> = ranges.into_iter().map(|(lo, n)| (lo, lo + n)).collect();
            ranges.sort_unstable();
            let mut c = SackCache::default();
            c.remember(&ranges, 3);
            let b = a + len;
            let kept: Vec<(u64, u64)> = ranges.iter().filter(|r| r.0 < r.1).take(MAX).copied().collect();
            let covered = |k: u64| kept.iter().any(|&(lo, hi)| lo <= k && k < hi);
            let got: Vec<u64> = parts(&c, a, b, 3).into_iter().flat_map(|(lo, hi)| lo..hi).collect();
            let expected: Vec<u64> = (a..b).filter(|&k| !covered(k)).collect();
            proptest::prop_assert_eq!(got, expected);
            proptest::prop_assert_eq!(parts(&c, a, b, 4).into_iter().flat_map(|(lo, hi)| lo..hi).collect::<Vec<_>>(), (a..b).collect::<Vec<_>>());
        }
    }
}
