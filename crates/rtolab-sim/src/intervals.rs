//! A set of half-open `u64` ranges, kept sorted, disjoint and merged.

/// Invariant: with fewer than two ranges, `many` is empty (keeping its capacity) and `one`
/// holds the range, or (0, 0) when the set is empty; with two or more, `many` holds them all
/// and `one` is (0, 0). In-order data keeps a set at one range, so the common case reads no
/// memory beyond the set itself (with thousands of flows, that is a cache miss saved).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IntervalSet {
    one: (u64, u64),
    many: Vec<(u64, u64)>,
}

impl IntervalSet {
    /// The ranges, sorted.
    #[inline]
    fn ranges(&self) -> &[(u64, u64)] {
        if !self.many.is_empty() {
            &self.many
        } else if self.one.0 < self.one.1 {
            std::slice::from_ref(&self.one)
        } else {
            &[]
        }
    }

    #[inline]
    pub fn insert(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let (s, e) = self.one;
        if self.many.is_empty() {
            if s >= e {
                self.one = (start, end);
                return;
            }
            if start <= e && s <= end {
                // In-order data: the lone range grows.
                self.one = (s.min(start), e.max(end));
                return;
            }
        }
        self.insert_slow(start, end);
    }

    /// `insert` of a non-empty range that does not simply merge into a lone range.
    #[inline(never)]
    fn insert_slow(&mut self, start: u64, end: u64) {
        if self.many.is_empty() {
            let (s, e) = self.one;
            if s >= e {
                self.one = (start, end);
            } else if start <= e && s <= end {
                self.one = (s.min(start), e.max(end));
            } else {
                // Disjoint and not touching: two ranges.
                let both = if start < s { [(start, end), (s, e)] } else { [(s, e), (start, end)] };
                self.many.extend_from_slice(&both);
                self.one = (0, 0);
            }
            return;
        }
        let ranges = &mut self.many;
        // In-order data: [start, end) extends or follows the last range (any earlier range
        // ends before the last one starts, so it cannot touch), the general case's result.
        match ranges.last_mut() {
            Some(last) if last.1 < start => return ranges.push((start, end)),
            Some(last) if last.0 <= start => {
                last.1 = last.1.max(end);
                return;
            }
            _ => {}
        }
        // Ranges before `i` end before `start`; those in `i..j` start at or before `end`, so
        // they overlap or touch [start, end) and merge with it in place (no shifting of the
        // tail unless a range is absorbed or inserted).
        let i = ranges.partition_point(|&(_, e)| e < start);
        let j = i + ranges[i..].iter().take_while(|&&(s, _)| s <= end).count();
        if i == j {
            ranges.insert(i, (start, end));
            return;
        }
        ranges[i] = (ranges[i].0.min(start), ranges[j - 1].1.max(end));
        ranges.drain(i + 1..j);
        self.settle();
    }

    /// Moves a lone range of `many` back inline.
    fn settle(&mut self) {
        if self.many.len() == 1 {
            self.one = self.many[0];
            self.many.clear();
        }
    }

    pub fn contains(&self, x: u64) -> bool {
        let ranges = self.ranges();
        let i = ranges.partition_point(|&(_, e)| e <= x);
        ranges.get(i).is_some_and(|&(s, _)| s <= x)
    }

    /// Whether every point of [start, end) is in the set.
    #[inline]
    pub fn covers(&self, start: u64, end: u64) -> bool {
        if start >= end {
            return true;
        }
        if self.many.is_empty() {
            // At most the lone range (s, e), empty when s ≥ e: it covers [start, end) when
            // s ≤ start and e ≥ end (then e > start, and it is not empty).
            let (s, e) = self.one;
            return s <= start && e >= end;
        }
        let ranges = self.ranges();
        let i = ranges.partition_point(|&(_, e)| e <= start);
        ranges.get(i).is_some_and(|&(s, e)| s <= start && e >= end)
    }

    /// How many points of [start, end) are already in the set.
    pub fn covered_bytes(&self, start: u64, end: u64) -> u64 {
        let ranges = self.ranges();
        let i = ranges.partition_point(|&(_, e)| e <= start);
        ranges[i..].iter().take_while(|&&(s, _)| s < end).map(|&(s, e)| e.min(end).saturating_sub(s.max(start))).sum()
    }

    /// Forgets everything below `x` (whole ranges that end at or below it).
    pub fn prune_below(&mut self, x: u64) {
        if self.many.is_empty() {
            if self.one.1 <= x {
                self.one = (0, 0);
            }
            return;
        }
        let i = self.many.partition_point(|&(_, e)| e <= x);
        if i > 0 {
            self.many.drain(..i);
            if self.many.is_empty() {
                self.one = (0, 0);
            }
            self.settle();
        }
    }

    pub fn len(&self) -> usize {
        self.ranges().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The maximal runs of set bits, as ranges.
    fn runs(bits: &[bool]) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, &b) in bits.iter().chain(std::iter::once(&false)).enumerate() {
            match (b, start) {
                (true, None) => start = Some(i as u64),
                (false, Some(a)) => {
                    out.push((a, i as u64));
                    start = None;
                }
                _ => {}
            }
        }
        out
    }

    proptest! {
        /// Against a brute-force bitmap over a small universe.
        #[test]
        fn matches_a_bitmap(ops in proptest::collection::vec((0u64..64, 0u64..16), 1..40), probe in 0u64..80) {
            let mut set = IntervalSet::default();
            let mut bits = [false; 96];
            for (s, l) in ops {
                if l == 15 {
                    // A prune: whole ranges ending at or below `s` go.
                    set.prune_below(s);
                    for (a, e) in runs(&bits) { if e <= s { for b in &mut bits[a as usize..e as usize] { *b = false; } } }
                    prop_assert_eq!(set.ranges(), &runs(&bits)[..]);
                    continue;
                }
                set.insert(s, s + l);
                for b in bits.iter_mut().skip(s as usize).take(l as usize) { *b = true; }
            }
            prop_assert_eq!(set.contains(probe), bits[probe as usize]);
            let covered = (probe..probe + 5).all(|x| bits[x as usize]);
            prop_assert_eq!(set.covers(probe, probe + 5), covered);
            let count = (probe..probe + 9).filter(|&x| bits[x as usize]).count() as u64;
            prop_assert_eq!(set.covered_bytes(probe, probe + 9), count);
            for w in set.ranges().windows(2) { prop_assert!(w[0].1 < w[1].0); }
            prop_assert!(set.many.is_empty() || (set.many.len() >= 2 && set.one == (0, 0)), "canonical form");
            let mut pruned = set.clone();
            pruned.prune_below(probe);
            let kept: Vec<(u64, u64)> = set.ranges().iter().copied().filter(|&(_, e)| e > probe).collect();
            prop_assert_eq!(pruned.ranges(), &kept[..]);
            prop_assert!(pruned.many.is_empty() || (pruned.many.len() >= 2 && pruned.one == (0, 0)), "canonical form");
        }
    }
}
