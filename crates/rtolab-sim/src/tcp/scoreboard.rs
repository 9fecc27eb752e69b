//! The SACK scoreboard of a sender (RFC 6675, 2–4): which segments in [SND.UNA, SND.MAX) the
//! receiver has SACKed and which were retransmitted in the current recovery episode.
//!
//! Segments are MSS-aligned: segment k covers [k·MSS, min((k+1)·MSS, end of data)).
//! Invariant: `flags[i]` describes segment `base + i`; everything below `base` is
//! cumulatively acknowledged.

use std::cell::Cell;
use std::collections::VecDeque;

const SACKED: u8 = 1;
const RETRANSMITTED: u8 = 2;
/// Marked lost by an explicit detector (RACK); used by `LossMarking::Marked`.
const LOST: u8 = 4;

fn is_sacked(f: u8) -> bool {
    f & SACKED != 0
}

/// How `plan` decides that a segment is lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossMarking {
    /// RFC 6675 IsLost(): DupThresh SACKed segments (or bytes) above it; rule 3 of NextSeg
    /// applies.
    Rfc6675,
    /// Only what a detector marked (`mark_lost`, Linux `TCPCB_LOST`); no rule 3, as Linux's
    /// `tcp_xmit_retransmit_queue` resends only lost segments before new data.
    Marked,
}

/// What RFC 6675 NextSeg() chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextSeg {
    /// Retransmit the segment starting at this sequence number (rules 1 and 3).
    Retransmit(u64),
    /// Send new data (rule 2).
    NewData,
    Nothing,
}

/// Invariant: the tallies count `flags` exactly, as Linux keeps `sacked_out`, `lost_out` and
/// `retrans_out` beside its retransmit queue (`tcp_sacktag_one`, `tcp_mark_skb_lost`,
/// `tcp_retransmit_skb`): a change of one segment's flags goes through `set_flags`, and the
/// writers of many (`mark_sacked`, `advance`, the `clear`s) adjust them in the same pass. They
/// count segments, not bytes: the data may grow (`Sender::supply`), which lengthens a short
/// last segment, so bytes are worked out when asked (`bytes_of`). A LOST segment is never
/// SACKED (`mark_sacked` clears the mark, `mark_lost` refuses a SACKed segment).
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    base: u64,
    flags: VecDeque<u8>,
    sacked: u64,
    /// LOST segments (Linux `lost_out`).
    lost: u64,
    /// RETRANSMITTED segments not SACKED (Linux `retrans_out`).
    resent: u64,
    /// LOST segments not RETRANSMITTED: what NextSeg's rule 1 may choose under
    /// `LossMarking::Marked`.
    lost_unresent: u64,
    /// The highest SACKED segment (Linux `tcp_highest_sack`).
    highest_sacked: Option<u64>,
    /// No segment below this one is LOST and unresent (a lower bound that `first_lost_unresent`
    /// raises as it looks, as Linux's `retransmit_skb_hint` does).
    lost_unresent_from: Cell<u64>,
    /// Segments ever newly marked lost (Linux `tp->lost`'s share from `tcp_mark_skb_lost`).
    lost_marked: u64,
    /// How many times SACK marks were dropped (`clear` with something SACKed): the only way a
    /// segment above the board's base stops being SACKed.
    unsacks: u64,
}

/// Fixed facts the scoreboard needs about the connection.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub mss: u64,
    /// One past the last byte of the flow (u64::MAX when unbounded).
    pub data_end: u64,
    pub dupthresh: u64,
}

impl Geometry {
    fn seg_len(&self, k: u64) -> u64 {
        let start = k * self.mss;
        self.mss.min(self.data_end.saturating_sub(start))
    }

    /// One past the last segment wholly below `end`: the first k that fails
    /// `k·MSS < end && k·MSS + seg_len(k) <= end`, the condition the walks over a SACK block
    /// or an acknowledged range stop at (beyond the data a segment is empty, so wholly below).
    pub fn whole_segments_end(&self, end: u64) -> u64 {
        if self.data_end <= end {
            end.div_ceil(self.mss)
        } else {
            end / self.mss
        }
    }

    /// The bytes of segments `a..b` (`a <= b`): the sum of their `seg_len`, as the segments
    /// tile [0, data_end).
    fn bytes_between(&self, a: u64, b: u64) -> u64 {
        (b * self.mss).min(self.data_end) - (a * self.mss).min(self.data_end)
    }
}

impl Scoreboard {
    pub fn clear(&mut self) {
        self.unsacks += (self.sacked > 0) as u64;
        self.flags.clear();
        (self.sacked, self.lost, self.resent, self.lost_unresent) = (0, 0, 0, 0);
        self.highest_sacked = None;
    }

    /// Adds (`sign` true) or removes the tallies' share of one segment with flags `f`.
    #[inline]
    fn tally(&mut self, f: u8, sign: bool) {
        // +1 or −1 (two's complement) times whether the segment counts: no branch per tally.
        let step = if sign { 1u64 } else { u64::MAX };
        let bump = |v: &mut u64, counts: bool| *v = v.wrapping_add(step * counts as u64);
        bump(&mut self.sacked, f & SACKED != 0);
        bump(&mut self.lost, f & LOST != 0);
        bump(&mut self.lost_unresent, f & (LOST | RETRANSMITTED) == LOST);
        bump(&mut self.resent, f & (RETRANSMITTED | SACKED) == RETRANSMITTED);
    }

    /// The last segment of the data when it is recorded and short: its flags and what it
    /// lacks of a full MSS (every recorded segment starts below the end of the data).
    fn short_last(&self, g: &Geometry) -> Option<(u8, u64)> {
        debug_assert!(self.flags.is_empty() || (self.base + self.flags.len() as u64 - 1) * g.mss < g.data_end, "a recorded segment starts at or past the end of the data");
        let short = g.data_end / g.mss;
        (short >= self.base && short < self.base + self.flags.len() as u64).then(|| (self.flags_of(short), g.mss - g.seg_len(short)))
    }

    /// The bytes of `count` recorded segments, those whose flags satisfy `class`: a full MSS
    /// each, less what the short last segment lacks when it is one of them (`short_last`).
    fn bytes_of(count: u64, class: impl Fn(u8) -> bool, short: Option<(u8, u64)>, g: &Geometry) -> u64 {
        let shortfall = short.filter(|&(f, _)| class(f)).map_or(0, |(_, lack)| lack);
        count * g.mss - shortfall
    }

    /// Segment `k` (recorded, at index `i`) takes flags `new`; the tallies follow.
    fn set_flags(&mut self, i: usize, k: u64, new: u8) {
        let old = self.flags[i];
        if old == new {
            return;
        }
        self.tally(old, false);
        self.tally(new, true);
        self.flags[i] = new;
        if new & SACKED != 0 && self.highest_sacked.is_none_or(|h| h < k) {
            self.highest_sacked = Some(k);
        }
        if new & (LOST | RETRANSMITTED) == LOST && k < self.lost_unresent_from.get() {
            self.lost_unresent_from.set(k);
        }
    }

    /// Changes whenever a segment above the base stops being SACKed (see `unsacks`): a
    /// reader that set SACKed segments aside may keep them aside while it stays the same.
    pub fn unsack_generation(&self) -> u64 {
        self.unsacks
    }

    pub fn sacked_segments(&self) -> usize {
        self.sacked as usize
    }

    /// Forgets segments below the new cumulative ACK.
    pub fn advance(&mut self, snd_una: u64, g: &Geometry) {
        let new_base = snd_una / g.mss;
        while self.base < new_base {
            match self.flags.pop_front() {
                Some(0) | None => {}
                Some(f) => self.tally(f, false),
            }
            self.base += 1;
        }
        if self.flags.is_empty() {
            self.base = new_base;
        }
        if self.sacked == 0 {
            self.highest_sacked = None;
        }
    }

    /// The index of segment `k`, recorded from now on; `None` below the board.
    fn slot(&mut self, k: u64) -> Option<usize> {
        if k < self.base {
            return None;
        }
        let i = (k - self.base) as usize;
        if i >= self.flags.len() {
            self.flags.resize(i + 1, 0);
        }
        Some(i)
    }

    /// Marks every segment wholly inside a SACK block [start, end) as SACKed; returns the
    /// bytes SACKed for the first time. A SACKed segment is no longer lost (Linux
    /// `tcp_sacktag_one` clears `TCPCB_LOST` and counts it out of `lost_out`).
    pub fn mark_sacked(&mut self, start: u64, end: u64, snd_max: u64, g: &Geometry) -> u64 {
        let end = end.min(snd_max);
        let stop = g.whole_segments_end(end);
        let first = start.div_ceil(g.mss).max(self.base);
        if first >= stop {
            return 0;
        }
        self.slot(stop - 1);
        let (from, to) = ((first - self.base) as usize, (stop - self.base) as usize);
        // One pass over the block's flags; the tallies' changes are summed and applied after.
        let (mut newly, mut sacked, mut lost, mut lost_unresent, mut resent_sacked) = (0, 0, 0, 0, 0);
        let mut highest = None;
        for (k, f) in (first..stop).zip(self.flags.range_mut(from..to)) {
            if *f & SACKED == 0 {
                sacked += 1;
                lost += (*f & LOST != 0) as u64;
                lost_unresent += (*f & (LOST | RETRANSMITTED) == LOST) as u64;
                resent_sacked += (*f & RETRANSMITTED != 0) as u64;
                *f = (*f | SACKED) & !LOST;
                newly += g.seg_len(k);
                highest = Some(k);
            }
        }
        self.sacked += sacked;
        self.lost -= lost;
        self.lost_unresent -= lost_unresent;
        self.resent -= resent_sacked;
        if let Some(k) = highest.filter(|&k| self.highest_sacked.is_none_or(|h| h < k)) {
            self.highest_sacked = Some(k);
        }
        newly
    }

    /// The first segment of `k..stop` not SACKed, if any (a segment the board does not
    /// record is not): one scan over the flags, for walks that skip what is SACKed.
    pub fn next_unsacked(&self, k: u64, stop: u64) -> Option<u64> {
        if k >= stop {
            return None;
        }
        let top = self.base + self.flags.len() as u64;
        if k < self.base || k >= top {
            return Some(k);
        }
        let (from, to) = ((k - self.base) as usize, (stop.min(top) - self.base) as usize);
        match self.flags.range(from..to).position(|f| f & SACKED == 0) {
            Some(i) => Some(k + i as u64),
            None => (stop > top).then_some(top),
        }
    }

    /// The highest SACKed segment, if any (Linux `tcp_highest_sack_seq` is its start).
    pub fn highest_sacked_segment(&self) -> Option<u64> {
        self.highest_sacked
    }

    /// SACKed bytes in [base, seq): all of them when `seq` lies above the highest SACKed
    /// segment, else counted.
    pub fn sacked_bytes_below(&self, seq: u64, g: &Geometry) -> u64 {
        let end_segment = seq / g.mss;
        match self.highest_sacked {
            None => 0,
            Some(h) if h < end_segment => Self::bytes_of(self.sacked, is_sacked, self.short_last(g), g),
            Some(_) => {
                let end = end_segment.saturating_sub(self.base) as usize;
                self.flags.iter().take(end).enumerate().filter(|(_, f)| *f & SACKED != 0).map(|(i, _)| g.seg_len(self.base + i as u64)).sum()
            }
        }
    }

    /// The flags of segment `k` (0 when nothing is recorded).
    fn flags_of(&self, k: u64) -> u8 {
        k.checked_sub(self.base).and_then(|j| self.flags.get(j as usize)).copied().unwrap_or(0)
    }

    pub fn is_lost(&self, k: u64) -> bool {
        self.flags_of(k) & LOST != 0
    }

    pub fn is_retransmitted(&self, k: u64) -> bool {
        self.flags_of(k) & RETRANSMITTED != 0
    }

    /// Segments whose last retransmission is neither SACKed nor marked lost (Linux
    /// `retrans_out`: `mark_lost` clears the mark, as `tcp_mark_skb_lost` counts it out).
    pub fn retransmitted_in_flight(&self) -> u64 {
        self.resent
    }

    pub fn is_sacked_segment(&self, k: u64) -> bool {
        self.flags_of(k) & SACKED != 0
    }

    /// Linux `tcp_mark_skb_lost`: segment `k` is lost; if it was retransmitted, that
    /// retransmission is lost too, so it may be sent again. Returns whether it is newly lost.
    pub fn mark_lost(&mut self, k: u64) -> bool {
        match self.slot(k) {
            Some(i) if self.flags[i] & SACKED == 0 => {
                let f = self.flags[i];
                let newly = f & LOST == 0 || f & RETRANSMITTED != 0;
                self.set_flags(i, k, (f | LOST) & !RETRANSMITTED);
                self.lost_marked += newly as u64;
                newly
            }
            _ => false,
        }
    }

    /// Segments ever newly marked lost by `mark_lost`.
    pub fn lost_marked(&self) -> u64 {
        self.lost_marked
    }

    /// Some segment is marked lost and not resent since (Linux `lost_out > retrans_out`).
    pub fn lost_not_retransmitted(&self) -> bool {
        self.lost_unresent > 0
    }

    /// Some segment is marked lost (Linux `tp->lost_out != 0`), retransmitted or not.
    pub fn any_lost(&self) -> bool {
        self.lost > 0
    }

    /// Forgets every loss mark (a new episode, or an undo).
    pub fn clear_lost(&mut self) {
        if self.lost == 0 {
            return;
        }
        for f in self.flags.iter_mut() {
            *f &= !LOST;
        }
        (self.lost, self.lost_unresent) = (0, 0);
    }

    pub fn mark_retransmitted(&mut self, seq: u64, g: &Geometry) {
        let k = seq / g.mss;
        if let Some(i) = self.slot(k) {
            self.set_flags(i, k, self.flags[i] | RETRANSMITTED);
        }
    }

    /// Starts a recovery episode: no segment counts as retransmitted in it yet.
    pub fn clear_retransmitted(&mut self) {
        for f in self.flags.iter_mut() {
            *f &= !RETRANSMITTED;
        }
        (self.resent, self.lost_unresent) = (0, self.lost);
        self.lost_unresent_from.set(self.base);
    }

    /// The lowest segment LOST and not RETRANSMITTED, if any (Linux `tcp_xmit_retransmit_queue`
    /// starting from its hint). The search starts at the hint and leaves it at what it found.
    fn first_lost_unresent(&self) -> Option<u64> {
        if self.lost_unresent == 0 {
            return None;
        }
        let from = self.lost_unresent_from.get().max(self.base);
        let i = self.flags.iter().skip((from - self.base) as usize).position(|f| f & (LOST | RETRANSMITTED) == LOST)?;
        let k = from + i as u64;
        self.lost_unresent_from.set(k);
        Some(k)
    }

    pub fn is_sacked(&self, seq: u64, g: &Geometry) -> bool {
        let k = seq / g.mss;
        k >= self.base && self.flags.get((k - self.base) as usize).is_some_and(|f| f & SACKED != 0)
    }

    /// RFC 6675 IsLost(SND.UNA): DupThresh SACKed segments, or more than (DupThresh − 1)·SMSS
    /// SACKed bytes, above it.
    pub fn is_lost_first(&self, g: &Geometry) -> bool {
        if self.flags.front().is_none_or(|f| f & SACKED != 0) {
            return false;
        }
        // The first segment is not SACKed: every SACKed one lies above it.
        self.sacked >= g.dupthresh || Self::bytes_of(self.sacked, is_sacked, self.short_last(g), g) > (g.dupthresh - 1) * g.mss
    }

    /// ns-2 `ScoreBoardRQ::GetNextRetran`: the first segment at or above SND.UNA that is
    /// neither SACKed nor retransmitted and lies below the highest SACKed segment.
    pub fn next_hole_below_highest_sack(&self, snd_una: u64, g: &Geometry) -> Option<u64> {
        let highest = (self.highest_sacked? - self.base) as usize;
        let first = (snd_una / g.mss).saturating_sub(self.base) as usize;
        (first..highest).find(|&i| self.flags[i] & (SACKED | RETRANSMITTED) == 0).map(|i| (self.base + i as u64) * g.mss)
    }

    /// The pipe under `LossMarking::Marked` of segments `first..last` from the tallies alone
    /// (Linux `tcp_packets_in_flight`: `packets_out − (sacked_out + lost_out) + retrans_out`,
    /// here in bytes), when every recorded segment lies in that range; `None` otherwise, and
    /// the caller walks.
    fn pipe_from_tallies(&self, first: u64, last: u64, g: &Geometry) -> Option<u64> {
        let top = self.base + self.flags.len() as u64;
        if first > self.base || last < top || first >= last {
            return None;
        }
        let short = self.short_last(g);
        let sacked = Self::bytes_of(self.sacked, is_sacked, short, g);
        let lost = Self::bytes_of(self.lost, |f| f & LOST != 0, short, g);
        let resent = Self::bytes_of(self.resent, |f| f & (RETRANSMITTED | SACKED) == RETRANSMITTED, short, g);
        Some(g.bytes_between(first, last) - sacked - lost + resent)
    }

    /// One pass over [SND.UNA, SND.MAX): RFC 6675 SetPipe() and NextSeg() together.
    /// `new_data_ok` says whether rule 2 may send new data (data left and window open).
    ///
    /// The walk goes from the top down, so the SACKed amount above each segment is known.
    /// Segments above the recorded flags carry none and have nothing SACKed above them: none
    /// is lost (DupThresh is at least 1) and each is wholly in the pipe, so they are counted
    /// at once; the recorded ones are read straight from the deque.
    pub fn plan(&self, snd_una: u64, snd_max: u64, new_data_ok: bool, marking: LossMarking, g: &Geometry) -> (u64, NextSeg) {
        let first = snd_una / g.mss;
        let last = snd_max.div_ceil(g.mss); // exclusive
        if marking == LossMarking::Marked {
            if let Some(pipe) = self.pipe_from_tallies(first, last, g) {
                let next = match self.first_lost_unresent() {
                    Some(k) => NextSeg::Retransmit(k * g.mss),
                    None if new_data_ok => NextSeg::NewData,
                    None => NextSeg::Nothing,
                };
                return (pipe, next);
            }
        }
        let top = self.base + self.flags.len() as u64; // first segment without flags
        let mut walk = PlanWalk { marking, g, sacked_segs: 0, sacked_bytes: 0, pipe: 0, rule1: None, rule3: None };
        let unrecorded = first.max(top);
        if unrecorded < last {
            walk.pipe = g.bytes_between(unrecorded, last);
        }
        let (lo, hi) = (first.max(self.base), last.min(top));
        if lo < hi {
            let flags = self.flags.range((lo - self.base) as usize..(hi - self.base) as usize);
            for (k, &f) in (lo..hi).rev().zip(flags.rev()) {
                walk.step(k, f);
            }
        }
        for k in (first..last.min(self.base)).rev() {
            walk.step(k, 0);
        }
        walk.outcome(new_data_ok)
    }
    /// `plan`'s pipe under `LossMarking::Marked` alone (Linux `tcp_packets_in_flight` in
    /// bytes): each segment neither SACKed nor marked lost counts once, each retransmitted
    /// one not SACKed once more; no NextSeg, so no rule to track.
    pub fn pipe_marked(&self, snd_una: u64, snd_max: u64, g: &Geometry) -> u64 {
        let first = snd_una / g.mss;
        let last = snd_max.div_ceil(g.mss);
        if let Some(pipe) = self.pipe_from_tallies(first, last, g) {
            return pipe;
        }
        let top = self.base + self.flags.len() as u64;
        let mut pipe = 0;
        let unrecorded = first.max(top);
        if unrecorded < last {
            pipe += g.bytes_between(unrecorded, last);
        }
        let below = last.min(self.base);
        if first < below {
            pipe += g.bytes_between(first, below);
        }
        let (lo, hi) = (first.max(self.base), last.min(top));
        if lo < hi {
            let flags = self.flags.range((lo - self.base) as usize..(hi - self.base) as usize);
            for (k, &f) in (lo..hi).zip(flags) {
                if f & SACKED == 0 {
                    let times = (f & LOST == 0) as u64 + (f & RETRANSMITTED != 0) as u64;
                    pipe += times * g.seg_len(k);
                }
            }
        }
        pipe
    }
}

/// The state of `plan`'s top-down walk: what is SACKed above the current segment, the pipe so
/// far, and the lowest candidates of NextSeg's rules 1 and 3.
struct PlanWalk<'a> {
    marking: LossMarking,
    g: &'a Geometry,
    sacked_segs: u64,
    sacked_bytes: u64,
    pipe: u64,
    rule1: Option<u64>,
    rule3: Option<u64>,
}

impl PlanWalk<'_> {
    /// The pipe and NextSeg (RFC 6675 4): a lost segment first (rule 1), else new data when
    /// allowed (rule 2), else a segment below a SACKed one (rule 3).
    fn outcome(&self, new_data_ok: bool) -> (u64, NextSeg) {
        let next = match (self.rule1, new_data_ok, self.rule3) {
            (Some(s), _, _) => NextSeg::Retransmit(s),
            (None, true, _) => NextSeg::NewData,
            (None, false, Some(s)) => NextSeg::Retransmit(s),
            _ => NextSeg::Nothing,
        };
        (self.pipe, next)
    }

    /// Segment `k` with flags `f`, every segment above it already walked.
    #[inline(always)]
    fn step(&mut self, k: u64, f: u8) {
        let g = self.g;
        let len = g.seg_len(k);
        if f & SACKED != 0 {
            self.sacked_segs += 1;
            self.sacked_bytes += len;
            return;
        }
        let lost = match self.marking {
            LossMarking::Rfc6675 => self.sacked_segs >= g.dupthresh || self.sacked_bytes > (g.dupthresh - 1) * g.mss,
            LossMarking::Marked => f & LOST != 0,
        };
        if !lost {
            self.pipe += len;
        }
        if f & RETRANSMITTED != 0 {
            self.pipe += len;
        } else if lost {
            self.rule1 = Some(k * g.mss);
        } else if self.sacked_segs > 0 && self.marking == LossMarking::Rfc6675 {
            self.rule3 = Some(k * g.mss);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: Geometry = Geometry { mss: 100, data_end: u64::MAX, dupthresh: 3 };

    /// `plan` as RFC 6675 states it: every segment of [SND.UNA, SND.MAX) in turn, from the
    /// top down, its flags looked up one by one.
    fn plan_by_segment(sb: &Scoreboard, snd_una: u64, snd_max: u64, new_data_ok: bool, marking: LossMarking, g: &Geometry) -> (u64, NextSeg) {
        let first = snd_una / g.mss;
        let last = snd_max.div_ceil(g.mss);
        let mut walk = PlanWalk { marking, g, sacked_segs: 0, sacked_bytes: 0, pipe: 0, rule1: None, rule3: None };
        for k in (first..last.max(first)).rev() {
            walk.step(k, sb.flags_of(k));
        }
        walk.outcome(new_data_ok)
    }

    proptest::proptest! {
        /// The walk that counts the unrecorded top at once and reads the deque's slices agrees
        /// with the segment-by-segment one, for any marks, a short last segment included.
        #[test]
        fn plan_matches_the_segment_walk(
            marks in proptest::collection::vec((0u64..40, 0u8..4), 0..30),
            una in 0u64..20, extra in 0u64..30, cleared in proptest::bool::ANY, data_end in 1500u64..4000, rfc in proptest::bool::ANY, behind in 0u64..3,
        ) {
            let g = Geometry { mss: 100, data_end, dupthresh: 3 };
            let mut sb = Scoreboard::default();
            // (Every recorded segment starts below the end of the data, as the sender's do.)
            for (k, m) in marks.into_iter().filter(|&(k, _)| k * 100 < data_end) {
                match m {
                    0 | 1 => { sb.mark_sacked(k * 100, k * 100 + 100, 4000, &g); }
                    2 => sb.mark_retransmitted(k * 100, &g),
                    _ => { sb.mark_lost(k); }
                }
            }
            sb.advance(una * 100, &g);
            if cleared {
                sb.clear();
            }
            // (SND.UNA below the board's base exercises the unrecorded bottom.)
            let (snd_una, snd_max) = (una.saturating_sub(behind) * 100 + 17, una * 100 + extra * 100 + 50);
            let marking = if rfc { LossMarking::Rfc6675 } else { LossMarking::Marked };
            for new_ok in [false, true] {
                proptest::prop_assert_eq!(sb.plan(snd_una, snd_max, new_ok, marking, &g), plan_by_segment(&sb, snd_una, snd_max, new_ok, marking, &g));
            }
            proptest::prop_assert_eq!(sb.pipe_marked(snd_una, snd_max, &g), sb.plan(snd_una, snd_max, false, LossMarking::Marked, &g).0);
        }
    }

    /// What the tallies answer, recounted from the flags one segment at a time.
    fn recount(sb: &Scoreboard, seq: u64, g: &Geometry) -> (bool, bool, u64, Option<u64>, u64, bool) {
        let flags: Vec<(u64, u8)> = sb.flags.iter().enumerate().map(|(i, &f)| (sb.base + i as u64, f)).collect();
        let any_lost = flags.iter().any(|(_, f)| f & LOST != 0);
        let lost_unresent = flags.iter().any(|(_, f)| f & (LOST | RETRANSMITTED) == LOST);
        let resent = flags.iter().filter(|(_, f)| f & (RETRANSMITTED | SACKED) == RETRANSMITTED).count() as u64;
        let highest = flags.iter().rev().find(|(_, f)| f & SACKED != 0).map(|&(k, _)| k);
        let below = flags.iter().filter(|&&(k, f)| f & SACKED != 0 && k < seq / g.mss).map(|&(k, _)| g.seg_len(k)).sum();
        let first_lost = flags.first().is_some_and(|(_, f)| f & SACKED == 0) && {
            let (n, bytes) = flags.iter().skip(1).filter(|(_, f)| f & SACKED != 0).fold((0, 0), |(n, b), &(k, _)| (n + 1, b + g.seg_len(k)));
            n >= g.dupthresh || bytes > (g.dupthresh - 1) * g.mss
        };
        (any_lost, lost_unresent, resent, highest, below, first_lost)
    }

    proptest::proptest! {
        /// After any sequence of marks, advances, clears and growth of the data, every answer
        /// the tallies give equals a recount of the flags, and `plan` and `pipe_marked` equal the
        /// segment-by-segment walk.
        #[test]
        fn tallies_match_a_recount(
            ops in proptest::collection::vec((0u64..40, 0u8..8), 0..60), data_end in 1500u64..4000, grow in 0u64..500, seq in 0u64..4500,
        ) {
            let mut g = Geometry { mss: 100, data_end, dupthresh: 3 };
            let mut sb = Scoreboard::default();
            let mut una = 0;
            let x_of = |k: u64| k % 5;
            for (k, op) in ops {
                let k = k.min((g.data_end - 1) / 100);
                match op {
                    0 => { sb.mark_sacked(k * 100, k * 100 + 100, g.data_end, &g); }
                    // (A block over several segments, starting inside one; the end of the data
                    // may cut it.)
                    1 => { sb.mark_sacked(k * 100 + 30 * (k % 2), (k + 4) * 100, g.data_end, &g); }
                    2 => sb.mark_retransmitted(k * 100, &g),
                    3 | 4 => { sb.mark_lost(k); }
                    5 => { una = una.max(k.saturating_sub(30) * 100); sb.advance(una, &g); }
                    6 if x_of(k) == 0 => sb.clear(),
                    6 => sb.clear_retransmitted(),
                    // (The data may grow between marks: a short last segment lengthens.)
                    _ if x_of(k) == 1 => g.data_end += grow,
                    _ => sb.clear_lost(),
                }
                let (from, stop) = (seq / 100, (seq / 100 + k).min(45));
                let naive = (from..stop).find(|&j| !sb.is_sacked_segment(j));
                proptest::prop_assert_eq!(sb.next_unsacked(from, stop), naive);
                let expected = recount(&sb, seq, &g);
                let got = (sb.any_lost(), sb.lost_not_retransmitted(), sb.retransmitted_in_flight(), sb.highest_sacked_segment(), sb.sacked_bytes_below(seq, &g), sb.is_lost_first(&g));
                proptest::prop_assert_eq!(got, expected);
                for snd_max in [g.data_end, g.data_end.min(una + 1700)] {
                    for new_ok in [false, true] {
                        proptest::prop_assert_eq!(sb.plan(una, snd_max, new_ok, LossMarking::Marked, &g), plan_by_segment(&sb, una, snd_max, new_ok, LossMarking::Marked, &g));
                    }
                    proptest::prop_assert_eq!(sb.pipe_marked(una, snd_max, &g), plan_by_segment(&sb, una, snd_max, false, LossMarking::Marked, &g).0);
                }
            }
            g.data_end += grow;
            let expected = recount(&sb, seq, &g);
            proptest::prop_assert_eq!(sb.sacked_bytes_below(seq, &g), expected.4);
            proptest::prop_assert_eq!(sb.pipe_marked(una, g.data_end, &g), plan_by_segment(&sb, una, g.data_end, false, LossMarking::Marked, &g).0);
        }
    }

    proptest::proptest! {
        /// `whole_segments_end` is where the walk by the segment predicate stops, the end of
        /// the data below, at or above `end`.
        #[test]
        fn whole_segments_end_is_where_the_walk_stops(end in 0u64..5000, data_end in 1u64..5000) {
            let g = Geometry { mss: 100, data_end, dupthresh: 3 };
            let mut k = 0;
            while k * g.mss < end && k * g.mss + g.seg_len(k) <= end {
                k += 1;
            }
            proptest::prop_assert_eq!(g.whole_segments_end(end), k);
        }
    }

    /// Ten segments out (0..1000), segment 2 lost, 3..=9 SACKed: segments 0 and 1 were
    /// cumulatively acked. By hand: segment 2 has 7 SACKed above → lost, not in pipe; pipe 0.
    /// A SACKed segment is no longer lost (Linux `tcp_sacktag_one` clears `TCPCB_LOST`).
    #[test]
    fn a_sack_clears_the_lost_mark() {
        let mut sb = Scoreboard::default();
        assert!(sb.mark_lost(1));
        sb.mark_sacked(100, 200, 500, &G);
        assert!(!sb.is_lost(1) && !sb.any_lost() && sb.is_sacked_segment(1));
        assert_eq!(sb.highest_sacked_segment(), Some(1));
    }

    #[test]
    fn one_hole_is_lost_and_chosen_first() {
        let mut sb = Scoreboard::default();
        sb.advance(200, &G);
        sb.mark_sacked(300, 1000, 1000, &G);
        assert!(sb.is_lost_first(&G));
        assert_eq!(sb.plan(200, 1000, true, LossMarking::Rfc6675, &G), (0, NextSeg::Retransmit(200)));
        sb.mark_retransmitted(200, &G);
        // retransmitted and lost: counts once in pipe; now new data is next
        assert_eq!(sb.plan(200, 1000, true, LossMarking::Rfc6675, &G), (100, NextSeg::NewData));
    }

    /// Holes at 1 and 5 with SACKed 2,3,4 and 6,7: segment 1 has 5 SACKed above → lost;
    /// segment 5 has 2 SACKed above (200 B, not more than 2·MSS) → not lost, in pipe.
    /// Segment 8 (outstanding, nothing above) is in pipe. Pipe = 100 (5) + 100 (8).
    #[test]
    fn pipe_counts_unsacked_not_lost_segments() {
        let mut sb = Scoreboard::default();
        sb.advance(100, &G);
        sb.mark_sacked(200, 500, 900, &G);
        sb.mark_sacked(600, 800, 900, &G);
        assert_eq!(sb.plan(100, 900, false, LossMarking::Rfc6675, &G), (200, NextSeg::Retransmit(100)));
        sb.mark_retransmitted(100, &G);
        // rule 3: segment 5 is below SACKed data and not yet retransmitted
        assert_eq!(sb.plan(100, 900, false, LossMarking::Rfc6675, &G), (300, NextSeg::Retransmit(500)));
    }

    /// Marked loss: same holes as above, but only segment 5 is marked lost (as RACK would
    /// after segment 6 was delivered): segment 1, not marked, stays in pipe; segment 5 is
    /// chosen. Pipe = 100 (1) + 100 (8). Once resent it counts again (300); a lost
    /// retransmission (marked again) leaves pipe and is chosen again.
    #[test]
    fn marked_mode_resends_only_marked_segments() {
        let mut sb = Scoreboard::default();
        sb.advance(100, &G);
        sb.mark_sacked(200, 500, 900, &G);
        sb.mark_sacked(600, 800, 900, &G);
        assert!(sb.mark_lost(5));
        assert_eq!(sb.plan(100, 900, false, LossMarking::Marked, &G), (200, NextSeg::Retransmit(500)));
        sb.mark_retransmitted(500, &G);
        assert_eq!(sb.plan(100, 900, false, LossMarking::Marked, &G), (300, NextSeg::Nothing));
        assert!(sb.mark_lost(5));
        assert_eq!(sb.plan(100, 900, false, LossMarking::Marked, &G), (200, NextSeg::Retransmit(500)));
        assert!(!sb.mark_lost(3), "a SACKed segment is never lost");
    }

    #[test]
    fn partial_blocks_do_not_mark_segments() {
        let mut sb = Scoreboard::default();
        sb.mark_sacked(150, 360, 1000, &G); // covers segment 2 only: [200, 300)
        assert!(!sb.is_sacked(100, &G) && sb.is_sacked(200, &G) && !sb.is_sacked(300, &G));
        assert_eq!(sb.sacked_segments(), 1);
        sb.advance(300, &G);
        assert_eq!(sb.sacked_segments(), 0);
    }
}
