//! The scenario schema: the single source of truth for what a user can write.
//!
//! Users write TOML files or Python dicts; both arrive here through serde with
//! `deny_unknown_fields`, and `validate` checks what types cannot (names, ranges, cross-field
//! rules) before anything runs. Every error names the field path.

mod link_models;
mod load;
mod nearest;
mod shape;
mod validate;

pub use link_models::{ArqOverride, ArqSpec, ArqWindow};
pub use crate::radio::{default_mcs, HopSpec, McsSpec, RadioSpec, SchedulerKind};
pub use load::{from_json, from_toml, json_schema, notes, parse_for_any_target, parse_in, SpecError};
pub use crate::net::channel::{GilbertElliottSpec, LossModelKind, LossSpec};
pub use crate::net::{CodelSpec, DroptailSpec, FqCodelSpec, PieSpec, QueueSpec, RedSpec, SpikeDirection, SpikeHold, SpikeSpec, TraceSpec};
pub use crate::results::{EventKind, SeriesMetric};
pub use crate::tcp::cc::{CcKind, CcName};
pub use crate::tcp::initial_window::{InitialWindow, IwRule};
pub use crate::tcp::recovery::RecoveryKind;
pub use crate::tcp::resolve::ResolvedTcp;
pub use crate::tcp::rto::RtoPreset;
pub use crate::tcp::settings::TcpSpec;
pub use crate::tcp::spurious::{DetectSpec, Response};
pub use crate::tcp::DupAckRule;
pub use crate::transport::UdpSpec;
pub use crate::traffic::burst::BurstSpec;
pub use crate::traffic::voip::VoipSpec;
pub use crate::traffic::web::{DatagramsSpec, WebConnection, WebSpec};
pub use crate::traffic::GeneratorSpec;

use crate::units::{Duration, DurationRv, FlowSize, Rate};
use schemars::JsonSchema;
use serde::Deserialize;

/// A whole simulation: links, flows, traffic generators and what to record.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// A label carried into the results.
    #[serde(default = "default_name")]
    pub name: String,
    /// Stop time. Optional when every flow is finite and there is no web generator.
    pub duration: Option<Duration>,
    /// Master seed; every random stream derives from it (default 1).
    pub seed: Option<u64>,
    /// Duplex links, addressed by name in routes.
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    /// TCP connections, each over a route of links (default none).
    #[serde(default)]
    pub flows: Vec<FlowSpec>,
    /// Traffic generators that create flows as the run goes: bursts and web users (default
    /// none).
    #[serde(default)]
    pub generators: Vec<GeneratorSpec>,
    /// An HSDPA radio access network that routes can end in (paper 000).
    pub radio: Option<RadioSpec>,
    /// What to record beyond the flows and links tables: time series and captures (default
    /// nothing more).
    #[serde(default)]
    pub output: OutputSpec,
    /// Budgets that stop a runaway run with an error (default 2·10¹⁰ events, and one day of
    /// simulated time without a `duration`).
    #[serde(default)]
    pub limits: LimitsSpec,
}

impl Scenario {
    /// Reads every trace file the links name; a relative path is taken from `base`.
    pub fn load_traces(&mut self, base: Option<&std::path::Path>) -> Result<(), SpecError> {
        for (i, l) in self.links.iter_mut().enumerate() {
            if let Some(t) = &mut l.trace {
                t.load(base).map_err(|m| SpecError::new(format!("links[{i}].trace"), m))?;
            }
            if let Some(t) = l.reverse.as_mut().and_then(|r| r.trace.as_mut()) {
                t.load(base).map_err(|m| SpecError::new(format!("links[{i}].reverse.trace"), m))?;
            }
        }
        Ok(())
    }

    /// Every TCP table of the scenario (flows, then generators) with its field path.
    pub fn tcp_tables(&self) -> Vec<(String, &TcpSpec)> {
        let flows = self.flows.iter().enumerate().filter(|(_, f)| f.udp.is_none() && f.quic.is_none()).map(|(i, f)| (format!("flows[{i}].tcp"), f.tcp()));
        let gens = self.generators.iter().enumerate().filter_map(|(i, g)| g.tcp().map(|t| (format!("generators[{i}].tcp"), t)));
        flows.chain(gens).collect()
    }

    /// Whether `route` reaches a mobile user of the radio network: validated routes name the
    /// radio last (the mobile receives), first with `uplink` (the mobile sends), or not at all.
    pub fn reaches_radio(&self, route: &[String], uplink: bool) -> bool {
        let end = if uplink { route.first() } else { route.last() };
        self.radio.as_ref().is_some_and(|r| end == Some(&r.name))
    }
}

fn default_name() -> String {
    "scenario".into()
}

/// A duplex point-to-point link. The forward direction carries data of flows routed over it,
/// the reverse direction their ACKs; `reverse` overrides settings for the reverse direction.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// The name routes use for the link; unique among links.
    pub name: String,
    /// Transmission rate of each direction, e.g. "2Mbps" (bit/s); give `rate` or `trace`.
    pub rate: Option<Rate>,
    /// A delivery trace in place of `rate`: a file of one 1500-byte delivery opportunity per
    /// line, its time in milliseconds from the start of the run (Mahimahi's format and
    /// semantics), or a table `{ file = "...", loop = false }`; a relative path is read from
    /// the scenario file's directory.
    pub trace: Option<TraceSpec>,
    /// One-way propagation delay.
    pub delay: Duration,
    /// Random extra delay per packet ("exp(5ms)", "uniform(0ms, 20ms)"), added to `delay`
    /// without reordering: no packet arrives before the one sent ahead of it.
    pub jitter: Option<DurationRv>,
    /// The queue in front of each direction's transmitter (default DropTail, 50 packets, as
    /// ns-2).
    #[serde(default)]
    pub queue: QueueSpec,
    /// Loss applied to each transmission: a Bernoulli probability, or a Gilbert–Elliott
    /// channel table (both directions, unless `reverse` overrides it).
    #[serde(default)]
    pub loss: Option<LossSpec>,
    /// Link-layer ARQ at the sending end of each direction (unless `reverse` overrides it).
    pub arq: Option<ArqSpec>,
    /// Deterministic losses: the n-th packets (counting from 1) this direction sends are lost
    /// after transmission, like ns-2's list error model. For tests and what-if studies.
    #[serde(default)]
    pub drop_packets: Vec<u64>,
    /// Delay spikes: periods when the link stops serving, holding packets (default none).
    pub spikes: Option<SpikeSpec>,
    /// Settings of the reverse (ACK) direction that differ from the forward one (default:
    /// the same as forward).
    pub reverse: Option<DirectionOverride>,
}

/// Settings of a link's reverse direction that differ from the forward one.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirectionOverride {
    /// The reverse direction's rate (bit/s; default the link's `rate` or `trace`).
    pub rate: Option<Rate>,
    /// The reverse direction's delivery trace, in place of a rate (default the link's `rate`
    /// or `trace`).
    pub trace: Option<TraceSpec>,
    /// The reverse direction's one-way delay (default the link's `delay`).
    pub delay: Option<Duration>,
    /// The reverse direction's random extra delay (default the link's `jitter`).
    pub jitter: Option<DurationRv>,
    /// The reverse direction's queue (default the link's `queue`).
    pub queue: Option<QueueSpec>,
    /// The reverse direction's loss (default the link's `loss`).
    pub loss: Option<LossSpec>,
    /// The reverse direction's deterministic losses (default none).
    pub drop_packets: Option<Vec<u64>>,
    /// The reverse direction's ARQ: "off", or a table like the link's `arq` (default the
    /// link's `arq`).
    pub arq: Option<ArqOverride>,
}

/// One TCP connection from the first link's near end to the last link's far end.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowSpec {
    /// The flow's name in the results; unique among flows.
    pub name: String,
    /// Links crossed by data, in order; ACKs return over the same links reversed.
    pub route: Vec<String>,
    /// The mobile user sends: the route names the radio network first, data leaves over the
    /// user's dedicated uplink and the radio's wired path, ACKs come back through the shared
    /// channel. Default false (a route into the radio ends at a mobile receiver).
    #[serde(default)]
    pub uplink: bool,
    /// Bytes to transfer, e.g. "180kB", or "inf" for a bulk flow that runs to the end
    /// (default "inf").
    #[serde(default = "infinite")]
    pub size: FlowSize,
    /// When the connection opens (default 0 s).
    #[serde(default)]
    pub start: Option<Duration>,
    /// The flow's TCP: a stack profile and any field that overrides it (default rtolab's own
    /// settings, no `stack`). A flow carries exactly one of `tcp` and `udp`; with neither it is
    /// TCP with the defaults.
    #[serde(default)]
    pub tcp: Option<TcpSpec>,
    /// A UDP flow instead: constant bit rate, optionally on and off
    /// (`udp = { rate = "1Mbps", size = "1200B" }`).
    #[serde(default)]
    pub udp: Option<UdpSpec>,
    /// A QUIC transfer instead (quinn-proto): the client at the route's end asks for `size`
    /// bytes on one stream and the server sends them (`quic = { cc = "cubic" }`).
    #[serde(default)]
    pub quic: Option<crate::quic::QuicSpec>,
}

impl FlowSpec {
    /// The flow's TCP settings (the defaults when it names none); meaningless for a UDP flow.
    pub fn tcp(&self) -> &TcpSpec {
        self.tcp.as_ref().unwrap_or(TcpSpec::none_given())
    }
}

fn infinite() -> FlowSize {
    FlowSize::Infinite
}

/// What to record beyond the always-on `flows` and `links` tables.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// Time series to record (long format): cwnd, ssthresh, srtt, rto (per flow, on change),
    /// delay (per flow: one-way delay of each data packet at the receiver), queue (per link
    /// direction, on change), channel (per link direction with a Gilbert–Elliott channel: 0
    /// good, 1 bad, on change).
    #[serde(default)]
    pub series: Vec<SeriesMetric>,
    /// Links to capture: `"radio"` (both directions in one file, `pcap/radio.pcap`), or one
    /// direction, `"radio.forward"` or `"radio.reverse"`.
    #[serde(default)]
    pub pcap: Vec<String>,
    /// Events to log in the `events` table, one row each: "timeout" (with the oracle's and
    /// the sender's verdicts, cwnd and ssthresh before and after), "spurious" (the sender's
    /// detections), "undo", "retransmit", "drop" (where and why), "spike" (start and end).
    /// None by default; logging costs nothing when off.
    #[serde(default)]
    pub events: Vec<EventKind>,
}

/// Budgets that make a runaway run fail loudly instead of hanging.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitsSpec {
    /// Maximum number of events processed.
    #[serde(default = "default_max_events")]
    pub max_events: u64,
    /// Simulated-time budget when `duration` is absent.
    #[serde(default = "default_max_time")]
    pub max_time: Duration,
}

impl Default for LimitsSpec {
    fn default() -> Self {
        LimitsSpec { max_events: default_max_events(), max_time: default_max_time() }
    }
}

fn default_max_events() -> u64 {
    20_000_000_000
}
fn default_max_time() -> Duration {
    Duration::from_secs_f64(86_400.0)
}
