//! The network: packets, and link directions built from elements with one job each — queue
//! discipline, optional link-layer ARQ, transmitter, channel, propagation — plus delay
//! spikes and the control messages (ICMP) elements send toward a flow's sender.

pub mod arq;
pub mod channel;
pub mod field_error;
pub mod link;
pub mod notices;
pub mod packet;
pub mod propagation;
pub mod queue;
pub mod spike_spec;
pub mod spikes;
pub mod trace;
pub mod trace_spec;
pub mod transmitter;

#[cfg(test)]
mod link_tests;

pub use arq::{ArqConfig, ArqStats};
pub use crate::tcp::icmp_signal::IcmpSignal;
/// The typed indices live below the engine (`crate::ids`); `net::ids` names them too.
pub use crate::ids;
pub use ids::{DirId, FlowId, PacketId};
pub use link::{DirConfig, LinkDir, LinkStats, Offer};
pub use notices::{Dropper, LinkNotices};
pub use packet::{Packet, PacketArena, Payload, Way};
pub use queue::{CodelSpec, DroptailSpec, FqCodelSpec, PieSpec, QueueRecording, QueueSpec, RedSpec};
pub use spike_spec::{SpikeDirection, SpikeHold, SpikeSpec};
pub use spikes::SpikeProcess;
pub use trace::{Trace, TraceLink};
pub use trace_spec::TraceSpec;
