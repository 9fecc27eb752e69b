//! The notices a link direction keeps for its caller (see `LinkNotices`).

use crate::tcp::icmp_signal::IcmpSignal;
use super::ids::PacketId;

/// What a direction's elements decided besides single drops, for the caller to act on:
/// packets dropped together (an ARQ flush) and control messages about a packet (toward its
/// flow's sender). The caller acts on the messages before the drops (a message may name a
/// dropped packet).
#[derive(Debug, Default)]
pub struct LinkNotices {
    pub dropped: Vec<PacketId>,
    pub signals: Vec<(PacketId, IcmpSignal)>,
}
