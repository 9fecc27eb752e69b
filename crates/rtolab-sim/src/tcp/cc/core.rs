//! The window arithmetic every loss-based algorithm shares (RFC 5681).

/// Congestion window and slow-start threshold, in bytes.
///
/// Invariant: `cwnd >= mss` at all times (RFC 5681 never goes below one segment).
#[derive(Clone, Debug)]
pub struct WindowCore {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    /// Bytes acknowledged in congestion avoidance not yet turned into window growth.
    ca_credit: u64,
}

impl WindowCore {
    /// RFC 5681 (3.1): ssthresh starts arbitrarily high.
    pub fn new(mss: u32, initial_window: u64) -> Self {
        let mss = mss as u64;
        WindowCore { cwnd: initial_window.max(mss), ssthresh: u64::MAX / 4, mss, ca_credit: 0 }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// RFC 5681 (2): cwnd += min(N, SMSS) per ACK in slow start.
    pub fn slow_start(&mut self, acked: u64) {
        self.cwnd += acked.min(self.mss);
    }

    /// Appropriate byte counting in congestion avoidance (RFC 5681, 3.1 / RFC 3465): one SMSS
    /// of growth per cwnd of acknowledged bytes.
    pub fn congestion_avoidance(&mut self, acked: u64) {
        self.ca_credit += acked;
        if self.ca_credit >= self.cwnd {
            self.ca_credit -= self.cwnd;
            self.cwnd += self.mss;
        }
    }

    /// RFC 5681 (4): ssthresh = max(FlightSize / 2, 2·SMSS).
    pub fn halve_flight(&mut self, flight: u64) {
        self.ssthresh = (flight / 2).max(2 * self.mss);
    }

    pub fn set_cwnd(&mut self, bytes: u64) {
        self.cwnd = bytes.max(self.mss);
        self.ca_credit = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_doubles_per_window_and_ca_adds_one_mss_per_window() {
        let mut w = WindowCore::new(1000, 2000);
        // one window of ACKs, one per segment: 2000 → 4000
        w.slow_start(1000);
        w.slow_start(1000);
        assert_eq!(w.cwnd, 4000);
        w.ssthresh = 4000;
        for _ in 0..4 {
            w.congestion_avoidance(1000);
        }
        assert_eq!(w.cwnd, 5000);
    }

    #[test]
    fn loss_halves_flight_with_two_segment_floor() {
        let mut w = WindowCore::new(1000, 10_000);
        w.halve_flight(10_000);
        assert_eq!(w.ssthresh, 5000);
        w.halve_flight(1000);
        assert_eq!(w.ssthresh, 2000);
    }
}
