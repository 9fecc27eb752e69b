//! What a run returns: the `flows`, `links` and `cells` tables (one row per flow, per link
//! direction, per radio cell), the long-format `series` table, the `events` log, run
//! metadata and captures.
//!
//! Each table is defined once, here (`result_table!`) or in `series`: its columns, their
//! Arrow types, units and descriptions, and its Arrow record batch all come from that one
//! definition.

mod events;
mod labels;
mod series;
mod series_metric;
pub mod table;
#[cfg(test)]
mod tests;

pub use events::EventRow;
pub use labels::{EventKind, FlowKind, LinkDirection, TransportKind};
pub use series_metric::SeriesMetric;
pub use series::SeriesTable;
pub use table::{schema, Column, Kind, Row};

use arrow_array::RecordBatch;
use serde::Serialize;
use table::result_table;

result_table! {
    /// One row of the `flows` table.
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub struct FlowRow in "flows" {
        /// Index of the flow in the run, in the order flows were created (a file of a
        /// per-session web user is a flow of its own, made when it is written); the `series`
        /// table's entity of the same index is this flow.
        #[unit = ""]
        pub flow: u64,
        /// The TCP connection the flow used, by the `flow` of its first row: the flow's own
        /// for a connection of its own; shared by a web user's files under
        /// `connection = "per-session"`, whose rows count each file's share of it (its start
        /// to the next file's start) and add up to the connection's totals.
        #[unit = ""]
        pub connection: u64,
        /// The flow's name, from the scenario or made by its generator.
        #[unit = ""]
        pub name: String,
        /// "flow", "burst" or "web".
        #[unit = ""]
        pub kind: FlowKind,
        /// "tcp", "udp" for a UDP flow or a call, "quic" for a QUIC transfer; the TCP
        /// counters of the latter two are 0, their datagram columns set (and QUIC's own).
        #[unit = ""]
        pub transport: TransportKind,
        /// The generator that made it, if any.
        #[unit = ""]
        pub generator: Option<String>,
        /// When the flow started (a per-session web file: when it was written to its
        /// connection).
        #[unit = "s"]
        pub start_s: f64,
        /// When the last byte was acknowledged (a datagram flow of bounded size: when the
        /// fate of its last datagram was known, arrived or dropped); null if unfinished.
        #[unit = "s"]
        pub end_s: Option<f64>,
        /// The transfer's completion time: from its start to its last byte acknowledged (to
        /// the nanosecond); null if unfinished.
        #[unit = "s"]
        pub completion_s: Option<f64>,
        /// Requested size; null for an unbounded flow.
        #[unit = "bytes"]
        pub size: Option<u64>,
        /// Bytes delivered in order to the receiving application (a datagram flow: payload
        /// bytes received, late ones included).
        #[unit = "bytes"]
        pub bytes: u64,
        /// bytes·8 / transfer time (to `end_s`, or to the end of the run if unfinished); for a
        /// call, only the datagrams in time count.
        #[unit = "bit/s"]
        pub goodput_bps: Option<f64>,
        /// Payload bytes sent, retransmissions included, ·8 / the same time.
        #[unit = "bit/s"]
        pub throughput_bps: Option<f64>,
        /// Data segments sent, retransmissions included.
        #[unit = "segments"]
        pub segments_sent: u64,
        /// Data segments sent again.
        #[unit = "segments"]
        pub retransmits: u64,
        /// Payload bytes sent again.
        #[unit = "bytes"]
        pub retransmitted_bytes: u64,
        /// Retransmission timer expiries.
        #[unit = "count"]
        pub timeouts: u64,
        /// Timeouts the oracle found spurious: a copy of the retransmitted segment sent before
        /// the timer fired reached the receiver.
        #[unit = "count"]
        pub spurious_timeouts: u64,
        /// Timeouts the sender's own detectors declared spurious.
        #[unit = "count"]
        pub spurious_detected: u64,
        /// Of those, the ones the oracle also found spurious (true positives).
        #[unit = "count"]
        pub spurious_detected_correct: u64,
        /// Window reductions undone by the spurious-timeout response.
        #[unit = "count"]
        pub undos: u64,
        /// ACKs that carried a DSACK block (RFC 2883): duplicates the receiver reported.
        #[unit = "count"]
        pub dsacks: u64,
        /// Expiries of the SYN retransmission timer.
        #[unit = "count"]
        pub syn_timeouts: u64,
        /// SYN timeouts where an earlier SYN reached the receiver.
        #[unit = "count"]
        pub spurious_syn_timeouts: u64,
        /// Retransmissions triggered by duplicate ACKs or SACK, not by the timer.
        #[unit = "count"]
        pub fast_retransmits: u64,
        /// Payload bytes that reached the receiver more than once.
        #[unit = "bytes"]
        pub duplicate_bytes: u64,
        /// ICMP DROP messages (paper 001) that reached the sender.
        #[unit = "messages"]
        pub icmp_drop: u64,
        /// ICMP DEFER messages (paper 001) that reached the sender.
        #[unit = "messages"]
        pub icmp_defer: u64,
        /// Timeouts paper 001's scheme fired at once (case 1).
        #[unit = "count"]
        pub icmp_early_timeouts: u64,
        /// Timeouts paper 001's scheme shrunk (case 2).
        #[unit = "count"]
        pub icmp_shrinks: u64,
        /// Expiries paper 001's scheme extended into ET (case 6).
        #[unit = "count"]
        pub icmp_extensions: u64,
        /// Mean RTO after each RTT sample.
        #[unit = "s"]
        pub mean_rto_s: Option<f64>,
        /// Mean RTT: simulated, the mean of the sender's RTT samples (`rtt_samples` of them);
        /// under `rtolab emulate`, the mean of the kernel's smoothed RTT sampled every 10 ms.
        #[unit = "s"]
        pub mean_rtt_s: Option<f64>,
        /// RTT samples the sender took (one per timed segment or per ACK, as its stack
        /// samples; none from a retransmitted segment, Karn's rule); null under
        /// `rtolab emulate`. With `mean_rtt_s` it gives the mean over the packets of many
        /// flows: Σ mean_rtt_s · rtt_samples / Σ rtt_samples.
        #[unit = "samples"]
        pub rtt_samples: Option<u64>,
        /// Time the sender sat idle before its data timeouts: Σ over timeouts of the time from
        /// its last transmission to the expiry (paper 001's source idle time); null where it
        /// cannot be observed (the kernel's connections under `rtolab emulate`).
        #[unit = "s"]
        pub timeout_idle_s: Option<f64>,
        /// ACKs processed in congestion avoidance: those on which the congestion control ran
        /// its congestion-avoidance rule (new data acknowledged, the window limiting the
        /// sender, outside fast recovery, and cwnd at or above ssthresh as the algorithm
        /// draws that line — above it for Linux 2.6.24's per-ACK counting — or the part of an
        /// ACK that slow start left over at ssthresh), whether or not cwnd grew on it. 0 for
        /// BBR, which sets its window from its model; null under `rtolab emulate`.
        #[unit = "ACKs"]
        pub ca_acks: Option<u64>,
        /// Of the `ca_acks`, those on which the rule was the algorithm's linear, Reno-friendly
        /// one: every one for Reno/NewReno and Westwood+; for BIC, cwnd at or below its
        /// `low_window` (14 segments), where cnt = cwnd is Reno's; for CUBIC (both versions),
        /// Reno's estimate tcp_cwnd pacing the window (the TCP-friendly region): level with
        /// cwnd or ahead, and its cap cwnd/(tcp_cwnd − cwnd), or cwnd when level (the cap of
        /// its next step), below the cnt the cubic curve and the module's other rules ask.
        /// Σ linear_acks / Σ ca_acks is the ACK-weighted share of congestion avoidance in
        /// that regime. Null under `rtolab emulate`.
        #[unit = "ACKs"]
        pub linear_acks: Option<u64>,
        /// Datagrams the source sent; null for TCP.
        #[unit = "datagrams"]
        pub datagrams_sent: Option<u64>,
        /// Datagrams that reached the sink (late ones included); null for TCP.
        #[unit = "datagrams"]
        pub datagrams_received: Option<u64>,
        /// Datagrams the network dropped (queues, AQM, channel losses, flushed radio
        /// buffers); sent − received − lost were still in flight at the end. Null for TCP.
        #[unit = "datagrams"]
        pub datagrams_lost: Option<u64>,
        /// Datagrams that arrived more than the call's playout delay after they were sent:
        /// lost to the listener. 0 without a playout delay; null for TCP.
        #[unit = "datagrams"]
        pub datagrams_late: Option<u64>,
        /// Mean one-way delay of the datagrams received, late ones included; null for TCP or
        /// when none arrived.
        #[unit = "s"]
        pub delay_mean_s: Option<f64>,
        /// 99th percentile of the datagrams' one-way delays (nearest rank); null as above.
        #[unit = "s"]
        pub delay_p99_s: Option<f64>,
        /// RFC 3550 §6.4.1's interarrival jitter at the last arrival; null as above.
        #[unit = "s"]
        pub jitter_s: Option<f64>,
        /// A call's mean opinion score from the E-model (ITU-T G.107, Annex B), late
        /// datagrams counted as lost; null for every other flow.
        #[unit = ""]
        pub mos: Option<f64>,
        /// The QUIC server's probe timeouts (RFC 9002 §6.2): the data sender's, as `timeouts`
        /// are a TCP sender's. Each is a rise of quinn-proto's own `pto_count` in its qlog.
        /// Null for TCP and UDP.
        #[unit = "count"]
        pub ptos: Option<u64>,
        /// The server's PTOs the oracle found spurious: no packet it waited for had been lost
        /// (every datagram it had sent and not yet declared lost reached the client). Null as
        /// above.
        #[unit = "count"]
        pub spurious_ptos: Option<u64>,
        /// The QUIC client's PTOs: in its handshake (as a TCP sender's SYN timeouts), and
        /// later on its own ack-eliciting packets (the request, flow-control updates) whose
        /// ACKs come back behind the server's data. Null as above.
        #[unit = "count"]
        pub client_ptos: Option<u64>,
        /// The client's PTOs the oracle found spurious. Null as above.
        #[unit = "count"]
        pub spurious_client_ptos: Option<u64>,
        /// Packets the ends declared lost (RFC 9002 §6.1), from quinn-proto's qlog; null as
        /// above.
        #[unit = "packets"]
        pub declared_lost: Option<u64>,
        /// Of those, the ones whose datagram reached the peer. Null as above.
        #[unit = "packets"]
        pub spurious_declared_lost: Option<u64>,
        /// Congestion events (window reductions) at both ends, quinn-proto's own count; null
        /// as above.
        #[unit = "count"]
        pub congestion_events: Option<u64>,
    }
}

result_table! {
    /// One row of the `links` table.
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub struct LinkRow in "links" {
        /// The link's name in the scenario.
        #[unit = ""]
        pub link: String,
        /// "forward" or "reverse".
        #[unit = ""]
        pub direction: LinkDirection,
        /// Transmission rate.
        #[unit = "bit/s"]
        pub rate_bps: f64,
        /// Propagation delay.
        #[unit = "s"]
        pub delay_s: f64,
        /// Transmissions (ARQ attempts included).
        #[unit = "packets"]
        pub packets_sent: u64,
        /// Bytes of those transmissions.
        #[unit = "bytes"]
        pub bytes_sent: u64,
        /// All drops: queue overflow, RED, CoDel/PIE/FQ-CoDel, channel loss, ARQ discards.
        #[unit = "packets"]
        pub drops: u64,
        /// Drops by a full queue (FQ-CoDel's drops from its fattest flow included).
        #[unit = "packets"]
        pub queue_drops: u64,
        /// Early drops by RED.
        #[unit = "packets"]
        pub red_drops: u64,
        /// Drops by CoDel (at dequeue; FQ-CoDel's per-flow CoDel included) or PIE (early).
        #[unit = "packets"]
        pub aqm_drops: u64,
        /// Packets the channel lost (without ARQ; with ARQ a lost attempt is retried).
        #[unit = "packets"]
        pub loss_drops: u64,
        /// Transmissions the channel damaged (ARQ attempts included).
        #[unit = "count"]
        pub channel_losses: u64,
        /// Share of the run a Gilbert–Elliott channel spent in its bad state.
        #[unit = "fraction"]
        pub bad_share: Option<f64>,
        /// Link-layer ARQ attempts.
        #[unit = "count"]
        pub arq_attempts: u64,
        /// Packets link-layer ARQ delivered across the channel.
        #[unit = "packets"]
        pub arq_successes: u64,
        /// Packets link-layer ARQ dropped: failed every attempt, or flushed with one that did.
        #[unit = "packets"]
        pub arq_discards: u64,
        /// Link-layer ARQ buffer flushes.
        #[unit = "count"]
        pub arq_flushes: u64,
        /// ICMP DROP messages this direction's elements sent.
        #[unit = "messages"]
        pub icmp_drop: u64,
        /// ICMP DEFER messages this direction's elements sent.
        #[unit = "messages"]
        pub icmp_defer: u64,
        /// Fraction of the run the transmitter was busy.
        #[unit = "fraction"]
        pub utilisation: f64,
        /// Time-averaged queue length.
        #[unit = "packets"]
        pub mean_queue: f64,
        /// Longest queue.
        #[unit = "packets"]
        pub max_queue: u64,
        /// Largest queue in bytes.
        #[unit = "bytes"]
        pub max_queue_bytes: u64,
        /// Delay spikes.
        #[unit = "count"]
        pub spikes: u64,
        /// Time spent inside delay spikes.
        #[unit = "s"]
        pub spike_time_s: f64,
    }
}

result_table! {
    /// One row of the `cells` table: a cell of the HSDPA radio network over the run.
    #[derive(Clone, Debug, PartialEq, Serialize)]
    pub struct CellRow in "cells" {
        /// Index of the cell.
        #[unit = ""]
        pub cell: u64,
        /// The cell's name ("hsdpa.cell0").
        #[unit = ""]
        pub name: String,
        /// TTIs in which the cell transmitted.
        #[unit = "TTIs"]
        pub ttis_busy: u64,
        /// Share of the run's TTIs in which the cell transmitted.
        #[unit = "fraction"]
        pub busy_share: f64,
        /// Radio blocks sent (one per served user and TTI).
        #[unit = "blocks"]
        pub blocks_sent: u64,
        /// Radio blocks damaged.
        #[unit = "blocks"]
        pub blocks_lost: u64,
        /// Bytes of IP packets carried by intact blocks.
        #[unit = "bytes"]
        pub bytes: u64,
        /// Those bytes' rate over the run.
        #[unit = "bit/s"]
        pub throughput_bps: f64,
        /// Backlogged users per TTI, averaged over every TTI of the run.
        #[unit = "users"]
        pub mean_users: f64,
        /// Users served per busy TTI (code multiplexing).
        #[unit = "users"]
        pub mean_served: Option<f64>,
        /// Mean SIR of the blocks sent.
        #[unit = "dB"]
        pub mean_sir_db: Option<f64>,
        /// Packets refused by a full user buffer.
        #[unit = "packets"]
        pub buffer_drops: u64,
        /// Packets dropped from a buffer whose user moved on.
        #[unit = "packets"]
        pub flushed: u64,
    }
}

/// Every result table's name and columns, in the order of `RunResult::take_batches`.
///
/// Invariant (tested): each batch has exactly the schema of its columns.
pub fn schemas() -> [(&'static str, &'static [Column]); 5] {
    [
        (FlowRow::TABLE, FlowRow::COLUMNS),
        (LinkRow::TABLE, LinkRow::COLUMNS),
        (CellRow::TABLE, CellRow::COLUMNS),
        (SeriesTable::TABLE, SeriesTable::COLUMNS),
        (EventRow::TABLE, EventRow::COLUMNS),
    ]
}

/// Facts about the run itself.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunMeta {
    pub scenario: String,
    pub seed: u64,
    pub sim_time_s: f64,
    pub events: u64,
    /// Data segments sent by all senders (retransmissions included).
    pub data_packets: u64,
    pub peak_live_packets: u64,
}

#[derive(Clone, Debug)]
pub struct RunResult {
    pub flows: Vec<FlowRow>,
    pub links: Vec<LinkRow>,
    /// Empty without a radio network.
    pub cells: Vec<CellRow>,
    pub series: SeriesTable,
    /// Empty unless `output.events` asks for some.
    pub events: Vec<EventRow>,
    pub meta: RunMeta,
    /// (link direction, pcap file bytes).
    pub pcaps: Vec<(String, Vec<u8>)>,
}

impl RunResult {
    /// The tables as Arrow record batches, named and in the order of `schemas()`. The
    /// series moves out (its columns become arrays without a copy) and is left empty.
    pub fn take_batches(&mut self) -> [(&'static str, RecordBatch); 5] {
        batches(&self.flows, &self.links, &self.cells, std::mem::take(&mut self.series), &self.events)
    }
}

/// Every table with no rows, as `RunResult::take_batches` returns them (the series' `metric`
/// with every category).
pub fn empty_batches() -> [(&'static str, RecordBatch); 5] {
    batches(&[], &[], &[], SeriesTable::default(), &[])
}

fn batches(flows: &[FlowRow], links: &[LinkRow], cells: &[CellRow], series: SeriesTable, events: &[EventRow]) -> [(&'static str, RecordBatch); 5] {
    [
        (FlowRow::TABLE, FlowRow::batch(flows)),
        (LinkRow::TABLE, LinkRow::batch(links)),
        (CellRow::TABLE, CellRow::batch(cells)),
        (SeriesTable::TABLE, series.into_batch()),
        (EventRow::TABLE, EventRow::batch(events)),
    ]
}

impl FlowRow {
    /// A row with every count 0 and every optional column null, named nothing: the base a
    /// row is completed from (`..FlowRow::blank()`), so that a row of one transport leaves
    /// the other's columns at their "does not apply" values.
    pub fn blank() -> FlowRow {
        FlowRow {
            flow: 0,
            connection: 0,
            name: String::new(),
            kind: FlowKind::Flow,
            transport: TransportKind::Tcp,
            generator: None,
            start_s: 0.0,
            end_s: None,
            completion_s: None,
            size: None,
            bytes: 0,
            goodput_bps: None,
            throughput_bps: None,
            segments_sent: 0,
            retransmits: 0,
            retransmitted_bytes: 0,
            timeouts: 0,
            spurious_timeouts: 0,
            spurious_detected: 0,
            spurious_detected_correct: 0,
            undos: 0,
            dsacks: 0,
            syn_timeouts: 0,
            spurious_syn_timeouts: 0,
            fast_retransmits: 0,
            duplicate_bytes: 0,
            icmp_drop: 0,
            icmp_defer: 0,
            icmp_early_timeouts: 0,
            icmp_shrinks: 0,
            icmp_extensions: 0,
            mean_rto_s: None,
            mean_rtt_s: None,
            rtt_samples: None,
            timeout_idle_s: None,
            ca_acks: None,
            linear_acks: None,
            datagrams_sent: None,
            datagrams_received: None,
            datagrams_lost: None,
            datagrams_late: None,
            delay_mean_s: None,
            delay_p99_s: None,
            jitter_s: None,
            mos: None,
            ptos: None,
            spurious_ptos: None,
            client_ptos: None,
            spurious_client_ptos: None,
            declared_lost: None,
            spurious_declared_lost: None,
            congestion_events: None,
        }
    }
}
