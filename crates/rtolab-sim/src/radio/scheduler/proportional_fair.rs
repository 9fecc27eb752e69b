//! Proportional fair (Jalali, Padovani and Pankaj, "Data throughput of CDMA-HDR", VTC 2000):
//! the user with the highest ratio of the rate it could get now to the rate it has been
//! getting goes first. The average is exponential over the window W (in TTIs):
//! R ← (1 − 1/W)·R + (1/W)·served, updated each TTI for every backlogged user of the cell.
//! Users with equal mean rates converge to equal shares of TTIs; a user on a momentary peak
//! of its own channel is preferred.

use super::Candidate;
use std::cmp::Ordering;

fn metric(c: &Candidate) -> f64 {
    c.block_bytes as f64 / c.average.max(f64::MIN_POSITIVE)
}

pub fn compare(a: &Candidate, b: &Candidate) -> Ordering {
    metric(b).total_cmp(&metric(a))
}

/// One TTI of the exponential average: `served` bytes this TTI over a window of `window`
/// TTIs.
pub fn update_average(average: f64, served: u32, window: f64) -> f64 {
    average + (served as f64 - average) / window
}

#[cfg(test)]
mod tests {
    use super::super::{candidate, rank};
    use super::*;
    use crate::radio::radio_spec::SchedulerKind;

    /// Two users with the same rate but one starting far ahead in its average: PF serves
    /// the one behind until the averages meet — with a window of W = 1000 TTIs, when
    /// 0.999^n = 1 − 0.999^n, n = ln 2 / −ln 0.999 = 693 TTIs — then they alternate. After a
    /// warm-up of 2000 TTIs, the next 18 000 split equally within 0.1 %.
    #[test]
    fn equal_rates_converge_to_equal_time_shares() {
        let mut users = [candidate(0, 5.0, 1080), candidate(1, 5.0, 1080)];
        users[0].average = 1080.0;
        let mut served = [0u64; 2];
        let mut catch_up = None;
        for tti in 0..20_000 {
            let mut c = users;
            rank(SchedulerKind::Pf, &mut c, 1);
            let first = c[0].ue as usize;
            if first == 0 && catch_up.is_none() {
                catch_up = Some(tti);
            }
            if tti >= 2000 {
                served[first] += 1;
            }
            for u in &mut users {
                let bytes = if u.ue as usize == first { u.block_bytes } else { 0 };
                u.average = update_average(u.average, bytes, 1000.0);
            }
        }
        assert!(catch_up.is_some_and(|n| (690..=697).contains(&n)), "user 1 alone for {catch_up:?} TTIs");
        let share = served[0] as f64 / 18_000.0;
        assert!((share - 0.5).abs() < 0.001, "{served:?}");
    }

    /// A user whose instantaneous rate is twice its average beats one at its average.
    #[test]
    fn a_user_at_a_peak_of_its_own_channel_goes_first() {
        let mut c = [candidate(0, 9.0, 1800), candidate(1, 0.5, 720)];
        c[0].average = 1800.0; // ratio 1
        c[1].average = 360.0; // ratio 2
        rank(SchedulerKind::Pf, &mut c, 1);
        assert_eq!(c[0].ue, 1);
    }

    /// The average of a constant stream of b bytes approaches b: after n TTIs it is
    /// b·(1 − (1 − 1/W)^n); W = 10, n = 10 gives 1 − 0.9^10 = 0.6513.
    #[test]
    fn average_follows_the_exponential_law() {
        let mut r = 0.0;
        for _ in 0..10 {
            r = update_average(r, 1000, 10.0);
        }
        assert!((r - 651.3215599).abs() < 1e-6, "{r}");
    }
}
