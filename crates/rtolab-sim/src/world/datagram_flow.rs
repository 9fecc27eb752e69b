//! A datagram flow at run time: a UDP source and its sink, and what the world counts that
//! they cannot see (drops, the packet ledger, when the last datagram's fate was known).

use crate::traffic::Origin;
use super::plan::DatagramPlan;
use crate::fabric::ledger::FlowCount;
use crate::time::SimTime;
use crate::transport::{UdpSink, UdpSource};
use crate::voice::codec::Codec;

/// Invariant: `source.sent` = `sink.received` + `lost` + the flow's datagrams still in the
/// network (`FlowCount`'s law); `end` is set once the source has sent everything and none is
/// left in the network.
pub struct DatagramFlow {
    pub name: String,
    pub origin: Origin,
    pub start: SimTime,
    /// Payload bytes to send; `None`: unbounded, until the run ends.
    pub size: Option<u64>,
    pub source: UdpSource,
    pub sink: UdpSink,
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
}

impl DatagramFlow {
    /// Flow `name` of `size` bytes from `start` as `plan` says, its on/off periods drawn
    /// from the flow's own random stream.
    pub fn planned(name: String, origin: Origin, start: SimTime, size: Option<u64>, plan: &DatagramPlan, seed: u64) -> Self {
        let source = plan.source(&name, size, start, seed);
        let mut flow = Self::new(name, origin, start, size, source, plan.sink());
        flow.codec = plan.codec;
        flow
    }

    pub fn new(name: String, origin: Origin, start: SimTime, size: Option<u64>, source: UdpSource, sink: UdpSink) -> Self {
        DatagramFlow {
            name,
            origin,
            start,
            size,
            source,
            sink,
            ledger: FlowCount::default(),
            lost: 0,
            row: 0,
            started: false,
            end: None,
            timer_generation: 0,
            timer_at: None,
            codec: None,
        }
    }
}
