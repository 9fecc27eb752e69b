//! quinn's runtime for the emulator: tokio's (tasks, UDP sockets, clock) with timers of the
//! kernel's own resolution in place of tokio's.
//!
//! tokio's timer wheel ticks in milliseconds (`tokio::time`: "timers have a resolution of one
//! millisecond"), so each of quinn's timers — the delayed ACK, pacing, loss detection, PTO —
//! fires up to 1 ms after its deadline. That is not the simulator's quinn-proto, whose timers
//! fire at their deadline: with data arriving every 25.6 ms (1228 B at 384 kbit/s) and the
//! 25 ms ACK delay, a late timer lets a second packet in before the delayed ACK leaves, so the
//! client acknowledges every other packet where the simulator's acknowledges each. Here each
//! timer is a `timerfd` (timerfd_create(2), CLOCK_MONOTONIC, the clock `std::time::Instant`
//! reads on Linux) registered with tokio's reactor, so it wakes the runtime at its deadline
//! to the kernel's high-resolution timers.
//!
//! Invariant: a timer's `poll` is ready only once `Instant::now()` has reached its deadline;
//! the timerfd only wakes the task to look.

use quinn::{AsyncTimer, AsyncUdpSocket, Runtime, TokioRuntime};
use std::future::Future;
use std::io;
use nix::sys::time::TimeSpec;
use nix::sys::timerfd::{ClockId, Expiration, TimerFd, TimerFlags, TimerSetTimeFlags};
use std::os::fd::{AsFd, AsRawFd, RawFd};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

/// tokio's runtime with `FdTimer`s.
#[derive(Debug)]
pub struct PreciseRuntime;

impl Runtime for PreciseRuntime {
    /// A `timerfd` timer; tokio's own if the kernel will not make one (out of descriptors).
    fn new_timer(&self, at: Instant) -> Pin<Box<dyn AsyncTimer>> {
        match FdTimer::new(at) {
            Ok(t) => Box::pin(t),
            Err(_) => TokioRuntime.new_timer(at),
        }
    }

    fn spawn(&self, future: Pin<Box<dyn Future<Output = ()> + Send>>) {
        TokioRuntime.spawn(future)
    }

    fn wrap_udp_socket(&self, socket: std::net::UdpSocket) -> io::Result<Arc<dyn AsyncUdpSocket>> {
        TokioRuntime.wrap_udp_socket(socket)
    }

    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A one-shot timer on a non-blocking `timerfd`, re-armed by `reset`.
/// A timerfd (nix's `TimerFd`) as tokio's reactor takes it: a raw descriptor.
#[derive(Debug)]
struct Fd(TimerFd);

impl AsRawFd for Fd {
    fn as_raw_fd(&self) -> RawFd {
        self.0.as_fd().as_raw_fd()
    }
}

#[derive(Debug)]
pub struct FdTimer {
    fd: AsyncFd<Fd>,
    at: Instant,
}

impl FdTimer {
    pub fn new(at: Instant) -> io::Result<Self> {
        let timer = TimerFd::new(ClockId::CLOCK_MONOTONIC, TimerFlags::TFD_NONBLOCK | TimerFlags::TFD_CLOEXEC)?;
        // SAFETY: the `TimerFd` moves into the `AsyncFd`, so the descriptor stays open and the
        // same until the `AsyncFd` is dropped, as `register_with_interest` requires.
        let fd = unsafe { AsyncFd::register_with_interest(Fd(timer), Interest::READABLE) }?;
        let timer = FdTimer { fd, at };
        timer.arm()?;
        Ok(timer)
    }

    /// Arms the timerfd to expire at `self.at` (a deadline already past: in 1 ns, since a
    /// zero value would disarm it). timerfd_settime(2) also clears expirations not yet read.
    fn arm(&self) -> io::Result<()> {
        let left = self.at.saturating_duration_since(Instant::now()).max(Duration::from_nanos(1));
        self.fd.get_ref().0.set(Expiration::OneShot(TimeSpec::from_duration(left)), TimerSetTimeFlags::empty())?;
        Ok(())
    }
}

impl AsyncTimer for FdTimer {
    fn reset(self: Pin<&mut Self>, at: Instant) {
        let this = self.get_mut();
        this.at = at;
        // A descriptor that cannot be re-armed stays readable or not; `poll` still compares
        // the clock with the deadline, so the timer can only fire late, never early.
        let _ = this.arm();
    }

    fn poll(self: Pin<&mut Self>, cx: &mut Context) -> Poll<()> {
        let this = self.get_mut();
        loop {
            if Instant::now() >= this.at {
                return Poll::Ready(());
            }
            match this.fd.poll_read_ready(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(_)) => return Poll::Ready(()),
                Poll::Ready(Ok(mut guard)) => {
                    // Reads the expiration count so the descriptor is quiet again (non-blocking:
                    // nothing to read is EAGAIN, which changes nothing).
                    let _ = this.fd.get_ref().0.wait();
                    guard.clear_ready();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Twenty timers of 0.3 to 2.2 ms: none fires before its deadline, and the median is
    /// late by under 200 µs (tokio's millisecond wheel is late by half a millisecond on
    /// average); a reset moves the deadline.
    #[test]
    fn timers_fire_at_their_deadline_not_the_next_millisecond() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        rt.block_on(async {
            let mut late = Vec::new();
            for i in 0..20u64 {
                let at = Instant::now() + Duration::from_micros(300 + 97 * i);
                let mut timer = PreciseRuntime.new_timer(at);
                std::future::poll_fn(|cx| timer.as_mut().poll(cx)).await;
                late.push(Instant::now().duration_since(at));
            }
            late.sort();
            assert!(late[10] < Duration::from_micros(200), "median lateness {:?}", late[10]);
            let mut timer = PreciseRuntime.new_timer(Instant::now() + Duration::from_secs(60));
            let at = Instant::now() + Duration::from_micros(500);
            timer.as_mut().reset(at);
            std::future::poll_fn(|cx| timer.as_mut().poll(cx)).await;
            assert!(Instant::now() >= at && Instant::now().duration_since(at) < Duration::from_millis(50));
        });
    }
}
