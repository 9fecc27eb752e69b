//! Cases 1–8 of paper 001 Sec. II at the exact clock values of their boundaries. Unless a test
//! says otherwise the timer was set at 10 s with a = 4 s: a/4 = 1 s, 3a/4 = 3 s, deadline 14 s.

use super::*;
use IcmpSignal::{Defer, Drop};

const A: SimDuration = SimDuration::from_secs(4);
const SET: SimTime = SimTime(10_000_000_000);

fn ns(v: u64) -> SimDuration {
    SimDuration::from_nanos(v)
}

fn secs(v: u64) -> SimDuration {
    SimDuration::from_secs(v)
}

fn machine(case7: Case7) -> IcmpRto {
    IcmpRto::new(IcmpRtoConfig { case7, ..IcmpRtoConfig::default() })
}

/// A DROP `b` after the timer (set at `SET` with value `A`) was armed.
fn drop_after(m: &mut IcmpRto, b: SimDuration) -> TimerChange {
    m.on_signal(Drop, SET + b, SET, A, true)
}

fn defer_after(m: &mut IcmpRto, b: SimDuration) -> TimerChange {
    m.on_signal(Defer, SET + b, SET, A, true)
}

/// PT from a DROP at b = 2 s: the timer fires at 13 s instead of 14 s.
fn premature(case7: Case7) -> IcmpRto {
    let mut m = machine(case7);
    assert_eq!(drop_after(&mut m, secs(2)), TimerChange::FireAt(SET + secs(3)));
    m
}

/// The intermediate state from a DEFER at b = 2.5 s in PT.
fn intermediate(case7: Case7) -> IcmpRto {
    let mut m = premature(case7);
    assert_eq!(defer_after(&mut m, SimDuration::from_millis(2500)), TimerChange::FireAt(SET + A));
    m
}

/// ET: the original deadline (14 s) expired in the intermediate state.
fn extended(case7: Case7) -> IcmpRto {
    let mut m = intermediate(case7);
    assert_eq!(m.on_expiry(SET + A, A), Expiry::ExtendTo(SET + A + A));
    m
}

/// Case counts with `n` firings of each listed case.
fn counts(cases: &[(usize, u64)]) -> [u64; 9] {
    let mut c = [0; 9];
    for &(case, n) in cases {
        c[case] = n;
    }
    c
}

#[test]
fn default_times_out_on_case7_and_extends_by_one_rto() {
    let cfg = IcmpRtoConfig::default();
    assert_eq!(cfg, IcmpRtoConfig { case7: Case7::TimeOut, extension: 1.0, backoff_premature: true });
    let m = IcmpRto::new(cfg);
    assert_eq!(m.state(), IcmpRtoState::Normal);
    assert_eq!(m.case_counts(), [0; 9]);
}

#[test]
fn case1_normal_drop_just_past_three_quarters_expires_now() {
    let mut m = machine(Case7::TimeOut);
    assert_eq!(drop_after(&mut m, secs(3) + ns(1)), TimerChange::ExpireNow);
    assert_eq!(m.state(), IcmpRtoState::Normal);
    // At and after the deadline itself (the expiry event not yet run): still case 1.
    assert_eq!(drop_after(&mut m, A), TimerChange::ExpireNow);
    assert_eq!(m.case_counts(), counts(&[(1, 2)]));
}

#[test]
fn case2_normal_drop_at_three_quarters_shrinks_to_the_original_deadline() {
    let mut m = machine(Case7::TimeOut);
    // c = b + a/4 = 3 s + 1 s: exactly the deadline the timer already had.
    assert_eq!(drop_after(&mut m, secs(3)), TimerChange::FireAt(SET + A));
    assert_eq!(m.state(), IcmpRtoState::Premature);
    assert_eq!(m.case_counts(), counts(&[(2, 1)]));
}

#[test]
fn case2_normal_drop_at_one_quarter_shrinks_to_half() {
    let mut m = machine(Case7::TimeOut);
    assert_eq!(drop_after(&mut m, secs(1)), TimerChange::FireAt(SET + secs(2)));
    assert_eq!(m.state(), IcmpRtoState::Premature);
}

#[test]
fn case3_normal_drop_just_before_one_quarter_is_ignored() {
    let mut m = machine(Case7::TimeOut);
    assert_eq!(drop_after(&mut m, ns(999_999_999)), TimerChange::Keep);
    assert_eq!(drop_after(&mut m, SimDuration::ZERO), TimerChange::Keep);
    assert_eq!(m.state(), IcmpRtoState::Normal);
    assert_eq!(m.case_counts(), counts(&[(3, 2)]));
}

#[test]
fn a_message_without_a_running_timer_is_ignored_and_not_counted() {
    let mut m = machine(Case7::TimeOut);
    assert_eq!(m.on_signal(Drop, SET + secs(3) + ns(1), SET, A, false), TimerChange::Keep);
    assert_eq!(m.state(), IcmpRtoState::Normal);
    let mut m = premature(Case7::TimeOut);
    assert_eq!(m.on_signal(Defer, SET + secs(2), SET, A, false), TimerChange::Keep);
    assert_eq!(m.state(), IcmpRtoState::Premature);
    let mut m = intermediate(Case7::TimeOut);
    assert_eq!(m.on_signal(Drop, SET + secs(3), SET, A, false), TimerChange::Keep);
    assert_eq!(m.state(), IcmpRtoState::Intermediate);
    assert_eq!(m.case_counts(), counts(&[(2, 1), (6, 1)]));
}

#[test]
fn boundaries_are_exact_when_a_quarter_is_not_whole_nanoseconds() {
    // a = 4 s + 1 ns: a/4 = 1.00000000025 s, 3a/4 = 3.00000000075 s.
    let a = secs(4) + ns(1);
    let quarter_up = secs(1) + ns(1);
    let mut m = machine(Case7::TimeOut);
    assert_eq!(m.on_signal(Drop, SET + secs(1), SET, a, true), TimerChange::Keep);
    let at = SET + secs(1) + ns(1);
    assert_eq!(m.on_signal(Drop, at, SET, a, true), TimerChange::FireAt(at + quarter_up));
    let mut m = machine(Case7::TimeOut);
    // The largest b of case 2 shrinks to the original deadline exactly, never past it.
    assert_eq!(m.on_signal(Drop, SET + secs(3), SET, a, true), TimerChange::FireAt(SET + a));
    let mut m = machine(Case7::TimeOut);
    assert_eq!(m.on_signal(Drop, SET + secs(3) + ns(1), SET, a, true), TimerChange::ExpireNow);
    assert_eq!(m.case_counts(), counts(&[(1, 1)]));
}

#[test]
fn shrunk_deadline_is_never_early_and_never_past_the_original() {
    for a in 1..=64u64 {
        for b in 0..=a {
            let mut m = machine(Case7::TimeOut);
            let now = SET + ns(b);
            match m.on_signal(Drop, now, SET, ns(a), true) {
                TimerChange::FireAt(c) => {
                    assert!(a <= 4 * b && 4 * b <= 3 * a, "a {a} b {b}");
                    let c = c - SET;
                    assert!(4 * c.as_nanos() >= 4 * b + a, "a {a} b {b}: c earlier than b + a/4");
                    assert!(c <= ns(a), "a {a} b {b}: c past the deadline");
                }
                TimerChange::ExpireNow => assert!(4 * b > 3 * a, "a {a} b {b}"),
                TimerChange::Keep => assert!(4 * b < a, "a {a} b {b}"),
            }
        }
    }
}

#[test]
fn case4_premature_drop_is_ignored() {
    let mut m = premature(Case7::TimeOut);
    // In Normal this b would be case 1.
    assert_eq!(drop_after(&mut m, secs(3) + ns(1)), TimerChange::Keep);
    assert_eq!(m.state(), IcmpRtoState::Premature);
    assert_eq!(m.case_counts(), counts(&[(2, 1), (4, 1)]));
}

#[test]
fn case5_premature_new_ack_restores_normal() {
    let mut m = premature(Case7::TimeOut);
    m.on_new_ack();
    assert_eq!(m.state(), IcmpRtoState::Normal);
    assert_eq!(m.case_counts(), counts(&[(2, 1), (5, 1)]));
    // The re-armed timer (set at 12 s, a = 4 s) is judged afresh: b = 0.999999999 s is case 3.
    let reset = SET + secs(2);
    assert_eq!(m.on_signal(Drop, reset + ns(999_999_999), reset, A, true), TimerChange::Keep);
    assert_eq!(m.on_expiry(reset + A, A), Expiry::Timeout);
}

#[test]
fn premature_expiry_is_a_timeout() {
    let mut m = premature(Case7::TimeOut);
    assert_eq!(m.on_expiry(SET + secs(3), A), Expiry::Timeout);
    assert_eq!(m.state(), IcmpRtoState::Normal);
    m.on_timeout();
    assert_eq!(m.state(), IcmpRtoState::Normal);
}

#[test]
fn case6_premature_defer_restores_the_original_deadline() {
    let mut m = premature(Case7::TimeOut);
    // At the very instant the shrunk timer would fire (13 s), before its event runs.
    assert_eq!(defer_after(&mut m, secs(3)), TimerChange::FireAt(SET + A));
    assert_eq!(m.state(), IcmpRtoState::Intermediate);
    assert_eq!(m.case_counts(), counts(&[(2, 1), (6, 1)]));
}

#[test]
fn case6_extended_timeout_is_entered_only_when_a_expires() {
    let mut m = intermediate(Case7::TimeOut);
    assert_eq!(m.state(), IcmpRtoState::Intermediate);
    assert_eq!(m.on_expiry(SET + A, A), Expiry::ExtendTo(SET + secs(8)));
    assert_eq!(m.state(), IcmpRtoState::Extended);
    assert_eq!(m.on_expiry(SET + secs(8), A), Expiry::Timeout);
    assert_eq!(m.state(), IcmpRtoState::Normal);
    assert_eq!(m.case_counts(), counts(&[(2, 1), (6, 1)]));
}

#[test]
fn extension_is_a_multiple_of_a_rounded_to_the_nanosecond() {
    let cases = [
        (0.5, secs(2)),
        (2.5, secs(10)),
        (1.0 / 3.0, ns(1_333_333_333)),
        (0.0, SimDuration::ZERO),
        (-1.0, SimDuration::ZERO),
        (f64::NAN, SimDuration::ZERO),
        (f64::INFINITY, SimDuration::MAX),
    ];
    for (extension, length) in cases {
        let mut m = IcmpRto::new(IcmpRtoConfig { case7: Case7::TimeOut, extension, backoff_premature: true });
        drop_after(&mut m, secs(2));
        defer_after(&mut m, secs(2));
        assert_eq!(m.on_expiry(SET + A, A), Expiry::ExtendTo(SET + A + length), "extension {extension}");
        assert_eq!(m.config().extension.to_bits(), extension.to_bits());
    }
}

#[test]
fn case7_timeout_drop_in_intermediate_expires_now() {
    let mut m = intermediate(Case7::TimeOut);
    // b = 2.5 s: in Normal this would only shrink the timer.
    assert_eq!(drop_after(&mut m, SimDuration::from_millis(2500)), TimerChange::ExpireNow);
    assert_eq!(m.state(), IcmpRtoState::Normal);
    assert_eq!(m.case_counts(), counts(&[(2, 1), (6, 1), (7, 1)]));
}

#[test]
fn case7_timeout_drop_in_extended_expires_now() {
    let mut m = extended(Case7::TimeOut);
    assert_eq!(drop_after(&mut m, A), TimerChange::ExpireNow);
    assert_eq!(m.state(), IcmpRtoState::Normal);
    assert_eq!(m.case_counts(), counts(&[(2, 1), (6, 1), (7, 1)]));
}

#[test]
fn case7_rejudge_drop_in_intermediate_is_judged_by_cases_1_to_3() {
    // b = 3 s from the original start: case 2 again, the timer shrinks to 14 s.
    let mut m = intermediate(Case7::Rejudge);
    assert_eq!(drop_after(&mut m, secs(3)), TimerChange::FireAt(SET + A));
    assert_eq!(m.state(), IcmpRtoState::Premature);
    assert_eq!(m.case_counts(), counts(&[(2, 2), (6, 1), (7, 1)]));
    // b = 3 s + 1 ns: case 1.
    let mut m = intermediate(Case7::Rejudge);
    assert_eq!(drop_after(&mut m, secs(3) + ns(1)), TimerChange::ExpireNow);
    assert_eq!(m.state(), IcmpRtoState::Normal);
    assert_eq!(m.case_counts(), counts(&[(1, 1), (2, 1), (6, 1), (7, 1)]));
    // The timer remembered at case 2 is judged, whatever start and value the sender reports.
    let mut m = intermediate(Case7::Rejudge);
    let now = SET + secs(3);
    assert_eq!(m.on_signal(Drop, now, now, secs(100), true), TimerChange::FireAt(SET + A));
}

#[test]
fn case7_rejudge_drop_in_extended_expires_now() {
    // The original deadline has passed (b ≥ a > 3a/4), even if the sender reports the
    // extension as a freshly set timer.
    let mut m = extended(Case7::Rejudge);
    let now = SET + A + ns(1);
    assert_eq!(m.on_signal(Drop, now, SET + A, A, true), TimerChange::ExpireNow);
    assert_eq!(m.state(), IcmpRtoState::Normal);
    assert_eq!(m.case_counts(), counts(&[(1, 1), (2, 1), (6, 1), (7, 1)]));
}

#[test]
fn case8_new_ack_in_intermediate_or_extended_restores_normal() {
    let mut m = intermediate(Case7::TimeOut);
    m.on_new_ack();
    assert_eq!(m.state(), IcmpRtoState::Normal);
    assert_eq!(m.case_counts(), counts(&[(2, 1), (6, 1), (8, 1)]));
    let mut m = extended(Case7::TimeOut);
    m.on_new_ack();
    assert_eq!(m.state(), IcmpRtoState::Normal);
    assert_eq!(m.case_counts(), counts(&[(2, 1), (6, 1), (8, 1)]));
    // A new ACK in Normal is no case.
    m.on_new_ack();
    assert_eq!(m.case_counts(), counts(&[(2, 1), (6, 1), (8, 1)]));
}

#[test]
fn defer_outside_premature_is_ignored() {
    let mut m = machine(Case7::TimeOut);
    assert_eq!(defer_after(&mut m, secs(2)), TimerChange::Keep);
    assert_eq!(m.state(), IcmpRtoState::Normal);
    let mut m = intermediate(Case7::TimeOut);
    assert_eq!(defer_after(&mut m, secs(3)), TimerChange::Keep);
    assert_eq!(m.state(), IcmpRtoState::Intermediate);
    let mut m = extended(Case7::TimeOut);
    assert_eq!(defer_after(&mut m, secs(5)), TimerChange::Keep);
    assert_eq!(m.state(), IcmpRtoState::Extended);
    assert_eq!(m.case_counts(), counts(&[(2, 1), (6, 1)]));
}

#[test]
fn normal_expiry_is_a_timeout_and_on_timeout_always_returns_to_normal() {
    let mut m = machine(Case7::TimeOut);
    assert_eq!(m.on_expiry(SET + A, A), Expiry::Timeout);
    for mut m in [premature(Case7::TimeOut), intermediate(Case7::TimeOut), extended(Case7::TimeOut)] {
        m.on_timeout();
        assert_eq!(m.state(), IcmpRtoState::Normal);
    }
}

#[test]
fn sequence_drop_ignored_drop_defer_expiry_expiry_is_one_timeout() {
    // Paper 001 Sec. IV numbers: RTT 1 s, a = 3 s (100 ms multiples), timer set at 0.
    let ms = SimDuration::from_millis;
    let (t0, a) = (SimTime::ZERO, ms(3000));
    let mut m = machine(Case7::TimeOut);
    assert_eq!(m.on_signal(Drop, t0 + ms(1500), t0, a, true), TimerChange::FireAt(t0 + ms(2250)));
    assert_eq!(m.on_signal(Drop, t0 + ms(2000), t0, a, true), TimerChange::Keep);
    assert_eq!(m.on_signal(Defer, t0 + ms(2100), t0, a, true), TimerChange::FireAt(t0 + a));
    assert_eq!(m.on_expiry(t0 + a, a), Expiry::ExtendTo(t0 + ms(6000)));
    assert_eq!(m.on_expiry(t0 + ms(6000), a), Expiry::Timeout);
    m.on_timeout();
    // The backed-off timer (set at 6 s, a = 6 s): b = 1.499999999 s < a/4 is case 3.
    let (t1, a1) = (t0 + ms(6000), ms(6000));
    assert_eq!(m.on_signal(Drop, t1 + ns(1_499_999_999), t1, a1, true), TimerChange::Keep);
    assert_eq!(m.state(), IcmpRtoState::Normal);
    assert_eq!(m.case_counts(), counts(&[(2, 1), (3, 1), (4, 1), (6, 1)]));
}
