//! ns-2.35's retransmission timer (`tcp/tcp.cc`: `rtt_init`, `rtt_update`, `rtt_timeout`,
//! `rtt_backoff`), in its own integer arithmetic.
//!
//! State in ticks of `tcpTick_`: `t_srtt_` holds 8·SRTT (`T_SRTT_BITS` 3), `t_rttvar_` 4·RTTVAR
//! (`T_RTTVAR_BITS` 2). A sample of `t_rtt_` ticks (at least 1):
//! - first sample (or after the back-off fold): `t_srtt_ = t_rtt_ << 3`, `t_rttvar_ = t_rtt_ << 1`;
//! - later: `delta = t_rtt_ − (t_srtt_ >> 3)`, `t_srtt_ += delta` (≥ 1), then
//!   `delta = |delta| − (t_rttvar_ >> 2)`, `t_rttvar_ += delta` (≥ 1);
//! - `t_rtxcur_ = ((t_rttvar_ << (rttvar_exp_ + 1)) + t_srtt_) >> 3` ticks (`rttvar_exp_` 2).
//!
//! The timeout is `max(t_rtxcur_, minrto_)·t_backoff_`, at most `maxrto_`, at least two ticks.
//! A back-off doubles `t_backoff_` while it is below 64 or the timeout below `maxrto_`; past
//! 8 it folds SRTT into RTTVAR and forgets SRTT (`t_rttvar_ += t_srtt_ >> 3; t_srtt_ = 0`).
//! Without timestamps the sample counts the clock ticks crossed between send and receive
//! on a clock whose phase is `boot`: `t_rtt_ = int((tao + fmod(sent + boot, tick)) / tick)`.

use crate::time::{SimDuration, SimTime};

/// ns-2's coarse clock: the tick and the phase (`boot_time_`, uniform on [0, tick)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ns2Clock {
    pub tick: SimDuration,
    pub boot: SimDuration,
    /// Samples from timestamps are rounded to the nearest tick instead (`ts_option_`).
    pub timestamps: bool,
}

#[derive(Clone, Debug)]
pub struct Ns2Rto {
    clock: Ns2Clock,
    min_rto: SimDuration,
    max_rto: SimDuration,
    t_srtt: i64,
    t_rttvar: i64,
    /// `t_rtxcur_` in ticks, or the initial RTO before any sample.
    rtxcur: SimDuration,
    t_backoff: u64,
    /// `Some(m)`: `t_backoff_` doubles only while below m, whatever the timeout (ns-1;
    /// ns-2 with `rfc2988_` false and m = 64).
    max_backoff: Option<u64>,
}

impl Ns2Rto {
    pub fn new(clock: Ns2Clock, initial: SimDuration, min_rto: SimDuration, max_rto: SimDuration) -> Self {
        Ns2Rto { clock, min_rto, max_rto, t_srtt: 0, t_rttvar: 0, rtxcur: initial, t_backoff: 1, max_backoff: None }
    }

    /// The same timer with the back-off limited as `RtoConfig::max_backoff` says.
    pub fn with_max_backoff(self, max_backoff: Option<u32>) -> Self {
        Ns2Rto { max_backoff: max_backoff.map(u64::from), ..self }
    }

    /// `t_rtt_` for a sample of `tao` measured at `now`.
    pub fn ticks(&self, now: SimTime, tao: SimDuration) -> i64 {
        let tick = self.clock.tick.as_nanos();
        let t = if self.clock.timestamps {
            (tao.as_nanos() + tick / 2) / tick
        } else {
            let sent = now.0.saturating_sub(tao.as_nanos());
            let tickoff = (sent + self.clock.boot.as_nanos()) % tick;
            (tao.as_nanos() + tickoff) / tick
        };
        (t as i64).max(1)
    }

    /// `rtt_update`; clears the back-off as the `rtt_active_` path of `newack` does.
    pub fn on_sample(&mut self, now: SimTime, tao: SimDuration) {
        let t_rtt = self.ticks(now, tao);
        if self.t_srtt != 0 {
            let mut delta = t_rtt - (self.t_srtt >> 3);
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            if delta < 0 {
                delta = -delta;
            }
            delta -= self.t_rttvar >> 2;
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = t_rtt << 3;
            self.t_rttvar = t_rtt << 1;
        }
        let ticks = ((self.t_rttvar << 3) + self.t_srtt) >> 3;
        self.rtxcur = SimDuration(ticks as u64 * self.clock.tick.as_nanos());
        self.t_backoff = 1;
    }

    /// `rtt_timeout`.
    pub fn current(&self) -> SimDuration {
        let base = self.rtxcur.max(self.min_rto);
        let t = SimDuration(base.as_nanos().saturating_mul(self.t_backoff)).min(self.max_rto);
        t.max(SimDuration(2 * self.clock.tick.as_nanos()))
    }

    /// `rtt_backoff`.
    pub fn back_off(&mut self) {
        let doubles = match self.max_backoff {
            Some(limit) => self.t_backoff < limit,
            None => self.t_backoff < 64 || self.current() < self.max_rto,
        };
        if doubles {
            self.t_backoff <<= 1;
        }
        if self.t_backoff > 8 {
            self.t_rttvar += self.t_srtt >> 3;
            self.t_srtt = 0;
        }
    }

    /// Doublings since the last sample.
    pub fn backoff(&self) -> u32 {
        self.t_backoff.trailing_zeros()
    }

    pub fn clear_backoff(&mut self) {
        self.t_backoff = 1;
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        (self.t_srtt > 0).then(|| SimDuration(self.t_srtt as u64 * self.clock.tick.as_nanos() / 8))
    }

    pub fn rttvar(&self) -> SimDuration {
        SimDuration(self.t_rttvar.max(0) as u64 * self.clock.tick.as_nanos() / 4)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rto() -> Ns2Rto {
        let clock = Ns2Clock { tick: SimDuration::from_millis(10), boot: SimDuration::ZERO, timestamps: false };
        Ns2Rto::new(clock, SimDuration::from_secs(3), SimDuration::from_millis(200), SimDuration::from_secs(60))
    }

    /// Samples of 100, 120 and 300 ms worked by hand with ns-2's shifts:
    /// 1) t_rtt 10: t_srtt 80, t_rttvar 20, (160 + 80) >> 3 = 30 ticks → 0.30 s
    /// 2) t_rtt 12: delta 2 → t_srtt 82; |2| − (20 >> 2) = −3 → t_rttvar 17; (136 + 82) >> 3 = 27
    /// 3) t_rtt 30: delta 20 → t_srtt 102; 20 − (17 >> 2) = 16 → t_rttvar 33; (264 + 102) >> 3 = 45
    #[test]
    fn ns2_samples_by_hand() {
        let mut r = rto();
        assert_eq!(r.current(), SimDuration::from_secs(3));
        let mut got = vec![];
        for (t, ms) in [(1.0, 100), (2.0, 120), (3.0, 300)] {
            r.on_sample(SimTime(SimDuration::from_secs_f64(t).as_nanos()), SimDuration::from_millis(ms));
            got.push(r.current().as_nanos() / 1_000_000);
        }
        assert_eq!(got, vec![300, 270, 450]);
    }

    /// From 0.2 s the timeout doubles to 51.2 s, then stays at 60 s (`maxrto_`); the fold past
    /// a back-off of 8 forgets SRTT.
    #[test]
    fn ns1_backoff_stops_at_64_without_a_timer_cap() {
        // ns-1's rtt_backoff: t_backoff_ doubles while below 64, whatever the timeout; with no
        // maxrto the timeout after 7 back-offs is 0.2 s · 64 = 12.8 s and stays there.
        let clock = Ns2Clock { tick: SimDuration::from_millis(10), boot: SimDuration::ZERO, timestamps: false };
        let mut r = Ns2Rto::new(clock, SimDuration::from_millis(200), SimDuration::from_millis(200), SimDuration::from_secs(1_000_000)).with_max_backoff(Some(64));
        for _ in 0..10 {
            r.back_off();
        }
        assert_eq!(r.backoff(), 6);
        assert_eq!(r.current(), SimDuration::from_millis(12_800));
    }

    #[test]
    fn ns2_backoff_doubles_then_caps() {
        let mut r = rto();
        r.on_sample(SimTime(SimDuration::from_secs(1).as_nanos()), SimDuration::from_millis(20));
        let ms = |d: SimDuration| d.as_nanos() / 1_000_000;
        let mut seen = vec![ms(r.current())];
        for _ in 0..10 {
            r.back_off();
            seen.push(ms(r.current()));
        }
        assert_eq!(seen, vec![200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 60000, 60000]);
        assert_eq!(r.srtt(), None);
    }

    /// Without timestamps a sample counts tick boundaries crossed: 95 ms sent 6 ms after a
    /// tick crosses 10 boundaries; sent 4 ms after one, 9 (and never less than 1).
    #[test]
    fn ns2_coarse_clock_counts_boundaries() {
        let r = rto();
        let sent = |ms: u64| SimTime(SimDuration::from_millis(1000 + ms).as_nanos());
        let tao = SimDuration::from_millis(95);
        assert_eq!(r.ticks(sent(6) + tao, tao), 10);
        assert_eq!(r.ticks(sent(4) + tao, tao), 9);
        assert_eq!(r.ticks(sent(0) + SimDuration::from_millis(3), SimDuration::from_millis(3)), 1);
    }
}
