//! The window arithmetic every loss-based algorithm shares (RFC 5681), in one of three
//! arithmetics: bytes (RFC 5681 with appropriate byte counting), ns-2's fractional packet
//! window (`cwnd_` a double, `window()` its integer part) or Linux's whole-packet window
//! (`net/ipv4/tcp_cong.c`).
//!
//! Invariant: `cwnd >= mss` at all times (RFC 5681 never goes below one segment); in the
//! ns-2 arithmetic `cwnd == floor(packets)·mss`; in the Linux arithmetic cwnd is a whole
//! number of segments and ssthresh is too, or infinite.

use super::Growth;

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
    /// Linux's packet-counted window (`tcp_cong.c`): cwnd and ssthresh in whole segments;
    /// slow start adds the segments an ACK delivered up to ssthresh and passes the rest on
    /// (`tcp_slow_start`); congestion avoidance adds one segment per `w` segments delivered,
    /// counted in `snd_cwnd_cnt` (`tcp_cong_avoid_ai`); Reno's ssthresh is half of cwnd, at
    /// least 2 (`tcp_reno_ssthresh`); an undo keeps the larger window
    /// (`tcp_undo_cwnd_reduction` with `tcp_reno_undo_cwnd`). With `ack_counting`
    /// (`WindowCore::with_ack_counting`) growth counts ACKs instead, as Linux 2.6.24 did.
    Linux,
}

/// Linux `TCP_INFINITE_SSTHRESH`, in segments.
const INFINITE_SSTHRESH_PACKETS: u32 = 0x7fff_ffff;
/// ssthresh before any reduction ("arbitrarily high", RFC 5681 3.1), in bytes.
const INFINITE_SSTHRESH: u64 = u64::MAX / 4;

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
    /// Segments delivered in congestion avoidance not yet turned into growth (Linux
    /// `snd_cwnd_cnt`); with `ack_counting`, ACKs (2.6.24's `snd_cwnd_cnt`).
    cwnd_cnt: u32,
    /// Linux 2.6.24's growth, `tcp_abc` 0: slow start and congestion avoidance count ACKs,
    /// not the segments they acknowledge (`slow_start_per_ack`, `cong_avoid_per_ack`).
    /// The controllers read it; only the Linux arithmetic has it.
    ack_counting: bool,
}

impl WindowCore {
    /// RFC 5681 (3.1): ssthresh starts arbitrarily high.
    pub fn new(mss: u32, initial_window: u64, arith: WindowArith) -> Self {
        let mss = mss as u64;
        let mut cwnd = initial_window.max(mss);
        if arith == WindowArith::Linux {
            cwnd = cwnd / mss * mss;
        }
        // ns-2 `reset()`: ssthresh_ = int(window_).
        let ssthresh = match arith {
            WindowArith::Ns2 { cap } if cap < u32::MAX => cap as u64 * mss,
            _ => INFINITE_SSTHRESH,
        };
        WindowCore { cwnd, ssthresh, mss, arith, ca_credit: 0, packets: (cwnd / mss) as f64, cwnd_cnt: 0, ack_counting: false }
    }

    /// The same window growing per ACK as Linux 2.6.24's did (`tcp_abc` 0), or per segment
    /// acknowledged as today's kernel's (the default). Read only in the Linux arithmetic.
    pub fn with_ack_counting(mut self, on: bool) -> Self {
        self.ack_counting = on;
        self
    }

    /// The same window in the Linux arithmetic, whatever it was built with: cwnd rounded down
    /// to whole segments, ssthresh infinite (Linux's controllers start from
    /// `TCP_INFINITE_SSTHRESH`, CUBIC's `initial_ssthresh` being 0); the ACK counting kept.
    pub fn into_linux(self) -> Self {
        WindowCore::new(self.mss as u32, self.cwnd, WindowArith::Linux).with_ack_counting(self.ack_counting)
    }

    pub fn is_linux(&self) -> bool {
        self.arith == WindowArith::Linux
    }

    /// The window grows per ACK, as Linux 2.6.24's (`with_ack_counting`).
    pub fn counts_acks(&self) -> bool {
        self.ack_counting
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// RFC 5681 (2): cwnd += min(N, SMSS) per ACK in slow start; ns-2: one packet per ACK;
    /// Linux: the segments acknowledged, up to ssthresh (`reno_cong_avoid` also passes the
    /// leftover on to congestion avoidance, as the kernel does).
    pub fn slow_start(&mut self, acked: u64) {
        match self.arith {
            WindowArith::Bytes => self.cwnd += acked.min(self.mss),
            WindowArith::Ns2 { .. } => self.set_packets(self.packets + 1.0),
            WindowArith::Linux => {
                self.slow_start_packets(acked.div_ceil(self.mss) as u32);
            }
        }
    }

    /// Congestion avoidance: one SMSS of growth per cwnd of acknowledged bytes (RFC 5681
    /// 3.1, byte counting per RFC 3465); ns-2: cwnd += 1/cwnd per new ACK; Linux:
    /// `tcp_cong_avoid_ai` with w = cwnd.
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
            WindowArith::Linux => {
                let w = self.cwnd_packets();
                self.cong_avoid_ai(w, acked.div_ceil(self.mss) as u32);
            }
        }
    }

    /// The multiplicative decrease: RFC 5681 (4) ssthresh = max(FlightSize / 2, 2·SMSS);
    /// ns-2 `slowdown`: ssthresh = max(int(min(cwnd, window_) / 2), 2) packets; Linux
    /// `tcp_reno_ssthresh`: max(cwnd / 2, 2) segments, from cwnd whatever is in flight.
    pub fn halve(&mut self, flight: u64) {
        self.ssthresh = match self.arith {
            WindowArith::Bytes => (flight / 2).max(2 * self.mss),
            WindowArith::Ns2 { cap } => ((self.packets.min(cap as f64) / 2.0) as u64).max(2) * self.mss,
            WindowArith::Linux => (self.cwnd_packets() / 2).max(2) as u64 * self.mss,
        };
    }

    /// A reduction begins (Linux `tcp_init_cwnd_reduction`): the congestion-avoidance count
    /// restarts. Only the Linux arithmetic keeps one.
    pub fn begin_reduction(&mut self) {
        self.cwnd_cnt = 0;
    }

    /// cwnd after a retransmission timeout: the loss window of one segment (RFC 5681 3.1;
    /// Linux `tcp_enter_loss`: packets in flight + 1 = 1 once everything is marked lost,
    /// `snd_cwnd_cnt` = 0).
    pub fn loss_window(&mut self) {
        let mss = self.mss;
        self.set_cwnd(mss);
        self.cwnd_cnt = 0;
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
            WindowArith::Bytes | WindowArith::Linux => self.set_cwnd(self.cwnd.saturating_sub(bytes)),
        }
    }

    /// Sets cwnd, at least one segment; Linux: whole segments (rounded down), and
    /// `snd_cwnd_cnt` is left alone as the kernel's window changes in recovery leave it.
    pub fn set_cwnd(&mut self, bytes: u64) {
        if self.arith == WindowArith::Linux {
            self.cwnd = (bytes / self.mss).max(1) * self.mss;
            return;
        }
        self.cwnd = bytes.max(self.mss);
        self.ca_credit = 0;
        self.packets = (self.cwnd / self.mss) as f64;
    }

    /// Sets ssthresh; Linux: whole segments (rounded down), or infinite.
    pub fn set_ssthresh(&mut self, bytes: u64) {
        self.ssthresh = match self.arith {
            WindowArith::Linux if bytes < INFINITE_SSTHRESH => bytes / self.mss * self.mss,
            _ => bytes,
        };
    }

    fn set_packets(&mut self, packets: f64) {
        self.packets = packets.max(1.0);
        self.cwnd = self.packets as u64 * self.mss;
    }

    /// Restores cwnd and ssthresh to no less than `prior`'s (Linux `tcp_undo_cwnd_reduction`
    /// with `tcp_reno_undo_cwnd`). In the Linux arithmetic the ssthresh restored is the one
    /// the kernel saved before the reduction, `prior_ssthresh = tcp_current_ssthresh()` =
    /// max(ssthresh, ¾·cwnd) of `prior` (taken in Open or Disorder), and `snd_cwnd_cnt`
    /// stays as it is.
    pub fn undo(&mut self, prior: &WindowCore) {
        if self.arith == WindowArith::Linux {
            let cwnd = self.cwnd_packets().max(prior.cwnd_packets());
            self.set_cwnd_packets(cwnd);
            let c = prior.cwnd_packets();
            let prior_ssthresh = prior.ssthresh_packets().max((c >> 1) + (c >> 2));
            if prior_ssthresh > self.ssthresh_packets() {
                self.set_ssthresh_packets(prior_ssthresh);
            }
            return;
        }
        if prior.cwnd > self.cwnd {
            self.cwnd = prior.cwnd;
            self.packets = prior.packets;
            self.ca_credit = prior.ca_credit;
        }
        self.ssthresh = self.ssthresh.max(prior.ssthresh);
    }
}

/// Linux's packet arithmetic (`net/ipv4/tcp_cong.c`), for the Linux arithmetic and for the
/// controllers that always use it.
impl WindowCore {
    /// `tcp_snd_cwnd`: cwnd in segments.
    pub fn cwnd_packets(&self) -> u32 {
        (self.cwnd / self.mss).min(u32::MAX as u64) as u32
    }

    /// `snd_ssthresh` in segments (`TCP_INFINITE_SSTHRESH` before any reduction).
    pub fn ssthresh_packets(&self) -> u32 {
        if self.ssthresh >= INFINITE_SSTHRESH {
            return INFINITE_SSTHRESH_PACKETS;
        }
        (self.ssthresh / self.mss).min(INFINITE_SSTHRESH_PACKETS as u64) as u32
    }

    /// `tcp_snd_cwnd_set`: at least one segment.
    pub fn set_cwnd_packets(&mut self, packets: u32) {
        self.cwnd = packets.max(1) as u64 * self.mss;
        self.packets = packets.max(1) as f64;
    }

    pub fn set_ssthresh_packets(&mut self, packets: u32) {
        self.ssthresh = if packets >= INFINITE_SSTHRESH_PACKETS { INFINITE_SSTHRESH } else { packets as u64 * self.mss };
    }

    /// `tcp_slow_start`: cwnd = min(cwnd + acked, ssthresh); returns the segments left over
    /// for congestion avoidance (those beyond ssthresh). Outside slow start everything is
    /// left over (the kernel calls it only when cwnd < ssthresh).
    pub fn slow_start_packets(&mut self, acked: u32) -> u32 {
        let cwnd = self.cwnd_packets();
        if cwnd >= self.ssthresh_packets() {
            return acked;
        }
        let grown = cwnd.saturating_add(acked).min(self.ssthresh_packets());
        self.set_cwnd_packets(grown);
        acked - (grown - cwnd)
    }

    /// `tcp_cong_avoid_ai`: one segment per `w` segments delivered. Credit gathered under a
    /// smaller `w` than now is paid out first, one segment at once.
    pub fn cong_avoid_ai(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        let mut cwnd = self.cwnd_packets();
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            cwnd += delta;
        }
        self.set_cwnd_packets(cwnd);
    }

    /// `tcp_reno_cong_avoid` once the caller has checked `tcp_is_cwnd_limited`: slow start
    /// by the segments delivered, the leftover into congestion avoidance with w = cwnd
    /// (Reno's rule, linear).
    pub fn reno_cong_avoid(&mut self, acked: u32) -> Growth {
        let mut acked = acked;
        if self.in_slow_start() {
            acked = self.slow_start_packets(acked);
            if acked == 0 {
                return Growth::SlowStart;
            }
        }
        let w = self.cwnd_packets();
        self.cong_avoid_ai(w, acked);
        Growth::Avoidance { linear: true }
    }
}

/// Linux 2.6.24's growth per ACK (`net/ipv4/tcp_cong.c` of 2.6.24 with its defaults
/// `tcp_abc` 0 and `tcp_max_ssthresh` 0): every ACK that may grow the window counts once,
/// whatever it acknowledged; `snd_cwnd_cnt` counts ACKs. Later kernels count segments
/// (`tcp_slow_start` and `tcp_cong_avoid_ai` above).
impl WindowCore {
    /// 2.6.24's `tcp_slow_start`: `snd_cwnd_cnt` += cwnd, then while `snd_cwnd_cnt` ≥ cwnd,
    /// take cwnd off it and add a segment: one segment per ACK (more only if the count was
    /// left at or above a cwnd that has shrunk since). No cap at ssthresh.
    pub fn slow_start_per_ack(&mut self) {
        let mut cwnd = self.cwnd_packets();
        self.cwnd_cnt = self.cwnd_cnt.wrapping_add(cwnd);
        while self.cwnd_cnt >= cwnd {
            self.cwnd_cnt -= cwnd;
            cwnd += 1;
        }
        self.set_cwnd_packets(cwnd);
    }

    /// 2.6.24's congestion avoidance per ACK (`tcp_reno_cong_avoid` with `tcp_abc` 0, and
    /// `bictcp_cong_avoid` and CUBIC 2.1's with w = `cnt`): an ACK that finds
    /// `snd_cwnd_cnt` ≥ w adds a segment and restarts the count, any other counts itself:
    /// one segment per w + 1 ACKs.
    pub fn cong_avoid_per_ack(&mut self, w: u32) {
        if self.cwnd_cnt >= w {
            let cwnd = self.cwnd_packets();
            self.set_cwnd_packets(cwnd + 1);
            self.cwnd_cnt = 0;
        } else {
            self.cwnd_cnt += 1;
        }
    }

    /// 2.6.24's `tcp_reno_cong_avoid` once the caller has checked `tcp_is_cwnd_limited`:
    /// slow start while cwnd ≤ ssthresh (at cwnd = ssthresh too), else congestion avoidance
    /// with w = cwnd (Reno's rule, linear).
    pub fn reno_cong_avoid_per_ack(&mut self) -> Growth {
        let cwnd = self.cwnd_packets();
        if cwnd <= self.ssthresh_packets() {
            self.slow_start_per_ack();
            Growth::SlowStart
        } else {
            self.cong_avoid_per_ack(cwnd);
            Growth::Avoidance { linear: true }
        }
    }

    /// `snd_cwnd_cnt`.
    pub fn cwnd_cnt(&self) -> u32 {
        self.cwnd_cnt
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

    /// `tcp_cong_avoid_ai`: one segment per w delivered, several at once for a stretch ACK;
    /// credit gathered under a larger window (w 10, 9 counted) is paid out first when w has
    /// shrunk to 5: +1 and the count restarts, then the new segment counts.
    #[test]
    fn linux_congestion_avoidance_counts_segments() {
        let mut w = WindowCore::new(1000, 10_000, WindowArith::Linux);
        w.set_ssthresh(10_000);
        w.cong_avoid_ai(10, 9);
        assert_eq!((w.cwnd_packets(), w.cwnd_cnt), (10, 9));
        w.cong_avoid_ai(10, 23);
        assert_eq!((w.cwnd_packets(), w.cwnd_cnt), (13, 2));
        w.cwnd_cnt = 9;
        w.set_cwnd(5000);
        w.cong_avoid_ai(5, 1);
        assert_eq!((w.cwnd_packets(), w.cwnd_cnt), (6, 1));
    }

    /// `tcp_slow_start`: min(cwnd + acked, ssthresh), the rest returned: 9 + 3 with
    /// ssthresh 10 gives 10 and 2 left over.
    #[test]
    fn linux_slow_start_stops_at_ssthresh() {
        let mut w = WindowCore::new(1000, 9000, WindowArith::Linux);
        w.set_ssthresh(10_000);
        assert_eq!(w.slow_start_packets(3), 2);
        assert_eq!(w.cwnd, 10_000);
        assert_eq!(w.slow_start_packets(3), 3);
    }

    /// `tcp_reno_ssthresh` from cwnd, not flight: cwnd 20 with 8 in flight → 10; cwnd 3 → 2.
    /// Window and ssthresh stay whole segments.
    #[test]
    fn linux_halves_cwnd_in_whole_segments() {
        let mut w = WindowCore::new(1000, 20_500, WindowArith::Linux);
        assert_eq!(w.cwnd, 20_000);
        w.halve(8000);
        assert_eq!(w.ssthresh, 10_000);
        w.set_cwnd(3999);
        w.halve(3000);
        assert_eq!((w.cwnd, w.ssthresh), (3000, 2000));
        w.set_ssthresh(4500);
        assert_eq!(w.ssthresh, 4000);
    }

    /// Linux 2.6.24's `tcp_slow_start` (`tcp_abc` 0): `snd_cwnd_cnt` += cwnd, then a segment
    /// per cwnd counted, cwnd growing inside the loop. From a count of 0 that is one segment
    /// per ACK and the count stays 0: 10 → 15 in five ACKs whatever they acknowledge. A count
    /// left at 7 with cwnd 5: 7 + 5 = 12, −5 → 7 and cwnd 6, −6 → 1 and cwnd 7: two segments.
    #[test]
    fn linux_2_6_24_slow_start_adds_a_segment_per_ack() {
        let mut w = WindowCore::new(1000, 10_000, WindowArith::Linux).with_ack_counting(true);
        for _ in 0..5 {
            w.slow_start_per_ack();
        }
        assert_eq!((w.cwnd_packets(), w.cwnd_cnt), (15, 0));
        w.set_cwnd(5000);
        w.cwnd_cnt = 7;
        w.slow_start_per_ack();
        assert_eq!((w.cwnd_packets(), w.cwnd_cnt), (7, 1));
    }

    /// Linux 2.6.24's `tcp_reno_cong_avoid` (`tcp_abc` 0): slow start while cwnd ≤ ssthresh,
    /// so at cwnd = ssthresh = 10 one more ACK makes 11; then `snd_cwnd_cnt` counts ACKs and
    /// the ACK that finds it at cwnd adds a segment: the 12th ACK at cwnd 11, the 13th at 12.
    /// Today's `tcp_slow_start` stops at ssthresh.
    #[test]
    fn linux_2_6_24_congestion_avoidance_one_segment_per_cwnd_plus_one_acks() {
        let mut w = WindowCore::new(1000, 10_000, WindowArith::Linux).with_ack_counting(true);
        w.set_ssthresh(10_000);
        w.reno_cong_avoid_per_ack();
        assert_eq!((w.cwnd_packets(), w.cwnd_cnt), (11, 0));
        for i in 1..=11 {
            w.reno_cong_avoid_per_ack();
            assert_eq!((w.cwnd_packets(), w.cwnd_cnt), (11, i), "ACK {i}");
        }
        w.reno_cong_avoid_per_ack();
        assert_eq!((w.cwnd_packets(), w.cwnd_cnt), (12, 0));
        for _ in 0..12 {
            w.reno_cong_avoid_per_ack();
        }
        assert_eq!(w.cwnd_packets(), 12);
        w.reno_cong_avoid_per_ack();
        assert_eq!(w.cwnd_packets(), 13);

        let mut today = WindowCore::new(1000, 10_000, WindowArith::Linux);
        today.set_ssthresh(10_000);
        today.reno_cong_avoid(1);
        assert_eq!((today.cwnd_packets(), today.cwnd_cnt), (10, 1));
        // `into_linux` (the Linux controllers' constructors) keeps the counting.
        assert!(!today.into_linux().counts_acks() && w.into_linux().counts_acks());
    }

    /// `tcp_undo_cwnd_reduction`: cwnd max(10, 20) = 20; ssthresh max(10, prior_ssthresh)
    /// with prior_ssthresh = `tcp_current_ssthresh` = max(12, ⌊20/2⌋ + ⌊20/4⌋ = 15) = 15.
    #[test]
    fn linux_undo_restores_prior_window_and_current_ssthresh() {
        let mut w = WindowCore::new(1000, 20_000, WindowArith::Linux);
        w.set_ssthresh(12_000);
        let prior = w.clone();
        w.halve(0);
        w.set_cwnd(10_000);
        w.undo(&prior);
        assert_eq!((w.cwnd, w.ssthresh), (20_000, 15_000));
    }
}
