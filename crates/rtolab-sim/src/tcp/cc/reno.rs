//! Reno window growth and reduction (RFC 5681, 3.1–3.2). How fast recovery treats partial
//! ACKs (Reno, NewReno, SACK) is loss recovery's business, not this file's.

use super::{AckSample, CongestionControl, WindowCore};
use crate::time::SimTime;

#[derive(Clone, Debug)]
pub struct Reno {
    core: WindowCore,
}

impl Reno {
    pub fn new(core: WindowCore) -> Self {
        Reno { core }
    }
}

impl CongestionControl for Reno {
    fn cwnd(&self) -> u64 {
        self.core.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.core.ssthresh
    }
    /// Grows only on new data acknowledged outside fast recovery, and only while the window
    /// limits the sender (RFC 7661; stacks without that rule pass `cwnd_limited = true`).
    fn on_ack(&mut self, ack: &AckSample) {
        if ack.acked_bytes == 0 || !ack.cwnd_limited || !ack.state.grows_window() {
            return;
        }
        if self.core.in_slow_start() {
            self.core.slow_start(ack.acked_bytes);
        } else {
            self.core.congestion_avoidance(ack.acked_bytes);
        }
    }
    fn on_congestion_event(&mut self, _now: SimTime, flight: u64) {
        self.core.halve(flight);
    }
    /// RFC 5681 (4) and 3.1: "ssthresh is held constant" on a repeated timeout of the same
    /// segment (ns-2 halves again); cwnd becomes the loss window, one SMSS.
    fn on_rto(&mut self, _now: SimTime, flight: u64, first_timeout: bool) {
        if first_timeout || self.core.halves_every_timeout() {
            self.core.halve(flight);
        }
        let mss = self.core.mss;
        self.core.set_cwnd(mss);
    }
    fn set_cwnd(&mut self, bytes: u64) {
        self.core.set_cwnd(bytes);
    }
    fn set_ssthresh(&mut self, bytes: u64) {
        self.core.set_ssthresh(bytes);
    }
    fn halve_window(&mut self) {
        self.core.halve_window();
    }
    fn shrink_window(&mut self, bytes: u64) {
        self.core.shrink(bytes);
    }
    fn undo(&mut self, prior: &Self) {
        self.core.undo(&prior.core);
    }
}
