//! A trace-driven link direction against delivery times computed by hand from mm-link's
//! rules (`trace.rs`): an opportunity carries 1504 bytes, a datagram of b bytes costs b + 4.
//! Each test's comment shows the computation. The direction has no propagation delay unless
//! a test says so, so a packet's delivery is the end of its transmission.

use super::*;
use crate::engine::{Event, EventQueue};
use crate::net::channel::ChannelModel;
use crate::net::ids::{DirId, FlowId, PacketId};
use crate::net::link::{DirConfig, LinkDir, Offer};
use crate::net::queue::QueueRecording;
use crate::results::LinkDirection;
use crate::rng::stream;
use crate::spec::QueueSpec;
use crate::time::SimDuration;

const MS_NS: u64 = 1_000_000;

fn link(times_ms: &[u64], looped: bool, delay_ms: u64) -> LinkDir {
    link_with(times_ms, looped, delay_ms, QueueSpec::default())
}

fn link_with(times_ms: &[u64], looped: bool, delay_ms: u64, queue: QueueSpec) -> LinkDir {
    let trace = Arc::new(Trace::from_times(times_ms.to_vec()).unwrap());
    let cfg = DirConfig {
        link: "l".into(),
        direction: LinkDirection::Forward,
        rate_bps: trace.mean_rate_bps() as u64,
        trace: Some(TraceLink { trace, looped }),
        delay: SimDuration(delay_ms * MS_NS),
        queue,
        arq: None,
    };
    LinkDir::new(DirId(0), cfg, ChannelModel::Perfect, Vec::new(), stream(1, "test", "link"), QueueRecording::default())
}

/// Offers packet i of `bytes` at `at_ns` (in order) and runs the direction to the end.
/// With `offers_first`, an offer at the instant of a pending event goes before it; else
/// after it. Returns (packet, delivery time in ns), in delivery order, and the direction.
fn run(mut l: LinkDir, offers: &[(u64, u32)], offers_first: bool) -> (Vec<(u32, u64)>, LinkDir) {
    let mut ev = EventQueue::default();
    let mut out = Vec::new();
    let mut delivered = Vec::new();
    let mut pending = offers.iter().enumerate().peekable();
    loop {
        let next_offer = pending.peek().map(|(_, &(t, _))| t);
        let next_event = ev.peek_time().map(|t| t.0);
        let offer_now = match (next_offer, next_event) {
            (Some(o), Some(e)) => o < e || (o == e && offers_first),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        if offer_now {
            let (i, &(t, bytes)) = pending.next().unwrap();
            assert_eq!(l.offer(SimTime(t), PacketId(i as u32), bytes, || FlowId(0), &mut ev), Offer::Accepted);
            continue;
        }
        let (t, e) = ev.pop().unwrap();
        match e {
            Event::TxDone(_) => assert!(l.on_tx_done(t, &mut ev).is_none()),
            Event::Arrive(_) => {
                l.on_arrival(t, &mut ev, &mut out);
                delivered.extend(out.drain(..).map(|p| (p.0, t.0)));
            }
            other => unreachable!("{other:?}"),
        }
    }
    (delivered, l)
}

fn ms(t: u64) -> u64 {
    t * MS_NS
}

/// Trace 10, 20, 30, 40 ms; three packets offered at 0.
/// - packet 0, 2000 B, costs 2004: 1504 at 10 ms, the other 500 at 20 ms → leaves at 20 ms,
///   leaving 1504 − 500 = 1004 bytes of the 20 ms opportunity;
/// - packet 1, 1000 B, costs 1004, waiting since 0: exactly the surplus → also at 20 ms;
/// - packet 2, 100 B: nothing left at 20 ms → the 30 ms opportunity.
#[test]
fn bytes_carry_over_and_a_surplus_serves_the_next_packet() {
    let offers = [(0, 2000), (0, 1000), (0, 100)];
    let (d, _) = run(link(&[10, 20, 30, 40], true, 0), &offers, true);
    assert_eq!(d, vec![(0, ms(20)), (1, ms(20)), (2, ms(30))]);
}

/// Trace 5, 10, 15, 20 ms.
/// - packet 0, 100 B at 0 → 5 ms (1400 bytes of it unused);
/// - packet 1, 100 B at 7 ms: the 5 ms surplus is gone (the link was idle) → 10 ms;
/// - packet 2, 3000 B at 12 ms, costs 3004: 1504 at 15 ms, 1500 at 20 ms → 20 ms;
/// - packet 3, 100 B at 21 ms: the 4 bytes left at 20 ms are past → the next period's
///   5 ms, 20 + 5 = 25 ms.
#[test]
fn idle_opportunities_are_wasted() {
    let offers = [(0, 100), (ms(7), 100), (ms(12), 3000), (ms(21), 100)];
    let (d, _) = run(link(&[5, 10, 15, 20], true, 0), &offers, true);
    assert_eq!(d, vec![(0, ms(5)), (1, ms(10)), (2, ms(20)), (3, ms(25))]);
}

/// Trace 3, 3, 3, 8 ms (three opportunities in the 3rd millisecond, period 8 ms); five
/// 1500 B packets (1504 each, one opportunity apiece) at 0: three at 3 ms, one at 8 ms,
/// and the fifth at the second period's first opportunity, 8 + 3 = 11 ms.
#[test]
fn several_opportunities_in_one_millisecond() {
    let offers = [(0, 1500); 5];
    let (d, _) = run(link(&[3, 3, 3, 8], true, 0), &offers, true);
    assert_eq!(d, vec![(0, ms(3)), (1, ms(3)), (2, ms(3)), (3, ms(8)), (4, ms(11))]);
}

/// One opportunity every millisecond (1, 2, …, 10). mm-link's `read_packet` spends the
/// opportunities up to the arrival's millisecond before it enqueues:
/// - packet 0 at exactly 2 ms: the 2 ms opportunity is spent first → 3 ms;
/// - packet 1 at 4.5 ms → 5 ms.
#[test]
fn a_packet_does_not_leave_in_the_millisecond_it_arrived() {
    let every_ms: Vec<u64> = (1..=10).collect();
    let (d, _) = run(link(&every_ms, true, 0), &[(ms(2), 100), (ms(4) + 500_000, 100)], true);
    assert_eq!(d, vec![(0, ms(3)), (1, ms(5))]);
}

/// One opportunity every millisecond. Packet 0, 100 B at 0, leaves at 1 ms with 1400 bytes
/// to spare. Packet 1, 100 B, arriving at exactly 1 ms, may not use them (it arrived in
/// that millisecond) → 2 ms, whether its arrival is handled before or after packet 0's
/// end. Arriving at 0.5 ms instead, it waited through the 1 ms opportunity → 1 ms, both
/// packets in one opportunity.
#[test]
fn the_same_millisecond_rule_does_not_depend_on_event_order() {
    let every_ms: Vec<u64> = (1..=10).collect();
    for offers_first in [true, false] {
        let (d, _) = run(link(&every_ms, true, 0), &[(0, 100), (ms(1), 100)], offers_first);
        assert_eq!(d, vec![(0, ms(1)), (1, ms(2))], "offers first: {offers_first}");
    }
    let (d, _) = run(link(&every_ms, true, 0), &[(0, 100), (ms(1) / 2, 100)], true);
    assert_eq!(d, vec![(0, ms(1)), (1, ms(1))]);
}

/// Trace 2, 5 ms: the period is the last timestamp, 5 ms, so the opportunities are 2, 5,
/// then 5 + 2 = 7, 5 + 5 = 10, then 12; five 1500 B packets at 0 take one each.
#[test]
fn the_trace_repeats_with_its_last_timestamp_as_period() {
    let (d, _) = run(link(&[2, 5], true, 0), &[(0, 1500); 5], true);
    assert_eq!(d, vec![(0, ms(2)), (1, ms(5)), (2, ms(7)), (3, ms(10)), (4, ms(12))]);
}

/// Trace 2, 10 ms; a 100 B packet at 19.5 ms may leave from 20 ms on: the first period's
/// 10 ms shifted by one period is 20 ms, before the next period's 2 ms (22 ms) → 20 ms.
#[test]
fn the_last_opportunity_of_a_period_is_at_its_end() {
    let (d, _) = run(link(&[2, 10], true, 0), &[(ms(19) + 500_000, 100)], true);
    assert_eq!(d, vec![(0, ms(20))]);
}

/// A trace that starts at 0 ms: 0, 4 ms repeats as 0, 4, 4 + 0 = 4, 8, 8 … — the first
/// opportunity of a period falls in the same millisecond as the last of the one before.
/// Four 1500 B packets at 0: the first arrived in millisecond 0, so not at 0 ms → 4, 4, 8, 8.
#[test]
fn a_trace_from_zero_repeats_onto_its_last_millisecond() {
    let (d, _) = run(link(&[0, 4], true, 0), &[(0, 1500); 4], true);
    assert_eq!(d, vec![(0, ms(4)), (1, ms(4)), (2, ms(8)), (3, ms(8))]);
}

/// `loop = false`: trace 2, 5 ms delivers twice and stops. Three 1500 B packets at 0:
/// 2 ms, 5 ms, and the third stays in the transmitter; two more offered later wait in the
/// queue. The direction still holds them (3 packets inside).
#[test]
fn without_loop_the_link_stops_at_the_end_of_the_trace() {
    let offers = [(0, 1500), (0, 1500), (0, 1500), (ms(20), 100), (ms(30), 100)];
    let (d, l) = run(link(&[2, 5], false, 0), &offers, true);
    assert_eq!(d, vec![(0, ms(2)), (1, ms(5))]);
    assert_eq!(l.packets_inside(), 3);
    assert_eq!(l.queue_len(), 2);
}

/// Propagation composes as with a fixed rate: trace 10, 20 ms, delay 7 ms; a 100 B packet
/// at 0 leaves the transmitter at 10 ms and arrives at 17 ms.
#[test]
fn propagation_delay_follows_the_trace() {
    let (d, _) = run(link(&[10, 20], true, 7), &[(0, 100)], true);
    assert_eq!(d, vec![(0, ms(17))]);
}

/// A delay spike composes as at a fixed rate: the transmitter takes no packet while held and
/// the opportunities of the hold are lost. One opportunity per millisecond; packet 0 (100 B
/// at 0) leaves at 1 ms; the direction is held from 1.5 ms to 5.5 ms; packet 1, offered at
/// 2 ms, waits; at the release (5.5 ms) it takes the first opportunity from 5.5 ms, 6 ms.
#[test]
fn a_spike_holds_the_trace_and_wastes_its_opportunities() {
    let every_ms: Vec<u64> = (1..=10).collect();
    let mut l = link(&every_ms, true, 0);
    let mut ev = EventQueue::default();
    let mut delivered = Vec::new();
    let step = |l: &mut LinkDir, ev: &mut EventQueue, until: u64, delivered: &mut Vec<(u32, u64)>| {
        let mut out = Vec::new();
        while ev.peek_time().is_some_and(|t| t.0 <= until) {
            let (t, e) = ev.pop().unwrap();
            match e {
                Event::TxDone(_) => assert!(l.on_tx_done(t, ev).is_none()),
                Event::Arrive(_) => {
                    l.on_arrival(t, ev, &mut out);
                    delivered.extend(out.drain(..).map(|p| (p.0, t.0)));
                }
                other => unreachable!("{other:?}"),
            }
        }
    };
    assert_eq!(l.offer(SimTime(0), PacketId(0), 100, || FlowId(0), &mut ev), Offer::Accepted);
    step(&mut l, &mut ev, ms(1) + ms(1) / 2, &mut delivered);
    l.hold(SimTime(ms(1) + ms(1) / 2), false);
    assert_eq!(l.offer(SimTime(ms(2)), PacketId(1), 100, || FlowId(0), &mut ev), Offer::Accepted);
    step(&mut l, &mut ev, ms(5) + ms(1) / 2, &mut delivered);
    let mut out = Vec::new();
    l.release(SimTime(ms(5) + ms(1) / 2), &mut ev, &mut out);
    assert!(out.is_empty());
    step(&mut l, &mut ev, ms(100), &mut delivered);
    assert_eq!(delivered, vec![(0, ms(1)), (1, ms(6))]);
}

/// A datagram larger than an opportunity spans several: 4000 B costs 4004 = 1504 + 1504 +
/// 996, so with one opportunity per millisecond from 1 ms it leaves at 3 ms.
#[test]
fn a_large_datagram_spans_several_opportunities() {
    let every_ms: Vec<u64> = (1..=10).collect();
    let (d, _) = run(link(&every_ms, true, 0), &[(0, 4000)], true);
    assert_eq!(d, vec![(0, ms(3))]);
}

/// One opportunity per millisecond for a second is 1000 · 1500 B · 8 / 1 s = 12 Mbit/s.
#[test]
fn mean_rate_counts_full_size_datagrams() {
    let t = Trace::from_times((1..=1000).collect()).unwrap();
    assert_eq!(t.mean_rate_bps(), 12e6);
    assert_eq!((t.opportunities(), t.period_ms()), (1000, 1000));
}

#[test]
fn parse_reads_mm_link_files_and_refuses_what_it_refuses() {
    assert_eq!(Trace::parse("1\n1\n3\n").unwrap(), Trace::from_times(vec![1, 1, 3]).unwrap());
    assert_eq!(Trace::parse("1\r\n4").unwrap(), Trace::from_times(vec![1, 4]).unwrap());
    assert_eq!(Trace::parse(""), Err(TraceError::Empty));
    assert_eq!(Trace::parse("0\n0\n"), Err(TraceError::ZeroLength));
    assert_eq!(Trace::parse("1\n5\n3\n"), Err(TraceError::Decreasing { line: 3, got: 3, before: 5 }));
    assert_eq!(Trace::parse("1\n\n3\n"), Err(TraceError::NotAnInteger { line: 2, text: String::new() }));
    assert_eq!(Trace::parse("1\n2.5\n"), Err(TraceError::NotAnInteger { line: 2, text: "2.5".into() }));
    assert_eq!(Trace::parse("-1\n2\n"), Err(TraceError::NotAnInteger { line: 1, text: "-1".into() }));
}

/// mm-link's rule written as its loop runs, opportunity by opportunity, for the property
/// test below: at an opportunity of millisecond T, every packet that arrived before
/// millisecond T is waiting (`read_packet` enqueued it after spending the opportunities up
/// to its own millisecond); the opportunity's 1504 bytes go to the waiting packets in order,
/// a packet leaving at T when its last byte is carried. Returns (packet, time in ns) for the
/// opportunities of the first `periods` periods.
fn reference(times_ms: &[u64], periods: u64, offers: &[(u64, u32)]) -> Vec<(u32, u64)> {
    let period = *times_ms.last().unwrap();
    let mut waiting: std::collections::VecDeque<(u32, u32)> = Default::default();
    let mut next_offer = 0;
    let mut out = Vec::new();
    for k in 0..periods {
        for &t in times_ms {
            let at_ms = k * period + t;
            while next_offer < offers.len() && offers[next_offer].0 < at_ms * MS_NS {
                waiting.push_back((next_offer as u32, offers[next_offer].1 + FRAMING_BYTES));
                next_offer += 1;
            }
            let mut capacity = OPPORTUNITY_BYTES;
            while capacity > 0 {
                let Some(head) = waiting.front_mut() else { break };
                let used = capacity.min(head.1);
                head.1 -= used;
                capacity -= used;
                if head.1 == 0 {
                    out.push((head.0, at_ms * MS_NS));
                    waiting.pop_front();
                }
            }
        }
    }
    out
}

proptest::proptest! {
    /// Random traces (1–12 opportunities, gaps of 0–3 ms, repeated) and random arrivals
    /// (0–40 packets of 40–3000 B, at times with sub-millisecond parts, exact millisecond
    /// instants included): the direction delivers every packet when the loop above does.
    #[test]
    fn the_direction_delivers_as_mm_links_loop(
        gaps in proptest::collection::vec(0u64..4, 1..12),
        arrivals in proptest::collection::vec((0u64..60, proptest::prop_oneof![proptest::strategy::Just(0u64), 0u64..MS_NS], 40u32..3000), 0..40),
        offers_first in proptest::bool::ANY,
    ) {
        let mut t = 0;
        let mut times: Vec<u64> = gaps.iter().map(|g| { t += g; t }).collect();
        if *times.last().unwrap() == 0 {
            times.push(1);
        }
        let mut offers: Vec<(u64, u32)> = arrivals.iter().map(|&(m, frac, b)| (m * MS_NS + frac, b)).collect();
        offers.sort_by_key(|o| o.0);
        let big = QueueSpec::Droptail(crate::net::DroptailSpec { limit: crate::units::Limit::Packets(1_000_000) });
        let (mut got, _) = run(link_with(&times, true, 0, big), &offers, offers_first);
        got.sort();
        // Enough periods to carry every byte offered (one opportunity per period at least).
        let periods = 60 / times.last().unwrap() + 2 + offers.iter().map(|o| o.1 as u64 / 1500 + 1).sum::<u64>();
        let mut want = reference(&times, periods, &offers);
        want.sort();
        proptest::prop_assert_eq!(got, want);
    }
}
