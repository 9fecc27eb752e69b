//! A windowed minimum or maximum of a stream of samples, as Linux tracks its minimum RTT
//! (`tp->rtt_min`, `tcp_update_rtt_min`) and BBR its bandwidth: Kathleen Nichols' filter in
//! `lib/win_minmax.c` (`minmax_running_min`, `minmax_running_max`, `minmax_subwin_update`).
//!
//! Invariant: three choices `s[0..3]`, best first, whose times do not decrease (`s[0].t <=
//! s[1].t <= s[2].t`) and whose values are each no better than the one before. A new best
//! sample, or a sample arriving when even the third choice has left the window, resets all
//! three to it. The answer is `s[0]`, which leaves when it is older than the window: the
//! second choice (taken from the window's second quarter) and the third (from its second
//! half) stand in. Times are 32-bit and wrap, compared by difference as the kernel does.

/// One sample: its time (in whatever clock the window is given in) and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sample {
    t: u32,
    v: u64,
}

/// The filter's three choices (`struct minmax`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowedFilter {
    s: [Sample; 3],
}

impl WindowedFilter {
    /// A filter holding `v` at time `t` in all three choices (`minmax_reset`). A minimum
    /// filter starts from `u64::MAX` (Linux `tcp_init_sock`: `minmax_reset(&tp->rtt_min,
    /// tcp_jiffies32, ~0U)`), so that the first sample replaces it.
    pub fn new(t: u32, v: u64) -> Self {
        let s = Sample { t, v };
        WindowedFilter { s: [s; 3] }
    }

    /// The best value in the window (`minmax_get`).
    pub fn get(&self) -> u64 {
        self.s[0].v
    }

    /// The least time, in the window's clock, at which a sample worse than all three choices
    /// changes the filter (`win` its length): before it such a sample is a no-op. Reached
    /// when the best choice leaves the window, or when a quarter (a half) of it has passed
    /// while the second (third) choice still shares the best's time; in 64 bits, so that
    /// times near the 32-bit wrap are not handled (2^32 jiffies are 198 days).
    pub fn quiet_until(&self, win: u32) -> u64 {
        let span = if self.s[1].t == self.s[0].t {
            win / 4
        } else if self.s[2].t == self.s[1].t {
            win / 2
        } else {
            win
        };
        self.s[0].t as u64 + span as u64 + 1
    }

    /// The worst of the three choices' values (the third's).
    pub fn third(&self) -> u64 {
        self.s[2].v
    }

    /// `minmax_running_min`: takes `v` measured at `t`; `win` is the window's length in the
    /// same clock. Returns the minimum.
    pub fn running_min(&mut self, win: u32, t: u32, v: u64) -> u64 {
        self.running(win, Sample { t, v }, |new, old| new <= old)
    }

    /// `minmax_running_max`, the same with "better" meaning larger.
    pub fn running_max(&mut self, win: u32, t: u32, v: u64) -> u64 {
        self.running(win, Sample { t, v }, |new, old| new >= old)
    }

    fn running(&mut self, win: u32, val: Sample, at_least_as_good: impl Fn(u64, u64) -> bool) -> u64 {
        if at_least_as_good(val.v, self.s[0].v) || val.t.wrapping_sub(self.s[2].t) > win {
            *self = WindowedFilter::new(val.t, val.v);
            return val.v;
        }
        if at_least_as_good(val.v, self.s[1].v) {
            self.s[1] = val;
            self.s[2] = val;
        } else if at_least_as_good(val.v, self.s[2].v) {
            self.s[2] = val;
        }
        self.subwindow_update(win, val)
    }

    /// `minmax_subwin_update`: as time passes, the best choice that left the window gives way
    /// to the next (twice at most: the third choice is within the window, checked on entry),
    /// and choices still sharing the best's time are refreshed from the window's second
    /// quarter and second half.
    fn subwindow_update(&mut self, win: u32, val: Sample) -> u64 {
        let dt = val.t.wrapping_sub(self.s[0].t);
        if dt > win {
            self.s = [self.s[1], self.s[2], val];
            if val.t.wrapping_sub(self.s[0].t) > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            self.s[2] = val;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Window 100. Hand-traced through `lib/win_minmax.c`:
    /// t=0 v=50: reset, all three (0, 50).
    /// t=10 v=60: not ≤ 50, ≤ s1 (50)? no; ≤ s2? no; dt 10 ≤ 25: min 50.
    /// t=30 v=70: dt 30 > 25 and s1.t == s0.t: s1 = s2 = (30, 70). Min 50.
    /// t=60 v=65: ≤ s1 (70): s1 = s2 = (60, 65); dt 60: s2.t == s1.t and 60 > 50: s2 = (60, 65).
    /// t=120 v=80: dt 120 > 100: s = [(60, 65), (60, 65), (120, 80)]; 120 − 60 = 60 ≤ 100.
    /// Min 65: the 50 of t=0 has left the window, the best of what stayed is returned.
    #[test]
    fn the_minimum_leaves_with_its_window() {
        let mut f = WindowedFilter::new(0, u64::MAX);
        assert_eq!(f.running_min(100, 0, 50), 50);
        assert_eq!(f.running_min(100, 10, 60), 50);
        assert_eq!(f.running_min(100, 30, 70), 50);
        assert_eq!(f.running_min(100, 60, 65), 50);
        assert_eq!(f.running_min(100, 120, 80), 65);
        // A new minimum resets: everything before it is forgotten.
        assert_eq!(f.running_min(100, 130, 40), 40);
        assert_eq!(f.running_min(100, 131, 90), 40);
    }

    /// When even the third choice is older than the window, the sample replaces all three:
    /// t=0 v=10, then t=300 v=20 with window 100: 300 − 0 > 100, reset to 20.
    #[test]
    fn a_sample_after_an_empty_window_resets() {
        let mut f = WindowedFilter::new(0, u64::MAX);
        f.running_min(100, 0, 10);
        assert_eq!(f.running_min(100, 300, 20), 20);
    }

    /// Before `quiet_until`, a sample worse than every choice changes nothing; at it, it
    /// does. After t=0 v=50 (window 100): the second choice shares the best's time, so the
    /// filter is quiet up to 0 + 25 + 1 = 26; a 70 at 25 leaves it as it was, a 70 at 26
    /// becomes the second and third choice.
    #[test]
    fn quiet_until_is_the_first_change() {
        let mut f = WindowedFilter::new(0, u64::MAX);
        f.running_min(100, 0, 50);
        assert_eq!(f.quiet_until(100), 26);
        let before = f;
        f.running_min(100, 25, 70);
        assert_eq!(f, before);
        f.running_min(100, 26, 70);
        assert_ne!(f, before);
        // Now the third shares the second's time: quiet until half the window.
        assert_eq!(f.quiet_until(100), 51);
    }

    /// The maximum mirrors the minimum: t=0 v=5, t=30 v=3 (second choice from the second
    /// quarter), t=120 v=2: the 5 leaves, the 3 stays (120 − 30 ≤ 100).
    #[test]
    fn the_maximum_mirrors_it() {
        let mut f = WindowedFilter::new(0, 0);
        assert_eq!(f.running_max(100, 0, 5), 5);
        assert_eq!(f.running_max(100, 30, 3), 5);
        assert_eq!(f.running_max(100, 120, 2), 3);
    }

    /// Times wrap at 2^32 and are compared by difference: a sample 10 ticks after the wrap
    /// is 20 ticks after one taken 10 before it.
    #[test]
    fn times_wrap() {
        let mut f = WindowedFilter::new(u32::MAX - 9, u64::MAX);
        f.running_min(100, u32::MAX - 9, 7);
        assert_eq!(f.running_min(100, 10, 9), 7);
    }
}
