//! PIE's probability update and drop decision against `pie_calculate_probability` and
//! `pie_drop_early` worked by hand.
//!
//! Units: MAX_PROB = 2^56 − 1; a tick is 64 ns, so 15 ms = 234375 ticks and 20 ms = 312500;
//! MAX_PROB / ticks per second = floor((2^56 − 1) / 15625000) = 4611686018, so alpha = 2
//! sixteenths gives (2 · 4611686018) >> 4 = 576460752 and beta = 20 gives 5764607522.

use super::*;
use crate::rng::stream;

/// A 1500-byte arrival of `pkt` at time 0, already judged.
fn arrive(q: &mut Pie, pkt: PacketId) {
    q.enqueue(Queued { pkt, bytes: 1500, since: SimTime::ZERO }, FlowId(0), &mut Vec::new()).unwrap();
}

/// Ten 1500-byte packets arrive at 0 and one leaves at 20 ms: nine stay queued, the last
/// departure 20 ms after its arrival. Returns the queue and the stream it judged with.
fn ten_queued_one_sent() -> (Pie, rand_xoshiro::Xoshiro256PlusPlus) {
    let mut q = Pie::new(&spec());
    let mut rng = stream(1, "test", "pie");
    for i in 0..10 {
        q.judge(SimTime::ZERO, 1500, &mut rng).unwrap();
        arrive(&mut q, PacketId(i));
    }
    q.dequeue(SimTime(20_000_000), &mut Vec::new()).unwrap();
    (q, rng)
}

fn spec() -> PieSpec {
    PieSpec { limit: Limit::Packets(1000), target: pie_target(), tupdate: pie_tupdate(), alpha: 2, beta: 20, bytemode: false, mtu: pie_mtu() }
}

/// Ten packets arrive at 0; one leaves at 20 ms, so qdelay = 312500 ticks (backlog left).
/// First update, p = 0 < MAX_PROB/10: alpha and beta halve, then lose 2 bits for each of
/// power = 100, 1000, 10^4, 10^5, 10^6 (p below MAX_PROB/power each time): alpha =
/// 288230376 >> 10 = 281474, beta = 2882303761 >> 10 = 2814749; delta = 281474 · (312500 −
/// 234375) + 2814749 · (312500 − 0) = 901599218750 = p. Second update, the same delay: p is
/// below MAX_PROB/10^4 (7.2·10^12) but not MAX_PROB/10^5 (7.2·10^11), so 3 shifts: alpha =
/// 288230376 >> 6 = 4503599; delta = 4503599 · 78125 + beta · 0 = 351843671875; p =
/// 1253442890625 (1.74·10^-5).
#[test]
fn test_pie_probability_steps_by_hand() {
    let (mut q, _) = ten_queued_one_sent();
    assert_eq!(q.vars().qdelay, 312500);
    q.update_probability();
    assert_eq!(q.vars().prob, 901_599_218_750);
    q.update_probability();
    assert_eq!(q.vars().prob, 1_253_442_890_625);
    assert_eq!(q.vars().qdelay_old, 312500);
}

/// The updates run on Linux's timer: the first 500 ms after the queue is made, then every
/// 15 ms; an event at 530 ms finds three run (500, 515, 530), each on a qdelay of 20 ms.
#[test]
fn test_pie_updates_run_on_their_timer() {
    let (mut q, mut rng) = ten_queued_one_sent();
    q.judge(SimTime(499_999_999), 1500, &mut rng).unwrap();
    assert_eq!(q.vars().prob, 0);
    q.judge(SimTime(530_000_000), 1500, &mut rng).unwrap();
    let mut by_hand = Pie::new(&spec());
    *by_hand.vars_mut() = PieVars { qdelay: 312500, ..q.vars().clone() };
    by_hand.vars_mut().prob = 0;
    by_hand.vars_mut().qdelay_old = 0;
    for _ in 0..3 {
        by_hand.bytes = 9 * 1500;
        by_hand.update_probability();
    }
    assert_eq!(q.vars().prob, by_hand.vars().prob);
    assert!(q.vars().prob > 1_253_442_890_625);
}

/// No early drop within the burst allowance (150 ms from the start), nor below two MTUs of
/// backlog, even at probability 1 (`pie_drop_early`'s first and third tests).
#[test]
fn test_pie_spares_bursts_and_short_queues() {
    let mut q = Pie::new(&spec());
    let mut rng = stream(1, "test", "pie");
    q.vars_mut().prob = MAX_PROB;
    q.vars_mut().qdelay = 312500;
    for i in 0..10 {
        assert_eq!(q.judge(SimTime::ZERO, 1500, &mut rng), Ok(()), "burst allowance");
        arrive(&mut q, PacketId(i));
    }
    q.vars_mut().burst_time = 0;
    q.drain_into(&mut Vec::new());
    arrive(&mut q, PacketId(20));
    assert_eq!(q.judge(SimTime::ZERO, 1500, &mut rng), Ok(()), "one MTU queued");
    arrive(&mut q, PacketId(21));
    // Two MTUs: accu_prob becomes MAX_PROB (1), between 0.85 and 8.5, so the draw decides:
    // a 56-bit draw below 2^56 − 1, which all but one of the 2^56 draws are.
    assert_eq!(q.judge(SimTime::ZERO, 1500, &mut rng), Err(Refusal::Early));
    assert_eq!(q.vars().accu_prob, 0, "a drop resets the accumulated probability");
}

/// Derandomisation (RFC 8033 Appendix B): at p = 0.1, no drop while the accumulated
/// probability is below 0.85 — the first 8 arrivals (0.8) are safe whatever the draw.
#[test]
fn test_pie_derandomised_drops_wait_for_accumulated_probability() {
    let mut q = Pie::new(&spec());
    let mut rng = stream(1, "test", "pie");
    for i in 0..4 {
        arrive(&mut q, PacketId(i));
    }
    let v = q.vars_mut();
    v.burst_time = 0;
    v.prob = MAX_PROB / 10;
    v.qdelay = 312500;
    for _ in 0..8 {
        assert_eq!(q.judge(SimTime::ZERO, 1500, &mut rng), Ok(()));
    }
    assert_eq!(q.vars().accu_prob, 8 * (MAX_PROB / 10));
}
