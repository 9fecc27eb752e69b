//! A whole-simulation snapshot of a small matrix (rate × spike length × RTO preset or named
//! stack): any change
//! in behaviour shows up as a diff of `snapshots/snapshot_matrix__matrix.snap` in review.
//! Update deliberately with `INSTA_UPDATE=always cargo test` and review the diff.

mod common;
use common::{flow, run, single_flow};
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
    for rate in ["500kbps", "4Mbps"] {
        for spike in ["none", "1s", "4s"] {
            let presets = ["rto=rfc6298", "rto=linux", "rto=ns2"];
            let stacks = ["stack=rfc", "stack=linux", "stack=freebsd", "stack=ns3", "stack=ns2-sack1", "stack=ns2-newreno"];
            for variant in presets.into_iter().chain(stacks) {
                let spikes = match spike {
                    "none" => String::new(),
                    len => format!("spikes = {{ at = [\"10s\", \"25s\", \"40s\"], length = \"{len}\" }}"),
                };
                let link = format!("queue = {{ kind = \"droptail\", limit = \"30p\" }}\n{spikes}");
                let (key, value) = variant.split_once('=').expect("key=value");
                let sack = if key == "rto" { ", sack = true" } else { "" };
                let tcp = format!("{key} = \"{value}\"{sack}");
                let r = run(&format!("duration = \"60s\"\n{}", single_flow(rate, "50ms", "inf", &link, &tcp)));
                let f = flow(&r, "f");
                rows.push(Row {
                    case: format!("{rate} spike={spike} {variant}"),
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
        }
    }
    insta::assert_yaml_snapshot!(rows);
}
