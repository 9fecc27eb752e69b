//! Columns whose values are one of a few names: typed in Rust, written as text to the tables
//! (`flows.kind`, `links.direction`, `events.kind`), so the schema is the same as for a string
//! column.

use super::table::{Kind, Value};
use arrow_array::{ArrayRef, StringArray};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What made a flow: the scenario's own `[[flows]]`, a burst generator, a web generator, or
/// a generator of another registered kind (`Generator("voip")`: its `kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowKind {
    Flow,
    Burst,
    Web,
    Generator(&'static str),
}

impl FlowKind {
    /// The name in the `kind` column.
    pub fn label(self) -> &'static str {
        match self {
            FlowKind::Flow => "flow",
            FlowKind::Burst => "burst",
            FlowKind::Web => "web",
            FlowKind::Generator(kind) => kind,
        }
    }
}

/// Written as its label, as in the tables.
impl Serialize for FlowKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

/// A flow's transport: the `transport` column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    Tcp,
    Udp,
    Quic,
}

impl TransportKind {
    /// The name in the `transport` column.
    pub fn label(self) -> &'static str {
        match self {
            TransportKind::Tcp => "tcp",
            TransportKind::Udp => "udp",
            TransportKind::Quic => "quic",
        }
    }
}

/// A direction of a link: the forward (data) or reverse (ACK) direction of a scenario's link
/// or of the radio network's wired path, or a mobile user's dedicated uplink.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkDirection {
    Forward,
    Reverse,
    Uplink,
}

impl LinkDirection {
    /// A scenario link's two directions, in the order their indices follow (`2i`, `2i + 1`).
    pub const BOTH: [LinkDirection; 2] = [LinkDirection::Forward, LinkDirection::Reverse];

    /// The name in the `direction` column, and the last part of the direction's name
    /// (`"radio.forward"`).
    pub fn label(self) -> &'static str {
        match self {
            LinkDirection::Forward => "forward",
            LinkDirection::Reverse => "reverse",
            LinkDirection::Uplink => "uplink",
        }
    }
}

/// What a row of the `events` table records; also what `output.events` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// A retransmission timer expired (the SYN's excluded).
    Timeout,
    /// The sender declared timeouts spurious (a detector's verdict).
    Spurious,
    /// The sender undid a window reduction.
    Undo,
    /// A data segment sent again.
    Retransmit,
    /// The network dropped a packet.
    Drop,
    /// A delay spike began or ended on a link direction.
    Spike,
    /// A QUIC end's probe timeout fired (RFC 9002 §6.2).
    Pto,
    /// A QUIC end declared a packet lost (RFC 9002 §6.1).
    Lost,
}

impl EventKind {
    pub const ALL: [EventKind; 8] = [EventKind::Timeout, EventKind::Spurious, EventKind::Undo, EventKind::Retransmit, EventKind::Drop, EventKind::Spike, EventKind::Pto, EventKind::Lost];

    /// The name in the `kind` column and in `output.events`.
    pub fn label(self) -> &'static str {
        match self {
            EventKind::Timeout => "timeout",
            EventKind::Spurious => "spurious",
            EventKind::Undo => "undo",
            EventKind::Retransmit => "retransmit",
            EventKind::Drop => "drop",
            EventKind::Spike => "spike",
            EventKind::Pto => "pto",
            EventKind::Lost => "lost",
        }
    }
}

macro_rules! label_column {
    ($ty:ty) => {
        impl Value for $ty {
            const KIND: Kind = Kind::Utf8;
            fn array<'a>(values: impl Iterator<Item = &'a Self>) -> ArrayRef {
                Arc::new(StringArray::from_iter_values(values.map(|v| v.label())))
            }
        }
    };
}
label_column!(FlowKind);
label_column!(TransportKind);
label_column!(LinkDirection);
label_column!(EventKind);
