//! A link direction driven alone: ARQ service order, flush, in-order delivery and control
//! messages, with transmissions lost by ordinal (`drop_packets`) so every time is exact.
//! 1000 B at 8 Mbps take 1 ms; the propagation delay is 10 ms.

use super::arq::ArqConfig;
use super::channel::ChannelModel;
use crate::tcp::icmp_signal::IcmpSignal;
use super::ids::{DirId, FlowId, PacketId};
use super::queue::QueueRecording;
use super::link::{DirConfig, LinkDir, Offer};
use crate::engine::{Event, EventQueue};
use crate::results::LinkDirection;
use crate::rng::stream;
use crate::spec::QueueSpec;
use crate::time::{SimDuration, SimTime};

const MS: u64 = 1_000_000;

fn arq(window: usize, attempts: u32, feedback_ms: u64, in_order: bool) -> ArqConfig {
    ArqConfig { window, attempts, in_order, feedback_delay: SimDuration(feedback_ms * MS), icmp: true, defer_backlog: 3 }
}

fn link(arq: Option<ArqConfig>, drops: &[u64]) -> LinkDir {
    let cfg = DirConfig { link: "radio".into(), direction: LinkDirection::Forward, rate_bps: 8_000_000, trace: None, delay: SimDuration(10 * MS), queue: QueueSpec::default(), arq };
    LinkDir::new(DirId(0), cfg, ChannelModel::Perfect, drops.to_vec(), stream(1, "test", "link"), QueueRecording::default())
}

/// What came out of the link: (time in ms, packet) delivered, packets dropped, messages.
#[derive(Debug, Default)]
struct Outcome {
    delivered: Vec<(u64, u32)>,
    dropped: Vec<u32>,
    signals: Vec<(u32, IcmpSignal)>,
}

/// Offers `n` packets of 1000 B at t = 0 and runs the link's events to the end.
fn run(mut l: LinkDir, n: u32) -> (LinkDir, Outcome) {
    let mut ev = EventQueue::default();
    let mut o = Outcome::default();
    for p in 0..n {
        if l.offer(SimTime::ZERO, PacketId(p), 1000, || FlowId(0), &mut ev) == Offer::Dropped {
            o.dropped.push(p);
        }
    }
    let take = |l: &mut LinkDir, o: &mut Outcome| {
        let n = l.take_notices();
        o.signals.extend(n.signals.iter().map(|&(p, s)| (p.0, s)));
        o.dropped.extend(n.dropped.iter().map(|(p, _)| p.0));
        l.return_notices(n);
    };
    take(&mut l, &mut o);
    let mut out = Vec::new();
    while let Some((t, e)) = ev.pop() {
        match e {
            Event::TxDone(_) => {
                if let Some(p) = l.on_tx_done(t, &mut ev) {
                    o.dropped.push(p.0);
                }
            }
            Event::ArqFeedback(_) => l.on_feedback(t, &mut ev),
            Event::Arrive(_) => {
                l.on_arrival(t, &mut ev, &mut out);
                o.delivered.extend(out.drain(..).map(|p| (t.0 / MS, p.0)));
            }
            _ => unreachable!(),
        }
        take(&mut l, &mut o);
    }
    (l, o)
}

/// Window 3, 2 attempts, the first two transmissions lost: packet 0 fails twice (its
/// retransmission goes before the never-sent packets 1 and 2), so the whole buffer — all
/// three packets — is flushed after 2 ms with one ICMP DROP; the third arrival had brought
/// the backlog to 3 (one DEFER).
#[test]
fn last_failed_attempt_flushes_the_whole_buffer() {
    let (l, o) = run(link(Some(arq(3, 2, 0, true)), &[1, 2]), 3);
    assert!(o.delivered.is_empty(), "{o:?}");
    assert_eq!(o.dropped, vec![0, 1, 2]);
    assert_eq!(o.signals, vec![(2, IcmpSignal::Defer), (0, IcmpSignal::Drop)]);
    let row = l.report(SimTime(20 * MS));
    assert_eq!((row.arq_attempts, row.arq_successes, row.arq_discards, row.arq_flushes), (2, 0, 3, 1));
    assert_eq!((row.packets_sent, row.drops, row.icmp_drop, row.icmp_defer), (2, 3, 1, 1));
}

/// The first transmission lost, 3 attempts: packet 0 is resent at once and succeeds (a
/// retry success: ICMP DEFER), then 1 and 2: on the wire at 2, 3, 4 ms, out at 12, 13, 14.
#[test]
fn retry_success_delivers_in_order_and_defers() {
    let (l, o) = run(link(Some(arq(3, 3, 0, true)), &[1]), 3);
    assert_eq!(o.delivered, vec![(12, 0), (13, 1), (14, 2)]);
    assert!(o.dropped.is_empty());
    assert_eq!(o.signals, vec![(2, IcmpSignal::Defer), (0, IcmpSignal::Defer)]);
    let row = l.report(SimTime(20 * MS));
    assert_eq!((row.arq_attempts, row.arq_successes, row.arq_discards), (4, 3, 0));
}

/// Feedback after 5 ms: packets 0, 1, 2 go out at 0–1, 1–2, 2–3 ms; packet 0's loss is
/// known at 6 ms and it is resent 6–7 ms, its success known at 12 ms. In order, 1 and 2 wait
/// for it and all three leave at 12 ms (out at 22 ms); out of order, 1 and 2 leave when
/// their success is known (7 and 8 ms, out at 17 and 18 ms) and 0 at 12 ms (out at 22 ms).
#[test]
fn feedback_delay_and_in_order_delivery() {
    let (_, o) = run(link(Some(arq(3, 3, 5, true)), &[1]), 3);
    assert_eq!(o.delivered, vec![(22, 0), (22, 1), (22, 2)]);
    let (_, o) = run(link(Some(arq(3, 3, 5, false)), &[1]), 3);
    assert_eq!(o.delivered, vec![(17, 1), (18, 2), (22, 0)]);
}

/// Without ARQ a lost transmission is simply dropped, and the others follow back to back.
#[test]
fn without_arq_a_lost_packet_is_dropped() {
    let (l, o) = run(link(None, &[2]), 3);
    assert_eq!(o.delivered, vec![(11, 0), (13, 2)]);
    assert_eq!(o.dropped, vec![1]);
    assert!(o.signals.is_empty());
    assert_eq!(l.report(SimTime(20 * MS)).loss_drops, 1);
}
