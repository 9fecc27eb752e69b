//! The `[radio]` table of a scenario: an HSDPA radio access network (HS-DSCH), with paper
//! 000's values (Sec. 3.1 and Table 1) as defaults; the scenario schema (`spec`) uses it as
//! it is. A flow reaches a mobile user by naming the radio
//! (`name`, default `"hsdpa"`) as the last entry of its route.

pub use super::multiplex::{Multiplex, MultiplexSplit};
pub use super::scheduler::SchedulerKind;
use crate::units::{Distance, Duration, DurationRv, Limit, Probability, Rate, SpeedRv};
use schemars::JsonSchema;
use serde::Deserialize;

/// A system-level model of HS-DSCH: hexagonal cells with wrap-around, distance path loss
/// and log-normal shadowing, interference within and between cells, link adaptation by SIR,
/// a 2 ms TTI with up to `users_per_tti` code-multiplexed users, per-user buffers at the base
/// station and a pluggable scheduler. Every mobile user has a dedicated uplink for what it sends
/// (its ACKs, or its data when it sends: `uplink = true` on the traffic).
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RadioSpec {
    /// The name routes use for the radio hop (it must be the last entry of a route).
    #[serde(default = "default_name")]
    pub name: String,
    /// Number of hexagonal cells: 1, 7 (paper 000) or 19 (a centre cell and full rings).
    #[serde(default = "default_cells")]
    pub cells: u32,
    /// Cell radius, centre to vertex (paper 000: 500 m).
    #[serde(default = "default_radius")]
    pub radius: Distance,
    /// Distance path-loss exponent: received power ∝ d^(−exponent) (paper 000: 3.5).
    #[serde(default = "default_exponent")]
    pub path_loss_exponent: f64,
    /// Standard deviation of log-normal shadowing in dB (paper 000: 8 dB).
    #[serde(default = "default_shadowing")]
    pub shadowing_db: f64,
    /// Gudmundson decorrelation distance of the shadowing along a user's path: values Δx
    /// apart correlate by exp(−Δx / decorrelation). Not in paper 000; 50 m is a common
    /// urban value.
    #[serde(default = "default_decorrelation")]
    pub decorrelation: Distance,
    /// Share of a user's own received signal that interferes with it (paper 000: 10 %).
    #[serde(default = "default_self_interference")]
    pub self_interference: Probability,
    /// Share of the power of simultaneous transmissions in the user's own cell that
    /// interferes with it (paper 000: 40 %).
    #[serde(default = "default_own_cell_interference")]
    pub own_cell_interference: Probability,
    /// Share of every base station's power spent on its common channels (pilot CPICH, SCH,
    /// P-CCPCH, S-CCPCH, PICH, AICH). They are radiated in every TTI, so a cell that sends no
    /// HS-DSCH block still interferes with its neighbours at this share of its power; HS-DSCH
    /// gets the rest when the cell transmits. Not in paper 000; 20 % is the usual figure: the
    /// primary CPICH at about 10 % of the maximum power and about as much again for the other
    /// common channels (Holma and Toskala, "WCDMA for UMTS"; "HSDPA/HSUPA for UMTS", 2006,
    /// where HS-DSCH takes the power the common channels leave). Below 1.
    #[serde(default = "default_common_power", deserialize_with = "share_below_one")]
    pub common_power: Probability,
    /// Thermal noise, as the signal-to-noise ratio in dB of a user at the cell edge (a
    /// radius away, no shadowing) receiving its base station's whole power. None by default:
    /// paper 000's model is interference-limited, and a 3GPP link budget (43 dBm, the
    /// TR 25.942 macro-cell path loss 128.1 + 37.6·log10(R / km) dB at 500 m, a 9 dB noise
    /// figure over 3.84 MHz, no antenna gain) gives about 25 dB, where the noise moves the
    /// SIR of a cell-edge user by a fraction of a dB against the 10 dB self-interference cap.
    #[serde(default, deserialize_with = "finite_db")]
    pub edge_snr_db: Option<f64>,
    /// Transmission time interval (HS-DSCH: 2 ms).
    #[serde(default = "default_tti")]
    pub tti: Duration,
    /// Link adaptation (paper 000, Table 1): the largest radio block whose SIR threshold the
    /// user's SIR reaches; below every threshold the smallest block is still sent.
    #[serde(default = "default_mcs")]
    pub mcs: Vec<McsSpec>,
    /// Block error rate at or above the lowest threshold (paper 000: 10 %).
    #[serde(default = "default_bler")]
    pub bler: Probability,
    /// Block error rate below the lowest threshold (paper 000: "approximately every second
    /// block", 50 %).
    #[serde(default = "default_bler_low")]
    pub bler_low: Probability,
    /// Users served in one TTI of a cell by code multiplexing, at most (paper 000: up to 3);
    /// `multiplex` says when more than one is.
    #[serde(default = "default_users_per_tti")]
    pub users_per_tti: u32,
    /// Channelisation codes of the HS-DSCH (15 in WCDMA release 5/6); each multiplexed user
    /// needs at least one.
    #[serde(default = "default_codes")]
    pub codes: u32,
    /// Which backlogged users share a TTI: `"fill"` (default) adds the scheduler's next
    /// user while those chosen cannot fill their blocks, `"backlogged"` serves
    /// min(`users_per_tti`, backlogged users) in every TTI. Paper 000, Sec. 3.1, says
    /// "Code multiplexing for up to three users in the same time slot for a given cell is
    /// supported" and not when a second user is added.
    #[serde(default)]
    pub multiplex: Multiplex,
    /// How the k users of a TTI share HS-DSCH: `"codes-and-power"` (default) gives each 1/k
    /// of the power and 1/k of the codes (its block is 1/k of the Table 1 row k times its
    /// SIR reaches; 3GPP TS 25.308, TS 25.214's CQI tables), `"power"` 1/k of the power and
    /// a whole Table 1 block at its own SIR. Paper 000 says of Table 1 only "Size refers to
    /// the radio-block sizes", not whether a size is the channel's block or each user's. A
    /// split of neither is not offered: a base station's power is fixed, so three users
    /// cannot each receive all of it.
    #[serde(default)]
    pub multiplex_split: MultiplexSplit,
    /// Whether one radio block may carry parts of several IP packets: true (default) fills a
    /// block from the next packet once the head one is done; false carries at most the rest
    /// of the head packet, one IP packet or a fragment of one per block, the rest of the
    /// block being padding (3GPP's RLC offers both: segmentation, concatenation and padding,
    /// TS 25.322 clause 5). Paper 000 gives the block sizes (Table 1: "Size refers to the
    /// radio-block sizes") but not how packets fill them.
    #[serde(default = "default_concatenation")]
    pub concatenation: bool,
    /// Each user's buffer at the base station, in packets or bytes; arrivals beyond it are
    /// dropped. Not given in paper 000.
    #[serde(default = "default_buffer")]
    pub buffer: Limit,
    /// The base station's buffer shared by all users of a cell, in packets or bytes, on top of
    /// each user's `buffer`: a packet is dropped when either is full. None by default (each
    /// user's buffer alone). Not given in paper 000; its model ran in ns-2.27, whose queues
    /// hold 50 packets unless set otherwise (`Queue set limit_ 50`, `tcl/lib/ns-default.tcl`).
    #[serde(default)]
    pub cell_buffer: Option<Limit>,
    /// Which users a cell serves in a TTI.
    #[serde(default)]
    pub scheduler: SchedulerKind,
    /// Averaging window of the proportional-fair scheduler's throughput (an exponential
    /// average over window/TTI TTIs; 1000 slots in Jalali, Padovani and Pankaj, VTC 2000).
    #[serde(default = "default_pf_window")]
    pub pf_window: Duration,
    /// A user's speed, drawn at the start of each transfer (the direction is uniform).
    /// Paper 000 names a low-speed model without its numbers; 3 km/h is 3GPP's pedestrian
    /// speed.
    #[serde(default = "default_speed")]
    pub speed: SpeedRv,
    /// The wired path between the traffic sources and the base stations (paper 000,
    /// Figure 1: 25 ms, 5 Gbps).
    #[serde(default = "default_wired")]
    pub wired: HopSpec,
    /// Each user's dedicated uplink, which carries what the user sends: its ACKs, or its
    /// data with `uplink = true`. Not given in paper 000; 384 kbit/s and 10 ms are a WCDMA
    /// release 99 dedicated channel's rate and TTI.
    #[serde(default = "default_uplink")]
    pub uplink: HopSpec,
}

/// One row of the link-adaptation table.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct McsSpec {
    /// The lowest SIR, in dB, at which this block size is used.
    pub sir_db: f64,
    /// The radio block's payload per TTI.
    pub size: crate::units::Bytes,
}

/// A rate and a delay (and a queue) for a hop the radio network builds for itself.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HopSpec {
    /// The hop's rate (bit/s).
    pub rate: Rate,
    /// The hop's one-way propagation delay.
    pub delay: Duration,
    /// Random extra delay per packet, without reordering (paper 004's uplink: a dedicated
    /// channel with delay jitter). None by default.
    #[serde(default)]
    pub jitter: Option<DurationRv>,
    /// The hop's DropTail limit, packets or bytes (default 100 packets).
    #[serde(default = "default_hop_queue")]
    pub queue: Limit,
}

fn default_name() -> String {
    "hsdpa".into()
}
fn default_cells() -> u32 {
    7
}
fn default_radius() -> Distance {
    Distance(500.0)
}
fn default_exponent() -> f64 {
    3.5
}
fn default_shadowing() -> f64 {
    8.0
}
fn default_decorrelation() -> Distance {
    Distance(50.0)
}
fn default_self_interference() -> Probability {
    Probability(0.1)
}
fn default_own_cell_interference() -> Probability {
    Probability(0.4)
}
fn default_common_power() -> Probability {
    Probability(0.2)
}
/// A share of the power in [0, 1): HS-DSCH needs some power.
fn share_below_one<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Probability, D::Error> {
    let p = Probability::deserialize(d)?;
    if p.0 < 1.0 {
        Ok(p)
    } else {
        Err(serde::de::Error::custom(format!("got {}, expected a share below 1 (HS-DSCH gets the rest of the power)", p.0)))
    }
}
fn finite_db<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    match Option::<f64>::deserialize(d)? {
        Some(v) if !v.is_finite() => Err(serde::de::Error::custom(format!("got {v}, expected a finite ratio in dB"))),
        v => Ok(v),
    }
}
fn default_tti() -> Duration {
    Duration::from_secs_f64(0.002)
}
/// Paper 000, Table 1: QPSK 1/4, QPSK 1/2, 16QAM 3/8, 16QAM 5/8 at −3.5, 0, 3.5, 7.5 dB with
/// radio blocks of 360, 720, 1080, 1800 B (1.44 … 7.2 Mbit/s over a 2 ms TTI).
pub fn default_mcs() -> Vec<McsSpec> {
    [(-3.5, 360), (0.0, 720), (3.5, 1080), (7.5, 1800)].into_iter().map(|(sir_db, size)| McsSpec { sir_db, size: crate::units::Bytes(size) }).collect()
}
fn default_bler() -> Probability {
    Probability(0.1)
}
fn default_bler_low() -> Probability {
    Probability(0.5)
}
fn default_users_per_tti() -> u32 {
    3
}
fn default_codes() -> u32 {
    15
}
fn default_concatenation() -> bool {
    true
}
fn default_buffer() -> Limit {
    Limit::Packets(100)
}
fn default_pf_window() -> Duration {
    Duration::from_secs_f64(2.0)
}
fn default_speed() -> SpeedRv {
    SpeedRv(crate::units::RandomVar::Const(3.0 / 3.6))
}
/// 100 packets: on the uplink 3.1 s of full-sized packets at 384 kbit/s, a large RLC buffer
/// as 3G uplinks had (as large as the downlink's per-user buffer); the 5 Gbps wired path
/// never fills it.
fn default_hop_queue() -> Limit {
    Limit::Packets(100)
}
fn default_wired() -> HopSpec {
    HopSpec { rate: Rate(5e9), delay: Duration::from_secs_f64(0.025), jitter: None, queue: default_hop_queue() }
}
fn default_uplink() -> HopSpec {
    HopSpec { rate: Rate(384e3), delay: Duration::from_secs_f64(0.010), jitter: None, queue: default_hop_queue() }
}
