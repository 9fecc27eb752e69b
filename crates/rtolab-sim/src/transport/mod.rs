//! What runs on a host, as parts: one sans-IO interface (`Endpoint`) for every transport's
//! endpoint — a unit in, units out, and the time it next wants to be woken. TCP's endpoints
//! implement it as they are (the world still calls them directly on its hot path, for what
//! only TCP has: the receiver's delivered range, the sender's notes); the world drives a
//! datagram flow's source and sink through it (`world/datagrams.rs`); the next transport
//! over datagrams implements it for its two ends.
//!
//! Invariant of every implementation: it does no I/O and reads no clock. It acts only when
//! called, at the `now` it is given (never earlier than the previous call's), and everything
//! it sends is pushed to `out` in the order it is to leave.

pub mod datagram;
pub mod jitter;
pub mod tcp;
pub mod udp;
pub mod udp_spec;

pub use datagram::Datagram;
pub use udp::{OnOff, UdpSink, UdpSource};
pub use udp_spec::UdpSpec;

use crate::time::SimTime;

/// One end of a transport, driven by its host.
pub trait Endpoint {
    /// What it exchanges with its peer: a TCP segment, a datagram.
    type Unit;
    /// `unit` from the peer arrived at `now`; what the endpoint sends in answer goes to `out`.
    fn receive(&mut self, now: SimTime, unit: &Self::Unit, out: &mut Vec<Self::Unit>);
    /// The time `next_wakeup` named has come (the host may call late, never early).
    fn wake(&mut self, now: SimTime, out: &mut Vec<Self::Unit>);
    /// When it next wants `wake`; `None` while it waits only for the peer.
    fn next_wakeup(&self) -> Option<SimTime>;
}

/// Runs two endpoints against each other over a lossless path of fixed one-way `delay`,
/// through `Endpoint` alone, until neither has anything to do or `until` passes: the
/// interface's own check that an endpoint needs nothing else from its host. Returns the
/// units each side received, in order, with their arrival times.
#[cfg(test)]
pub fn exchange<A, B, U>(a: &mut A, b: &mut B, first: Vec<U>, delay: crate::time::SimDuration, until: SimTime) -> (Vec<(SimTime, U)>, Vec<(SimTime, U)>)
where
    A: Endpoint<Unit = U>,
    B: Endpoint<Unit = U>,
    U: Clone,
{
    // In flight: (arrival, order, to_b, unit), delivered in arrival order, ties by order.
    let mut wire: Vec<(SimTime, u64, bool, U)> = first.into_iter().enumerate().map(|(i, u)| (SimTime::ZERO + delay, i as u64, true, u)).collect();
    let mut order = wire.len() as u64;
    let (mut at_a, mut at_b) = (Vec::new(), Vec::new());
    let mut out = Vec::new();
    loop {
        let next_unit = wire.iter().enumerate().min_by_key(|(_, w)| (w.0, w.1)).map(|(i, w)| (w.0, i));
        let next_wake = [a.next_wakeup().map(|t| (t, true)), b.next_wakeup().map(|t| (t, false))].into_iter().flatten().min_by_key(|w| w.0);
        let now = match (next_unit, next_wake) {
            (Some((t, i)), w) if w.is_none_or(|w| t <= w.0) => {
                let (_, _, to_b, unit) = wire.swap_remove(i);
                if to_b {
                    b.receive(t, &unit, &mut out);
                    at_b.push((t, unit));
                } else {
                    a.receive(t, &unit, &mut out);
                    at_a.push((t, unit));
                }
                let from_b = to_b;
                for u in out.drain(..) {
                    wire.push((t + delay, order, !from_b, u));
                    order += 1;
                }
                t
            }
            (_, Some((t, is_a))) => {
                if is_a {
                    a.wake(t, &mut out);
                } else {
                    b.wake(t, &mut out);
                }
                for u in out.drain(..) {
                    wire.push((t + delay, order, is_a, u));
                    order += 1;
                }
                t
            }
            _ => break,
        };
        if now > until {
            break;
        }
    }
    (at_a, at_b)
}
