//! Movement of a mobile user during a transfer.
//!
//! Paper 000, Sec. 3.1: users start uniformly over the seven-cell plan; "During a transfer a
//! mobile node moves with a speed drawn from a low-speed mobility model. All directions are
//! equally likely to be taken when beginning a new transfer. Wrap-around is supported both
//! for the moving users and interference calculations." and "The mobile node is also moved
//! to a new position each time it starts a new transfer."
//!
//! Model: at each (re)placement the user gets a position uniform over the cluster and a
//! direction uniform in [0, 2π); it then moves in a straight line at the caller's constant
//! speed, and its position is wrapped into the cluster (a torus), so it never leaves. Positions
//! are computed from the placement instant, not integrated step by step, so they do not
//! accumulate rounding error. Invariant: `position` is always inside the cluster and moves
//! continuously in wrap-around distance (by at most speed·Δt in Δt).

use super::geometry::{Layout, Point};
use crate::time::SimTime;
use rand::Rng;
use std::f64::consts::TAU;

/// A user's straight-line, constant-speed movement since its last placement.
#[derive(Clone, Debug, PartialEq)]
pub struct Mobility {
    start: Point,
    /// Metres per second, (east, north).
    velocity: (f64, f64),
    /// The velocity's length, computed once at placement (every TTI asks for it).
    speed: f64,
    since: SimTime,
}

impl Mobility {
    /// A user placed uniformly over `layout` at `now`, moving at `speed_mps` (≥ 0, finite) in a
    /// uniformly drawn direction. Draws the position first, then the direction.
    pub fn place<R: Rng + ?Sized>(layout: &Layout, rng: &mut R, speed_mps: f64, now: SimTime) -> Self {
        let start = layout.uniform_point(rng);
        let heading = rng.random::<f64>() * TAU;
        Mobility::moving(start, (speed_mps * heading.cos(), speed_mps * heading.sin()), now)
    }

    /// A user at `start` at `since`, moving at `velocity` (metres per second, east and north).
    fn moving(start: Point, velocity: (f64, f64), since: SimTime) -> Self {
        Mobility { start, velocity, speed: velocity.0.hypot(velocity.1), since }
    }

    /// Moves the user to a fresh uniform position and direction at `now` (a new transfer).
    pub fn restart<R: Rng + ?Sized>(&mut self, layout: &Layout, rng: &mut R, speed_mps: f64, now: SimTime) {
        *self = Mobility::place(layout, rng, speed_mps, now);
    }

    /// Position at `now`, wrapped into the cluster; instants before the placement give the
    /// starting point.
    pub fn position(&self, layout: &Layout, now: SimTime) -> Point {
        let t = now.since(self.since).as_secs_f64();
        layout.wrap(self.start + Point::new(self.velocity.0, self.velocity.1) * t)
    }

    /// Metres travelled between `from` and `to` (zero if `to` is not after `from`).
    pub fn travelled(&self, from: SimTime, to: SimTime) -> f64 {
        self.speed() * to.since(from).as_secs_f64()
    }

    /// Speed in metres per second.
    pub fn speed(&self) -> f64 {
        self.speed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    const R: f64 = 500.0;

    fn layout() -> Layout {
        Layout::hexagonal(7, R).expect("valid layout")
    }

    fn at(start: Point, velocity: (f64, f64), since: SimTime) -> Mobility {
        Mobility::moving(start, velocity, since)
    }

    #[test]
    fn walks_in_a_straight_line() {
        // 1 m/s east from (10, 20) at t = 5 s: at t = 15 s it is at (20, 20), 10 m travelled.
        let l = layout();
        let m = at(Point::new(10.0, 20.0), (1.0, 0.0), SimTime::ZERO + SimDuration::from_secs(5));
        let p = m.position(&l, SimTime::ZERO + SimDuration::from_secs(15));
        assert!((p - Point::new(20.0, 20.0)).norm() < 1e-9, "{p:?}");
        let (from, to) = (SimTime::ZERO + SimDuration::from_secs(5), SimTime::ZERO + SimDuration::from_secs(15));
        assert!((m.travelled(from, to) - 10.0).abs() < 1e-9);
        assert_eq!(m.travelled(to, from), 0.0);
        // Before the placement the user is at its start.
        assert_eq!(m.position(&l, SimTime::ZERO), Point::new(10.0, 20.0));
    }

    #[test]
    fn wraps_around_continuously() {
        // From cell 1's centre (d, 0), 10 m/s east, the user reaches the cluster's east boundary
        // x = 1.5·d after 0.5·d / 10 = 43.30127 s and reappears about |T1| = √7·d = 2291 m away.
        let l = layout();
        let d = 3f64.sqrt() * R;
        let m = at(l.centre(1), (10.0, 0.0), SimTime::ZERO);
        let crossing_ms = (0.5 * d / 10.0 * 1000.0).floor() as u64;
        let before = m.position(&l, SimTime::ZERO + SimDuration::from_millis(crossing_ms));
        let after = m.position(&l, SimTime::ZERO + SimDuration::from_millis(crossing_ms + 1));
        assert!((before.x - 1.5 * d).abs() < 0.02, "{before:?}");
        assert!(before.distance(after) > 2000.0, "no jump: {before:?} {after:?}");
        assert!((l.wrap(after) - after).norm() < 1e-9);
        for c in 0..7 {
            // 10 m/s · 1 ms = 0.01 m.
            assert!((l.distance(before, c) - l.distance(after, c)).abs() <= 0.01 + 1e-9, "cell {c}");
        }
        // A long diagonal walk (1000 s at 10 m/s, many crossings): always inside, within R of
        // the serving base station, and every distance changes by at most 10 m/s · 0.1 s = 1 m.
        let m = at(l.centre(3), (10.0 * 0.3f64.cos(), 10.0 * 0.3f64.sin()), SimTime::ZERO);
        let mut prev = m.position(&l, SimTime::ZERO);
        for k in 1..=10_000 {
            let p = m.position(&l, SimTime::ZERO + SimDuration::from_millis(100 * k));
            assert!((l.wrap(p) - p).norm() < 1e-9 && l.distance(p, l.nearest_cell(p)) <= R + 1e-9, "{p:?}");
            for c in 0..7 {
                assert!((l.distance(prev, c) - l.distance(p, c)).abs() <= 1.0 + 1e-9, "step {k} cell {c}");
            }
            prev = p;
        }
    }

    #[test]
    fn directions_are_uniform() {
        // For a uniform heading θ, E[cos θ] = E[sin θ] = 0 and Var = 1/2, so the standard error
        // of each mean over n = 100 000 is √(0.5/n) = 0.00224; allow 5 of them.
        let l = layout();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let n = 100_000;
        let (mut sc, mut ss) = (0.0, 0.0);
        let mut m = Mobility::place(&l, &mut rng, 2.0, SimTime::ZERO);
        for _ in 0..n {
            m.restart(&l, &mut rng, 2.0, SimTime::ZERO);
            assert!((m.speed() - 2.0).abs() < 1e-12);
            (sc, ss) = (sc + m.velocity.0 / 2.0, ss + m.velocity.1 / 2.0);
        }
        let se = (0.5 / n as f64).sqrt();
        assert!((sc / n as f64).abs() < 5.0 * se && (ss / n as f64).abs() < 5.0 * se, "{sc} {ss}");
    }

    #[test]
    fn restart_moves_and_resets_the_clock() {
        // After a restart at t = 7 s the user is at its new start at t = 7 s, moving at 3 m/s.
        let l = layout();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
        let mut m = Mobility::place(&l, &mut rng, 1.0, SimTime::ZERO);
        let t7 = SimTime::ZERO + SimDuration::from_secs(7);
        m.restart(&l, &mut rng, 3.0, t7);
        assert_eq!(m.since, t7);
        assert_eq!(m.position(&l, t7), l.wrap(m.start));
        assert!((m.travelled(t7, t7 + SimDuration::from_secs(2)) - 6.0).abs() < 1e-9);
    }
}
