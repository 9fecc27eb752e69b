//! What a scenario's traffic is before the run: flows with their start, size, route and
//! transport, and users who start transfers as the run goes.

use crate::results::FlowKind;
use crate::rng::stream;
use crate::tcp::settings::TcpSpec;
use crate::time::{SimDuration, SimTime};
use crate::transport::{OnOff, UdpSink, UdpSource, UdpSpec};
use crate::units::{Duration, RandomVar, RvSampler};
use crate::quic::QuicSpec;
use crate::voice::codec::Codec;

/// The time a table's optional `start` names: from the run's beginning, 0 s when absent.
pub fn start_time(start: Option<Duration>) -> SimTime {
    SimTime::ZERO + start.map_or(SimDuration::ZERO, |d| d.sim())
}

/// Where a flow came from.
#[derive(Clone, Debug)]
pub enum Origin {
    Static,
    Burst(String),
    /// `user` indexes the run's generator users; `generator` is the generator's name.
    Web {
        user: u32,
        generator: String,
    },
    /// A flow of a generator of kind `kind` planned before the run (a call).
    Planned {
        kind: &'static str,
        generator: String,
    },
}

impl Origin {
    /// The flows table's `kind` and `generator` of a flow made this way.
    pub fn kind_and_generator(&self) -> (FlowKind, Option<String>) {
        match self {
            Origin::Static => (FlowKind::Flow, None),
            Origin::Burst(g) => (FlowKind::Burst, Some(g.clone())),
            Origin::Web { generator, .. } => (FlowKind::Web, Some(generator.clone())),
            Origin::Planned { kind, generator } => (FlowKind::Generator(kind), Some(generator.clone())),
        }
    }
}

/// A connection known before the run: a scenario flow, one of a burst's, a call.
pub struct PlannedFlow<'a> {
    pub name: String,
    pub origin: Origin,
    pub start: SimTime,
    /// `None` for an unbounded flow.
    pub size: Option<u64>,
    pub route: &'a [String],
    /// The mobile user at the start of `route` sends (`FlowSpec::uplink`).
    pub uplink: bool,
    pub tcp: &'a TcpSpec,
    /// A datagram flow's source and sink (a UDP flow, a call), in place of TCP.
    pub datagrams: Option<DatagramPlan>,
    /// A QUIC transfer's settings, in place of TCP.
    pub quic: Option<&'a QuicSpec>,
}

/// A generator's users, who start transfers over TCP as the run goes: each files a
/// request at its first wake-up, and another after each transfer ends (`User`). Each file
/// goes over a new connection, or all of a user's over one (`one_connection`).
pub struct PlannedUsers<'a> {
    pub name: String,
    pub start: SimTime,
    pub route: &'a [String],
    pub uplink: bool,
    pub tcp: &'a TcpSpec,
    pub one_connection: bool,
    /// Each file over a QUIC connection of these settings, in place of TCP.
    pub quic: Option<&'a QuicSpec>,
    pub users: Vec<Box<dyn User + Send>>,
}

/// A user's behaviour: when it asks for a transfer and how large. The host (simulator or
/// emulator) keeps the user's place in the run (its connection, its mobile, its count of
/// files) and calls these in this order: `first_wake` once, then `request` at every wake-up
/// and `next_wake` when the requested transfer ends.
pub trait User {
    /// Its first wake-up, for a generator that starts at `start`.
    fn first_wake(&mut self, start: SimTime) -> SimTime;
    /// The size in bytes (at least 1) of the transfer it asks for now.
    fn request(&mut self) -> u64;
    /// Its transfer ended at `now`: its next wake-up.
    fn next_wake(&mut self, now: SimTime) -> SimTime;
}

/// How a datagram flow sends and what its sink judges late: the same for the simulator and
/// the emulator, which both drive the source and sink it makes.
#[derive(Clone, Debug)]
pub struct DatagramPlan {
    /// Payload bits per second while on.
    pub rate_bps: f64,
    /// Payload bytes per datagram.
    pub payload: u32,
    /// On and off periods (a UDP flow's `on`/`off`, a call's talk spurts and silences).
    pub on_off: Option<(RandomVar, RandomVar)>,
    /// A call's playout delay: later arrivals are lost to the listener.
    pub playout: Option<SimDuration>,
    /// The call's codec, which scores it (E-model); `None` for a plain UDP flow.
    pub codec: Option<Codec>,
}

impl DatagramPlan {
    /// A UDP flow's plan (`FlowSpec::udp`).
    pub fn udp(u: &UdpSpec) -> Self {
        let on_off = match (&u.on, &u.off) {
            (Some(on), Some(off)) => Some((on.0.clone(), off.0.clone())),
            _ => None,
        };
        DatagramPlan { rate_bps: u.rate.bps(), payload: u.size.0 as u32, on_off, playout: None, codec: None }
    }

    /// The source of flow `name` of `size` bytes from `start`, its on/off periods drawn
    /// from the flow's own random stream under `seed`.
    pub fn source(&self, name: &str, size: Option<u64>, start: SimTime, seed: u64) -> UdpSource {
        let on_off = self.on_off.as_ref().map(|(on, off)| OnOff {
            on: RvSampler::new(on.clone()),
            off: RvSampler::new(off.clone()),
            rng: stream(seed, &format!("flows/{name}"), "on-off"),
        });
        UdpSource::new(self.rate_bps, self.payload, size, start, on_off)
    }

    pub fn sink(&self) -> UdpSink {
        UdpSink::new(self.playout)
    }
}
