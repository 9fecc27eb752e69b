//! The notices a link direction keeps for its caller (see `LinkNotices`).

use crate::tcp::icmp_signal::IcmpSignal;
use super::ids::PacketId;

/// The element of a direction that dropped a packet of the notices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropper {
    /// The queue, after it had accepted the packet (CoDel at dequeue, FQ-CoDel's fattest
    /// flow on overflow).
    Queue,
    /// The link-layer ARQ (a discard or a flush of its buffer).
    Arq,
}

/// What a direction's elements decided besides single drops, for the caller to act on:
/// packets dropped together or from inside an element, with the element, and control
/// messages about a packet (toward its flow's sender). The caller acts on the messages before
/// the drops (a message may name a dropped packet).
#[derive(Debug, Default)]
pub struct LinkNotices {
    pub dropped: Vec<(PacketId, Dropper)>,
    pub signals: Vec<(PacketId, IcmpSignal)>,
}
