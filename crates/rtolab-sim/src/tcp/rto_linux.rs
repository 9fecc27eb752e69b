//! Linux's retransmission timer (`net/ipv4/tcp_input.c`: `tcp_rtt_estimator`, `tcp_set_rto`;
//! `include/net/tcp.h`: `__tcp_set_rto`, `tcp_bound_rto`), in its integer microseconds.
//!
//! State: `srtt_us` holds 8·SRTT; `mdev_us` 4·mdev (Jacobson's mean deviation); `mdev_max_us`
//! the largest `mdev_us` of the current round trip, at least `rto_min`; `rttvar_us` the
//! variance term the RTO uses; `rtt_seq` the SND.NXT that ends the round trip.
//! - First sample m: SRTT = m, `mdev_us` = 2m, `rttvar_us` = `mdev_max_us` = max(2m, rto_min).
//! - Later samples: SRTT += (m − SRTT)/8. The error |m − SRTT| enters `mdev_us` with gain 1/4,
//!   but when the RTT fell (m < SRTT) with gain 1/32 (1/4 · 1/8, so a falling RTT neither
//!   inflates the RTO as RFC 6298 would nor shrinks it fast). A new round maximum raises
//!   `rttvar_us` at once; at the end of each round trip (SND.UNA past `rtt_seq`) `rttvar_us`
//!   moves a quarter of the way down to that round's maximum, and the maximum restarts at
//!   rto_min.
//! - RTO = SRTT + `rttvar_us`, rounded up to whole jiffies (`jiffies.rs`), at most `max_rto`.
//!   So RTO ≥ SRTT + rto_min always, and the variance term decays once per round trip, not
//!   per sample.
//!
//! Invariant: `rttvar_us ≥ rto_min` once a sample was taken.

use super::jiffies;
use crate::time::SimDuration;

/// Where the connection stands when a sample is taken (the round-trip boundary).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Round {
    pub snd_una: u64,
    /// The highest sequence number sent (Linux `snd_nxt`).
    pub snd_max: u64,
}

#[derive(Clone, Debug)]
pub struct LinuxRtt {
    rto_min_us: i64,
    srtt_us: i64,
    mdev_us: i64,
    mdev_max_us: i64,
    rttvar_us: i64,
    rtt_seq: u64,
}

impl LinuxRtt {
    pub fn new(rto_min: SimDuration) -> Self {
        LinuxRtt { rto_min_us: (rto_min.as_nanos() / 1000) as i64, srtt_us: 0, mdev_us: 0, mdev_max_us: 0, rttvar_us: 0, rtt_seq: 0 }
    }

    /// `tcp_rtt_estimator` for a measured RTT `rtt` (whole µs, at least 1).
    pub fn on_sample(&mut self, rtt: SimDuration, round: Round) {
        let m = ((rtt.as_nanos() / 1000) as i64).max(1);
        if self.srtt_us == 0 {
            self.srtt_us = m << 3;
            self.mdev_us = m << 1;
            self.rttvar_us = self.mdev_us.max(self.rto_min_us);
            self.mdev_max_us = self.rttvar_us;
            self.rtt_seq = round.snd_max;
            return;
        }
        let mut err = m - (self.srtt_us >> 3);
        self.srtt_us = (self.srtt_us + err).max(1);
        if err < 0 {
            err = -err - (self.mdev_us >> 2);
            if err > 0 {
                err >>= 3;
            }
        } else {
            err -= self.mdev_us >> 2;
        }
        self.mdev_us += err;
        if self.mdev_us > self.mdev_max_us {
            self.mdev_max_us = self.mdev_us;
            self.rttvar_us = self.rttvar_us.max(self.mdev_max_us);
        }
        if round.snd_una > self.rtt_seq {
            if self.mdev_max_us < self.rttvar_us {
                self.rttvar_us -= (self.rttvar_us - self.mdev_max_us) >> 2;
            }
            self.rtt_seq = round.snd_max;
            self.mdev_max_us = self.rto_min_us;
        }
    }

    /// `__tcp_set_rto`: SRTT + `rttvar_us`, rounded up to a jiffy (`usecs_to_jiffies`).
    pub fn rto(&self) -> SimDuration {
        jiffies::round_up(SimDuration::from_micros(((self.srtt_us >> 3) + self.rttvar_us) as u64))
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        (self.srtt_us > 0).then(|| SimDuration::from_micros((self.srtt_us >> 3) as u64))
    }

    /// The variance term as RFC 6298 names it (RTTVAR = `rttvar_us`/4), for reports and
    /// RFC 4015's response.
    pub fn rttvar(&self) -> SimDuration {
        SimDuration::from_micros((self.rttvar_us >> 2) as u64)
    }

    /// RFC 4015 3.2 (8) restarts the estimator from given SRTT and RTTVAR.
    pub fn reinitialise(&mut self, srtt: SimDuration, rttvar: SimDuration) {
        self.srtt_us = ((srtt.as_nanos() / 1000) as i64).max(1) << 3;
        self.mdev_us = ((rttvar.as_nanos() / 1000) as i64) << 2;
        self.rttvar_us = self.mdev_us.max(self.rto_min_us);
        self.mdev_max_us = self.rttvar_us;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimDuration {
        SimDuration::from_millis(v)
    }

    /// First sample 100 ms: SRTT 100, mdev_us 200 ms → rttvar max(200, 200) = 200: RTO 300 ms.
    /// First sample 20 ms: rttvar = max(40, 200) = 200 → RTO 220 ms (the rto_min floor on
    /// the variance term).
    #[test]
    fn first_sample_gives_srtt_plus_max_of_two_rtt_and_rto_min() {
        let mut e = LinuxRtt::new(ms(200));
        e.on_sample(ms(100), Round { snd_una: 0, snd_max: 10 });
        assert_eq!(e.rto(), ms(300));
        let mut e = LinuxRtt::new(ms(200));
        e.on_sample(ms(20), Round::default());
        assert_eq!(e.rto(), ms(220));
    }

    /// By hand, rto_min 200 ms, samples in µs (8·srtt, 4·mdev):
    /// 1. m = 100 000: srtt_us 800 000, mdev_us 200 000, rttvar 200 000, mdev_max 200 000,
    ///    rtt_seq = 10.
    /// 2. m = 180 000 at SND.UNA 5 (same round): err = 80 000 → srtt_us 880 000 (110 ms);
    ///    err − mdev/4 = 80 000 − 50 000 = 30 000 → mdev_us 230 000 > mdev_max → mdev_max =
    ///    rttvar = 230 000. RTO = 110 000 + 230 000 = 340 ms.
    /// 3. m = 50 000 at SND.UNA 11 (round over): err = 50 000 − 110 000 = −60 000 → srtt_us
    ///    820 000 (102.5 ms); |err| − 57 500 = 2 500 > 0 → >> 3 = 312 → mdev_us 230 312 >
    ///    mdev_max 230 000 → mdev_max = rttvar = 230 312; round over: mdev_max (230 312) is not
    ///    below rttvar, so no decay; mdev_max restarts at 200 000, rtt_seq = 20.
    ///    RTO = 102 500 + 230 312 = 332 812 µs → 336 ms (whole 4 ms jiffies, HZ 250).
    /// 4. m = 102 500 at SND.UNA 21: err 0 → mdev_us 230 312 − 57 578 = 172 734 (below
    ///    mdev_max 200 000); round over: rttvar −= (230 312 − 200 000) >> 2 = 7 578 → 222 734.
    ///    RTO = 102 500 + 222 734 → 325.234 ms → 328 ms.
    #[test]
    fn variance_decays_once_per_round_trip_toward_the_rounds_maximum() {
        let mut e = LinuxRtt::new(ms(200));
        e.on_sample(ms(100), Round { snd_una: 0, snd_max: 10 });
        e.on_sample(ms(180), Round { snd_una: 5, snd_max: 12 });
        assert_eq!(e.rto(), ms(340));
        e.on_sample(ms(50), Round { snd_una: 11, snd_max: 20 });
        assert_eq!(e.srtt(), Some(SimDuration::from_micros(102_500)));
        assert_eq!(e.rto(), ms(336));
        e.on_sample(SimDuration::from_micros(102_500), Round { snd_una: 21, snd_max: 30 });
        assert_eq!(e.rto(), ms(328));
    }

    /// A steady RTT of 50 ms: the RTO converges to SRTT + rto_min = 250 ms, 252 ms in whole
    /// 4 ms jiffies, and never below.
    #[test]
    fn steady_rtt_converges_to_srtt_plus_rto_min() {
        let mut e = LinuxRtt::new(ms(200));
        for k in 0..200u64 {
            e.on_sample(ms(50), Round { snd_una: k * 10 + 1, snd_max: k * 10 + 10 });
            assert!(e.rto() >= ms(252));
        }
        assert_eq!(e.rto(), ms(252));
    }
}
