//! The queue in front of a link direction's transmitter: a FIFO with a packet or byte limit
//! (DropTail), optionally judged by RED, or an active queue management that keeps its own
//! packets: CoDel (`codel.rs`), PIE (`pie.rs`), FQ-CoDel (`fq_codel.rs`). `QueueDisc`
//! (`disc.rs`) runs either and keeps the counters and recordings every queue has.
//!
//! Adding a queue: a file with its table and a type implementing `Aqm` (`aqm.rs`), then a
//! `mod` line and one entry in the `aqm` part of `register_queues!` below (`registry.rs`),
//! which makes its `kind`, reads and checks its table, lists it in the schema and has
//! `QueueDisc` run it.

mod aqm;
pub mod codel;
mod disc;
mod fifo;
pub mod fq_codel;
pub mod pie;
mod red;
mod registry;
#[cfg(test)]
mod toy;

pub use aqm::{Aqm, Queued, Refusal};
pub use codel::CodelSpec;
pub use disc::{QueueDisc, QueueRecording, QueueStats, Runtime};
pub use fifo::{DroptailSpec, Fifo, FifoSpec};
pub use fq_codel::FqCodelSpec;
pub use pie::PieSpec;
pub use red::{Red, RedSpec, RedVerdict};

use crate::units::Limit;

// The registry: each queue's `kind` and type, in the schema's order.
registry::register_queues! {
    fifo {
        /// First in, first out; arrivals beyond the limit are dropped (`kind = "droptail"`).
        Droptail = "droptail" => DroptailSpec,
        /// Random Early Detection with ns-2's parameter names and semantics.
        Red = "red" => RedSpec,
    }
    aqm {
        /// CoDel, controlled delay (RFC 8289), as Linux's `codel` qdisc.
        Codel = "codel" => codel::Codel,
        /// PIE, proportional integral controller enhanced (RFC 8033), as Linux's `pie` qdisc.
        Pie = "pie" => pie::Pie,
        /// FQ-CoDel, flow queueing with CoDel (RFC 8290), as Linux's `fq_codel` qdisc.
        FqCodel = "fq_codel" => fq_codel::FqCodel,
        /// A toy for the registry's test: drops every n-th packet at dequeue.
        #[cfg(test)]
        EveryNth = "every-nth" => toy::EveryNth,
    }
}

impl Default for QueueSpec {
    /// ns-2's default queue: DropTail, 50 packets.
    fn default() -> Self {
        QueueSpec::Droptail(DroptailSpec { limit: Limit::Packets(50) })
    }
}
