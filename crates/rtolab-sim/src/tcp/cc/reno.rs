//! Reno/NewReno window growth and reduction (RFC 5681, 3.1–3.2). NewReno differs only in
//! how fast recovery treats partial ACKs (RFC 6582), which lives in the sender's recovery code.

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
    fn core(&self) -> &WindowCore {
        &self.core
    }
    fn core_mut(&mut self) -> &mut WindowCore {
        &mut self.core
    }
    fn on_ack(&mut self, ack: &AckSample) {
        if self.core.in_slow_start() {
            self.core.slow_start(ack.acked_bytes);
        } else {
            self.core.congestion_avoidance(ack.acked_bytes);
        }
    }
    fn on_congestion_event(&mut self, _now: SimTime, flight: u64) {
        self.core.halve_flight(flight);
    }
    /// RFC 5681 (4) and 3.1: "ssthresh is held constant" on a repeated timeout of the same
    /// segment; cwnd becomes the loss window, one SMSS.
    fn on_rto(&mut self, _now: SimTime, flight: u64, first_timeout: bool) {
        if first_timeout {
            self.core.halve_flight(flight);
        }
        let mss = self.core.mss;
        self.core.set_cwnd(mss);
    }
}
