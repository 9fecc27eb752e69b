//! The network: packets, links with queues and delay spikes.

pub mod build;
pub mod link;
pub mod packet;
pub mod red;
pub mod spikes;

pub use link::{DirConfig, LinkDir, LinkStats, Offer};
pub use packet::{Packet, PacketArena, Way};
pub use spikes::SpikeProcess;
