//! Linux's clocks, derived from simulated time: `tcp_jiffies32` (ticks of 1/HZ s, 32 bits,
//! wrapping) and `tcp_mstamp` truncated to 32 bits (µs, what `bictcp_clock_us` returns),
//! read by the congestion controls; and the rounding of timer durations up to whole jiffies
//! (`usecs_to_jiffies`), which the RTO, the loss probe and RACK's re-check go through.
//!
//! HZ is taken as 1000, so a jiffy is 1 ms. Kernels differ here: the kernel of the reference
//! results in `docs/validation.md` (6.18.44) is built with `CONFIG_HZ=250`, where a jiffy is
//! 4 ms; CUBIC's epoch clock, its `HZ / 32` update interval, Westwood's 50 ms window and the
//! timers then move in steps of 4 ms. `HZ` below is the one place to change that.

use crate::time::{SimDuration, SimTime};

/// Clock ticks per second (`CONFIG_HZ`).
pub const HZ: u32 = 1000;

const NANOS_PER_JIFFY: u64 = 1_000_000_000 / HZ as u64;
const USEC_PER_JIFFY: u64 = 1_000_000 / HZ as u64;

/// `tcp_jiffies32` at `now`.
pub fn jiffies(now: SimTime) -> u32 {
    (now.0 / NANOS_PER_JIFFY) as u32
}

/// `tcp_mstamp` at `now` as a 32-bit µs count (`bictcp_clock_us`).
pub fn micros(now: SimTime) -> u32 {
    (now.0 / 1000) as u32
}

/// `usecs_to_jiffies`: rounds up, so any positive duration is at least one jiffy.
pub fn usecs_to_jiffies(us: u32) -> u32 {
    (us as u64).div_ceil(USEC_PER_JIFFY) as u32
}

/// A timer duration as the kernel arms it: rounded up to whole jiffies.
pub fn round_up(d: SimDuration) -> SimDuration {
    SimDuration(d.as_nanos().div_ceil(NANOS_PER_JIFFY) * NANOS_PER_JIFFY)
}

/// Linux `after(a, b)` on 32-bit clocks: `a` is later than `b` modulo 2^32.
pub fn after(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) > 0
}

/// Jiffies from `earlier` to `later` as the kernel's `(s32)(later - earlier)`.
pub fn elapsed(later: u32, earlier: u32) -> i32 {
    later.wrapping_sub(earlier) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_round_as_the_kernel() {
        // 1 ms = 1 jiffy at HZ 1000; 1 µs already rounds up to a whole jiffy.
        assert_eq!(jiffies(SimTime(2_999_999)), 2);
        assert_eq!(micros(SimTime(2_999_999)), 2999);
        assert_eq!(usecs_to_jiffies(0), 0);
        assert_eq!(usecs_to_jiffies(1), 1);
        assert_eq!(usecs_to_jiffies(1000), 1);
        assert_eq!(usecs_to_jiffies(1001), 2);
        assert_eq!(round_up(SimDuration(1)), SimDuration::from_millis(1));
        assert_eq!(round_up(SimDuration::from_millis(3)), SimDuration::from_millis(3));
        assert!(after(1, u32::MAX));
        assert_eq!(elapsed(1, u32::MAX), 2);
    }
}
