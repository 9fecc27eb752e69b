//! What a registered active queue management is (`Aqm`): its table in `queue = { kind =
//! "...", ... }`, the checks the table's types cannot express, and the queue it runs, which
//! keeps its own packets and may drop them from inside. `register_queues!` (`registry.rs`)
//! dispatches to it; `QueueDisc` (`disc.rs`) counts what it does.

use super::super::field_error::FieldError;
use crate::ids::{FlowId, PacketId};
use crate::time::SimTime;
use rand_xoshiro::Xoshiro256PlusPlus;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use std::fmt::Debug;

/// Why an arrival was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// An early (or forced) drop: RED's, PIE's.
    Early,
    /// The queue is at its limit.
    Full,
}

/// A packet waiting in a queue that timestamps its packets: its id, its bytes and when it
/// arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queued {
    pub pkt: PacketId,
    pub bytes: u32,
    pub since: SimTime,
}

/// An active queue management of a link direction.
///
/// Invariants: `len` and `bytes` count the packets waiting, after every call; a packet
/// handed to `enqueue` leaves exactly once, by `dequeue`'s answer, into a `dropped` list or
/// by `drain_into`. The caller counts a refusal by its kind, the packets `enqueue` drops from
/// inside as the queue's overflow (`queue_drops`) and those `dequeue` drops as the AQM's
/// (`aqm_drops`).
pub trait Aqm: Sized {
    /// The queue's table (`deny_unknown_fields`); its doc comments are `rtolab schema`'s
    /// descriptions. Its `kind` is the registry's name, not a field.
    type Spec: Clone + Debug + DeserializeOwned + JsonSchema;

    /// The checks of a parsed table that its types cannot express; an error names the field.
    fn validate(spec: &Self::Spec) -> Result<(), FieldError>;

    /// The queue of one link direction, made at time 0.
    fn new(spec: &Self::Spec) -> Self;

    /// Packets waiting.
    fn len(&self) -> usize;

    /// Bytes waiting.
    fn bytes(&self) -> u64;

    /// Judges every arrival of `bytes` at `now`, even one that goes straight to an idle
    /// transmitter without waiting (PIE's early drop); `rng` is the link direction's stream.
    /// Accepts by default.
    fn judge(&mut self, _now: SimTime, _bytes: u32, _rng: &mut Xoshiro256PlusPlus) -> Result<(), Refusal> {
        Ok(())
    }

    /// Takes an arrival of `flow` that `judge` accepted (stamped with its arrival time), or
    /// refuses it; packets dropped from inside to make room (perhaps this one) go to
    /// `dropped`.
    fn enqueue(&mut self, arrival: Queued, flow: FlowId, dropped: &mut Vec<PacketId>) -> Result<(), Refusal>;

    /// The next packet for the transmitter at `now`, after the drops the queue decides,
    /// which go to `dropped`.
    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<PacketId>) -> Option<Queued>;

    /// Removes every waiting packet into `out`.
    fn drain_into(&mut self, out: &mut Vec<PacketId>);
}
