//! A datagram flow at run time: its two ends (a UDP source and its sink, or a QUIC client
//! and server), and what the world counts that they cannot see (drops, the packet ledger,
//! when the flow ended).

use crate::traffic::Origin;
use super::plan::DatagramPlan;
use crate::fabric::ledger::FlowCount;
use crate::time::SimTime;
use crate::quic::{QuicSpec, QuicTransfer};
use crate::transport::{UdpSink, UdpSource};
use crate::voice::codec::Codec;

/// What sends and receives a datagram flow's datagrams.
pub enum Ends {
    /// A UDP source sending forward to its sink.
    Udp { source: UdpSource, sink: UdpSink },
    /// A QUIC transfer: the server sends forward, the client the reverse way.
    Quic(Box<QuicTransfer>),
}

/// Invariant: datagrams sent = datagrams received + `lost` + the flow's datagrams still in
/// the network (`FlowCount`'s law); `end` is set once a UDP source has sent everything and
/// none is left in the network, or once a QUIC transfer has ended.
pub struct DatagramFlow {
    pub name: String,
    pub origin: Origin,
    pub start: SimTime,
    /// Payload bytes to send; `None`: unbounded, until the run ends.
    pub size: Option<u64>,
    pub ends: Ends,
    pub ledger: FlowCount,
    /// Datagrams the network dropped.
    pub lost: u64,
    /// The flows table's row.
    pub row: u32,
    pub started: bool,
    /// When the fate of its last datagram was known (a bounded flow).
    pub end: Option<SimTime>,
    /// Generation and time of the pending timer event (as `FlowRuntime::timer_generation`).
    pub timer_generation: u32,
    pub timer_at: Option<SimTime>,
    /// A call's codec: its row is scored by the E-model.
    pub codec: Option<Codec>,
    /// A QUIC transfer's PTOs and declared losses already in the event log, per end
    /// (client, server).
    pub logged: [(usize, usize); 2],
}

impl DatagramFlow {
    /// Flow `name` of `size` bytes from `start` as `plan` says, its on/off periods drawn
    /// from the flow's own random stream.
    pub fn planned(name: String, origin: Origin, start: SimTime, size: Option<u64>, plan: &DatagramPlan, seed: u64) -> Self {
        let source = plan.source(&name, size, start, seed);
        let mut flow = Self::new(name, origin, start, size, Ends::Udp { source, sink: plan.sink() });
        flow.codec = plan.codec;
        flow
    }

    /// Flow `name`'s QUIC transfer of `size` bytes from `start`; its server keeps its
    /// recovery metrics when `record`.
    pub fn quic(name: String, origin: Origin, start: SimTime, size: Option<u64>, spec: &QuicSpec, seed: u64, record: bool) -> Self {
        let transfer = QuicTransfer::new(spec, &name, size, seed, record);
        Self::new(name, origin, start, size, Ends::Quic(Box::new(transfer)))
    }

    pub fn new(name: String, origin: Origin, start: SimTime, size: Option<u64>, ends: Ends) -> Self {
        DatagramFlow {
            name,
            origin,
            start,
            size,
            ends,
            ledger: FlowCount::default(),
            lost: 0,
            row: 0,
            started: false,
            end: None,
            timer_generation: 0,
            timer_at: None,
            codec: None,
            logged: [(0, 0); 2],
        }
    }
}
