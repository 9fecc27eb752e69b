//! RFC 3550 §6.4.1's interarrival jitter: the mean deviation of the difference in transit
//! time between consecutive datagrams, smoothed with gain 1/16.

use crate::time::SimTime;

/// The estimator, in seconds.
///
/// For datagrams i and j (consecutive in arrival order) sent at S and received at R,
/// D(i, j) = (Rj − Ri) − (Sj − Si) = (Rj − Sj) − (Ri − Si), and
/// J(j) = J(i) + (|D(i, j)| − J(i)) / 16 (§6.4.1), starting from J = 0 at the first arrival.
/// Invariant: `jitter` is 0 while every transit time is equal.
#[derive(Clone, Copy, Debug, Default)]
pub struct InterarrivalJitter {
    last_transit_ns: Option<i128>,
    jitter_s: f64,
}

impl InterarrivalJitter {
    /// A datagram sent at `sent_at` arrived at `now`.
    pub fn arrived(&mut self, sent_at: SimTime, now: SimTime) {
        let transit = now.0 as i128 - sent_at.0 as i128;
        if let Some(last) = self.last_transit_ns {
            let d = (transit - last).unsigned_abs() as f64 * 1e-9;
            self.jitter_s += (d - self.jitter_s) / 16.0;
        }
        self.last_transit_ns = Some(transit);
    }

    pub fn jitter_s(&self) -> f64 {
        self.jitter_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime(v * 1_000_000)
    }

    /// Equal transit times: no jitter, however long the spacing.
    #[test]
    fn constant_transit_is_no_jitter() {
        let mut j = InterarrivalJitter::default();
        for k in 0..100 {
            j.arrived(ms(20 * k), ms(20 * k + 40));
        }
        assert_eq!(j.jitter_s(), 0.0);
    }

    /// Transits 40, 50, 40 ms: D = 10 ms twice. By hand from §6.4.1:
    /// J = 0 + (0.010 − 0)/16 = 0.000625; J = 0.000625 + (0.010 − 0.000625)/16 = 0.00121094.
    #[test]
    fn steps_follow_the_rfc_recursion() {
        let mut j = InterarrivalJitter::default();
        j.arrived(ms(0), ms(40));
        j.arrived(ms(20), ms(70));
        assert!((j.jitter_s() - 0.000625).abs() < 1e-12);
        j.arrived(ms(40), ms(80));
        assert!((j.jitter_s() - (0.000625 + (0.010 - 0.000625) / 16.0)).abs() < 1e-12);
    }

    /// Alternating transits a and a + d converge to d (the mean of |D| = d).
    #[test]
    fn alternating_transit_converges_to_its_step() {
        let mut j = InterarrivalJitter::default();
        for k in 0..400 {
            j.arrived(ms(20 * k), ms(20 * k + 40 + 10 * (k % 2)));
        }
        assert!((j.jitter_s() - 0.010).abs() < 1e-9, "{}", j.jitter_s());
    }
}
