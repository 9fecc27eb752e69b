//! The emulation's result: the simulator's tables filled from what the forwarder saw, what
//! the applications read and what `TCP_INFO` said, plus the emulator's own accuracy.
//!
//! Per flow, from the kernel: retransmits (`tcpi_total_retrans`), timeouts (`tcpi_total_rto`
//! less SYN timeouts), DSACKs (`tcpi_dsack_dups`), mean RTO and RTT (sampled). From the
//! 10 ms samples: undos (ssthresh raised again, not by a new reduction), spurious timeouts
//! detected (an undo out of the Loss state), fast retransmits (entries into Recovery). From
//! the forwarder: segments, bytes, duplicates, SYN timeouts, completion time (the ACK of the
//! last byte delivered to the sender), and the oracle's verdict on each timeout.
//!
//! A datagram flow's row is the simulator's (`world::datagram_columns`) from the same source
//! and sink the simulator drives, with the drops of rtolab's links as its losses.
//!
//! A QUIC transfer's row has the simulator's columns (`world::report::quic_columns`): bytes
//! the client read, datagram counts and congestion events from quinn's `ConnectionStats` of
//! both ends, PTOs and declared losses from their qlogs, the links' drops as `datagrams_lost`;
//! the oracle's `spurious_*` are the simulator's alone and stay null.

use crate::conn::{ConnTrack, DataEvent};
use crate::datagram_flow::DatagramFlow;
use crate::forwarder::{Accuracy, ForwarderReport};
use crate::kernel::NsSettings;
use crate::quic_apps::QuicOutcome;
use crate::shared::{ReceiverOutcome, SenderOutcome};
use crate::tcpinfo::{Sample, CA_CWR, CA_LOSS, CA_RECOVERY};
use rtolab_sim::results::{FlowRow, RunMeta, RunResult, SeriesTable, TransportKind};
use rtolab_sim::spec::{Scenario, SeriesMetric};
use rtolab_sim::world::{datagram_columns, Origin, RowIdentity, SpuriousOracle};
use rtolab_sim::{SimDuration, SimTime};
use serde::Serialize;
use std::collections::BTreeMap;

/// How far an RTO retransmission may be from the 10 ms sample that reported the timeout.
const MATCH_SLACK: SimDuration = SimDuration(2_000_000);
/// Fewer back-to-back releases than this say nothing about a direction's rate.
const MIN_PACED_PACKETS: u64 = 50;
/// A release later than this counts as late.
const LATE_NS: u64 = 1_000_000;

/// The emulator's accuracy on one link direction.
#[derive(Clone, Debug, Serialize)]
pub struct DirAccuracy {
    pub direction: String,
    pub configured_bps: f64,
    /// Bytes over real time between releases that were back to back on the transmitter
    /// (none when fewer than 50 were).
    pub achieved_bps: Option<f64>,
    pub rate_error_pct: Option<f64>,
    pub paced_bytes: u64,
}

/// What `meta.json` says about the emulation beyond the simulator's metadata.
#[derive(Clone, Debug, Serialize)]
pub struct EmuMeta {
    pub kernel: String,
    pub wall_s: f64,
    pub settings: NsSettings,
    /// Congestion control per flow, as the kernel ran it.
    pub congestion_control: BTreeMap<String, String>,
    pub accuracy: Vec<DirAccuracy>,
    /// Real release time minus scheduled time, over every released packet.
    pub added_latency_median_us: f64,
    pub added_latency_p99_us: f64,
    pub added_latency_max_us: f64,
    /// Releases later than 1 ms.
    pub late_packets: u64,
    /// The forwarder thread ran under real-time scheduling (`SCHED_FIFO`).
    pub forwarder_realtime: bool,
    pub released_packets: u64,
    pub foreign_packets: u64,
    /// Non-zero TcpExt counters of each namespace at the end (/proc/net/netstat).
    pub tcpext_sender: BTreeMap<String, u64>,
    pub tcpext_receiver: BTreeMap<String, u64>,
    pub stale_namespaces_removed: Vec<String>,
}

pub struct Emulation {
    pub result: RunResult,
    pub meta: EmuMeta,
}

/// Non-zero TcpExt counters from the text of /proc/net/netstat.
pub fn tcpext(netstat: &str) -> BTreeMap<String, u64> {
    let lines: Vec<&str> = netstat.lines().filter(|l| l.starts_with("TcpExt:")).collect();
    let mut out = BTreeMap::new();
    if let [names, values, ..] = lines.as_slice() {
        for (n, v) in names.split_whitespace().zip(values.split_whitespace()).skip(1) {
            if let Ok(v) = v.parse::<u64>() {
                if v > 0 {
                    out.insert(n.to_string(), v);
                }
            }
        }
    }
    out
}

/// The retransmissions that were RTO retransmissions: for each increase of `tcpi_total_rto`
/// between two samples, the first retransmissions the forwarder saw in that interval.
/// Returns indices into `log`.
pub fn rto_retransmissions(samples: &[Sample], log: &[DataEvent], from: SimTime, syn_timeouts: u64) -> Vec<usize> {
    let mut assigned = Vec::new();
    let mut prev = (from, syn_timeouts);
    let mut cursor = 0;
    for s in samples {
        let Some(total) = s.total_rto.map(u64::from) else {
            continue;
        };
        let new = total.saturating_sub(prev.1);
        let (lo, hi) = (SimTime(prev.0 .0.saturating_sub(MATCH_SLACK.0)), s.t + MATCH_SLACK);
        let mut found = 0;
        while found < new && cursor < log.len() {
            if let DataEvent::Sent { t, retransmission: true, .. } = log[cursor] {
                if t > hi {
                    break;
                }
                if t > lo {
                    assigned.push(cursor);
                    found += 1;
                }
            }
            cursor += 1;
        }
        prev = (s.t, total.max(prev.1));
    }
    assigned
}

/// Replays a connection's data packets through the simulator's oracle with the timeouts
/// inserted before their retransmissions; returns the fire time of each timeout.
fn replay(track: &mut ConnTrack, timeouts: &[usize]) -> Vec<SimTime> {
    let mut fired = Vec::new();
    let oracle: &mut SpuriousOracle = &mut track.oracle;
    for (i, ev) in track.log.iter().enumerate() {
        match *ev {
            DataEvent::Sent { t, seq, .. } => {
                if timeouts.contains(&i) {
                    oracle.timeout(fired.len() as u64, seq, t);
                    fired.push(t);
                }
                oracle.data_sent(t);
            }
            DataEvent::Arrived { sent_at, seq, end } => oracle.data_arrived(seq, end, sent_at),
            DataEvent::Dropped { sent_at } => oracle.data_dropped(sent_at),
        }
    }
    fired
}

/// Undos, spurious timeouts detected and recovery entries read off the samples; marks the
/// timeouts of each undone Loss episode as detected in the oracle.
fn sampled_events(samples: &[Sample], fired: &[SimTime], oracle: &mut SpuriousOracle) -> (u64, u64, u64) {
    let (mut undos, mut detected, mut recoveries) = (0, 0, 0);
    let mut loss_since: Option<SimTime> = None;
    let mut prev: Option<&Sample> = None;
    for s in samples {
        if let Some(p) = prev {
            let raised = match (p.ssthresh_bytes, s.ssthresh_bytes) {
                (Some(_), None) => true,
                (Some(a), Some(b)) => b > a,
                _ => false,
            };
            // Not an undo: a new reduction sets ssthresh from the current cwnd (CUBIC: 0.7 ·
            // cwnd), which is above the old ssthresh once cwnd grew past ssthresh / 0.7 since
            // the last one (`tcp_init_cwnd_reduction`, `tcp_enter_loss`); so does
            // `tcp_cwnd_application_limited` (3/4 cwnd). Both lower cwnd, and the reduction
            // enters CWR, Recovery or Loss; an undo never lowers cwnd (`tcp_undo_cwnd_reduction`:
            // max(cwnd, prior_cwnd)) and leaves those states.
            let reducing = |c: u8| matches!(c, CA_CWR | CA_RECOVERY | CA_LOSS);
            let new_reduction = reducing(s.ca_state) && s.ca_state != p.ca_state;
            let raised = raised && !new_reduction && s.cwnd_bytes >= p.cwnd_bytes;
            if raised {
                undos += 1;
                if p.ca_state == CA_LOSS {
                    let since = loss_since.unwrap_or(p.t);
                    let ids: Vec<u64> = fired.iter().enumerate().filter(|(_, &t)| t + MATCH_SLACK > since && t <= s.t).map(|(i, _)| i as u64).collect();
                    // An undo from Loss finds every timeout of its episode spurious, as the
                    // simulator counts them (`spurious_detected`: one per timeout).
                    detected += (ids.len() as u64).max(1);
                    if let (Some(&a), Some(&b)) = (ids.first(), ids.last()) {
                        oracle.detected(a, b);
                    }
                }
            }
            if s.ca_state == CA_RECOVERY && p.ca_state != CA_RECOVERY {
                recoveries += 1;
            }
            if s.ca_state == CA_LOSS && p.ca_state != CA_LOSS {
                loss_since = Some(p.t);
            }
        } else if s.ca_state == CA_RECOVERY {
            recoveries += 1;
        }
        prev = Some(s);
    }
    (undos, detected, recoveries)
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0u64), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// Everything one connection contributes to the report.
pub struct ConnOutcome<'a> {
    pub k: u32,
    pub track: Option<&'a mut ConnTrack>,
    pub sender: Option<&'a SenderOutcome>,
    pub receiver: Option<&'a ReceiverOutcome>,
    pub samples: &'a [Sample],
}

/// The `flows` row of one connection.
pub fn flow_row(name: &str, origin: &Origin, size: Option<u64>, c: ConnOutcome, end: SimTime) -> FlowRow {
    let start = c.sender.map(|s| s.connect_at).unwrap_or(end);
    let last = c.samples.last();
    let syn_timeouts = c.track.as_ref().map(|t| t.syn_timeouts()).unwrap_or(0);
    let (mut spurious, mut detected_correct, mut undos, mut detected, mut recoveries) = (0, 0, 0, 0, 0);
    let (mut segments, mut payload, mut rexmit_segments, mut rexmit_bytes, mut duplicates, mut spurious_syn) = (0, 0, 0, 0, 0, 0);
    let mut finished = None;
    if let Some(track) = c.track {
        let from = c.sender.and_then(|s| s.established_at).unwrap_or(start);
        let timeouts = rto_retransmissions(c.samples, &track.log, from, syn_timeouts);
        let fired = replay(track, &timeouts);
        (undos, detected, recoveries) = sampled_events(c.samples, &fired, &mut track.oracle);
        spurious = track.oracle.spurious();
        detected_correct = track.oracle.detected_correctly();
        spurious_syn = track.oracle.spurious_syn();
        (segments, payload, rexmit_segments, rexmit_bytes, duplicates) =
            (track.data_segments, track.payload_bytes, track.retransmitted_segments, track.retransmitted_bytes, track.duplicate_bytes);
        finished = track.acked_all_at;
    }
    let bytes = c.receiver.map(|r| r.bytes).unwrap_or(0);
    let elapsed = finished.unwrap_or(end).since(start).as_secs_f64();
    let rate = |b: u64| (c.sender.is_some() && elapsed > 0.0).then(|| b as f64 * 8.0 / elapsed);
    let established = || c.samples.iter().filter(|s| s.srtt_us > 0);
    let identity = RowIdentity { flow: c.k.into(), connection: c.k.into(), name, origin, start, end: finished, completed: finished, size };
    identity.row(FlowRow {
        transport: TransportKind::Tcp,
        bytes,
        goodput_bps: rate(bytes),
        throughput_bps: rate(payload),
        segments_sent: segments,
        retransmits: last.map(|s| s.total_retrans as u64).unwrap_or(rexmit_segments),
        retransmitted_bytes: rexmit_bytes,
        timeouts: last.and_then(|s| s.total_rto).map(|n| (n as u64).saturating_sub(syn_timeouts)).unwrap_or(0),
        spurious_timeouts: spurious,
        spurious_detected: detected,
        spurious_detected_correct: detected_correct,
        undos,
        dsacks: last.and_then(|s| s.dsack_dups).unwrap_or(0) as u64,
        syn_timeouts,
        spurious_syn_timeouts: spurious_syn,
        fast_retransmits: recoveries,
        duplicate_bytes: duplicates,
        icmp_drop: 0,
        icmp_defer: 0,
        icmp_early_timeouts: 0,
        icmp_shrinks: 0,
        icmp_extensions: 0,
        mean_rto_s: mean(established().map(|s| s.rto_us as f64 / 1e6)),
        mean_rtt_s: mean(established().map(|s| s.srtt_us as f64 / 1e6)),
        rtt_samples: None,
        timeout_idle_s: None,
        // The kernel does not say which rule grew its window.
        ca_acks: None,
        linear_acks: None,
        ..FlowRow::blank()
    })
}

/// The `flows` row of datagram flow `k` at the run's `end`, as the simulator builds it.
pub fn datagram_row(k: u32, name: &str, origin: &Origin, size: Option<u64>, f: &DatagramFlow, end: SimTime) -> FlowRow {
    let elapsed = f.end.unwrap_or(end).since(f.start).as_secs_f64();
    let identity = RowIdentity { flow: k.into(), connection: k.into(), name, origin, start: f.start, end: f.end, completed: f.end, size };
    identity.row(datagram_columns(&f.source, &f.sink, f.lost, f.codec, f.started.then_some(elapsed)))
}

/// The `flows` row of QUIC transfer `k` at the run's `end`, as the simulator builds it: start
/// at the client's connect, end when the transfer ended (complete or failed), completion only
/// when the client read every byte; rates over the time to the end (or to the run's end);
/// `lost` the datagrams rtolab's links dropped.
pub fn quic_row(k: u32, name: &str, origin: &Origin, size: Option<u64>, q: &QuicOutcome, lost: u64, end: SimTime) -> FlowRow {
    let elapsed = q.ended().unwrap_or(end).since(q.start).as_secs_f64();
    let rate = |bytes: u64| (elapsed > 0.0).then(|| bytes as f64 * 8.0 / elapsed);
    let stats = [q.client.as_ref(), q.server.as_ref()];
    let sum = |f: fn(&quinn::ConnectionStats) -> u64| stats.iter().flatten().map(|s| f(s)).sum::<u64>();
    let identity = RowIdentity { flow: k.into(), connection: k.into(), name, origin, start: q.start, end: q.ended(), completed: q.done_at, size };
    identity.row(FlowRow {
        transport: TransportKind::Quic,
        bytes: q.received,
        goodput_bps: rate(q.received),
        throughput_bps: rate(q.server.as_ref().map_or(0, |s| s.udp_tx.bytes)),
        datagrams_sent: Some(sum(|s| s.udp_tx.datagrams)),
        datagrams_received: Some(sum(|s| s.udp_rx.datagrams)),
        datagrams_lost: Some(lost),
        ptos: Some(q.tallies[1].ptos),
        client_ptos: Some(q.tallies[0].ptos),
        declared_lost: Some(q.tallies.iter().map(|t| t.declared_lost).sum()),
        congestion_events: Some(sum(|s| s.path.congestion_events)),
        spurious_ptos: None,
        spurious_client_ptos: None,
        spurious_declared_lost: None,
        ..FlowRow::blank()
    })
}

/// A QUIC transfer's series: its server's metrics as they changed (`quic_apps`), the ones
/// the simulator records for a QUIC server.
pub fn quic_series(series: &mut SeriesTable, k: u32, q: &QuicOutcome, wanted: &[SeriesMetric]) {
    for (t, m) in &q.metrics {
        let values = [(SeriesMetric::Cwnd, m.congestion_window.map(|w| w as f64)), (SeriesMetric::Ssthresh, m.ssthresh.map(|w| w as f64)), (SeriesMetric::Srtt, m.smoothed_rtt_s), (SeriesMetric::Rttvar, m.rtt_variance_s)];
        for (metric, value) in values {
            if let Some(v) = value.filter(|_| wanted.contains(&metric)) {
                series.push(t.as_secs_f64(), k, metric, v);
            }
        }
    }
}

/// A datagram flow's `delay` series: each datagram's one-way delay at its arrival, as its
/// sink measured it (the simulator records the same per datagram).
pub fn datagram_series(series: &mut SeriesTable, k: u32, f: &DatagramFlow) {
    for &(t, delay) in f.delays.iter().flatten() {
        series.push(t.as_secs_f64(), k, SeriesMetric::Delay, delay);
    }
}

/// Per-flow series from the samples, recorded on change as the simulator records them.
pub fn sample_series(series: &mut SeriesTable, k: u32, samples: &[Sample], wanted: &[SeriesMetric]) {
    let mut last = [f64::NAN; 5];
    for s in samples.iter().filter(|s| s.srtt_us > 0) {
        let values = [
            s.cwnd_bytes as f64,
            s.ssthresh_bytes.map(|b| b as f64).unwrap_or(f64::INFINITY),
            s.srtt_us as f64 / 1e6,
            s.rto_us as f64 / 1e6,
            s.pacing_rate.map_or(f64::NAN, |r| r as f64 * 8.0),
        ];
        for (m, v) in values.into_iter().enumerate() {
            if wanted.contains(&SeriesMetric::SENDER[m]) && v != last[m] && !v.is_nan() {
                series.push(s.t.as_secs_f64(), k, SeriesMetric::SENDER[m], v);
                last[m] = v;
            }
        }
    }
}

fn percentile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * q).round() as usize;
    sorted[i] as f64
}

/// Accuracy figures of the forwarder.
pub fn accuracy(fwd: &ForwarderReport) -> (Vec<DirAccuracy>, [f64; 3], u64, u64) {
    let acc: &Accuracy = &fwd.accuracy;
    let dirs = fwd
        .links
        .iter()
        .enumerate()
        .map(|(d, l)| {
            let configured = l.cfg.rate_bps as f64;
            let achieved = (acc.paced_packets[d] >= MIN_PACED_PACKETS && acc.paced_real_ns[d] > 0)
                .then(|| acc.paced_bytes[d] as f64 * 8.0 / (acc.paced_real_ns[d] as f64 / 1e9));
            DirAccuracy {
                direction: l.cfg.name(),
                configured_bps: configured,
                achieved_bps: achieved,
                rate_error_pct: achieved.map(|a| 100.0 * (a - configured) / configured),
                paced_bytes: acc.paced_bytes[d],
            }
        })
        .collect();
    let mut late = acc.lateness_ns.clone();
    late.sort_unstable();
    let us = |ns: f64| ns / 1e3;
    let stats = [us(percentile(&late, 0.5)), us(percentile(&late, 0.99)), us(late.last().copied().unwrap_or(0) as f64)];
    let n_late = late.iter().filter(|&&x| x > LATE_NS).count() as u64;
    (dirs, stats, n_late, late.len() as u64)
}

/// The simulator-shaped result of the run.
pub fn run_result(
    scenario: &Scenario,
    seed: u64,
    rows: Vec<FlowRow>,
    mut series: SeriesTable,
    fwd: &mut ForwarderReport,
    reported_links: usize,
    end: SimTime,
    data_packets: u64,
) -> RunResult {
    let n = rows.len() as u32;
    let mut entities: Vec<String> = rows.iter().map(|r| r.name.clone()).collect();
    let mut links = Vec::new();
    // As in the simulator: the scenario's links and the radio's wired path, not the mobile
    // users' own uplinks.
    for (d, l) in fwd.links.iter_mut().take(reported_links).enumerate() {
        entities.push(l.cfg.name());
        l.take_series(n + d as u32, &mut series);
        links.push(l.report(end));
    }
    let cells = fwd.radio.as_ref().map(|r| r.report(end)).unwrap_or_default();
    if let Some(radio) = &mut fwd.radio {
        let first = entities.len() as u32;
        entities.extend(radio.series_entities());
        radio.take_series(first, &mut series);
    }
    series.entities = entities;
    RunResult {
        flows: rows,
        links,
        cells,
        series,
        events: Vec::new(),
        meta: RunMeta {
            scenario: scenario.name.clone(),
            seed,
            sim_time_s: end.as_secs_f64(),
            events: fwd.events,
            data_packets,
            peak_live_packets: fwd.peak_slots,
        },
        pcaps: std::mem::take(&mut fwd.pcaps),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    fn sample(t: u64, total_rto: u16, ca_state: u8, ssthresh: Option<u64>) -> Sample {
        Sample {
            t: ms(t),
            state: 1,
            ca_state,
            mss: 1448,
            cwnd_bytes: 1448,
            ssthresh_bytes: ssthresh,
            srtt_us: 100_000,
            rttvar_us: 50_000,
            rto_us: 300_000,
            total_retrans: 0,
            lost: 0,
            sacked: 0,
            unacked: 0,
            dsack_dups: Some(0),
            total_rto: Some(total_rto),
            total_rto_recoveries: Some(0),
            pacing_rate: None,
        }
    }

    fn sent(t: u64, seq: u64, retransmission: bool) -> DataEvent {
        DataEvent::Sent { t: ms(t), seq, end: seq + 100, retransmission }
    }

    /// One timeout reported by the sample at 30 ms is the retransmission at 25 ms, not the
    /// fast retransmission at 5 ms (before the previous sample) nor new data.
    #[test]
    fn timeouts_match_the_retransmission_in_their_sample_interval() {
        let log = [sent(0, 0, false), sent(5, 0, true), sent(21, 100, false), sent(25, 0, true), sent(27, 100, true)];
        let samples = [sample(10, 0, 0, None), sample(20, 0, 0, None), sample(30, 1, CA_LOSS, Some(2896))];
        assert_eq!(rto_retransmissions(&samples, &log, ms(0), 0), vec![3]);
        // A SYN timeout already counted in total_rto is not a data timeout.
        let samples = [sample(10, 1, 0, None), sample(30, 2, CA_LOSS, Some(2896))];
        assert_eq!(rto_retransmissions(&samples, &log, ms(0), 1), vec![3]);
    }

    /// Two raises of ssthresh that are not undos (spike-cubic and loss-one-percent of
    /// `validate/kernel/`, whose TcpExt counters show one undo and none): a new recovery from
    /// a cwnd of 82 segments sets ssthresh 57 over the 52 undone to (and PRR lowers cwnd),
    /// and `tcp_cwnd_application_limited` raises ssthresh to 3/4 of a cwnd it halves toward
    /// the window used, in Open. An undo out of Loss (cwnd 1 → 52) still counts.
    #[test]
    fn new_reductions_and_idle_cwnd_are_not_undos() {
        let with_cwnd = |t: u64, ca: u8, ssthresh: u64, cwnd: u64| Sample { cwnd_bytes: cwnd * 1448, ..sample(t, 0, ca, Some(ssthresh * 1448)) };
        let samples = [
            with_cwnd(10, 0, 52, 82),
            with_cwnd(20, CA_RECOVERY, 57, 80),
            with_cwnd(30, 0, 57, 57),
            with_cwnd(40, 0, 60, 40),
            with_cwnd(50, CA_LOSS, 30, 1),
            with_cwnd(60, 0, 52, 52),
        ];
        let mut oracle = SpuriousOracle::default();
        let (undos, detected, recoveries) = sampled_events(&samples, &[], &mut oracle);
        assert_eq!((undos, detected, recoveries), (1, 1, 1));
    }

    /// ssthresh raised out of Loss is an undo of a spurious timeout; entering Recovery counts
    /// a fast retransmit; an oracle-confirmed detection is a true positive.
    #[test]
    fn undos_and_recoveries_are_read_off_the_samples() {
        let samples = [
            sample(10, 0, 0, None),
            sample(20, 0, CA_RECOVERY, Some(10_000)),
            sample(30, 0, 0, Some(10_000)),
            sample(40, 1, CA_LOSS, Some(5_000)),
            sample(50, 1, 0, Some(10_000)),
        ];
        let mut oracle = SpuriousOracle::default();
        oracle.data_sent(ms(0));
        oracle.data_arrived(0, 100, ms(0));
        oracle.timeout(0, 0, ms(35));
        let (undos, detected, recoveries) = sampled_events(&samples, &[ms(35)], &mut oracle);
        assert_eq!((undos, detected, recoveries), (1, 1, 1));
        assert_eq!(oracle.detected_correctly(), 1);
    }

    /// A transfer of 1 MB from 0.5 s done at 1.5 s: rates over that second, datagrams and
    /// congestion events of both ends summed, the server's bytes sent as throughput, each end's
    /// PTOs in its own column, the losses of both tallies, the oracle's columns null.
    #[test]
    fn a_quic_row_has_the_simulators_columns() {
        let stats = |tx: u64, rx: u64, bytes: u64, events: u64| {
            let mut s = quinn::ConnectionStats::default();
            (s.udp_tx.datagrams, s.udp_rx.datagrams, s.udp_tx.bytes, s.path.congestion_events) = (tx, rx, bytes, events);
            s
        };
        let mut tallies = [crate::quic_apps::Tally::default(); 2];
        tallies[0].take([rtolab_sim::quic::qlog_tap::Report::Metrics(rtolab_sim::quic::qlog_tap::Metrics { pto_count: Some(1), ..Default::default() })]);
        tallies[1].take([rtolab_sim::quic::qlog_tap::Report::Lost(rtolab_sim::quic::qlog_tap::Space::Data, 7)]);
        tallies[1].take([rtolab_sim::quic::qlog_tap::Report::Metrics(rtolab_sim::quic::qlog_tap::Metrics { pto_count: Some(2), ..Default::default() })]);
        let q = QuicOutcome {
            start: ms(500),
            done_at: Some(ms(1500)),
            received: 1_000_000,
            client: Some(stats(300, 900, 20_000, 0)),
            server: Some(stats(910, 300, 1_100_000, 2)),
            tallies,
            ..Default::default()
        };
        let row = quic_row(3, "q", &Origin::Static, Some(1_000_000), &q, 10, ms(9000));
        assert_eq!((row.transport, row.start_s, row.end_s, row.completion_s), (TransportKind::Quic, 0.5, Some(1.5), Some(1.0)));
        assert_eq!((row.goodput_bps, row.throughput_bps), (Some(8e6), Some(8.8e6)));
        assert_eq!((row.datagrams_sent, row.datagrams_received, row.datagrams_lost), (Some(1210), Some(1200), Some(10)));
        assert_eq!((row.ptos, row.client_ptos, row.declared_lost, row.congestion_events), (Some(2), Some(1), Some(1), Some(2)));
        assert_eq!((row.spurious_ptos, row.spurious_client_ptos, row.spurious_declared_lost), (None, None, None));
        // Failed at 2 s: no completion, the end is the failure's.
        let failed = QuicOutcome { done_at: None, failure: Some((ms(2000), "lost".into())), ..q };
        let row = quic_row(3, "q", &Origin::Static, Some(1_000_000), &failed, 10, ms(9000));
        assert_eq!((row.end_s, row.completion_s), (Some(2.0), None));
    }

    #[test]
    fn tcpext_counters_are_parsed_by_name() {
        let text = "TcpExt: SyncookiesSent TCPTimeouts TCPSpuriousRTOs\nTcpExt: 0 3 1\nIpExt: InNoRoutes\nIpExt: 0\n";
        let c = tcpext(text);
        assert_eq!(c.get("TCPTimeouts"), Some(&3));
        assert_eq!(c.get("TCPSpuriousRTOs"), Some(&1));
        assert!(!c.contains_key("SyncookiesSent"));
    }
}
