//! The network: packets, and link directions built from elements with one job each — queue
//! discipline, optional link-layer ARQ, transmitter, channel, propagation — plus delay
//! spikes and the control messages (ICMP) elements send toward a flow's sender.

pub mod arq;
pub mod build;
pub mod channel;
pub mod icmp;
pub mod ids;
pub mod link;
pub mod notices;
pub mod packet;
pub mod propagation;
pub mod queue;
pub mod red;
pub mod spikes;
pub mod transmitter;

#[cfg(test)]
mod link_tests;

pub use arq::{ArqConfig, ArqStats};
pub use icmp::IcmpSignal;
pub use ids::{DirId, FlowId, PacketId};
pub use link::{DirConfig, LinkDir, LinkStats, Offer};
pub use notices::LinkNotices;
pub use packet::{Packet, PacketArena, Payload, Way};
pub use spikes::SpikeProcess;
