//! Control of a running simulation from another thread: an interrupt flag the event loop
//! polls, and the progress it publishes (simulated time reached, events processed).
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

    /// Publishes progress; true when the run must stop.
    #[inline]
    pub(crate) fn poll(&self, now: SimTime, events: u64) -> bool {
        self.now_ns.store(now.0, Ordering::Relaxed);
        self.events.store(events, Ordering::Relaxed);
        self.interrupt.load(Ordering::Relaxed)
    }
}
