//! A datagram flow at run time: a UDP source and its sink, and what the world counts that
//! they cannot see (drops, the packet ledger, when the last datagram's fate was known).

use super::flow::Origin;
use crate::fabric::ledger::FlowCount;
use crate::rng::stream;
use crate::time::{SimDuration, SimTime};
use crate::transport::{OnOff, UdpSink, UdpSource, UdpSpec};
use crate::units::RvSampler;

/// Invariant: `source.sent` = `sink.received` + `lost` + the flow's datagrams still in the
/// network (`FlowCount`'s law); `end` is set once the source has sent everything and none is
/// left in the network.
pub struct DatagramFlow {
    pub name: String,
    pub origin: Origin,
    pub start: SimTime,
    /// Payload bytes to send; `None` until the run ends.
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
}

impl DatagramFlow {
    /// A UDP flow of `size` bytes per `udp`, its on/off periods drawn from the flow's own
    /// random stream.
    pub fn udp(name: String, origin: Origin, start: SimTime, size: Option<u64>, udp: &UdpSpec, seed: u64) -> Self {
        let on_off = match (&udp.on, &udp.off) {
            (Some(on), Some(off)) => {
                Some(OnOff { on: RvSampler::new(on.0.clone()), off: RvSampler::new(off.0.clone()), rng: stream(seed, &format!("flows/{name}"), "on-off") })
            }
            _ => None,
        };
        let source = UdpSource::new(udp.rate.bps(), udp.size.0 as u32, size, start, on_off);
        Self::new(name, origin, start, size, source, None)
    }

    pub fn new(name: String, origin: Origin, start: SimTime, size: Option<u64>, source: UdpSource, playout: Option<SimDuration>) -> Self {
        DatagramFlow {
            name,
            origin,
            start,
            size,
            source,
            sink: UdpSink::new(playout),
            ledger: FlowCount::default(),
            lost: 0,
            row: 0,
            started: false,
            end: None,
            timer_generation: 0,
            timer_at: None,
        }
    }

    /// Whether every datagram is sent and accounted for (arrived or dropped).
    pub fn all_accounted(&self) -> bool {
        self.source.finished() && self.sink.received + self.lost == self.source.sent
    }
}
