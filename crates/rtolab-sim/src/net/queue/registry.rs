//! The registry macro of the queues: one list of entries makes the spec's `queue` table
//! (`QueueSpec`, read by its `kind`) with its checks and the path of an error inside it, what
//! a link direction runs for it (`Runtime`: the FIFO or one of the AQMs) and the enum that
//! holds one of the AQMs (`AnyAqm`) with its dispatch.
//!
//! The list has two parts:
//!
//! ```text
//! fifo {
//!     /// Doc comment (the schema's description of the table).
//!     Variant = "kind-name" => file::TableType,
//! }
//! aqm {
//!     /// Doc comment.
//!     Variant = "kind-name" => file::Type,
//! }
//! ```
//!
//! A `fifo` entry's table is a `FifoSpec` (`fifo.rs`): DropTail and RED, run inline by
//! `QueueDisc`. An `aqm` entry's type is an `Aqm` (`aqm.rs`), run through `AnyAqm`; it may
//! carry `#[cfg(test)]` (a toy the tests register). Used once, in `queue/mod.rs`.
//!
//! Invariants: `QueueSpec` has one variant per entry, in the entry order (the schema's
//! order), and `AnyAqm` one per `aqm` entry; every call on `AnyAqm` is a `match` over its
//! variants (static dispatch).

macro_rules! register_queues {
    (
        fifo { $( $(#[doc = $fdoc:literal])* $fkind:ident = $fname:literal => $fspec:ty, )* }
        aqm { $( $(#[doc = $adoc:literal])* $(#[cfg($cfg:meta)])? $akind:ident = $aname:literal => $aty:ty, )* }
    ) => {
        /// The queue in front of a link direction's transmitter.
        #[derive(Clone, Debug, serde::Deserialize, schemars::JsonSchema)]
        #[serde(tag = "kind", deny_unknown_fields)]
        pub enum QueueSpec {
            $( $(#[doc = $fdoc])* #[serde(rename = $fname)] $fkind($fspec), )*
            $( $(#[doc = $adoc])* $(#[cfg($cfg)])? #[serde(rename = $aname)] $akind(<$aty as $crate::net::queue::Aqm>::Spec), )*
        }

        impl QueueSpec {
            /// Every registered `kind`, in registry order.
            pub const NAMES: &'static [&'static str] = &[$( $fname, )* $( $(#[cfg($cfg)])? $aname, )*];

            /// Reads `table` (its `kind` removed) as the table of queue `kind` alone, for the
            /// path inside the table of its first error (`spec::load::refine_tagged`); `None`
            /// for an unknown kind or a table without error.
            pub fn table_error(kind: &str, table: serde_json::Value) -> Option<serde_path_to_error::Error<serde_json::Error>> {
                fn read<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Option<serde_path_to_error::Error<serde_json::Error>> {
                    serde_path_to_error::deserialize::<_, T>(v).err()
                }
                match kind {
                    $( $fname => read::<$fspec>(table), )*
                    $( $(#[cfg($cfg)])? $aname => read::<<$aty as $crate::net::queue::Aqm>::Spec>(table), )*
                    _ => None,
                }
            }

            /// The checks of the queue's table; an error names the field inside it.
            pub fn validate(&self) -> Result<(), $crate::net::field_error::FieldError> {
                match self {
                    $( QueueSpec::$fkind(spec) => $crate::net::queue::FifoSpec::validate(spec), )*
                    $( $(#[cfg($cfg)])? QueueSpec::$akind(spec) => <$aty as $crate::net::queue::Aqm>::validate(spec), )*
                }
            }

            /// What a direction sending at `rate_bps` runs for this queue.
            pub fn runtime(&self, rate_bps: u64) -> $crate::net::queue::Runtime {
                match self {
                    $( QueueSpec::$fkind(spec) => $crate::net::queue::Runtime::Fifo($crate::net::queue::FifoSpec::fifo(spec, rate_bps)), )*
                    $( $(#[cfg($cfg)])? QueueSpec::$akind(spec) => $crate::net::queue::Runtime::Aqm(AnyAqm::$akind(<$aty as $crate::net::queue::Aqm>::new(spec))), )*
                }
            }
        }

        /// One of the registered AQMs, as one enum so that no call is dynamic.
        pub enum AnyAqm {
            $( $(#[doc = $adoc])* $(#[cfg($cfg)])? $akind($aty), )*
        }

        impl AnyAqm {
            pub fn len(&self) -> usize {
                match self {
                    $( $(#[cfg($cfg)])? AnyAqm::$akind(q) => $crate::net::queue::Aqm::len(q), )*
                }
            }

            pub fn bytes(&self) -> u64 {
                match self {
                    $( $(#[cfg($cfg)])? AnyAqm::$akind(q) => $crate::net::queue::Aqm::bytes(q), )*
                }
            }

            pub fn judge(&mut self, now: $crate::time::SimTime, bytes: u32, rng: &mut rand_xoshiro::Xoshiro256PlusPlus) -> Result<(), $crate::net::queue::Refusal> {
                match self {
                    $( $(#[cfg($cfg)])? AnyAqm::$akind(q) => $crate::net::queue::Aqm::judge(q, now, bytes, rng), )*
                }
            }

            pub fn enqueue(&mut self, arrival: $crate::net::queue::Queued, flow: $crate::net::ids::FlowId, dropped: &mut Vec<$crate::net::ids::PacketId>) -> Result<(), $crate::net::queue::Refusal> {
                match self {
                    $( $(#[cfg($cfg)])? AnyAqm::$akind(q) => $crate::net::queue::Aqm::enqueue(q, arrival, flow, dropped), )*
                }
            }

            pub fn dequeue(&mut self, now: $crate::time::SimTime, dropped: &mut Vec<$crate::net::ids::PacketId>) -> Option<$crate::net::queue::Queued> {
                match self {
                    $( $(#[cfg($cfg)])? AnyAqm::$akind(q) => $crate::net::queue::Aqm::dequeue(q, now, dropped), )*
                }
            }

            pub fn drain_into(&mut self, out: &mut Vec<$crate::net::ids::PacketId>) {
                match self {
                    $( $(#[cfg($cfg)])? AnyAqm::$akind(q) => $crate::net::queue::Aqm::drain_into(q, out), )*
                }
            }
        }
    };
}
pub(crate) use register_queues;
