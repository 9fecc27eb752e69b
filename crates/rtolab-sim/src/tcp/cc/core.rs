//! The window arithmetic every loss-based algorithm shares (RFC 5681), in one of two
//! arithmetics: bytes (RFC 5681 with appropriate byte counting, as real stacks) or ns-2's
//! fractional packet window (`cwnd_` a double, `window()` its integer part).
//!
//! Invariant: `cwnd >= mss` at all times (RFC 5681 never goes below one segment), and in the
//! ns-2 arithmetic `cwnd == floor(packets)·mss`.

/// How cwnd is counted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WindowArith {
    /// Bytes, RFC 5681 (2)/(3) with byte counting (RFC 3465).
    Bytes,
    /// ns-2's `TcpAgent`: cwnd in packets as a double; slow start adds one packet per new
    /// ACK, congestion avoidance 1/cwnd (`opencwnd`, `wnd_option_` 1); a reduction halves
    /// min(cwnd, `window_`) = `cap` packets and truncates to an integer, at least 2
    /// (`slowdown` with `CLOSE_SSTHRESH_HALF`).
    Ns2 { cap: u32 },
}

/// Congestion window and slow-start threshold, in bytes.
#[derive(Clone, Debug)]
pub struct WindowCore {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    arith: WindowArith,
    /// Bytes acknowledged in congestion avoidance not yet turned into growth (bytes arith).
    ca_credit: u64,
    /// The window in packets (ns-2 arithmetic).
    packets: f64,
}

impl WindowCore {
    /// RFC 5681 (3.1): ssthresh starts arbitrarily high.
    pub fn new(mss: u32, initial_window: u64, arith: WindowArith) -> Self {
        let mss = mss as u64;
        let cwnd = initial_window.max(mss);
        // ns-2 `reset()`: ssthresh_ = int(window_).
        let ssthresh = match arith {
            WindowArith::Ns2 { cap } if cap < u32::MAX => cap as u64 * mss,
            _ => u64::MAX / 4,
        };
        WindowCore { cwnd, ssthresh, mss, arith, ca_credit: 0, packets: (cwnd / mss) as f64 }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// RFC 5681 (2): cwnd += min(N, SMSS) per ACK in slow start; ns-2: one packet per ACK.
    pub fn slow_start(&mut self, acked: u64) {
        match self.arith {
            WindowArith::Bytes => self.cwnd += acked.min(self.mss),
            WindowArith::Ns2 { .. } => self.set_packets(self.packets + 1.0),
        }
    }

    /// Congestion avoidance: one SMSS of growth per cwnd of acknowledged bytes (RFC 5681
    /// 3.1, byte counting per RFC 3465); ns-2: cwnd += 1/cwnd per new ACK.
    pub fn congestion_avoidance(&mut self, acked: u64) {
        match self.arith {
            WindowArith::Bytes => {
                self.ca_credit += acked;
                if self.ca_credit >= self.cwnd {
                    self.ca_credit -= self.cwnd;
                    self.cwnd += self.mss;
                }
            }
            WindowArith::Ns2 { .. } => self.set_packets(self.packets + 1.0 / self.packets),
        }
    }

    /// The multiplicative decrease: RFC 5681 (4) ssthresh = max(FlightSize / 2, 2·SMSS);
    /// ns-2 `slowdown`: ssthresh = max(int(min(cwnd, window_) / 2), 2) packets.
    pub fn halve(&mut self, flight: u64) {
        self.ssthresh = match self.arith {
            WindowArith::Bytes => (flight / 2).max(2 * self.mss),
            WindowArith::Ns2 { cap } => ((self.packets.min(cap as f64) / 2.0) as u64).max(2) * self.mss,
        };
    }

    /// ns-2 halves on every timeout (`slowdown` with `CLOSE_SSTHRESH_HALF` in `timeout()`),
    /// where RFC 5681 (4) holds ssthresh on a repeated timeout of the same segment.
    pub fn halves_every_timeout(&self) -> bool {
        matches!(self.arith, WindowArith::Ns2 { .. })
    }

    /// ns-2 `slowdown(CLOSE_CWND_HALF)`: cwnd = min(cwnd, window_)/2 as a double (the
    /// fraction kept for later growth).
    pub fn halve_window(&mut self) {
        if let WindowArith::Ns2 { cap } = self.arith {
            self.set_packets(self.packets.min(cap as f64) / 2.0);
        } else {
            self.set_cwnd(self.ssthresh);
        }
    }

    /// Takes `bytes` off cwnd (at least one segment stays); in the ns-2 arithmetic the
    /// fraction of the packet window is kept (`cwnd_ -= deflate`).
    pub fn shrink(&mut self, bytes: u64) {
        match self.arith {
            WindowArith::Ns2 { .. } => self.set_packets(self.packets - (bytes / self.mss) as f64),
            WindowArith::Bytes => self.set_cwnd(self.cwnd.saturating_sub(bytes)),
        }
    }

    pub fn set_cwnd(&mut self, bytes: u64) {
        self.cwnd = bytes.max(self.mss);
        self.ca_credit = 0;
        self.packets = (self.cwnd / self.mss) as f64;
    }

    pub fn set_ssthresh(&mut self, bytes: u64) {
        self.ssthresh = bytes;
    }

    fn set_packets(&mut self, packets: f64) {
        self.packets = packets.max(1.0);
        self.cwnd = self.packets as u64 * self.mss;
    }

    /// Restores cwnd and ssthresh to no less than `prior`'s (Linux `tcp_undo_cwnd_reduction`
    /// with `tcp_reno_undo_cwnd`).
    pub fn undo(&mut self, prior: &WindowCore) {
        if prior.cwnd > self.cwnd {
            self.cwnd = prior.cwnd;
            self.packets = prior.packets;
            self.ca_credit = prior.ca_credit;
        }
        self.ssthresh = self.ssthresh.max(prior.ssthresh);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_doubles_per_window_and_ca_adds_one_mss_per_window() {
        let mut w = WindowCore::new(1000, 2000, WindowArith::Bytes);
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
        let mut w = WindowCore::new(1000, 10_000, WindowArith::Bytes);
        w.halve(10_000);
        assert_eq!(w.ssthresh, 5000);
        w.halve(1000);
        assert_eq!(w.ssthresh, 2000);
    }

    /// ns-2 arithmetic by hand: from 2 packets, CA adds 1/2, then 1/2.5 = 0.4: 2.9 packets,
    /// so the usable window stays 2 packets; one more ACK (+1/2.9 = 0.345) crosses 3.
    #[test]
    fn ns2_window_grows_by_one_over_cwnd_and_truncates() {
        let mut w = WindowCore::new(1000, 2000, WindowArith::Ns2 { cap: 3 });
        w.ssthresh = 2000;
        w.congestion_avoidance(1000);
        w.congestion_avoidance(1000);
        assert_eq!(w.cwnd, 2000);
        w.congestion_avoidance(1000);
        assert_eq!(w.cwnd, 3000);
        // halving uses min(cwnd, window_ = 3) = 3 → int(1.5) = 1 → floor of 2 packets
        w.halve(0);
        assert_eq!(w.ssthresh, 2000);
    }
}
