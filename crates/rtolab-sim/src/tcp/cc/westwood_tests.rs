//! Westwood+ against hand computations from `tcp_westwood.c`'s rules.

use super::super::test_acks::{at_ms, ms, Stream, MSS};
use super::super::{CongestionControl, WindowArith, WindowCore};
use super::*;

fn westwood() -> (Westwood, Stream) {
    let mut cc = Westwood::new(WindowCore::new(MSS as u32, 10 * MSS, WindowArith::Bytes));
    let s = Stream::start(&mut cc, SimTime::ZERO);
    (cc, s)
}

/// One 1000-byte segment acknowledged every `gap_ms`, RTT 100 ms, until `until_ms`.
fn constant_rate(cc: &mut Westwood, s: &mut Stream, gap_ms: u64, until_ms: u64) {
    while s.now < at_ms(until_ms) {
        s.ack(cc, s.now + ms(gap_ms), 1, Some(ms(100)));
    }
}

/// 1000 B every 10 ms at HZ 250 (4 ms jiffies; RTT 100 ms = 25 jiffies, `RTT_MIN` 12). The
/// first ACK (10 ms) only sets the count's start (`first_ack`); a window closes at the first
/// ACK more than max(25, 12) jiffies after it opened, before that ACK is counted. 110 ms
/// (jiffy 27): 9 ACKs (20–100 ms), 9000/27 = 333 fills both filters. 220 ms (jiffy 55, 28
/// later): 11 000/28 = 392, bw_ns = ⌊(7·333 + 392)/8⌋ = 340, bw = ⌊(7·333 + 340)/8⌋ = 333.
/// 330 ms (jiffy 82, 27 later): 11 000/27 = 407, bw_ns = ⌊(7·340 + 407)/8⌋ = 348,
/// bw = ⌊(7·333 + 348)/8⌋ = 334. Windows then alternate between 28 and 27 jiffies (samples
/// 392 and 407 B/jiffy); iterating the two truncating filters over them to 60 s gives
/// bw_ns = 393 and bw = 386 B/jiffy: 96.5 kB/s for this 100 kB/s stream.
#[test]
fn bandwidth_filter_steps_by_hand() {
    let (mut cc, mut s) = westwood();
    for (until, ns, bw) in [(100, 0, 0), (110, 333, 333), (220, 340, 333), (330, 348, 334)] {
        constant_rate(&mut cc, &mut s, 10, until);
        assert_eq!((cc.bw_ns_est, cc.bw_est), (ns, bw), "at {until} ms");
    }
    constant_rate(&mut cc, &mut s, 10, 60_000);
    assert_eq!((cc.bw_ns_est, cc.bw_est), (393, 386));
    assert_eq!(cc.bandwidth(), 96_500);
    assert_eq!(cc.rtt_min, 25);
}

/// 1000 B every ms = 1 MB/s: windows of 101 ms hold 101 ACKs, samples of 1000 B/jiffy; the
/// truncation costs each filter stage at most 7, so the estimate settles within
/// 14/1000 = 1.4 % below the rate.
#[test]
fn bandwidth_of_a_constant_rate_stream() {
    let (mut cc, mut s) = westwood();
    constant_rate(&mut cc, &mut s, 1, 30_000);
    let bw = cc.bandwidth() as f64;
    assert!((986_000.0..=1_000_000.0).contains(&bw), "{bw}");
}

/// After the 100 kB/s stream (BWE 386 B/jiffy, RTT_min 25 jiffies): a timeout at 60 s sets
/// ssthresh = ⌊386·25/1000⌋ = 9 segments and cwnd 1. The next ACK, 150 ms later, brings a
/// 150 ms sample (38 jiffies) that replaces RTT_min, and closes the window open since jiffy
/// 14 987 (50 jiffies, 6000 B: sample 120): bw_ns = ⌊(7·393 + 120)/8⌋ = 358,
/// bw = ⌊(7·386 + 358)/8⌋ = 382. Fast recovery then: `tcp_reno_ssthresh` on entry (cwnd
/// 30 → 15), and when it completes ssthresh = cwnd = ⌊382·38/1000⌋ = 14.
#[test]
fn ssthresh_is_bandwidth_times_min_rtt_after_a_loss() {
    let (mut cc, mut s) = westwood();
    constant_rate(&mut cc, &mut s, 10, 60_000);
    cc.on_rto(s.now, s.snd_max - s.snd_una, true);
    assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 9 * MSS));
    s.ack(&mut cc, s.now + ms(150), 1, Some(ms(150)));
    assert_eq!((cc.rtt_min, cc.bw_est), (38, 382));
    cc.set_cwnd(30 * MSS);
    cc.on_congestion_event(s.now, 0);
    assert_eq!(cc.ssthresh(), 15 * MSS);
    cc.on_recovery_exit(s.now);
    assert_eq!((cc.cwnd(), cc.ssthresh()), (14 * MSS, 14 * MSS));
}

/// The count per ACK. Without SACK information (the kernel's fast path) an ACK counts the
/// advance of SND.UNA, a 2-segment delayed ACK 2000 B. With it (slow path,
/// `westwood_acked_count`): three duplicates SACKing a segment each count 1000 B apiece and
/// remember 3000 B; a partial ACK of 2 segments (one new, one SACKed before) with SACKed data
/// still above it counts 2000 − 3000 < 0, so one segment, and 1000 B stay remembered; a
/// cumulative ACK of 3 segments counts 3000 − 1000 = 2000 B.
#[test]
fn acked_count_rules_for_duplicate_and_cumulative_acks() {
    let (mut cc, mut s) = westwood();
    s.ack(&mut cc, at_ms(1), 1, Some(ms(100)));
    let mut bk = cc.bk;
    s.ack(&mut cc, at_ms(2), 2, Some(ms(100)));
    assert_eq!(cc.bk - bk, 2000);
    for i in 0..3 {
        bk = cc.bk;
        let mut dup = s.sample(at_ms(3 + i), 0, None);
        dup.sacked_bytes = MSS;
        dup.delivered = MSS;
        s.deliver(&mut cc, &dup);
        assert_eq!((cc.bk - bk, cc.accounted), (1000, 1000 * (i as u32 + 1)));
    }
    bk = cc.bk;
    let mut partial = s.sample(at_ms(6), 2, Some(ms(100)));
    partial.delivered = MSS;
    s.deliver(&mut cc, &partial);
    assert_eq!((cc.bk - bk, cc.accounted), (1000, 1000));
    bk = cc.bk;
    let mut cumulative = s.sample(at_ms(7), 3, Some(ms(100)));
    cumulative.sacked_bytes = MSS;
    cumulative.delivered = 2 * MSS;
    s.deliver(&mut cc, &cumulative);
    assert_eq!((cc.bk - bk, cc.accounted), (2000, 0));
}

/// Linux 2.6.24's module grows by 2.6.24's `tcp_reno_cong_avoid` (`ack_counting`, `tcp_abc`
/// 0): two-segment ACKs 10 ms apart take slow start from 10 to 15 in five ACKs (today's: 20),
/// while the estimate still counts the bytes: the same `bk` as with segment counting.
#[test]
fn linux_2_6_24_grows_per_ack_and_counts_bytes() {
    let mut old = Westwood::new(WindowCore::new(MSS as u32, 10 * MSS, WindowArith::Bytes).with_ack_counting(true));
    let (mut today, mut t) = westwood();
    let mut s = Stream::start(&mut old, SimTime::ZERO);
    for i in 1..=5 {
        s.ack(&mut old, at_ms(10 * i), 2, Some(ms(100)));
        t.ack(&mut today, at_ms(10 * i), 2, Some(ms(100)));
    }
    assert_eq!((old.cwnd(), today.cwnd()), (15 * MSS, 20 * MSS));
    assert_eq!((old.bk, old.snd_una), (today.bk, today.snd_una));
    assert_eq!(old.bk, 8000);
}
