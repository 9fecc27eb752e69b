//! CUBIC as Linux 2.6.24 ran it (`net/ipv4/tcp_cubic.c`, module version 2.1), paper 004's
//! sender: the same cubic curve as `cubic.rs`, but counted per ACK and with the per-ACK rules
//! that later versions removed.
//!
//! Per ACK in congestion avoidance (`bictcp_cong_avoid`): `bictcp_update` sets `cnt`, then
//! `snd_cwnd_cnt` counts ACKs — not segments — and cwnd gains one segment on the ACK that
//! finds `snd_cwnd_cnt ≥ cnt` (so one per cnt + 1 ACKs). `bictcp_update`:
//! - counts the ACK in `ack_cnt`, and recomputes `cnt` only when cwnd changed or more than
//!   HZ/32 jiffies passed (7 at HZ 250);
//! - the curve W(t) = C·(t − K)³ + W_max one `delay_min` ahead, with C = 410/1024 and
//!   K = ∛(W_max·(1 − β)/C): cnt = cwnd / (W(t) − cwnd), or 100·cwnd when W(t) ≤ cwnd;
//! - `max_increment` (16 segments per 100 ms): at or beyond the plateau (t ≥ K), cnt is at
//!   least `min_cnt` = cwnd·HZ·8 / (10·16·`delay_min`), `delay_min` in jiffies·8;
//! - before the first loss (`loss_cwnd == 0`, which every timeout restores) cnt = 50;
//! - TCP friendliness: Reno's estimate `tcp_cwnd` gains one segment per cwnd·`beta_scale`/8
//!   ACKs (`beta_scale` = 23 for β = 819: α = 1/3 per RTT with one ACK per segment); when it
//!   is ahead, cnt ≤ cwnd / (tcp_cwnd − cwnd);
//! - then cnt = cnt·16 / `delayed_ack` (at least 1), `delayed_ack` being 16 × the moving
//!   average (gain 1/16) of segments per ACK, taken in Open only (`bictcp_acked`), from 32.
//!   Its integer update d ← d + n − ⌊d/16⌋ rests anywhere with ⌊d/16⌋ = n: one segment per
//!   ACK leaves it at 31 (32 − 2 + 1), not 16.
//!
//! Slow start while cwnd ≤ ssthresh (`tcp_slow_start` with `tcp_abc` 0 and
//! `tcp_max_ssthresh` 0, 2.6.24's defaults): one segment per ACK, whatever it acknowledged.
//! β = 819/1024 (`cubic_beta` may change it); no HyStart (2.6.29); ssthresh starts infinite
//! (`initial_ssthresh` 0).
//!
//! RTT (`bictcp_acked`): only from ACKs that advance SND.UNA, in whole jiffies as the kernel's
//! `ca_seq_rtt` (`tcp_time_stamp` − the segment's `when`; none if that is 0), ignored within
//! 1 s of an epoch's start; `delay_min` = min(jiffies·8). A timeout resets everything
//! (`bictcp_state(TCP_CA_Loss)`), `loss_cwnd` included.
//!
//! Checked against Linux 2.6.24's `tcp_cubic.c` (MODULE_VERSION "2.1", read in the
//! annotated 2.6.24 tree `0x88888888/Linux2.6.24-comments`) and `tcp_cong.c`
//! (`tcp_slow_start`), and the call sites in its `tcp_input.c` (`tcp_clean_rtx_queue` calls
//! `pkts_acked` with the segments acknowledged cumulatively and `rtt_us` from `ca_seq_rtt`
//! unless retransmitted data was acknowledged; `tcp_ack` calls `cong_avoid` once per ACK of
//! new data outside Recovery and CWR). Not a copy of 2.6.32's module: 2.6.29's version 2.3
//! (HyStart) kept `bictcp_update`'s counting, the rate limit, the curve, the friendliness and
//! the delayed-ACK scaling, but had no `max_increment` floor and no `cnt = 50`, and β = 717
//! (checked in a copy of version 2.3; the stored `torvalds/linux` file is version 2.0).
//!
//! Kept from the rest of rtolab, not from 2.6.24: the undo is `WindowCore::undo` (2.6.24's
//! `bictcp_undo_cwnd` was max(cwnd, W_max), but the undo around it — and 2.6.24's answer to a
//! spurious timeout, rate halving in CWR (`tcp_frto_response` 0) — is today's kernel's in
//! rtolab's sender); `snd_cwnd_cnt` is the window's (`WindowCore`; 2.6.24 shares it with rate
//! halving, which leaves it 0 or 1 at the end of a recovery); with the jiffies clock at 0 when
//! no epoch runs, delay samples are always taken then (the kernel compares with
//! `epoch_start = 0`, which depends on the host's uptime); the kernel's RTT comes from
//! cumulatively acknowledged segments, rtolab's `ca_rtt` prefers newly SACKed ones.

use super::ack_ratio::AckRatio;
use super::bictcp::Bictcp;
use super::cubic_curve::{BICTCP_HZ, cnt_toward, friendly_scale, target};
use super::ssthresh_hook::SsthreshHook;
use super::{AckSample, CongestionControl, Growth, WindowCore};
use crate::tcp::jiffies::{self, HZ};
use crate::time::SimTime;

/// `beta` of module 2.1: the window keeps 819/1024 ≈ 0.8 at a loss.
pub const BETA: u32 = 819;
/// `max_increment`: at most 16 segments per 100 ms of `delay_min` beyond the plateau.
const MAX_INCREMENT: u32 = 16;
/// `cnt` while `loss_cwnd == 0`.
const CNT_BEFORE_LOSS: u32 = 50;

/// Module 2.1's state (`struct bictcp`) and its window (with `snd_cwnd_cnt`).
#[derive(Clone, Debug)]
pub struct Cubic2624 {
    core: WindowCore,
    /// `beta`, in 1/1024.
    beta: u32,
    /// `beta_scale` for `beta`.
    friendly_scale: u32,
    /// `struct bictcp`'s common fields: `cnt` counts ACKs, after the delayed-ACK scaling;
    /// `delay_min` is in jiffies × 8.
    bictcp: Bictcp,
    /// cwnd at the last reduction; 0 before any and after a timeout (`loss_cwnd`).
    loss_cwnd: u32,
    /// `delayed_ack` and the state `bictcp_acked` reads it in.
    acks: AckRatio,
}

impl Cubic2624 {
    /// `beta` in 1/1024, below 1024 (module 2.1: `BETA`).
    pub fn new(core: WindowCore, beta: u32) -> Self {
        Cubic2624 {
            core: core.into_linux(),
            beta,
            friendly_scale: friendly_scale(beta),
            bictcp: Bictcp::default(),
            loss_cwnd: 0,
            acks: AckRatio::new(),
        }
    }


    /// `bictcp_acked` with the segments this ACK acknowledged cumulatively: the delayed-ACK
    /// ratio in Open, then the delay sample in whole jiffies.
    fn pkts_acked(&mut self, ack: &AckSample, now_j: u32) {
        self.acks.count(ack.acked_packets(self.core.mss));
        let Some(rtt) = ack.rtt else { return };
        // `ca_seq_rtt` = tcp_time_stamp − when: jiffies between the send and this ACK; the
        // kernel passes `rtt_us` = −1 unless it is positive.
        let sent_j = jiffies::jiffies(SimTime(ack.now.0.saturating_sub(rtt.as_nanos())));
        let seq_rtt = now_j.wrapping_sub(sent_j);
        if seq_rtt as i32 <= 0 {
            return;
        }
        // usecs_to_jiffies(jiffies_to_usecs(seq_rtt)) << 3.
        self.bictcp.delay_sample(now_j, (seq_rtt << 3).max(1));
    }

    /// `bictcp_cong_avoid` past `tcp_is_cwnd_limited`: 2.6.24's `tcp_slow_start` while
    /// cwnd ≤ ssthresh (`WindowCore::slow_start_per_ack`, without ABC or limited slow start:
    /// one segment per ACK), else `bictcp_update` and one ACK counted towards `cnt`
    /// (`WindowCore::cong_avoid_per_ack`): linear growth when the TCP-friendly cap set `cnt`.
    fn cong_avoid(&mut self, now_j: u32) -> Growth {
        let cwnd = self.core.cwnd_packets();
        if cwnd <= self.core.ssthresh_packets() {
            self.core.slow_start_per_ack();
            return Growth::SlowStart;
        }
        self.update(now_j, cwnd);
        self.core.cong_avoid_per_ack(self.bictcp.cnt);
        Growth::Avoidance { linear: self.bictcp.friendly }
    }

    /// `bictcp_update` for the window `cwnd`, in the kernel's u32 arithmetic.
    fn update(&mut self, now_j: u32, cwnd: u32) {
        if self.bictcp.count_and_hold(now_j, cwnd, 1) {
            return;
        }
        let epoch_start = self.bictcp.recompute(now_j, cwnd, 1);
        // t = ((tcp_time_stamp + delay_min/8 − epoch_start) << BICTCP_HZ) / HZ, all u32.
        let b = &mut self.bictcp;
        let t = (now_j.wrapping_add(b.delay_min >> 3).wrapping_sub(epoch_start) << BICTCP_HZ) / HZ;
        b.cnt = cnt_toward(target(u64::from(t), b.k, b.origin_point), cwnd);
        if b.delay_min > 0 {
            let min_cnt = cwnd.wrapping_mul(HZ * 8) / (10 * MAX_INCREMENT * b.delay_min);
            // Concave growth only from the plateau on.
            if b.cnt < min_cnt && t >= b.k {
                b.cnt = min_cnt;
            }
        }
        if self.loss_cwnd == 0 {
            b.cnt = CNT_BEFORE_LOSS;
        }
        // TCP friendliness, with no floor of 2 (later modules').
        b.friendly = b.friendly_cap(cwnd, self.friendly_scale, 0);
        b.cnt = self.acks.scale(b.cnt);
    }
}

impl CongestionControl for Cubic2624 {
    fn core(&self) -> &WindowCore {
        &self.core
    }
    fn core_mut(&mut self) -> &mut WindowCore {
        &mut self.core
    }
    /// `tcp_clean_rtx_queue` → `bictcp_acked` on an ACK that advanced SND.UNA, in the state
    /// the ACK arrived in; then `bictcp_cong_avoid` when `tcp_may_raise_cwnd` and
    /// `tcp_is_cwnd_limited` allow.
    fn on_ack(&mut self, ack: &AckSample) -> Growth {
        let now_j = jiffies::jiffies(ack.now);
        if ack.acked_bytes > 0 {
            self.pkts_acked(ack, now_j);
        }
        self.acks.ack_done(ack.state);
        if ack.acked_bytes > 0 && ack.cwnd_limited && ack.state.grows_window() {
            self.cong_avoid(now_j)
        } else {
            Growth::Held
        }
    }
    /// `tcp_fastretrans_alert` entering Recovery: ssthresh from `bictcp_recalc_ssthresh`,
    /// `snd_cwnd_cnt` = 0.
    fn on_congestion_event(&mut self, _now: SimTime, _flight: u64) {
        self.reduce_for_recovery();
    }
    /// `tcp_enter_loss`: ssthresh from `bictcp_recalc_ssthresh` when the sender reduces
    /// (`first_timeout`), cwnd one segment, `snd_cwnd_cnt` = 0, then
    /// `bictcp_state(TCP_CA_Loss)`: everything reset, `loss_cwnd` and `delayed_ack` too.
    fn on_rto(&mut self, _now: SimTime, _flight: u64, first_timeout: bool) {
        self.reduce_for_loss(first_timeout);
    }
    /// `CA_EVENT_COMPLETE_CWR`: module 2.1 has no `cwnd_event`; the next ACK finds Open.
    fn on_recovery_exit(&mut self, _now: SimTime) {
        self.acks.recovery_exit();
    }
}

impl SsthreshHook for Cubic2624 {
    /// `bictcp_recalc_ssthresh`: the epoch ends; W_max becomes cwnd, or with fast convergence,
    /// when cwnd fell short of the previous W_max, cwnd·(1 + β)/2; `loss_cwnd` = cwnd;
    /// ssthresh = β·cwnd, at least 2.
    fn ssthresh_hook(&mut self) -> u32 {
        let cwnd = self.core.cwnd_packets();
        self.loss_cwnd = cwnd;
        self.bictcp.at_loss(cwnd, self.beta)
    }
    /// `bictcp_reset`: everything of `struct bictcp`, `loss_cwnd` and `delayed_ack` too;
    /// the next ACK finds Loss.
    fn reset_state(&mut self) {
        self.bictcp.reset();
        self.loss_cwnd = 0;
        self.acks.enter_loss();
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_acks::{at_ms, ms, Stream, MSS};
    use super::super::WindowArith;
    use crate::tcp::state::LossState;
    use super::*;

    fn cubic(iw_segments: u64) -> Cubic2624 {
        Cubic2624::new(WindowCore::new(MSS as u32, iw_segments * MSS, WindowArith::Bytes), BETA)
    }

    /// In congestion avoidance at cwnd 20 (ssthresh 10), before any loss.
    fn before_a_loss() -> (Cubic2624, Stream) {
        let mut cc = cubic(20);
        cc.set_ssthresh(10 * MSS);
        let s = Stream::start(&mut cc, at_ms(1000));
        (cc, s)
    }

    /// ACKs (of `segments` each, 10 ms apart, RTT 100 ms) until cwnd grows; returns how many.
    fn acks_to_grow(cc: &mut Cubic2624, s: &mut Stream, segments: u64) -> u64 {
        let cwnd = cc.cwnd();
        let mut n = 0;
        while cc.cwnd() == cwnd {
            n += 1;
            let at = s.now + ms(10);
            s.ack(cc, at, segments, Some(ms(100)));
            assert!(n < 10_000, "cwnd never grew");
        }
        n
    }

    /// Before the first loss cnt = 50, scaled by 16/`delayed_ack`. With two segments per ACK
    /// `delayed_ack` stays 32 (32 + 2 − ⌊32/16⌋): cnt = 50·16/32 = 25, and cwnd gains a segment
    /// on the ACK that finds `snd_cwnd_cnt` = 25, the 26th: 52 segments per segment of
    /// growth. With one segment per ACK it falls to 31 at the first ACK (32 + 1 − 2) and
    /// stays (31 + 1 − ⌊31/16⌋ = 31): cnt = ⌊800/31⌋ = 25 again, so 26 segments. With the
    /// ratio at 16 (one segment per ACK, as the estimate would say if it were exact):
    /// cnt = 50, 51 ACKs. The curve alone would give a far larger cnt (it starts at cwnd,
    /// K = 0: 100·cwnd), and the friendly estimate gains nothing in 51 ACKs (one per
    /// ⌊20·23/8⌋ = 57).
    #[test]
    fn cnt_is_fifty_before_the_first_loss_scaled_by_the_delayed_ack_ratio() {
        let (mut cc, mut s) = before_a_loss();
        assert_eq!(acks_to_grow(&mut cc, &mut s, 2), 26);
        assert_eq!((cc.cwnd(), cc.acks.delayed_ack, cc.bictcp.cnt), (21 * MSS, 32, 25));
        assert_eq!(acks_to_grow(&mut cc, &mut s, 2), 26);

        let (mut cc, mut s) = before_a_loss();
        assert_eq!(acks_to_grow(&mut cc, &mut s, 1), 26);
        assert_eq!((cc.acks.delayed_ack, cc.bictcp.cnt), (31, 25));

        let (mut cc, mut s) = before_a_loss();
        cc.acks.delayed_ack = 16;
        cc.acks.ca_state = LossState::Recovery { point: 0 }; // keeps the ratio for the first ACK
        s.ack(&mut cc, s.now + ms(10), 1, Some(ms(100)));
        assert_eq!(cc.bictcp.cnt, 50);
        cc.acks.delayed_ack = 16;
        assert_eq!(acks_to_grow(&mut cc, &mut s, 1), 50);
    }

    /// `delayed_ack` ← d + n − ⌊d/16⌋ in Open only: three segments per ACK lift it from 32 by
    /// one per ACK while ⌊d/16⌋ = 2, to 48 after 16 ACKs, where it rests (48 + 3 − 3); an ACK
    /// in Recovery leaves it alone.
    #[test]
    fn delayed_ack_ratio_is_a_moving_average_in_open() {
        let mut cc = cubic(100);
        let mut s = Stream::start(&mut cc, SimTime::ZERO);
        for i in 1..=20u64 {
            s.ack(&mut cc, at_ms(10 * i), 3, Some(ms(100)));
            assert_eq!(cc.acks.delayed_ack, (32 + i as u32).min(48), "ACK {i}");
        }
        cc.acks.ca_state = LossState::Recovery { point: 0 };
        let mut a = s.sample(s.now + ms(10), 1, Some(ms(100)));
        a.state = LossState::Recovery { point: 0 };
        s.deliver(&mut cc, &a);
        assert_eq!(cc.acks.delayed_ack, 48);
    }

    /// `min_cnt` = cwnd·HZ·8 / (10·`max_increment`·`delay_min`): cwnd 100, RTT 100 ms = 25
    /// jiffies (`delay_min` 200) at HZ 250: ⌊100·2000 / (160·200)⌋ = ⌊6.25⌋ = 6, at most
    /// 16 segments per 100 ms. At t = ((1225 + 25) << 10)/250 = 5120 (5 s) past a plateau at
    /// 100 (K = 0): W(t) = 100 + ⌊410·5120³ / 2⁴⁰⌋ = 100 + ⌊50.05⌋ = 150, cnt = 100/50 = 2,
    /// raised to 6. Below the plateau (K = 6000 > t, origin 200): the target is
    /// 200 − ⌊410·880³/2⁴⁰⌋ = 200, cnt = 100/100 = 1 and the floor does not apply. Ratio 16:
    /// no scaling.
    #[test]
    fn max_increment_floors_cnt_beyond_the_plateau() {
        let mut cc = cubic(100);
        cc.set_ssthresh(50 * MSS);
        cc.acks.delayed_ack = 16;
        cc.loss_cwnd = 100;
        cc.bictcp.delay_min = 200;
        let now_j = 10_000;
        cc.bictcp.epoch_start = Some(now_j - 1225);
        cc.bictcp.tcp_cwnd = 100;
        cc.bictcp.origin_point = 100;
        cc.update(now_j, 100);
        assert_eq!(cc.bictcp.cnt, 6);

        cc.bictcp.last_cwnd = 0;
        cc.bictcp.k = 6000;
        cc.bictcp.origin_point = 200;
        cc.update(now_j, 100);
        assert_eq!(cc.bictcp.cnt, 1);
    }

    /// `beta_scale` = ⌊⌊8·1843/3⌋/205⌋ = 23: at cwnd 8 Reno's estimate gains a segment per
    /// ⌊8·23/8⌋ = 23 ACKs. 47 ACKs counted: two segments (47 → 24 → 1), tcp_cwnd 8 → 10, so
    /// cnt ≤ 8/(10 − 8) = 4, then ×16/32 = 2 (K = 0 and a curve flat for now: cnt would be 800).
    #[test]
    fn tcp_friendliness_counts_acks() {
        let mut cc = cubic(8);
        cc.loss_cwnd = 8;
        cc.bictcp.epoch_start = Some(1000);
        cc.bictcp.tcp_cwnd = 8;
        cc.bictcp.origin_point = 8;
        cc.bictcp.ack_cnt = 46;
        cc.update(1001, 8);
        assert_eq!((cc.bictcp.ack_cnt, cc.bictcp.tcp_cwnd, cc.bictcp.cnt), (1, 10, 2));
        assert_eq!(cc.friendly_scale, 23);
    }

    /// `tcp_slow_start` with `tcp_abc` 0: one segment per ACK whatever it acknowledged (IW 3,
    /// ten ACKs of two segments: 13, not 23), and slow start while cwnd ≤ ssthresh: at
    /// cwnd = ssthresh = 13 the next ACK still adds one (14), the one after counts toward cnt.
    #[test]
    fn slow_start_adds_one_segment_per_ack() {
        let mut cc = cubic(3);
        let mut s = Stream::start(&mut cc, SimTime::ZERO);
        for i in 1..=10 {
            s.ack(&mut cc, at_ms(10 * i), 2, Some(ms(100)));
        }
        assert_eq!(cc.cwnd(), 13 * MSS);
        cc.set_ssthresh(13 * MSS);
        s.ack(&mut cc, at_ms(110), 2, Some(ms(100)));
        assert_eq!(cc.cwnd(), 14 * MSS);
        s.ack(&mut cc, at_ms(120), 2, Some(ms(100)));
        assert_eq!((cc.cwnd(), cc.core.cwnd_cnt()), (14 * MSS, 1));
    }

    /// A loss at 100 segments: ssthresh ⌊100·819/1024⌋ = 79, W_max = `loss_cwnd` = 100. With
    /// cwnd 80 the next epoch's K = ∛(⌊2⁴⁰/410⌋·20) = 3770/1024 s (the kernel's root; exact
    /// ∛(20/0.4004)·1024 = 3771.2). One delay_min on (t = ⌊25·1024/250⌋ = 102) the target is
    /// 100 − ⌊410·3668³/2⁴⁰⌋ = 100 − 18 = 82: cnt = 80/2 = 40, ×16/31 = 20 (`delayed_ack` 31
    /// after per-segment ACKs). A timeout then resets the module: `loss_cwnd` 0, so beyond
    /// ssthresh cnt = 50 again (·16/32 = 25 with two segments per ACK), `delayed_ack` 32,
    /// `delay_min` 0.
    #[test]
    fn a_timeout_brings_back_cnt_fifty() {
        let mut cc = cubic(100);
        let mut s = Stream::start(&mut cc, SimTime::ZERO);
        s.ack(&mut cc, at_ms(100), 1, Some(ms(100)));
        cc.set_cwnd(100 * MSS);
        cc.on_congestion_event(s.now, 0);
        assert_eq!((cc.ssthresh(), cc.bictcp.last_max_cwnd, cc.loss_cwnd), (79 * MSS, 100, 100));
        cc.set_cwnd(80 * MSS);
        s.snd_max = s.snd_una + cc.cwnd();
        s.ack(&mut cc, at_ms(200), 1, Some(ms(100)));
        assert_eq!((cc.bictcp.k, cc.acks.delayed_ack, cc.bictcp.cnt), (3770, 31, 20));

        cc.on_rto(at_ms(300), 0, true);
        assert_eq!((cc.cwnd(), cc.loss_cwnd, cc.acks.delayed_ack, cc.bictcp.delay_min, cc.bictcp.epoch_start), (MSS, 0, 32, 0, None));
        cc.set_cwnd(cc.ssthresh() + MSS);
        cc.acks.ca_state = LossState::Open;
        s.snd_max = s.snd_una + cc.cwnd();
        s.ack(&mut cc, at_ms(400), 2, Some(ms(100)));
        assert_eq!(cc.bictcp.cnt, 25);
    }

    /// Just after a reduction at 8 segments (`loss_cwnd` 8, ssthresh 7, cwnd 8, the epoch begun
    /// at jiffy 1000 with its plateau at 8 and K = 0: a flat curve, cnt = 800), 46 ACKs
    /// counted towards Reno's estimate: the ACK at jiffy 1001 makes 47, two segments of it
    /// (one per ⌊8·23/8⌋ = 23; 47 → 1), tcp_cwnd 8 → 10, and the cap 8/(10 − 8) = 4 sets cnt
    /// (×16/31 = 2: `delayed_ack` 32 → 31 after a one-segment ACK): linear growth. The next
    /// ACK, 4 ms on at the same cwnd, keeps that cnt (HZ/32 rate limit) and stays linear.
    #[test]
    fn friendly_cap_after_a_reduction_is_linear_growth() {
        let mut cc = cubic(8);
        let mut s = Stream::start(&mut cc, at_ms(4000));
        cc.set_ssthresh(7 * MSS);
        cc.loss_cwnd = 8;
        let b = &mut cc.bictcp;
        (b.last_max_cwnd, b.epoch_start, b.k, b.origin_point, b.tcp_cwnd, b.ack_cnt) = (8, Some(1000), 0, 8, 8, 46);
        assert_eq!(s.ack(&mut cc, at_ms(4004), 1, None), Growth::Avoidance { linear: true });
        assert_eq!((cc.bictcp.ack_cnt, cc.bictcp.tcp_cwnd, cc.acks.delayed_ack, cc.bictcp.cnt), (1, 10, 31, 2));
        assert_eq!(s.ack(&mut cc, at_ms(4008), 1, None), Growth::Avoidance { linear: true });
        assert_eq!((cc.cwnd(), cc.bictcp.cnt), (8 * MSS, 2));
    }

    /// Far along the curve after a loss at 100 (K = 3770, cwnd 95, the epoch 700 jiffies old,
    /// `delay_min` 25 jiffies): t = ⌊725·1024/250⌋ = 2969, ⌊410·801³/2⁴⁰⌋ = 0, so the target is
    /// the plateau 100 and cnt = 95/5 = 19. Reno's estimate at 96 is ahead of cwnd, but its
    /// cap 95/(96 − 95) = 95 is above 19: the curve's growth (cnt ×16/31 = 9), not linear.
    /// At cwnd = ssthresh it is still slow start (2.6.24 slow-starts while cwnd ≤ ssthresh).
    #[test]
    fn curve_above_reno_is_not_linear() {
        let mut cc = cubic(95);
        let mut s = Stream::start(&mut cc, at_ms(4000));
        cc.set_ssthresh(79 * MSS);
        cc.loss_cwnd = 100;
        let b = &mut cc.bictcp;
        (b.last_max_cwnd, b.delay_min, b.epoch_start, b.k, b.origin_point, b.tcp_cwnd) = (100, 200, Some(300), 3770, 100, 96);
        assert_eq!(s.ack(&mut cc, at_ms(4000), 1, None), Growth::Avoidance { linear: false });
        assert_eq!((cc.bictcp.tcp_cwnd, cc.bictcp.cnt), (96, 9));

        let mut cc = cubic(79);
        let mut s = Stream::start(&mut cc, at_ms(4000));
        cc.set_ssthresh(79 * MSS);
        assert_eq!(s.ack(&mut cc, at_ms(4004), 1, None), Growth::SlowStart);
        assert_eq!(cc.cwnd(), 80 * MSS);
    }

    /// RTT samples in whole jiffies (HZ 250): 100 ms is 25 jiffies, `delay_min` 25·8 = 200;
    /// a 3 ms RTT within one jiffy gives `ca_seq_rtt` 0 and no sample; one that crosses a tick
    /// counts a whole jiffy (8).
    #[test]
    fn delay_min_counts_whole_jiffies() {
        let mut cc = cubic(10);
        let mut s = Stream::start(&mut cc, SimTime::ZERO);
        s.ack(&mut cc, at_ms(100), 1, Some(ms(100)));
        assert_eq!(cc.bictcp.delay_min, 200);
        s.ack(&mut cc, at_ms(203), 1, Some(ms(3))); // sent at 200 ms, jiffy 50 both
        assert_eq!(cc.bictcp.delay_min, 200);
        s.ack(&mut cc, at_ms(305), 1, Some(ms(3))); // sent at 302 ms: jiffies 75 → 76
        assert_eq!(cc.bictcp.delay_min, 8);
    }
}
