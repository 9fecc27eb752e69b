//! What a run returns: the `flows` and `links` tables (one row per flow, one per link
//! direction), the long-format `series` table, run metadata and captures.
//!
//! Rows are plain structs here; the Python binding turns them into columns.

use serde::Serialize;

/// One row of the `flows` table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlowRow {
    pub flow: u32,
    pub name: String,
    /// "flow", "burst" or "web".
    pub kind: String,
    /// The generator that made it, if any.
    pub generator: Option<String>,
    pub start_s: f64,
    /// When the last byte was acknowledged; `None` if unfinished.
    pub end_s: Option<f64>,
    /// Requested size; `None` for an unbounded flow.
    pub size: Option<u64>,
    /// Bytes delivered in order to the receiving application.
    pub bytes: u64,
    /// bytes·8 / transfer time (to `end_s`, or to the end of the run if unfinished).
    pub goodput_bps: Option<f64>,
    /// Payload bytes sent, retransmissions included, ·8 / the same time.
    pub throughput_bps: Option<f64>,
    pub segments_sent: u64,
    pub retransmits: u64,
    pub retransmitted_bytes: u64,
    pub timeouts: u64,
    /// Timeouts the oracle found spurious: a copy of the retransmitted segment sent before
    /// the timer fired reached the receiver.
    pub spurious_timeouts: u64,
    /// Timeouts the sender's own detectors declared spurious.
    pub spurious_detected: u64,
    /// Of those, the ones the oracle also found spurious (true positives).
    pub spurious_detected_correct: u64,
    /// Window reductions undone by the spurious-timeout response.
    pub undos: u64,
    /// ACKs that carried a DSACK block (RFC 2883): duplicates the receiver reported.
    pub dsacks: u64,
    pub syn_timeouts: u64,
    /// SYN timeouts where an earlier SYN reached the receiver.
    pub spurious_syn_timeouts: u64,
    pub fast_retransmits: u64,
    /// Payload bytes that reached the receiver more than once.
    pub duplicate_bytes: u64,
    /// ICMP DROP and DEFER messages (paper 001) that reached the sender.
    pub icmp_drop: u64,
    pub icmp_defer: u64,
    /// Timeouts paper 001's scheme brought forward (case 1 at once, case 2 shrunk) and
    /// expiries it extended (case 6 into ET).
    pub icmp_early_timeouts: u64,
    pub icmp_shrinks: u64,
    pub icmp_extensions: u64,
    /// Mean RTO after each RTT sample.
    pub mean_rto_s: Option<f64>,
    pub mean_rtt_s: Option<f64>,
}

/// One row of the `links` table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LinkRow {
    pub link: String,
    /// "forward" or "reverse".
    pub direction: String,
    pub rate_bps: f64,
    pub delay_s: f64,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// All drops: queue overflow, RED, channel loss, ARQ discards.
    pub drops: u64,
    pub queue_drops: u64,
    pub red_drops: u64,
    pub loss_drops: u64,
    /// Transmissions the channel damaged (ARQ attempts included).
    pub channel_losses: u64,
    /// Share of the run a Gilbert–Elliott channel spent in its bad state.
    pub bad_share: Option<f64>,
    /// Link-layer ARQ: attempts, packets delivered across the channel, packets dropped
    /// (failed every attempt, or flushed with one that did), buffer flushes.
    pub arq_attempts: u64,
    pub arq_successes: u64,
    pub arq_discards: u64,
    pub arq_flushes: u64,
    /// ICMP DROP and DEFER messages this direction's elements sent.
    pub icmp_drop: u64,
    pub icmp_defer: u64,
    /// Fraction of the run the transmitter was busy.
    pub utilisation: f64,
    /// Time-averaged queue length, in packets.
    pub mean_queue: f64,
    pub max_queue: u64,
    pub max_queue_bytes: u64,
    pub spikes: u64,
    pub spike_time_s: f64,
}

/// One row of the `cells` table: a cell of the HSDPA radio network over the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellRow {
    pub cell: u32,
    pub name: String,
    /// TTIs in which the cell transmitted, and their share of the run's TTIs.
    pub ttis_busy: u64,
    pub busy_share: f64,
    /// Radio blocks sent (one per served user and TTI) and those damaged.
    pub blocks_sent: u64,
    pub blocks_lost: u64,
    /// Bytes of IP packets carried by intact blocks, and their rate over the run.
    pub bytes: u64,
    pub throughput_bps: f64,
    /// Backlogged users per TTI, averaged over every TTI of the run.
    pub mean_users: f64,
    /// Users served per busy TTI (code multiplexing).
    pub mean_served: Option<f64>,
    /// Mean SIR of the blocks sent, in dB.
    pub mean_sir_db: Option<f64>,
    /// Packets refused by a full user buffer, and dropped from a buffer whose user moved on.
    pub buffer_drops: u64,
    pub flushed: u64,
}

/// The long-format time series: one row per recorded change.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SeriesTable {
    pub time_s: Vec<f64>,
    /// Index into `entities`.
    pub entity: Vec<u32>,
    /// Index into `METRICS`.
    pub metric: Vec<u8>,
    pub value: Vec<f64>,
    /// Flow names, then link directions ("radio.forward").
    pub entities: Vec<String>,
}

/// Names of the series metrics, by their code in `SeriesTable::metric`.
pub const METRICS: [&str; 7] = ["cwnd", "ssthresh", "srtt", "rto", "queue", "delay", "channel"];
/// Code of the per-link queue-length series in `METRICS`.
pub const METRIC_QUEUE: u8 = 4;
/// Code of the per-flow one-way delay series in `METRICS`.
pub const METRIC_DELAY: u8 = 5;
/// Code of the per-link channel-state series (0 good, 1 bad) in `METRICS`.
pub const METRIC_CHANNEL: u8 = 6;

impl SeriesTable {
    pub fn push(&mut self, time_s: f64, entity: u32, metric: u8, value: f64) {
        self.time_s.push(time_s);
        self.entity.push(entity);
        self.metric.push(metric);
        self.value.push(value);
    }
    pub fn len(&self) -> usize {
        self.time_s.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
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
    pub meta: RunMeta,
    /// (link direction, pcap file bytes).
    pub pcaps: Vec<(String, Vec<u8>)>,
}
