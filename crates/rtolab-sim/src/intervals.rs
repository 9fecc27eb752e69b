//! A set of half-open `u64` ranges, kept sorted, disjoint and merged.

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IntervalSet {
    ranges: Vec<(u64, u64)>,
}

impl IntervalSet {
    pub fn insert(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        // In-order data: [start, end) extends or follows the last range (any earlier range
        // ends before the last one starts, so it cannot touch), the general case's result.
        match self.ranges.last_mut() {
            None => return self.ranges.push((start, end)),
            Some(last) if last.1 < start => return self.ranges.push((start, end)),
            Some(last) if last.0 <= start => {
                last.1 = last.1.max(end);
                return;
            }
            _ => {}
        }
        // Ranges before `i` end before `start`; those in `i..j` start at or before `end`, so
        // they overlap or touch [start, end) and merge with it in place (no shifting of the
        // tail unless a range is absorbed or inserted).
        let i = self.ranges.partition_point(|&(_, e)| e < start);
        let j = i + self.ranges[i..].iter().take_while(|&&(s, _)| s <= end).count();
        if i == j {
            self.ranges.insert(i, (start, end));
            return;
        }
        self.ranges[i] = (self.ranges[i].0.min(start), self.ranges[j - 1].1.max(end));
        self.ranges.drain(i + 1..j);
    }

    pub fn contains(&self, x: u64) -> bool {
        let i = self.ranges.partition_point(|&(_, e)| e <= x);
        self.ranges.get(i).is_some_and(|&(s, _)| s <= x)
    }

    /// Whether every point of [start, end) is in the set.
    pub fn covers(&self, start: u64, end: u64) -> bool {
        if start >= end {
            return true;
        }
        let i = self.ranges.partition_point(|&(_, e)| e <= start);
        self.ranges.get(i).is_some_and(|&(s, e)| s <= start && e >= end)
    }

    /// How many points of [start, end) are already in the set.
    pub fn covered_bytes(&self, start: u64, end: u64) -> u64 {
        let i = self.ranges.partition_point(|&(_, e)| e <= start);
        self.ranges[i..].iter().take_while(|&&(s, _)| s < end).map(|&(s, e)| e.min(end).saturating_sub(s.max(start))).sum()
    }

    /// Forgets everything below `x`.
    pub fn prune_below(&mut self, x: u64) {
        if self.ranges.first().is_none_or(|&(_, e)| e > x) {
            return;
        }
        let i = self.ranges.partition_point(|&(_, e)| e <= x);
        self.ranges.drain(..i);
    }

    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a brute-force bitmap over a small universe.
        #[test]
        fn matches_a_bitmap(ops in proptest::collection::vec((0u64..64, 0u64..16), 1..40), probe in 0u64..80) {
            let mut set = IntervalSet::default();
            let mut bits = [false; 96];
            for (s, l) in ops {
                set.insert(s, s + l);
                for b in bits.iter_mut().skip(s as usize).take(l as usize) { *b = true; }
            }
            prop_assert_eq!(set.contains(probe), bits[probe as usize]);
            let covered = (probe..probe + 5).all(|x| bits[x as usize]);
            prop_assert_eq!(set.covers(probe, probe + 5), covered);
            let count = (probe..probe + 9).filter(|&x| bits[x as usize]).count() as u64;
            prop_assert_eq!(set.covered_bytes(probe, probe + 9), count);
            for w in set.ranges.windows(2) { prop_assert!(w[0].1 < w[1].0); }
            let mut pruned = set.clone();
            pruned.prune_below(probe);
            set.ranges.retain(|&(_, e)| e > probe);
            prop_assert_eq!(pruned, set);
        }
    }
}
