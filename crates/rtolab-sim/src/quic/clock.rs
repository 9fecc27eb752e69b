//! Simulated time as the `Instant`s quinn-proto reads: one fixed base, taken once per
//! process, plus the simulated time. quinn-proto only subtracts and compares its instants,
//! so where the base lies changes nothing it computes (invariant: `to_sim(at(t)) == t`).

use crate::time::{SimDuration, SimTime};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

fn base() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

/// The instant of simulated time `t`.
pub fn at(t: SimTime) -> Instant {
    base() + Duration::from_nanos(t.since(SimTime::ZERO).as_nanos())
}

/// The simulated time of `instant` (one `at` made), to the nanosecond.
pub fn to_sim(instant: Instant) -> SimTime {
    let d = instant.saturating_duration_since(base());
    SimTime::ZERO + SimDuration::from_nanos(d.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_to_the_nanosecond() {
        for ns in [0u64, 1, 999_999_999, 86_400_000_000_123] {
            let t = SimTime::ZERO + SimDuration::from_nanos(ns);
            assert_eq!(to_sim(at(t)), t);
        }
    }
}
