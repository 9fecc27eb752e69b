//! The windows and ACKs that the window-reducing recoveries' tests (`prr.rs`,
//! `rate_halving.rs`) feed them, in segments of 1000 bytes.

use super::{Reduction, Window};

pub const MSS: u64 = 1000;

/// cwnd and ssthresh in segments, nothing in flight.
pub fn w(cwnd: u64, ssthresh: u64) -> Window {
    Window { cwnd: cwnd * MSS, ssthresh: ssthresh * MSS, mss: MSS, flight: 0 }
}

/// An ACK in recovery that delivered `delivered` segments and left `pipe` in flight, with
/// the controller's floor (`cwnd_min`) at `floor` segments; no other news.
pub fn reduction(delivered: u64, pipe: u64, floor: u64) -> Reduction {
    Reduction { delivered: delivered * MSS, pipe: pipe * MSS, una_advanced: false, newly_lost: false, dsack: false, cwnd_min: floor * MSS }
}
