//! BBR as Linux 6.x runs it (`net/ipv4/tcp_bbr.c`, BBR v1): a model of the path from the
//! delivery-rate samples of `tcp/rate.rs` — the bottleneck bandwidth as the windowed
//! maximum over 10 packet-timed rounds, the propagation delay as the minimum RTT over 10 s —
//! and from it a pacing rate (pacing_gain · bw) and a window (cwnd_gain · bw · min_rtt plus
//! room for TSO and ACK aggregation). Modes STARTUP, DRAIN, PROBE_BW (the eight-phase gain
//! cycle) and PROBE_RTT; the long-term bandwidth of a policer; packet conservation in the
//! first round of recovery.
//!
//! BBR is a `cong_control` module: the kernel's own window reductions (PRR) and its
//! cwnd = ssthresh at the end of recovery are skipped for it (`tcp_cong_control`,
//! `tcp_end_cwnd_reduction`), so its `set_recovery_cwnd` ignores the recovery algorithm.
//! Integer arithmetic and units as the kernel's: bandwidth in packets/µs << 24, gains << 8,
//! windows in packets, clocks in µs (`tcp_mstamp`) and jiffies (`tcp_jiffies32`, HZ 250).
//! The kernel draws the first gain phase at random (`get_random_u32_below`); rtolab draws
//! it from a generator seeded by the connection's start time, so a run is deterministic.

use super::{AckSample, CongestionControl, Growth, WindowCore};
use crate::tcp::jiffies::{self, HZ};
use crate::tcp::minmax::WindowedFilter;
use crate::tcp::rate::RateSample;
use crate::tcp::state::LossState;
use crate::time::{SimDuration, SimTime};

/// `BW_SCALE`: bandwidth in packets per µs, shifted 24 bits.
const BW_SCALE: u32 = 24;
const BW_UNIT: u64 = 1 << BW_SCALE;
/// `BBR_SCALE`: gains shifted 8 bits.
const BBR_SCALE: u32 = 8;
const BBR_UNIT: u32 = 1 << BBR_SCALE;
/// `CYCLE_LEN`: phases of the PROBE_BW gain cycle.
const CYCLE_LEN: u32 = 8;
/// `bbr_bw_rtts`: the bandwidth filter's window, in rounds.
const BW_RTTS: u32 = CYCLE_LEN + 2;
/// `bbr_min_rtt_win_sec`.
const MIN_RTT_WIN_SEC: u32 = 10;
/// `bbr_probe_rtt_mode_ms`.
const PROBE_RTT_MODE_MS: u32 = 200;
/// `bbr_min_tso_rate`, bit/s: below it a TSO packet is one segment.
const MIN_TSO_RATE: u64 = 1_200_000;
/// `bbr_pacing_margin_percent`: pace 1 % below the estimate.
const PACING_MARGIN_PERCENT: u64 = 1;
/// `bbr_high_gain` = 2/ln 2, the smallest gain that doubles the rate each round.
const HIGH_GAIN: u32 = BBR_UNIT * 2885 / 1000 + 1;
/// `bbr_drain_gain` = 1 / high_gain.
const DRAIN_GAIN: u32 = BBR_UNIT * 1000 / 2885;
/// `bbr_cwnd_gain`.
const CWND_GAIN: u32 = BBR_UNIT * 2;
/// `bbr_pacing_gain[]`: probe, drain, six phases of cruising.
const PACING_GAIN: [u32; CYCLE_LEN as usize] =
    [BBR_UNIT * 5 / 4, BBR_UNIT * 3 / 4, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT, BBR_UNIT];
/// `bbr_cycle_rand`: the first phase is drawn from the last seven.
const CYCLE_RAND: u32 = 7;
/// `bbr_cwnd_min_target`.
const CWND_MIN_TARGET: u32 = 4;
/// `bbr_full_bw_thresh`: growth of 25 % means more bandwidth may be there…
const FULL_BW_THRESH: u32 = BBR_UNIT * 5 / 4;
/// `bbr_full_bw_cnt`: …and three rounds without it that the pipe is full.
const FULL_BW_CNT: u32 = 3;
/// `bbr_lt_intvl_min_rtts`.
const LT_INTVL_MIN_RTTS: u32 = 4;
/// `bbr_lt_loss_thresh`: a lossy interval loses 20 % (50/256).
const LT_LOSS_THRESH: u32 = 50;
/// `bbr_lt_bw_ratio`: two intervals within 1/8 are consistent…
const LT_BW_RATIO: u32 = BBR_UNIT / 8;
/// `bbr_lt_bw_diff`: …or within 4 kbit/s (in bytes/s).
const LT_BW_DIFF: u64 = 4000 / 8;
/// `bbr_lt_bw_max_rtts`: rounds to use the policed rate.
const LT_BW_MAX_RTTS: u32 = 48;
/// `bbr_extra_acked_gain`.
const EXTRA_ACKED_GAIN: u32 = BBR_UNIT;
/// `bbr_extra_acked_win_rtts`.
const EXTRA_ACKED_WIN_RTTS: u32 = 5;
/// `bbr_ack_epoch_acked_reset_thresh`.
const ACK_EPOCH_ACKED_RESET_THRESH: u32 = 1 << 20;
/// `bbr_extra_acked_max_us`.
const EXTRA_ACKED_MAX_US: u64 = 100 * 1000;
/// `TCP_INIT_CWND`.
const TCP_INIT_CWND: u32 = 10;
/// `GSO_LEGACY_MAX_SIZE − 1 − MAX_TCP_HEADER` (MAX_TCP_HEADER 320 on x86-64).
const TSO_MAX_BYTES: u64 = 65536 - 1 - 320;
/// `sk_pacing_shift`'s default: a TSO packet holds about 1 ms at the pacing rate.
const PACING_SHIFT: u32 = 10;

/// `enum bbr_mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BbrMode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// Linux's `icsk_ca_state` numbering, which BBR compares (`TCP_CA_Open` 0 … `TCP_CA_Loss` 4).
fn ca_state(s: LossState) -> u8 {
    match s {
        LossState::Open => 0,
        LossState::Disorder => 1,
        LossState::Recovery { .. } => 3,
        LossState::Loss { .. } => 4,
    }
}
const CA_RECOVERY: u8 = 3;
const CA_LOSS: u8 = 4;

/// `struct bbr` and the socket fields BBR writes (`sk_pacing_rate`).
#[derive(Clone, Debug)]
pub struct Bbr {
    core: WindowCore,
    min_rtt_us: u32,
    min_rtt_stamp: u32,
    probe_rtt_done_stamp: u32,
    bw: WindowedFilter,
    rtt_cnt: u32,
    next_rtt_delivered: u32,
    cycle_mstamp: u64,
    mode: BbrMode,
    prev_ca_state: u8,
    packet_conservation: bool,
    round_start: bool,
    idle_restart: bool,
    probe_rtt_round_done: bool,
    lt_is_sampling: bool,
    lt_rtt_cnt: u32,
    lt_use_bw: bool,
    lt_bw: u32,
    lt_last_delivered: u32,
    lt_last_stamp: u32,
    lt_last_lost: u32,
    pacing_gain: u32,
    cwnd_gain: u32,
    full_bw_reached: bool,
    full_bw_cnt: u32,
    cycle_idx: u32,
    has_seen_rtt: bool,
    prior_cwnd: u32,
    full_bw: u32,
    ack_epoch_mstamp: u64,
    extra_acked: [u32; 2],
    ack_epoch_acked: u32,
    extra_acked_win_rtts: u32,
    extra_acked_win_idx: usize,
    /// `sk_pacing_rate`, bytes/s.
    pacing_rate: u64,
    /// PROBE_RTT asked this ACK for the samples to be marked application-limited.
    app_limited_mark: bool,
    /// The generator of the first gain phase (SplitMix64).
    rng: u64,
}

impl Bbr {
    /// `bbr_init` happens when the connection is established (`on_established`); until then
    /// the controller holds the initial window.
    pub fn new(core: WindowCore) -> Self {
        Bbr {
            core,
            min_rtt_us: u32::MAX,
            min_rtt_stamp: 0,
            probe_rtt_done_stamp: 0,
            bw: WindowedFilter::new(0, 0),
            rtt_cnt: 0,
            next_rtt_delivered: 0,
            cycle_mstamp: 0,
            mode: BbrMode::Startup,
            prev_ca_state: 0,
            packet_conservation: false,
            round_start: false,
            idle_restart: false,
            probe_rtt_round_done: false,
            lt_is_sampling: false,
            lt_rtt_cnt: 0,
            lt_use_bw: false,
            lt_bw: 0,
            lt_last_delivered: 0,
            lt_last_stamp: 0,
            lt_last_lost: 0,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            full_bw_reached: false,
            full_bw_cnt: 0,
            cycle_idx: 0,
            has_seen_rtt: false,
            prior_cwnd: 0,
            full_bw: 0,
            ack_epoch_mstamp: 0,
            extra_acked: [0; 2],
            ack_epoch_acked: 0,
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            pacing_rate: 0,
            app_limited_mark: false,
            rng: 0,
        }
    }

    pub fn mode(&self) -> BbrMode {
        self.mode
    }

    /// `bbr_bw`: the policed rate when one is in use, else the windowed maximum.
    fn bw(&self) -> u32 {
        if self.lt_use_bw {
            self.lt_bw
        } else {
            self.max_bw()
        }
    }

    fn max_bw(&self) -> u32 {
        self.bw.get() as u32
    }

    /// `bbr_rate_bytes_per_sec`: packets/µs << 24 with a gain, to bytes/s less the margin.
    fn rate_bytes_per_sec(&self, rate: u64, gain: u32) -> u64 {
        let mut rate = rate * self.core.mss;
        rate *= gain as u64;
        rate >>= BBR_SCALE;
        rate *= 1_000_000 / 100 * (100 - PACING_MARGIN_PERCENT);
        rate >> BW_SCALE
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain · cwnd / SRTT (1 ms before any sample).
    fn init_pacing_rate_from_rtt(&mut self, srtt_us: Option<u64>) {
        let rtt_us = match srtt_us {
            Some(s) => {
                self.has_seen_rtt = true;
                s.max(1)
            }
            None => 1000,
        };
        let bw = self.core.cwnd_packets() as u64 * BW_UNIT / rtt_us;
        self.pacing_rate = self.rate_bytes_per_sec(bw, HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`: only up until the pipe is found full, then any rate.
    fn set_pacing_rate(&mut self, bw: u32, gain: u32, srtt_us: Option<u64>) {
        let rate = self.rate_bytes_per_sec(bw as u64, gain);
        if !self.has_seen_rtt && srtt_us.is_some() {
            self.init_pacing_rate_from_rtt(srtt_us);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_min_tso_segs`.
    fn min_tso_segs(&self) -> u32 {
        if self.pacing_rate < MIN_TSO_RATE >> 3 {
            1
        } else {
            2
        }
    }

    /// `bbr_tso_segs_goal`: about 1 ms at the pacing rate, at least `min_tso_segs`, at most 127.
    pub fn tso_segs_goal(&self) -> u32 {
        let bytes = (self.pacing_rate >> PACING_SHIFT).min(TSO_MAX_BYTES);
        let segs = ((bytes / self.core.mss) as u32).max(self.min_tso_segs());
        segs.min(0x7f)
    }

    /// `bbr_save_cwnd`: the last good window, before a recovery or PROBE_RTT cuts it.
    fn save_cwnd(&mut self) {
        let cwnd = self.core.cwnd_packets();
        if self.prev_ca_state < CA_RECOVERY && self.mode != BbrMode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// `bbr_bdp`: ⌈bw · min_rtt · gain⌉ packets; the initial window before any RTT sample.
    fn bdp(&self, bw: u32, gain: u32) -> u32 {
        if self.min_rtt_us == u32::MAX {
            return TCP_INIT_CWND;
        }
        let w = bw as u64 * self.min_rtt_us as u64;
        (((w * gain as u64) >> BBR_SCALE).div_ceil(BW_UNIT)) as u32
    }

    /// `bbr_quantization_budget`: room for three TSO packets, an even window, and +2 in the
    /// probing phase.
    fn quantization_budget(&self, cwnd: u32) -> u32 {
        let mut cwnd = cwnd + 3 * self.tso_segs_goal();
        cwnd = (cwnd + 1) & !1;
        if self.mode == BbrMode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    /// `bbr_inflight`.
    fn inflight(&self, bw: u32, gain: u32) -> u32 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// `bbr_packets_in_net_at_edt`: what will still be in the network when the next packet
    /// pacing already scheduled leaves.
    fn packets_in_net_at_edt(&self, inflight_now: u32, rs: &RateSample) -> u32 {
        let interval_delivered = ((self.bw() as u64 * rs.edt_ahead_us) >> BW_SCALE) as u32;
        let mut inflight_at_edt = inflight_now;
        if self.pacing_gain > BBR_UNIT {
            inflight_at_edt += self.tso_segs_goal();
        }
        inflight_at_edt.saturating_sub(interval_delivered)
    }

    /// `bbr_ack_aggregation_cwnd`.
    fn ack_aggregation_cwnd(&self) -> u32 {
        if EXTRA_ACKED_GAIN == 0 || !self.full_bw_reached {
            return 0;
        }
        let max_aggr_cwnd = (self.bw() as u64 * EXTRA_ACKED_MAX_US / BW_UNIT) as u32;
        let aggr_cwnd = (EXTRA_ACKED_GAIN * self.extra_acked[0].max(self.extra_acked[1])) >> BBR_SCALE;
        aggr_cwnd.min(max_aggr_cwnd)
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: losses come off the window; the first round of
    /// recovery conserves packets; leaving recovery restores the window saved at its start.
    fn set_cwnd_to_recover_or_restore(&mut self, rs: &RateSample, acked: u32) -> (u32, bool) {
        let state = ca_state(rs.ca_state);
        let prev_state = self.prev_ca_state;
        let mut cwnd = self.core.cwnd_packets();
        if rs.losses > 0 {
            cwnd = (cwnd as i64 - rs.losses as i64).max(1) as u32;
        }
        if state == CA_RECOVERY && prev_state != CA_RECOVERY {
            self.packet_conservation = true;
            self.next_rtt_delivered = rs.total_delivered;
            cwnd = rs.in_flight + acked;
        } else if prev_state >= CA_RECOVERY && state < CA_RECOVERY {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = state;
        if self.packet_conservation {
            return (cwnd.max(rs.in_flight + acked), true);
        }
        (cwnd, false)
    }

    /// `bbr_set_cwnd`: toward the target window, slow-start-like below it; at most 4 packets
    /// in PROBE_RTT.
    fn set_cwnd(&mut self, rs: &RateSample, acked: u32, bw: u32, gain: u32) {
        let mut cwnd = self.core.cwnd_packets();
        if acked > 0 {
            let (c, conserving) = self.set_cwnd_to_recover_or_restore(rs, acked);
            cwnd = c;
            if !conserving {
                let mut target = self.bdp(bw, gain);
                target += self.ack_aggregation_cwnd();
                target = self.quantization_budget(target);
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || rs.total_delivered < TCP_INIT_CWND {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        self.core.set_cwnd_packets(cwnd);
        if self.mode == BbrMode::ProbeRtt {
            self.core.set_cwnd_packets(cwnd.min(CWND_MIN_TARGET));
        }
    }

    /// `bbr_is_next_cycle_phase`.
    fn is_next_cycle_phase(&self, rs: &RateSample) -> bool {
        let is_full_length = rs.delivered_mstamp_us.saturating_sub(self.cycle_mstamp) > self.min_rtt_us as u64;
        if self.pacing_gain == BBR_UNIT {
            return is_full_length;
        }
        let inflight = self.packets_in_net_at_edt(rs.prior_in_flight, rs);
        let bw = self.max_bw();
        if self.pacing_gain > BBR_UNIT {
            return is_full_length && (rs.losses > 0 || inflight >= self.inflight(bw, self.pacing_gain));
        }
        is_full_length || inflight <= self.inflight(bw, BBR_UNIT)
    }

    fn advance_cycle_phase(&mut self, delivered_mstamp_us: u64) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_mstamp = delivered_mstamp_us;
    }

    /// `bbr_update_cycle_phase`.
    fn update_cycle_phase(&mut self, rs: &RateSample) {
        if self.mode == BbrMode::ProbeBw && self.is_next_cycle_phase(rs) {
            self.advance_cycle_phase(rs.delivered_mstamp_us);
        }
    }

    /// A draw below `n` (`get_random_u32_below`), from SplitMix64.
    fn random_below(&mut self, n: u32) -> u32 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((z >> 32) * n as u64 >> 32) as u32
    }

    /// `bbr_reset_probe_bw_mode`: a random phase other than the draining one, then the next.
    fn reset_probe_bw_mode(&mut self, delivered_mstamp_us: u64) {
        self.mode = BbrMode::ProbeBw;
        self.cycle_idx = CYCLE_LEN - 1 - self.random_below(CYCLE_RAND);
        self.advance_cycle_phase(delivered_mstamp_us);
    }

    /// `bbr_reset_mode`.
    fn reset_mode(&mut self, delivered_mstamp_us: u64) {
        if !self.full_bw_reached {
            self.mode = BbrMode::Startup;
        } else {
            self.reset_probe_bw_mode(delivered_mstamp_us);
        }
    }

    /// `bbr_reset_lt_bw_sampling_interval`.
    fn reset_lt_bw_sampling_interval(&mut self, rs: &RateSample) {
        self.lt_last_stamp = (rs.delivered_mstamp_us / 1000) as u32;
        self.lt_last_delivered = rs.total_delivered;
        self.lt_last_lost = rs.total_lost;
        self.lt_rtt_cnt = 0;
    }

    /// `bbr_reset_lt_bw_sampling`.
    fn reset_lt_bw_sampling(&mut self, rs: &RateSample) {
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.reset_lt_bw_sampling_interval(rs);
    }

    /// `bbr_lt_bw_interval_done`: two consistent lossy intervals mean a policer.
    fn lt_bw_interval_done(&mut self, bw: u32, rs: &RateSample) {
        if self.lt_bw != 0 {
            let diff = bw.abs_diff(self.lt_bw);
            if diff as u64 * BBR_UNIT as u64 <= LT_BW_RATIO as u64 * self.lt_bw as u64
                || self.rate_bytes_per_sec(diff as u64, BBR_UNIT) <= LT_BW_DIFF
            {
                self.lt_bw = ((bw as u64 + self.lt_bw as u64) >> 1) as u32;
                self.lt_use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt_rtt_cnt = 0;
                return;
            }
        }
        self.lt_bw = bw;
        self.reset_lt_bw_sampling_interval(rs);
    }

    /// `bbr_lt_bw_sampling`: the long-term rate over intervals of 4–16 rounds that end in a
    /// loss, when 20 % or more of the interval was lost.
    fn lt_bw_sampling(&mut self, rs: &RateSample) {
        if self.lt_use_bw {
            if self.mode == BbrMode::ProbeBw && self.round_start {
                self.lt_rtt_cnt += 1;
                if self.lt_rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt_bw_sampling(rs);
                    self.reset_probe_bw_mode(rs.delivered_mstamp_us);
                }
            }
            return;
        }
        if !self.lt_is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_bw_sampling_interval(rs);
            self.lt_is_sampling = true;
        }
        if rs.is_app_limited {
            self.reset_lt_bw_sampling(rs);
            return;
        }
        if self.round_start {
            self.lt_rtt_cnt += 1;
        }
        if self.lt_rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt_rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt_bw_sampling(rs);
            return;
        }
        if rs.losses == 0 {
            return;
        }
        let lost = rs.total_lost.wrapping_sub(self.lt_last_lost);
        let delivered = rs.total_delivered.wrapping_sub(self.lt_last_delivered);
        if delivered == 0 || ((lost as u64) << BBR_SCALE) < LT_LOSS_THRESH as u64 * delivered as u64 {
            return;
        }
        let t = ((rs.delivered_mstamp_us / 1000) as u32).wrapping_sub(self.lt_last_stamp);
        if (t as i32) < 1 {
            return;
        }
        if t >= u32::MAX / 1000 {
            self.reset_lt_bw_sampling(rs);
            return;
        }
        let bw = delivered as u64 * BW_UNIT / (t as u64 * 1000);
        self.lt_bw_interval_done(bw as u32, rs);
    }

    /// `bbr_update_bw`: rounds, the long-term sampler, and the max filter (an
    /// application-limited sample only when it is not below the estimate).
    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        if rs.delivered < 0 || rs.interval_us <= 0 {
            return;
        }
        // `!before(prior_delivered, next_rtt_delivered)`.
        if !jiffies::after(self.next_rtt_delivered, rs.prior_delivered) {
            self.next_rtt_delivered = rs.total_delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_bw_sampling(rs);
        let bw = rs.delivered as u64 * BW_UNIT / rs.interval_us as u64;
        if !rs.is_app_limited || bw >= self.max_bw() as u64 {
            // `minmax_running_max` takes a u32.
            self.bw.running_max(BW_RTTS, self.rtt_cnt, bw as u32 as u64);
        }
    }

    /// `bbr_update_ack_aggregation`: data ACKed beyond bw · epoch, a max over 5–10 rounds.
    fn update_ack_aggregation(&mut self, rs: &RateSample) {
        if EXTRA_ACKED_GAIN == 0 || rs.acked_sacked == 0 || rs.delivered < 0 || rs.interval_us <= 0 {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(0x1f);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let epoch_us = rs.delivered_mstamp_us.saturating_sub(self.ack_epoch_mstamp);
        let mut expected_acked = (self.bw() as u64 * epoch_us / BW_UNIT) as u32;
        if self.ack_epoch_acked <= expected_acked || self.ack_epoch_acked + rs.acked_sacked >= ACK_EPOCH_ACKED_RESET_THRESH {
            self.ack_epoch_acked = 0;
            self.ack_epoch_mstamp = rs.delivered_mstamp_us;
            expected_acked = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + rs.acked_sacked).min(0xfffff);
        let extra = (self.ack_epoch_acked - expected_acked).min(self.core.cwnd_packets());
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        // The kernel keeps extra_acked in a u16.
        let extra = extra.min(u16::MAX as u32);
        if extra > *slot {
            *slot = extra;
        }
    }

    /// `bbr_check_full_bw_reached`: three non-application-limited rounds without 25 % growth.
    fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw_thresh = (self.full_bw as u64 * FULL_BW_THRESH as u64 >> BBR_SCALE) as u32;
        if self.max_bw() >= bw_thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`.
    fn check_drain(&mut self, rs: &RateSample) {
        if self.mode == BbrMode::Startup && self.full_bw_reached {
            self.mode = BbrMode::Drain;
            let ssthresh = self.inflight(self.max_bw(), BBR_UNIT);
            self.core.set_ssthresh_packets(ssthresh);
        }
        if self.mode == BbrMode::Drain && self.packets_in_net_at_edt(rs.in_flight, rs) <= self.inflight(self.max_bw(), BBR_UNIT) {
            self.reset_probe_bw_mode(rs.delivered_mstamp_us);
        }
    }

    /// `bbr_check_probe_rtt_done`.
    fn check_probe_rtt_done(&mut self, now_j: u32, delivered_mstamp_us: u64) {
        if !(self.probe_rtt_done_stamp != 0 && jiffies::after(now_j, self.probe_rtt_done_stamp)) {
            return;
        }
        self.min_rtt_stamp = now_j;
        let cwnd = self.core.cwnd_packets().max(self.prior_cwnd);
        self.core.set_cwnd_packets(cwnd);
        self.reset_mode(delivered_mstamp_us);
    }

    /// `bbr_update_min_rtt`: the 10 s minimum, and PROBE_RTT when it expires.
    fn update_min_rtt(&mut self, now_j: u32, rs: &RateSample) {
        let filter_expired = jiffies::after(now_j, self.min_rtt_stamp.wrapping_add(MIN_RTT_WIN_SEC * HZ));
        if rs.rtt_us >= 0 && ((rs.rtt_us as u64) < self.min_rtt_us as u64 || (filter_expired && !rs.is_ack_delayed)) {
            self.min_rtt_us = rs.rtt_us.min(u32::MAX as i64) as u32;
            self.min_rtt_stamp = now_j;
        }
        if PROBE_RTT_MODE_MS > 0 && filter_expired && !self.idle_restart && self.mode != BbrMode::ProbeRtt {
            self.mode = BbrMode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done_stamp = 0;
        }
        if self.mode == BbrMode::ProbeRtt {
            // "Ignore low rate samples during this mode."
            self.app_limited_mark = true;
            if self.probe_rtt_done_stamp == 0 && rs.in_flight <= CWND_MIN_TARGET {
                self.probe_rtt_done_stamp = now_j.wrapping_add(jiffies::usecs_to_jiffies(PROBE_RTT_MODE_MS * 1000));
                self.probe_rtt_round_done = false;
                self.next_rtt_delivered = rs.total_delivered;
            } else if self.probe_rtt_done_stamp != 0 {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(now_j, rs.delivered_mstamp_us);
                }
            }
        }
        if rs.delivered > 0 {
            self.idle_restart = false;
        }
    }

    /// `bbr_update_gains`.
    fn update_gains(&mut self) {
        let (pacing, cwnd) = match self.mode {
            BbrMode::Startup => (HIGH_GAIN, HIGH_GAIN),
            BbrMode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            BbrMode::ProbeBw => (if self.lt_use_bw { BBR_UNIT } else { PACING_GAIN[self.cycle_idx as usize] }, CWND_GAIN),
            BbrMode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
        self.pacing_gain = pacing;
        self.cwnd_gain = cwnd;
    }

    /// `bbr_main` for one ACK's rate sample.
    fn main(&mut self, now: SimTime, rs: &RateSample, srtt: Option<SimDuration>) {
        let now_j = jiffies::jiffies(now);
        self.update_bw(rs);
        self.update_ack_aggregation(rs);
        self.update_cycle_phase(rs);
        self.check_full_bw_reached(rs);
        self.check_drain(rs);
        self.update_min_rtt(now_j, rs);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, srtt.map(|s| s.as_nanos() / 1000));
        self.set_cwnd(rs, rs.acked_sacked, bw, self.cwnd_gain);
    }
}

impl CongestionControl for Bbr {
    fn core(&self) -> &WindowCore {
        &self.core
    }
    fn core_mut(&mut self) -> &mut WindowCore {
        &mut self.core
    }

    /// BBR grows nothing on the ACK itself: `on_rate_sample` follows it, and sets the window
    /// from its model, with no congestion avoidance to report.
    fn on_ack(&mut self, _ack: &AckSample) -> Growth {
        Growth::Held
    }

    /// `bbr_main`.
    fn on_rate_sample(&mut self, now: SimTime, rs: &RateSample, srtt: Option<SimDuration>) {
        self.app_limited_mark = false;
        self.main(now, rs, srtt);
    }

    /// `bbr_ssthresh` on entering recovery: the window is saved, ssthresh unchanged.
    fn on_congestion_event(&mut self, _now: SimTime, _flight: u64) {
        self.save_cwnd();
    }

    /// `tcp_enter_loss` with BBR: `bbr_ssthresh` when the timeout reduces, cwnd one segment
    /// (packets in flight + 1 once all is marked lost). `bbr_set_state(TCP_CA_Loss)` follows
    /// in `on_enter_loss`.
    fn on_rto(&mut self, _now: SimTime, _flight: u64, first_timeout: bool) {
        if first_timeout {
            self.save_cwnd();
        }
        self.core.loss_window();
    }

    /// `bbr_set_state(TCP_CA_Loss)`: the timeout ends a round and restarts full-pipe
    /// detection; the long-term sampler sees it as a loss.
    fn on_enter_loss(&mut self, rs: &RateSample) {
        self.prev_ca_state = CA_LOSS;
        self.full_bw = 0;
        self.round_start = true;
        self.lt_bw_sampling(rs);
    }

    /// `tcp_undo_cwnd_reduction` with `bbr_undo_cwnd`: the window stays as it is, full-pipe
    /// detection and the long-term sampler restart (`bbr_reset_lt_bw_sampling`, its interval
    /// restarted at the next sample); ssthresh no lower than `prior_ssthresh`
    /// (`tcp_current_ssthresh` before the reduction: max(ssthresh, ¾·cwnd)).
    fn undo(&mut self, prior: &Self) {
        self.full_bw = 0;
        self.full_bw_cnt = 0;
        self.lt_bw = 0;
        self.lt_use_bw = false;
        self.lt_is_sampling = false;
        self.lt_rtt_cnt = 0;
        let c = prior.core.cwnd_packets();
        let prior_ssthresh = prior.core.ssthresh_packets().max((c >> 1) + (c >> 2));
        if prior_ssthresh > self.core.ssthresh_packets() {
            self.core.set_ssthresh_packets(prior_ssthresh);
        }
    }

    /// A `cong_control` module: PRR's and recovery's window changes are not made.
    fn set_recovery_cwnd(&mut self, _bytes: u64) {}
    fn halve_window(&mut self) {}
    fn shrink_window(&mut self, _bytes: u64) {}

    /// `bbr_cwnd_event(CA_EVENT_TX_START)` while application-limited: restarting from idle,
    /// pace at the estimate in PROBE_BW, or see whether PROBE_RTT is done.
    fn on_idle_restart(&mut self, now: SimTime, delivered_mstamp_us: u64) {
        self.idle_restart = true;
        self.ack_epoch_mstamp = now.0 / 1000;
        self.ack_epoch_acked = 0;
        match self.mode {
            BbrMode::ProbeBw => {
                let rate = self.rate_bytes_per_sec(self.bw() as u64, BBR_UNIT);
                if self.full_bw_reached || rate > self.pacing_rate {
                    self.pacing_rate = rate;
                }
            }
            BbrMode::ProbeRtt => self.check_probe_rtt_done(jiffies::jiffies(now), delivered_mstamp_us),
            _ => {}
        }
    }

    /// `bbr_init`, when the connection is established: ssthresh infinite, the minimum RTT
    /// from the handshake (`tcp_min_rtt`), the pacing rate from the window and SRTT.
    fn on_established(&mut self, now: SimTime, srtt: Option<SimDuration>, min_rtt: Option<SimDuration>, delivered: u32) {
        self.rng = now.0 ^ 0x6262_722d_7274_6f6c;
        self.core.set_ssthresh_packets(u32::MAX);
        self.next_rtt_delivered = delivered;
        self.min_rtt_us = min_rtt.map_or(u32::MAX, |d| (d.as_nanos() / 1000).min(u32::MAX as u64 - 1) as u32);
        self.min_rtt_stamp = jiffies::jiffies(now);
        self.init_pacing_rate_from_rtt(srtt.map(|s| s.as_nanos() / 1000));
        self.ack_epoch_mstamp = now.0 / 1000;
    }

    fn pacing(&self) -> Option<(u64, u32)> {
        Some((self.pacing_rate, self.tso_segs_goal()))
    }

    fn take_app_limited_mark(&mut self) -> bool {
        std::mem::take(&mut self.app_limited_mark)
    }
}

#[cfg(test)]
#[path = "bbr_tests.rs"]
mod tests;
