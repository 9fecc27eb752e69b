//! HyStart, the slow-start exit of Linux's CUBIC (`net/ipv4/tcp_cubic.c`:
//! `bictcp_hystart_reset`, `hystart_update`, `hystart_ack_delay`), with the pacing rate it
//! reads (`tcp_update_pacing_rate` in `net/ipv4/tcp_input.c`).
//!
//! A round begins when SND.UNA passes the round's `end_seq`, SND.NXT (SND.MAX here) when the
//! round before began. Two detectors end slow start (the caller then sets ssthresh = cwnd):
//! - ACK train: ACKs keep coming at most `hystart_ack_delta_us` = 2 ms apart and the train has
//!   lasted longer than (delay_min + ack delay) / 2 since the round began (halved because
//!   nothing paces the flow: `SK_PACING_NONE`).
//! - Delay: after `HYSTART_MIN_SAMPLES` = 8 RTT samples in the round, the round's smallest
//!   sample exceeds delay_min + clamp(delay_min / 8, 4 ms, 16 ms).
//!
//! Invariant: once `found`, HyStart stays quiet until CUBIC's state is reset on a timeout.

use crate::time::SimDuration;

/// `hystart_ack_delta_us`.
const ACK_DELTA_US: u32 = 2000;
/// `HYSTART_MIN_SAMPLES`.
const MIN_SAMPLES: u8 = 8;
/// `HYSTART_DELAY_MIN` and `HYSTART_DELAY_MAX`, µs.
const DELAY_MIN_US: u32 = 4000;
const DELAY_MAX_US: u32 = 16_000;
/// `hystart_low_window`: HyStart looks at nothing while cwnd is below 16 segments.
pub const LOW_WINDOW: u32 = 16;
/// `sk_gso_max_size` on a device with the default `GSO_LEGACY_MAX_SIZE`. The ACK-delay
/// cushion it gives, 4·size/rate, reaches its 1 ms cap below 2 Gbit/s, so the kernel's exact
/// figure (it may deduct its header room) only matters above that.
const GSO_MAX_SIZE: u64 = 65_536;
/// `sysctl_tcp_pacing_ss_ratio` and `sysctl_tcp_pacing_ca_ratio`, percent.
const PACING_SS_RATIO: u64 = 200;
const PACING_CA_RATIO: u64 = 120;

/// HyStart's per-round state.
#[derive(Clone, Debug)]
pub struct HyStart {
    /// The exit point was found (`found`).
    found: bool,
    /// RTT samples taken this round, up to 8 (`sample_cnt`).
    sample_cnt: u8,
    /// µs clock when the round began (`round_start`).
    round_start: u32,
    /// The round ends when SND.UNA passes this (`end_seq`).
    end_seq: u64,
    /// µs clock of the last ACK of the current train (`last_ack`).
    last_ack: u32,
    /// Smallest RTT sample of the round, µs (`curr_rtt`).
    curr_rtt: u32,
}

impl HyStart {
    pub fn new() -> Self {
        HyStart { found: false, sample_cnt: 0, round_start: 0, end_seq: 0, last_ack: 0, curr_rtt: u32::MAX }
    }

    pub fn found(&self) -> bool {
        self.found
    }

    /// Forgets the exit point (`bictcp_reset` clears `found`).
    pub fn clear_found(&mut self) {
        self.found = false;
    }

    /// `bictcp_hystart_reset`: a round begins now and ends when SND.UNA passes `snd_nxt`.
    pub fn reset_round(&mut self, now_us: u32, snd_nxt: u64) {
        self.round_start = now_us;
        self.last_ack = now_us;
        self.end_seq = snd_nxt;
        self.curr_rtt = u32::MAX;
        self.sample_cnt = 0;
    }

    /// The start of `hystart_update`: a new round once SND.UNA passed the round's end. Linux
    /// 6.13 on runs it for every RTT sample in slow start, before the `hystart_low_window`
    /// test ("tcp_cubic: fix incorrect HyStart round start detection"), so rounds also turn
    /// over while cwnd is below 16 and the round a window of 16 finds began at its flight's
    /// first ACK, not mid-flight.
    pub fn new_round_if_due(&mut self, now_us: u32, snd_una: u64, snd_nxt: u64) {
        if snd_una > self.end_seq {
            self.reset_round(now_us, snd_nxt);
        }
    }

    /// The detectors of `hystart_update` (cwnd ≥ 16), after `new_round_if_due`, with an RTT
    /// sample `delay` (µs, at least 1) and CUBIC's `delay_min` already updated by it;
    /// `ack_delay_us` is `hystart_ack_delay`. Returns whether slow start ends at this ACK.
    pub fn update(&mut self, now_us: u32, delay: u32, delay_min: u32, ack_delay_us: u32) -> bool {
        let mut exit = false;
        if now_us.wrapping_sub(self.last_ack) as i32 <= ACK_DELTA_US as i32 {
            self.last_ack = now_us;
            let threshold = delay_min.wrapping_add(ack_delay_us) >> 1;
            if now_us.wrapping_sub(self.round_start) > threshold {
                exit = true;
            }
        }
        self.curr_rtt = self.curr_rtt.min(delay);
        if self.sample_cnt < MIN_SAMPLES {
            self.sample_cnt += 1;
        } else if self.curr_rtt > delay_min.wrapping_add((delay_min >> 3).clamp(DELAY_MIN_US, DELAY_MAX_US)) {
            exit = true;
        }
        self.found |= exit;
        exit
    }
}

/// `tcp_update_pacing_rate`, bytes per second: mss·max(cwnd, packets out)/srtt, times 200 %
/// while cwnd < ssthresh / 2 and 120 % after; without an RTT yet, the product undivided.
pub fn pacing_rate(mss: u64, cwnd: u32, ssthresh: u32, packets_out: u32, srtt: Option<SimDuration>) -> u64 {
    let ratio = if cwnd < ssthresh / 2 { PACING_SS_RATIO } else { PACING_CA_RATIO };
    // The kernel keeps srtt in 1/8 µs and scales the numerator by 8 to match.
    let rate = mss * (10_000 << 3) * ratio * cwnd.max(packets_out) as u64;
    match srtt.map(|s| s.as_nanos() * 8 / 1000) {
        Some(srtt8) if srtt8 > 0 => rate / srtt8,
        _ => rate,
    }
}

/// `hystart_ack_delay`: the time `GSO_MAX_SIZE` bytes take at 1/4 of the pacing rate, at
/// most 1 ms; 0 without a rate.
pub fn ack_delay_us(pacing_rate: u64) -> u32 {
    if pacing_rate == 0 {
        return 0;
    }
    (GSO_MAX_SIZE * 4 * 1_000_000 / pacing_rate).min(1000) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cwnd 20 of 1000 B over srtt 100 ms in slow start: 2 × 20 000 B / 0.1 s = 400 000 B/s;
    /// the cushion 4 × 65 536 B / 400 000 B/s = 655 ms is capped at 1 ms.
    #[test]
    fn pacing_rate_and_ack_delay_by_hand() {
        let r = pacing_rate(1000, 20, 0x7fff_ffff, 10, Some(SimDuration::from_millis(100)));
        assert_eq!(r, 400_000);
        assert_eq!(ack_delay_us(r), 1000);
        // 120 % once cwnd ≥ ssthresh / 2; 1 Gbit/s would give 2.1 ms, still capped; 10 Gbit/s
        // (1.25 GB/s) gives 4 × 65 536 / 1.25e9 s = 209 µs.
        assert_eq!(pacing_rate(1000, 20, 30, 10, Some(SimDuration::from_millis(100))), 240_000);
        assert_eq!(ack_delay_us(1_250_000_000), 209);
    }

    /// The delay threshold is delay_min + clamp(delay_min / 8, 4 ms, 16 ms): 40 ms → 45 ms,
    /// 10 ms → 14 ms, 200 ms → 216 ms. Eight samples fill the round; the ninth ACK compares
    /// the round's smallest sample with the threshold (ACKs 10 ms apart: no ACK train).
    #[test]
    fn delay_threshold_is_clamped() {
        for (delay_min, threshold) in [(40_000, 45_000), (10_000, 14_000), (200_000, 216_000)] {
            for (sample, exits) in [(threshold, false), (threshold + 1, true)] {
                let mut h = HyStart::new();
                h.reset_round(0, 100);
                for i in 0..8 {
                    assert!(!h.update(10_000 * i, sample, delay_min, 0));
                }
                assert_eq!(h.update(80_000, sample, delay_min, 0), exits, "delay_min {delay_min}, sample {sample}");
                assert_eq!(h.found(), exits);
            }
        }
    }

    /// ACKs 1 ms apart from the round's start: with delay_min 100 ms and a 1 ms cushion the
    /// train must last more than (100 + 1) / 2 = 50.5 ms, so the ACK 51 ms in ends slow start
    /// and the one 50 ms in does not.
    #[test]
    fn ack_train_longer_than_half_the_minimum_delay() {
        let mut h = HyStart::new();
        h.reset_round(0, 1_000_000);
        for ms in 1..=50 {
            assert!(!h.update(ms * 1000, 100_000, 100_000, 1000), "{ms} ms");
        }
        assert!(h.update(51_000, 100_000, 100_000, 1000));
    }
}
