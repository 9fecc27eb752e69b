//! Builds the result tables at the end of a run.

use super::datagram_flow::{DatagramFlow, Ends};
use super::flow::FlowRuntime;
use super::session::{RowSource, Tally};
use super::{Simulation, World};
use crate::fabric::Parts;
use crate::results::{FlowRow, RunMeta, RunResult, TransportKind};
use crate::time::SimTime;
use crate::traffic::Origin;
use crate::quic::QuicTransfer;
use crate::transport::{UdpSink, UdpSource};
use crate::voice::codec::Codec;
use crate::voice::emodel::score_call;

impl Simulation {
    pub(super) fn report(self, end: SimTime) -> RunResult {
        let Simulation { net, world: mut w } = self;
        let Parts { links: mut links_dirs, mut radio, captures, events: queue, packets } = net.into_parts();
        let flows: Vec<FlowRow> = w
            .rows
            .iter()
            .enumerate()
            .map(|(row, source)| match *source {
                RowSource::Flow(f) => flow_row(row as u64, &w.flows[f.index()], end),
                RowSource::File(k) => file_row(&w, k, end),
                RowSource::Datagram(f) => datagram_row(row as u64, &w.datagram_flows[f.slot()], end),
            })
            .collect();

        let mut entities: Vec<String> = flows.iter().map(|f| f.name.clone()).collect();
        let events = match w.events.take() {
            Some(log) => log.into_rows(&w.flows, &w.datagram_flows, &entities, &links_dirs.iter().map(|l| l.cfg.name()).collect::<Vec<_>>()),
            None => Vec::new(),
        };
        let n_flows = entities.len() as u32;
        let mut links = Vec::with_capacity(links_dirs.len());
        for (d, l) in links_dirs.iter_mut().enumerate().take(w.reported_links) {
            l.finish(end);
            entities.push(l.cfg.name());
            l.take_series(n_flows + d as u32, &mut w.series);
            links.push(l.report(end));
        }
        if let Some(radio) = &mut radio {
            let first = entities.len() as u32;
            entities.extend(radio.series_entities());
            radio.take_series(first, &mut w.series);
        }
        w.series.entities = entities;
        let meta = RunMeta {
            scenario: w.scenario_name.clone(),
            seed: w.seed,
            sim_time_s: end.as_secs_f64(),
            events: queue.processed(),
            data_packets: w.data_packets,
            peak_live_packets: packets.capacity() as u64,
        };
        let pcaps = captures.into_files();
        let cells = radio.as_ref().map(|r| r.report(end)).unwrap_or_default();
        RunResult { flows, links, cells, series: w.series, events, meta, pcaps }
    }
}

/// What names and times a `flows` row, alike for every transport and for the emulator's rows:
/// its flow and connection numbers, name, origin (kind and generator), start, end, completion
/// (the time from start to `completed`, which a failed transfer lacks though it ended) and
/// size.
pub struct RowIdentity<'a> {
    pub flow: u64,
    pub connection: u64,
    pub name: &'a str,
    pub origin: &'a Origin,
    pub start: SimTime,
    pub end: Option<SimTime>,
    pub completed: Option<SimTime>,
    pub size: Option<u64>,
}

impl RowIdentity<'_> {
    /// `rest`, a row of its transport's columns, named and timed.
    pub fn row(self, rest: FlowRow) -> FlowRow {
        let (kind, generator) = self.origin.kind_and_generator();
        FlowRow {
            flow: self.flow,
            connection: self.connection,
            name: self.name.to_string(),
            kind,
            generator,
            start_s: self.start.as_secs_f64(),
            end_s: self.end.map(|t| t.as_secs_f64()),
            completion_s: self.completed.map(|t| t.since(self.start).as_secs_f64()),
            size: self.size,
            ..rest
        }
    }
}

fn mean(sum: f64, n: u64) -> Option<f64> {
    (n > 0).then(|| sum / n as f64)
}

/// The row of flow `f`, a connection of its own, at the run's `end`.
fn flow_row(row: u64, f: &FlowRuntime, end: SimTime) -> FlowRow {
    let s = &f.sender.stats;
    let finished = f.sender.completed_at();
    let until = finished.unwrap_or(end);
    let elapsed = until.since(f.start).as_secs_f64();
    let rate = |bytes: u64| (f.started && elapsed > 0.0).then(|| bytes as f64 * 8.0 / elapsed);
    let identity = RowIdentity { flow: row, connection: row, name: &f.name, origin: &f.origin, start: f.start, end: finished, completed: finished, size: f.size };
    identity.row(FlowRow {
        transport: TransportKind::Tcp,
        bytes: f.check.delivered,
        goodput_bps: rate(f.check.delivered),
        throughput_bps: rate(s.payload_bytes_sent),
        segments_sent: s.segments_sent,
        retransmits: s.retransmits,
        retransmitted_bytes: s.retransmitted_bytes,
        timeouts: s.timeouts,
        spurious_timeouts: f.oracle.spurious(),
        spurious_detected: s.spurious_detected,
        spurious_detected_correct: f.oracle.detected_correctly(),
        undos: s.undos,
        dsacks: s.dsacks_received,
        syn_timeouts: s.syn_timeouts,
        spurious_syn_timeouts: f.oracle.spurious_syn(),
        fast_retransmits: s.fast_retransmits,
        duplicate_bytes: f.receiver.stats.duplicate_bytes,
        icmp_drop: s.icmp_drop_received,
        icmp_defer: s.icmp_defer_received,
        icmp_early_timeouts: s.icmp_cases[1],
        icmp_shrinks: s.icmp_cases[2],
        icmp_extensions: s.icmp_extensions,
        mean_rto_s: mean(s.rto_sum_s, s.rto_samples),
        mean_rtt_s: mean(s.rtt_sum_s, s.rtt_samples),
        rtt_samples: Some(s.rtt_samples),
        timeout_idle_s: Some(s.timeout_idle_s),
        ca_acks: Some(s.ca_acks),
        linear_acks: Some(s.linear_acks),
        ..FlowRow::blank()
    })
}

/// The row of file `k` of a per-session connection: its own start, end, size and bytes, and
/// its share of the connection's counters, from its start to the next file's (to the run's
/// `end` for the last), as `session.rs` says.
fn file_row(w: &World, k: u32, end: SimTime) -> FlowRow {
    let file = &w.files[k as usize];
    let conn = &w.flows[file.connection.index()];
    let files = &conn.session.as_ref().expect("a per-session connection has its session").files;
    let at = files.iter().position(|&j| j == k).expect("a file is among its connection's");
    let first = &w.files[files[0] as usize];
    let to = files.get(at + 1).map_or_else(|| Tally::of(conn), |&next| w.files[next as usize].from);
    let d = to.since(&file.from);
    let spurious = to.spurious_since(&file.from, conn);
    let bytes = conn.check.delivered.saturating_sub(file.offset).min(file.size);
    let elapsed = file.end.unwrap_or(end).since(file.start).as_secs_f64();
    let rate = |bytes: u64| (elapsed > 0.0).then(|| bytes as f64 * 8.0 / elapsed);
    let identity = RowIdentity {
        flow: file.row as u64,
        connection: first.row as u64,
        name: &file.name,
        origin: &file.origin,
        start: file.start,
        end: file.end,
        completed: file.end,
        size: Some(file.size),
    };
    identity.row(FlowRow {
        transport: TransportKind::Tcp,
        bytes,
        goodput_bps: rate(bytes),
        throughput_bps: rate(d.payload_bytes_sent),
        segments_sent: d.segments_sent,
        retransmits: d.retransmits,
        retransmitted_bytes: d.retransmitted_bytes,
        timeouts: d.timeouts,
        spurious_timeouts: spurious.oracle,
        spurious_detected: spurious.detected,
        spurious_detected_correct: spurious.detected_correct,
        undos: d.undos,
        dsacks: d.dsacks,
        syn_timeouts: d.syn_timeouts,
        // The handshake is the first file's.
        spurious_syn_timeouts: if at == 0 { conn.oracle.spurious_syn() } else { 0 },
        fast_retransmits: d.fast_retransmits,
        duplicate_bytes: d.duplicate_bytes,
        icmp_drop: d.icmp_drop,
        icmp_defer: d.icmp_defer,
        icmp_early_timeouts: d.icmp_early_timeouts,
        icmp_shrinks: d.icmp_shrinks,
        icmp_extensions: d.icmp_extensions,
        mean_rto_s: mean(d.rto_sum_s, d.rto_samples),
        mean_rtt_s: mean(d.rtt_sum_s, d.rtt_samples),
        rtt_samples: Some(d.rtt_samples),
        timeout_idle_s: Some(d.timeout_idle_s),
        ca_acks: Some(d.ca_acks),
        linear_acks: Some(d.linear_acks),
        ..FlowRow::blank()
    })
}

/// The row of datagram flow `f` at the run's `end`: the TCP counters 0 (`FlowRow::blank`),
/// the datagram columns from its source, its sink and the world's drop count.
fn datagram_row(row: u64, f: &DatagramFlow, end: SimTime) -> FlowRow {
    let elapsed = f.end.unwrap_or(end).since(f.start).as_secs_f64();
    // A QUIC transfer whose connection failed ended without completing.
    let completed = match &f.ends {
        Ends::Quic(t) => t.completed_at(),
        Ends::Udp { .. } => f.end,
    };
    let identity = RowIdentity { flow: row, connection: row, name: &f.name, origin: &f.origin, start: f.start, end: f.end, completed, size: f.size };
    identity.row(match &f.ends {
        Ends::Udp { source, sink } => datagram_columns(source, sink, f.lost, f.codec, f.started.then_some(elapsed)),
        Ends::Quic(t) => quic_columns(t, f.lost, f.started.then_some(elapsed)),
    })
}

/// A QUIC transfer's columns: bytes the client read, goodput over `elapsed_s`, throughput
/// from the UDP payload the server sent, the datagrams both ends sent and received and the
/// network dropped (`lost`), each end's PTOs and both ends' losses with the oracle's verdicts. A
/// transfer that failed (its connection lost) has no completion time (the caller's).
fn quic_columns(t: &QuicTransfer, lost: u64, elapsed_s: Option<f64>) -> FlowRow {
    let rate = |bytes: u64| elapsed_s.filter(|&e| e > 0.0).map(|e| bytes as f64 * 8.0 / e);
    let stats = [t.client.stats(), t.server.stats()];
    let udp = |f: fn(&quinn_proto::ConnectionStats) -> u64| stats.iter().flatten().map(f).sum::<u64>();
    let (c, s) = t.verdicts();
    FlowRow {
        transport: TransportKind::Quic,
        bytes: t.client.received(),
        goodput_bps: rate(t.client.received()),
        throughput_bps: rate(t.server.stats().map_or(0, |s| s.udp_tx.bytes)),
        datagrams_sent: Some(udp(|s| s.udp_tx.datagrams)),
        datagrams_received: Some(udp(|s| s.udp_rx.datagrams)),
        datagrams_lost: Some(lost),
        ptos: Some(s.ptos),
        spurious_ptos: Some(s.spurious_ptos),
        client_ptos: Some(c.ptos),
        spurious_client_ptos: Some(c.spurious_ptos),
        declared_lost: Some(c.declared_lost + s.declared_lost),
        spurious_declared_lost: Some(c.spurious_declared_lost + s.spurious_declared_lost),
        congestion_events: Some(t.congestion_events()),
        ..FlowRow::blank()
    }
}

/// The columns of a datagram flow's row that its source, its sink and the network's drops
/// (`lost`) give: transport UDP, bytes received, goodput (bytes in time) and throughput
/// (bytes sent) over `elapsed_s` (from the flow's start to its end, or to the run's; `None`
/// if it never started), the datagram counts, one-way delay, jitter, and a call's MOS
/// (`codec`). The simulator's rows and the emulator's (`rtolab-emu`) are built by this one
/// function, so that they compare column by column. The other columns are blank.
pub fn datagram_columns(source: &UdpSource, sink: &UdpSink, lost: u64, codec: Option<Codec>, elapsed_s: Option<f64>) -> FlowRow {
    let rate = |bytes: u64| elapsed_s.filter(|&e| e > 0.0).map(|e| bytes as f64 * 8.0 / e);
    FlowRow {
        transport: TransportKind::Udp,
        bytes: sink.bytes,
        goodput_bps: rate(sink.bytes_in_time),
        throughput_bps: rate(source.bytes_sent),
        datagrams_sent: Some(source.sent),
        datagrams_received: Some(sink.received),
        datagrams_lost: Some(lost),
        datagrams_late: Some(sink.late),
        delay_mean_s: sink.delay_mean_s(),
        delay_p99_s: sink.delay_p99_s(),
        jitter_s: sink.jitter_s(),
        mos: codec.and_then(|codec| call_mos(codec, sink, lost)),
        ..FlowRow::blank()
    }
}

/// A call's MOS (ITU-T G.107 via `voice::emodel::score_call`): Id from the mean one-way
/// delay of the datagrams received, Ie,eff from the share of datagrams lost to the listener
/// (dropped, or later than the playout delay) among those whose fate is known at the end.
/// `None` for a call of which nothing arrived or was dropped.
fn call_mos(codec: Codec, sink: &UdpSink, lost: u64) -> Option<f64> {
    let known = sink.received + lost;
    let delay = sink.delay_mean_s().unwrap_or(0.0);
    (known > 0).then(|| score_call(codec, delay, (lost + sink.late) as f64 / known as f64).mos)
}
