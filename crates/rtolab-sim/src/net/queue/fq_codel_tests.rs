//! FQ-CoDel's deficit round robin, new and old lists and overflow drops, against the steps
//! of `fq_codel_dequeue` and `fq_codel_drop` worked by hand (RFC 8290 Sec. 4).

use super::*;
use crate::time::SimDuration;

fn spec(limit: u64, flows: u32) -> FqCodelSpec {
    FqCodelSpec {
        limit: Limit::Packets(limit),
        flows,
        quantum: Bytes(1514),
        drop_batch_size: 64,
        target: codel_target(),
        interval: codel_interval(),
        mtu: codel_mtu(),
        control_law: ControlLaw::Linux,
    }
}

const A: FlowId = FlowId(0);
const B: FlowId = FlowId(1);

/// Which flow each of `n` dequeues at `now` serves (packet ids < 100 are A's).
fn serve(q: &mut FqCodel, now: SimTime, n: usize) -> Vec<FlowId> {
    let mut dropped = Vec::new();
    let out = (0..n).map(|_| q.dequeue(now, &mut dropped).map(|p| if p.pkt.0 < 100 { A } else { B }).expect("a packet")).collect();
    assert!(dropped.is_empty(), "no sojourn reaches target here");
    out
}

/// Quantum 1514, packets of 1500 B. A (6 packets) is new with deficit 1514: it sends one
/// (deficit 14) and, still positive, a second (−1486). B's packet arrives and B joins the
/// new flows with 1514. Next dequeue: A's deficit is spent, so it gets 1514 more (28) and
/// moves to the old flows; B, now first of the new flows, sends (14). Next: B is found
/// empty while old flows wait, so it moves to the old flows behind A, and A sends (−1472).
/// Next: A's deficit is spent (+1514 = 42, to the tail), B is found empty on the old list
/// and leaves the lists, A sends. So: A, A, B, A, A — the sparse flow overtook the bulk one.
#[test]
fn test_fq_codel_sparse_flow_goes_first() {
    let mut q = FqCodel::new(&spec(10240, 1024));
    let mut overflow = Vec::new();
    for i in 0..6 {
        q.enqueue(Queued { pkt: PacketId(i), bytes: 1500, since: SimTime::ZERO }, A, &mut overflow).unwrap();
    }
    assert_eq!(serve(&mut q, SimTime::ZERO, 2), vec![A, A]);
    assert_eq!(q.flow_state(A).1, -1486);
    q.enqueue(Queued { pkt: PacketId(100), bytes: 1500, since: SimTime::ZERO }, B, &mut overflow).unwrap();
    assert_eq!(serve(&mut q, SimTime::ZERO, 3), vec![B, A, A]);
    assert_eq!((q.flow_state(A).1, q.flow_state(B).1), (42 - 1500, 14));
    assert_eq!((q.new_flows.len(), q.old_flows.iter().copied().collect::<Vec<_>>()), (0, vec![0]));
    // B's next packet makes it a new flow again, with a fresh quantum, served before A.
    q.enqueue(Queued { pkt: PacketId(101), bytes: 1500, since: SimTime::ZERO }, B, &mut overflow).unwrap();
    assert_eq!(q.flow_state(B).1, 1514);
    assert_eq!(serve(&mut q, SimTime::ZERO, 2), vec![B, A]);
    assert!(overflow.is_empty());
}

/// Two backlogged flows share the link by bytes: with packets of 1500 B and a quantum of
/// 1514, each round serves each flow once (deficits drift up by 14 per round, so after 107
/// rounds a flow sends two in a round: 107 · 14 = 1498 < 1500 ≤ 1512).
#[test]
fn test_fq_codel_round_robin_alternates_backlogged_flows() {
    let mut q = FqCodel::new(&spec(10240, 1024));
    let mut overflow = Vec::new();
    for i in 0..20 {
        q.enqueue(Queued { pkt: PacketId(i), bytes: 1500, since: SimTime::ZERO }, A, &mut overflow).unwrap();
        q.enqueue(Queued { pkt: PacketId(100 + i), bytes: 1500, since: SimTime::ZERO }, B, &mut overflow).unwrap();
    }
    // A new: A, A (deficit 14 then −1486); B new: B, B; then both old, one each per round.
    assert_eq!(serve(&mut q, SimTime::ZERO, 8), vec![A, A, B, B, A, B, A, B]);
}

/// Overflow (limit 10): A holds 8 packets (12000 B), B 2; B's third arrival makes 11. The
/// fattest flow is A: it loses packets from its head until half its backlog (6000 B) is gone
/// — 4 packets — and its CoDel count grows by 4 (`fq_codel_drop`).
#[test]
fn test_fq_codel_overflow_drops_from_the_fattest_flow() {
    let mut q = FqCodel::new(&spec(10, 1024));
    let mut overflow = Vec::new();
    for i in 0..8 {
        q.enqueue(Queued { pkt: PacketId(i), bytes: 1500, since: SimTime::ZERO }, A, &mut overflow).unwrap();
    }
    for i in 0..3 {
        q.enqueue(Queued { pkt: PacketId(100 + i), bytes: 1500, since: SimTime::ZERO }, B, &mut overflow).unwrap();
    }
    assert_eq!(overflow, vec![PacketId(0), PacketId(1), PacketId(2), PacketId(3)]);
    assert_eq!(q.flow_state(A), (6000, 1514, 4));
    assert_eq!(q.flow_state(B).0, 4500);
    assert_eq!((q.len(), q.bytes()), (7, 10500));
}

/// The batch limit caps one overflow's drops (`drop_batch_size` 2 of A's 4).
#[test]
fn test_fq_codel_overflow_drops_at_most_a_batch() {
    let mut q = FqCodel::new(&FqCodelSpec { drop_batch_size: 2, ..spec(10, 1024) });
    let mut overflow = Vec::new();
    for i in 0..8 {
        q.enqueue(Queued { pkt: PacketId(i), bytes: 1500, since: SimTime::ZERO }, A, &mut overflow).unwrap();
    }
    for i in 0..3 {
        q.enqueue(Queued { pkt: PacketId(100 + i), bytes: 1500, since: SimTime::ZERO }, B, &mut overflow).unwrap();
    }
    assert_eq!(overflow, vec![PacketId(0), PacketId(1)]);
    assert_eq!(q.flow_state(A).2, 2);
}

/// Flows are bucketed by id modulo `flows`: with 4 queues, flows 1 and 5 share one.
#[test]
fn test_fq_codel_buckets_are_flow_ids_modulo_flows() {
    let mut q = FqCodel::new(&spec(100, 4));
    let mut overflow = Vec::new();
    q.enqueue(Queued { pkt: PacketId(0), bytes: 1500, since: SimTime::ZERO }, FlowId(1), &mut overflow).unwrap();
    q.enqueue(Queued { pkt: PacketId(1), bytes: 700, since: SimTime::ZERO }, FlowId(5), &mut overflow).unwrap();
    q.enqueue(Queued { pkt: PacketId(2), bytes: 40, since: SimTime::ZERO }, FlowId(2), &mut overflow).unwrap();
    assert_eq!(q.flow_state(FlowId(1)).0, 2200);
    assert_eq!(q.flow_state(FlowId(2)).0, 40);
}

/// Each flow runs its own CoDel: a backlogged flow whose packets wait long is dropped from
/// while a sparse flow's packets are not. The sparse flow's first packet waits behind A's
/// first quantum (two departures, 6 ms); later ones find B a new flow again and leave at
/// once, far below target.
#[test]
fn test_fq_codel_codel_runs_per_flow() {
    let mut q = FqCodel::new(&spec(10240, 1024));
    let mut overflow = Vec::new();
    for i in 0..99 {
        q.enqueue(Queued { pkt: PacketId(i), bytes: 1500, since: SimTime::ZERO }, A, &mut overflow).unwrap();
    }
    let mut dropped = Vec::new();
    let mut sent_b = 0;
    for k in 0..100u64 {
        let now = SimTime(k * 3_000_000);
        if k % 10 == 0 {
            q.enqueue(Queued { pkt: PacketId(100 + k as u32), bytes: 100, since: now }, B, &mut overflow).unwrap();
        }
        if let Some(p) = q.dequeue(now, &mut dropped) {
            if p.pkt.0 >= 100 {
                sent_b += 1;
                assert!(now.since(p.since) <= SimDuration::from_millis(6), "B waited {}", now.since(p.since));
            }
        }
    }
    assert_eq!(sent_b, 10);
    assert!(!dropped.is_empty() && dropped.iter().all(|p| p.0 < 100), "{dropped:?}");
}
