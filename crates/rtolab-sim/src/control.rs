//! Control of a running simulation from another thread: an interrupt flag the event loop
//! polls, and the progress it publishes (simulated time reached, events processed, and the
//! stop time when the scenario has one).
//!
//! Invariant: the loop touches the shared atomics only every `POLL_EVERY` events (a power of
//! two), so a run costs the same with or without a watcher, and stops within that many
//! events of `interrupt()`.

use crate::time::SimTime;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Events between two polls of the interrupt flag.
pub const POLL_EVERY: u64 = 4096;

#[derive(Debug, Default)]
pub struct RunControl {
    interrupt: AtomicBool,
    now_ns: AtomicU64,
    events: AtomicU64,
    /// The run's stop time in ns; 0 while unknown or when the run has none.
    end_ns: AtomicU64,
}

impl RunControl {
    /// Asks the run to stop at its next poll; it returns `SimError::Interrupted`.
    pub fn interrupt(&self) {
        self.interrupt.store(true, Ordering::Relaxed);
    }

    /// Simulated time reached and events processed at the last poll.
    pub fn progress(&self) -> (SimTime, u64) {
        (SimTime(self.now_ns.load(Ordering::Relaxed)), self.events.load(Ordering::Relaxed))
    }

    /// The run's stop time, if it has one (set by `run_with` before the world is built).
    pub fn end(&self) -> Option<SimTime> {
        Some(SimTime(self.end_ns.load(Ordering::Relaxed))).filter(|t| t.0 > 0)
    }

    pub fn set_end(&self, end: Option<SimTime>) {
        self.end_ns.store(end.map_or(0, |t| t.0), Ordering::Relaxed);
    }

    /// Publishes progress; true when the run must stop.
    #[inline]
    pub(crate) fn poll(&self, now: SimTime, events: u64) -> bool {
        self.now_ns.store(now.0, Ordering::Relaxed);
        self.events.store(events, Ordering::Relaxed);
        self.interrupt.load(Ordering::Relaxed)
    }
}
