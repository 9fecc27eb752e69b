//! A whole-simulation snapshot of a small matrix (rate × spike length × RTO preset or named
//! stack): any change
//! in behaviour shows up as a diff of `snapshots/scenarios__snapshot_matrix__matrix.snap` in review.
//! Update deliberately with `INSTA_UPDATE=always cargo test` and review the diff.

use crate::common::{flow, matrix_cases, run};

/// The event log against the flows table, on the same matrix.
#[path = "../matrix/events_log.rs"]
mod events_log;
use serde::Serialize;

#[derive(Serialize)]
struct Row {
    case: String,
    goodput_bps: u64,
    segments_sent: u64,
    retransmits: u64,
    timeouts: u64,
    spurious_timeouts: u64,
    spurious_detected: u64,
    undos: u64,
    fast_retransmits: u64,
    mean_rto_ms: u64,
}

#[test]
fn matrix() {
    let mut rows = vec![];
    for (case, scenario) in matrix_cases() {
        let r = run(&scenario);
        let f = flow(&r, "f");
        rows.push(Row {
            case,
            goodput_bps: f.goodput_bps.unwrap_or(0.0).round() as u64,
            segments_sent: f.segments_sent,
            retransmits: f.retransmits,
            timeouts: f.timeouts,
            spurious_timeouts: f.spurious_timeouts,
            spurious_detected: f.spurious_detected,
            undos: f.undos,
            fast_retransmits: f.fast_retransmits,
            mean_rto_ms: (f.mean_rto_s.unwrap_or(0.0) * 1000.0).round() as u64,
        });
    }
    insta::assert_yaml_snapshot!(rows);
}
