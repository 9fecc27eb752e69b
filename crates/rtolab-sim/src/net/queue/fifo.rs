//! The FIFO of ns-2's queues: DropTail, and RED over the same FIFO (`red.rs`). A link
//! direction whose queue is a FIFO runs it inline (`QueueDisc`'s FIFO path), so DropTail
//! costs what it cost before any other queue existed.

use super::red::Red;
use crate::net::field_error::FieldError;
use crate::net::ids::PacketId;
use crate::units::Limit;
use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::VecDeque;

/// `queue = { kind = "droptail", … }`.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DroptailSpec {
    /// Most packets ("50p") or bytes ("64kB") the queue holds; arrivals beyond it are dropped.
    pub limit: Limit,
}

/// The table of a queue that runs as the FIFO (`register_queues!`'s `fifo` entries).
pub trait FifoSpec {
    /// The checks of a parsed table that its types cannot express; an error names the field.
    fn validate(&self) -> Result<(), FieldError>;

    /// The FIFO of a direction sending at `rate_bps`.
    fn fifo(&self, rate_bps: u64) -> Fifo;
}

impl FifoSpec for DroptailSpec {
    fn validate(&self) -> Result<(), FieldError> {
        Ok(())
    }

    fn fifo(&self, _rate_bps: u64) -> Fifo {
        Fifo::new(self.limit, None)
    }
}

/// Packets in arrival order within a packet or byte limit, judged by RED when it has one.
///
/// Invariant: `bytes` is the sum of the packets' bytes.
#[derive(Debug)]
pub struct Fifo {
    pub(super) limit: Limit,
    pub(super) red: Option<Red>,
    pub(super) packets: VecDeque<(PacketId, u32)>,
    pub(super) bytes: u64,
}

impl Fifo {
    pub fn new(limit: Limit, red: Option<Red>) -> Self {
        Fifo { limit, red, packets: VecDeque::new(), bytes: 0 }
    }

    /// Whether an arrival of `bytes` would exceed the limit.
    #[inline]
    pub(super) fn is_full(&self, bytes: u32) -> bool {
        match self.limit {
            Limit::Packets(p) => self.packets.len() as u64 >= p,
            Limit::Bytes(b) => self.bytes + bytes as u64 > b,
        }
    }
}
