//! BIC's `cnt` against hand computations from `tcp_bic.c`'s rules. The ACKs each acknowledge
//! two segments (a delayed-ACK receiver), so `delayed_ack` stays at its initial 32
//! (32 + 2 − 32/16) and `cnt` = ⌊raw·16/32⌋ = ⌊raw/2⌋, raw being the rule's value.

use super::super::test_acks::{ms, Stream, MSS};
use super::super::{CongestionControl, WindowArith, WindowCore};
use super::*;
use crate::tcp::state::LossState;

/// BIC on a 10-segment window, counting segments as today's module or, with
/// `ack_counting`, ACKs as Linux 2.6.24's.
fn bic(ack_counting: bool) -> Bic {
    Bic::new(WindowCore::new(MSS as u32, 10 * MSS, WindowArith::Bytes).with_ack_counting(ack_counting))
}

/// Today's module after `after_a_loss_counting`.
fn after_a_loss(w_max: u64) -> (Bic, Stream) {
    after_a_loss_counting(w_max, false)
}

/// `bic(ack_counting)` after a loss at `w_max` segments (the first, so W_max = cwnd) and
/// recovery to ssthresh.
fn after_a_loss_counting(w_max: u64, ack_counting: bool) -> (Bic, Stream) {
    let mut cc = bic(ack_counting);
    let mut s = Stream::start(&mut cc, SimTime::ZERO);
    cc.set_cwnd(w_max * MSS);
    cc.on_congestion_event(s.now, 0);
    let ssthresh = cc.ssthresh();
    cc.set_cwnd(ssthresh);
    cc.on_recovery_exit(s.now);
    s.snd_max = s.snd_una + cc.cwnd();
    (cc, s)
}

/// `cnt` after one 2-segment ACK at window `cwnd` segments, 100 ms after the last.
fn cnt_at(cc: &mut Bic, s: &mut Stream, cwnd: u64) -> u32 {
    cc.set_cwnd(cwnd * MSS);
    s.ack(cc, s.now + ms(100), 2, Some(ms(100)));
    cc.cnt
}

/// After a loss at `w_max` segments ssthresh is `ssthresh` segments, and `cnt_at` each
/// window of `cnts` gives its `cnt`.
fn assert_cnts_after_a_loss(w_max: u64, ssthresh: u64, cnts: &[(u64, u32)]) {
    let (mut cc, mut s) = after_a_loss(w_max);
    assert_eq!(cc.ssthresh(), ssthresh * MSS);
    for &(cwnd, cnt) in cnts {
        assert_eq!(cnt_at(&mut cc, &mut s, cwnd), cnt, "cwnd {cwnd}");
    }
}

/// W_max = 100: ssthresh = ⌊100·819/1024⌋ = ⌊79.98⌋ = 79. Binary search below W_max, with
/// d = ⌊(100 − cwnd)/4⌋: cwnd 79: d = 5, raw ⌊79/5⌋ = 15, cnt 7; cwnd 90: d = 2, raw 45,
/// cnt 22; cwnd 97: d = 0 ≤ 1, raw = ⌊97·20/4⌋ = 485, cnt 242. In segments per RTT
/// (cwnd/cnt) that is 11, 4 and 0.4: about twice the search's d per RTT, since `delayed_ack`
/// halves cnt while `tcp_cong_avoid_ai` counts both segments of every ACK.
#[test]
fn binary_search_after_a_loss_at_one_hundred_segments() {
    let (mut cc, mut s) = after_a_loss(100);
    assert_eq!((cc.ssthresh(), cc.last_max_cwnd), (79 * MSS, 100));
    // cnt 7 at cwnd 79: three 2-segment ACKs count 6 segments, the fourth makes 8 ≥ 7 and
    // one segment of growth.
    for (i, cwnd) in [(1, 79), (2, 79), (3, 79), (4, 80)] {
        s.ack(&mut cc, s.now + ms(1), 2, Some(ms(100)));
        assert_eq!((cc.cnt, cc.cwnd() / MSS), (7, cwnd), "ACK {i}");
    }
    assert_eq!(cc.acks.delayed_ack, 32);
    assert_eq!(cnt_at(&mut cc, &mut s, 90), 22);
    assert_eq!(cnt_at(&mut cc, &mut s, 97), 242);
}

/// Far below W_max the increment is capped: W_max = 1000, ssthresh = ⌊1000·819/1024⌋ = 799,
/// d = ⌊201/4⌋ = 50 > 16, so raw = ⌊799/16⌋ = 49 and cnt = 24.
#[test]
fn max_increment_caps_the_search() {
    assert_cnts_after_a_loss(1000, 799, &[(799, 24)]);
}

/// Beyond W_max = 100 (ssthresh 79 as above; max probing): cwnd 102 < 100 + B: raw
/// ⌊102·20/4⌋ = 510, cnt 255; cwnd 110 < 100 + 16·3: raw ⌊110·3/10⌋ = 33, cnt 16 (slow start
/// away from W_max); cwnd 150 ≥ 148: raw ⌊150/16⌋ = 9, cnt 4 (linear, the max_increment rate).
#[test]
fn slow_start_beyond_w_max() {
    assert_cnts_after_a_loss(100, 79, &[(102, 255), (110, 16), (150, 4)]);
}

/// At or below `low_window` BIC is Reno: cnt = cwnd (unscaled), ssthresh = cwnd/2.
#[test]
fn reno_below_low_window() {
    assert_cnts_after_a_loss(12, 6, &[(12, 12)]);
}

/// `bictcp_acked` averages only ACKs that arrive in Open. The duplicate that starts fast
/// recovery arrives in Open: 32 + 0 − 32/16 = 30. The ACKs of fast recovery do not count,
/// nor the one that ends it (the sender reports Recovery for it); the next ACK, 10 segments
/// in Open, moves 30 by 10 − 30/16 = 9 to 39.
#[test]
fn delayed_ack_ratio_counts_open_acks_only() {
    let mut cc = bic(false);
    let mut s = Stream::start(&mut cc, SimTime::ZERO);
    let recovery = LossState::Recovery { point: u64::MAX };
    let mut dup = s.sample(s.now + ms(1), 0, None);
    dup.state = recovery;
    cc.on_ack(&dup);
    assert_eq!(cc.acks.delayed_ack, 30);
    let mut partial = s.sample(s.now + ms(2), 10, Some(ms(100)));
    partial.state = recovery;
    cc.on_ack(&partial);
    cc.on_recovery_exit(partial.now);
    cc.on_ack(&partial);
    assert_eq!(cc.acks.delayed_ack, 30);
    s.ack(&mut cc, s.now + ms(3), 10, Some(ms(100)));
    assert_eq!(cc.acks.delayed_ack, 39);
}

/// A timeout at cwnd 90 takes ssthresh = ⌊90·819/1024⌋ = ⌊71.98⌋ = 71, then resets BIC
/// (W_max 0, delayed_ack 32). An undo restores cwnd 90 and ssthresh
/// max(71, prior 79, ⌊¾·90⌋ = 67) = 79, and nothing of BIC's own state.
#[test]
fn timeout_resets_and_undo_restores_the_window() {
    let (mut cc, s) = after_a_loss(100);
    cc.set_cwnd(90 * MSS);
    let prior = cc.clone();
    cc.on_rto(s.now, 0, true);
    assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 71 * MSS));
    assert_eq!((cc.last_max_cwnd, cc.acks.delayed_ack), (0, 32));
    cc.undo(&prior);
    assert_eq!((cc.cwnd(), cc.ssthresh()), (90 * MSS, 79 * MSS));
    assert_eq!(cc.last_max_cwnd, 0);
}

/// 2.6.24's `bictcp_cong_avoid` counts ACKs. W_max 100, ssthresh 79 = cwnd: the first
/// two-segment ACK is still slow start (cwnd ≤ ssthresh, 2.6.24's `tcp_slow_start`): 80.
/// Then `bictcp_update` at 80: d = ⌊20/4⌋ = 5, raw ⌊80/5⌋ = 16, ×16/32 (`delayed_ack` 32
/// as above) = 8; `snd_cwnd_cnt` counts the next 8 ACKs (0 → 8, the rate limit keeping cnt)
/// and the 9th finds 8 ≥ 8: cwnd 81 after 10 ACKs, 20 segments. Today's module at cwnd 80
/// grows after 4 such ACKs (8 segments ≥ cnt 8): the delayed-ACK scaling on top of
/// segment counting makes it about twice as fast.
#[test]
fn linux_2_6_24_counts_acks_after_a_loss() {
    let (mut cc, mut s) = after_a_loss_counting(100, true);
    assert_eq!((cc.ssthresh(), cc.last_max_cwnd, cc.loss_cwnd), (79 * MSS, 100, 100));
    s.ack(&mut cc, s.now + ms(1), 2, Some(ms(100)));
    assert_eq!(cc.cwnd(), 80 * MSS);
    for i in 1..=8 {
        s.ack(&mut cc, s.now + ms(1), 2, Some(ms(100)));
        assert_eq!((cc.cnt, cc.core.cwnd_cnt(), cc.cwnd()), (8, i, 80 * MSS), "ACK {i}");
    }
    s.ack(&mut cc, s.now + ms(1), 2, Some(ms(100)));
    assert_eq!((cc.cwnd(), cc.core.cwnd_cnt(), cc.acks.delayed_ack), (81 * MSS, 0, 32));

    let (mut today, mut t) = after_a_loss(100);
    today.set_cwnd(80 * MSS);
    for _ in 0..3 {
        t.ack(&mut today, t.now + ms(1), 2, Some(ms(100)));
    }
    assert_eq!((today.cnt, today.cwnd()), (8, 80 * MSS));
    t.ack(&mut today, t.now + ms(1), 2, Some(ms(100)));
    assert_eq!(today.cwnd(), 81 * MSS);
}

/// At or below `low_window` 2.6.24's BIC is 2.6.24's Reno: cnt = cwnd unscaled (the early
/// return in `bictcp_update`), counted per ACK: at cwnd 12 above ssthresh 6 the 13th
/// two-segment ACK grows it (26 segments; today's: the 6th, 12 segments).
#[test]
fn linux_2_6_24_reno_below_low_window() {
    let (mut cc, mut s) = after_a_loss_counting(12, true);
    cc.set_cwnd(12 * MSS);
    for i in 1..=12 {
        s.ack(&mut cc, s.now + ms(1), 2, Some(ms(100)));
        assert_eq!((cc.cnt, cc.cwnd()), (12, 12 * MSS), "ACK {i}");
    }
    s.ack(&mut cc, s.now + ms(1), 2, Some(ms(100)));
    assert_eq!(cc.cwnd(), 13 * MSS);
}

/// 2.6.24 calls `bictcp_acked` only for ACKs of new data (`FLAG_ACKED` in
/// `tcp_clean_rtx_queue`): a duplicate in Open leaves `delayed_ack` at 32, where today's
/// kernel averages in its 0 segments (30, `delayed_ack_ratio_counts_open_acks_only`).
#[test]
fn linux_2_6_24_duplicates_leave_the_delayed_ack_ratio() {
    let mut cc = bic(true);
    let s = Stream::start(&mut cc, SimTime::ZERO);
    let mut dup = s.sample(s.now + ms(1), 0, None);
    dup.state = LossState::Recovery { point: u64::MAX };
    cc.on_ack(&dup);
    assert_eq!(cc.acks.delayed_ack, 32);
}

/// 2.6.24 caps cnt at 20 while `loss_cwnd` is 0, today's while W_max is 0. They part where
/// fast convergence at cwnd 1 (below W_max 100) sets W_max = ⌊1·1843/2048⌋ = 0 while
/// `loss_cwnd` = 1: at cwnd 400 (ssthresh 2, W_max 0: linear, raw ⌊400/16⌋ = 25) 2.6.24
/// keeps 25, ×16/32 = 12; today's caps it to 20, ×16/32 = 10. A timeout makes `loss_cwnd` 0
/// again: capped, 10.
#[test]
fn linux_2_6_24_caps_cnt_while_loss_cwnd_is_zero() {
    for (ack_counting, cnt) in [(true, 12), (false, 10)] {
        let mut cc = Bic::new(WindowCore::new(MSS as u32, 100 * MSS, WindowArith::Bytes).with_ack_counting(ack_counting));
        let mut s = Stream::start(&mut cc, SimTime::ZERO);
        cc.on_congestion_event(s.now, 0);
        cc.set_cwnd(MSS);
        cc.on_congestion_event(s.now, 0);
        assert_eq!((cc.last_max_cwnd, cc.loss_cwnd, cc.ssthresh()), (0, 1, 2 * MSS));
        cc.on_recovery_exit(s.now);
        assert_eq!(cnt_at(&mut cc, &mut s, 400), cnt, "ack_counting {ack_counting}");
        if ack_counting {
            cc.on_rto(s.now, 0, true);
            cc.acks.ca_state = LossState::Open;
            cc.set_ssthresh(2 * MSS);
            assert_eq!(cnt_at(&mut cc, &mut s, 400), 10);
        }
    }
}

/// The answer of one 2-segment ACK at window `cwnd` segments, 100 ms after the last.
fn growth_at(cc: &mut Bic, s: &mut Stream, cwnd: u64) -> Growth {
    cc.set_cwnd(cwnd * MSS);
    s.ack(cc, s.now + ms(100), 2, Some(ms(100)))
}

/// Congestion avoidance is linear, Reno's cnt = cwnd, at or below `low_window` = 14 and not
/// above it. A loss at 12 leaves ssthresh 6 (cwnd/2 at or below `low_window`). Today's
/// module: cwnd 6 = ssthresh is congestion avoidance already (cwnd ≥ ssthresh), linear up to
/// 14 (cnt 14); at 15, beyond W_max 12 (< 12 + B), cnt = ⌊15·20/4⌋ = 75 ×16/32 = 37, not
/// linear. 2.6.24's: cwnd 6 = ssthresh still slow-starts; 7 and 14 linear, 15 not. After a
/// loss at 100, the binary search at 79 is not linear either.
#[test]
fn linear_growth_at_or_below_low_window() {
    let linear = |l| Growth::Avoidance { linear: l };
    for ack_counting in [false, true] {
        let (mut cc, mut s) = after_a_loss_counting(12, ack_counting);
        assert_eq!(cc.ssthresh(), 6 * MSS);
        let at_ssthresh = if ack_counting { Growth::SlowStart } else { linear(true) };
        assert_eq!(growth_at(&mut cc, &mut s, 6), at_ssthresh, "ack_counting {ack_counting}");
        assert_eq!(growth_at(&mut cc, &mut s, 7), linear(true), "ack_counting {ack_counting}");
        assert_eq!((growth_at(&mut cc, &mut s, 14), cc.cnt), (linear(true), 14), "ack_counting {ack_counting}");
        assert_eq!((growth_at(&mut cc, &mut s, 15), cc.cnt), (linear(false), 37), "ack_counting {ack_counting}");

        let (mut cc, mut s) = after_a_loss_counting(100, ack_counting);
        assert_eq!(growth_at(&mut cc, &mut s, 79), if ack_counting { Growth::SlowStart } else { linear(false) });
        assert_eq!(growth_at(&mut cc, &mut s, 80), linear(false));
    }
}

/// No rule runs on a duplicate, on an ACK when the window does not limit the sender, or on
/// one in fast recovery.
#[test]
fn growth_held_outside_growth() {
    let (mut cc, mut s) = after_a_loss(12);
    assert_eq!(s.ack(&mut cc, s.now + ms(1), 0, None), Growth::Held);
    let mut idle = s.sample(s.now + ms(2), 2, None);
    idle.cwnd_limited = false;
    assert_eq!(s.deliver(&mut cc, &idle), Growth::Held);
    let mut recovery = s.sample(s.now + ms(3), 2, None);
    recovery.state = LossState::Recovery { point: u64::MAX };
    assert_eq!(s.deliver(&mut cc, &recovery), Growth::Held);
}
