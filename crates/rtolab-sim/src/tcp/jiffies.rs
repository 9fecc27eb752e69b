//! Linux's clocks, derived from simulated time: `tcp_jiffies32` (ticks of 1/HZ s, 32 bits,
//! wrapping) and `tcp_mstamp` truncated to 32 bits (µs, what `bictcp_clock_us` returns),
//! read by the congestion controls; and the rounding of timer durations up to whole jiffies
//! (`usecs_to_jiffies`), which the RTO, the loss probe and RACK's re-check go through.
//!
//! HZ is 250, so a jiffy is 4 ms: the kernel of the reference results in `docs/validation.md`
//! (6.18.44) is built with `CONFIG_HZ=250`, as are most distribution kernels. CUBIC's epoch
//! clock, its `HZ / 32` update interval, Westwood's 50 ms window and the timers move in steps
//! of 4 ms. `HZ` below is the one place to change that.
//!
//! The kernel's TCP timers (retransmission, loss probe, RACK re-check, delayed ACK) are
//! `timer_list`s on the timer wheel (`kernel/time/timer.c`), and the wheel never fires a timer
//! early: [`timer_fires`] says when one armed at a given time runs, which is up to one jiffy
//! later than its expiry for timeouts below 63 jiffies and up to 8 jiffies (32 ms) later for
//! timeouts of 63 to 503 jiffies (most RTOs). Where the expiry falls between ticks depends on
//! the phase of the jiffies clock against the connection's events, which a real host does not
//! choose: [`Wheel`] carries that phase. The congestion controls' clock ([`jiffies`]) keeps
//! phase 0: it only measures spans, where the phase moves a reading by less than a jiffy.

use crate::time::{SimDuration, SimTime};

/// Clock ticks per second (`CONFIG_HZ`).
pub const HZ: u32 = 250;

const NANOS_PER_JIFFY: u64 = 1_000_000_000 / HZ as u64;
/// One jiffy.
pub const JIFFY: SimDuration = SimDuration(NANOS_PER_JIFFY);
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

/// The kernel's timer wheel as a connection's timers see it: `phase` is the jiffies clock's
/// reading at simulated time 0, in nanoseconds (it ticks at `k / HZ − phase`): where a tick
/// falls, and where each level's coarser buckets begin. Below 2^32 jiffies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wheel {
    pub phase: SimDuration,
}

/// Wheel levels: `LVL_CLK_SHIFT` 3 (each level 8 times coarser), `LVL_BITS` 6 (64 buckets),
/// `LVL_DEPTH` 9 for HZ > 100.
const LVL_CLK_SHIFT: u32 = 3;
const LVL_SIZE: u64 = 64;
const LVL_DEPTH: u32 = 9;

impl Wheel {
    /// When a `timer_list` armed at `now` to expire `timeout` later (rounded up to whole
    /// jiffies, as the TCP timers' `usecs_to_jiffies` does) runs. `kernel/time/timer.c`
    /// `calc_wheel_index`: the level is the first whose range holds the delta (level n ≥ 1
    /// from `LVL_START(n)` = 63 · 8^(n−1) jiffies); `calc_index`: the expiry jiffy is rounded
    /// up to the next multiple of the level's granularity 8^n, strictly above it ("a timer
    /// does not fire early": armed at the edge of a tick, or truncated by an outer level).
    /// The wheel's clock is taken as the current jiffy (`forward_timer_base`).
    pub fn timer_fires(&self, now: SimTime, timeout: SimDuration) -> SimTime {
        let j = (now.0 + self.phase.0) / NANOS_PER_JIFFY;
        let delta = timeout.as_nanos().div_ceil(NANOS_PER_JIFFY);
        // `LVL_START(n)`: the smallest delta that goes to level n.
        let lvl_start = |n: u32| (LVL_SIZE - 1) << ((n - 1) * LVL_CLK_SHIFT);
        let mut lvl = 0;
        while lvl + 1 < LVL_DEPTH && delta >= lvl_start(lvl + 1) {
            lvl += 1;
        }
        let shift = lvl * LVL_CLK_SHIFT;
        let bucket = (((j + delta) >> shift) + 1) << shift;
        SimTime(bucket * NANOS_PER_JIFFY - self.phase.0)
    }
}

/// When a timer armed at `now` to expire after `timeout` fires: on the kernel's timer wheel
/// when the stack has one ([`Wheel::timer_fires`]), else exactly then.
pub fn fire_at(wheel: Option<Wheel>, now: SimTime, timeout: SimDuration) -> SimTime {
    match wheel {
        Some(w) => w.timer_fires(now, timeout),
        None => now + timeout,
    }
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
        // 4 ms = 1 jiffy at HZ 250; 1 µs already rounds up to a whole jiffy.
        assert_eq!(jiffies(SimTime(11_999_999)), 2);
        assert_eq!(micros(SimTime(2_999_999)), 2999);
        assert_eq!(usecs_to_jiffies(0), 0);
        assert_eq!(usecs_to_jiffies(1), 1);
        assert_eq!(usecs_to_jiffies(4000), 1);
        assert_eq!(usecs_to_jiffies(4001), 2);
        assert_eq!(round_up(SimDuration(1)), SimDuration::from_millis(4));
        assert_eq!(round_up(SimDuration::from_millis(8)), SimDuration::from_millis(8));
        assert!(after(1, u32::MAX));
        assert_eq!(elapsed(1, u32::MAX), 2);
    }

    fn ms(v: u64) -> SimTime {
        SimTime(v * 1_000_000)
    }

    /// `calc_wheel_index` at HZ 250 (4 ms jiffies), phase 0. Armed at 10 ms (jiffy 2):
    /// - 120 ms = 30 jiffies → level 0, expiry jiffy 32, bucket 33: 132 ms (2 ms late);
    /// - 268 ms = 67 jiffies → level 1 (≥ 63), expiry 69, bucket (69 >> 3) + 1 = 9 → 72:
    ///   288 ms (10 ms late); 62 jiffies (248 ms) stays on level 0: jiffy 65, 260 ms;
    /// - 3 s = 750 jiffies → level 2 (≥ 504), expiry 752, bucket ((752 >> 6) + 1) << 6 =
    ///   768: 3.072 s (62 ms late).
    ///
    /// A phase of 3 ms moves the ticks to 1, 5, 9 ms…: at 10 ms the jiffy is 3 (13 ms),
    /// 30 jiffies expire at 33 and run at 34, which is 136 − 3 = 133 ms.
    #[test]
    fn the_timer_wheel_rounds_expiries_up_by_its_level() {
        let w = Wheel::default();
        let d = SimDuration::from_millis;
        assert_eq!(w.timer_fires(ms(10), d(120)), ms(132));
        assert_eq!(w.timer_fires(ms(10), d(268)), ms(288));
        assert_eq!(w.timer_fires(ms(10), d(248)), ms(260));
        assert_eq!(w.timer_fires(ms(10), d(3000)), ms(3072));
        let shifted = Wheel { phase: d(3) };
        assert_eq!(shifted.timer_fires(ms(10), d(120)), ms(133));
        // Never early, whatever the phase: within (timeout, timeout + granularity].
        for p in 0..4 {
            let w = Wheel { phase: d(p) };
            let t = w.timer_fires(ms(10), d(120));
            assert!(t > ms(130) && t <= ms(134), "{t:?}");
        }
    }
}
