//! The registry macro of the HS-DSCH schedulers: one list of entries makes their names
//! (`SchedulerKind`, the radio spec's `scheduler`) and the policy each name runs.
//!
//! An entry reads
//!
//! ```text
//! /// Doc comment (the schema's description of the name).
//! Variant = "spec-name" => file::compare,
//! ```
//!
//! where `file::compare` is a `Policy`: a strict order on candidates (the earlier goes
//! first). Exactly one entry carries `#[default]`, the scheduler a spec that names none
//! gets. Used once, in `scheduler/mod.rs`.
//!
//! Invariant: `SchedulerKind` has one variant per entry, in the entry order (the schema's
//! order).

macro_rules! register_schedulers {
    ($( $(#[$attr:meta])* $kind:ident = $name:literal => $compare:path, )*) => {
        /// The HS-DSCH scheduler of every cell.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
        pub enum SchedulerKind {
            $( $(#[$attr])* #[serde(rename = $name)] $kind, )*
        }

        impl SchedulerKind {
            /// Every registered scheduler, in registry order.
            pub const ALL: [SchedulerKind; [$($name),*].len()] = [$(SchedulerKind::$kind),*];

            /// The order this scheduler puts candidates in.
            pub fn policy(self) -> $crate::radio::scheduler::Policy {
                match self {
                    $( SchedulerKind::$kind => $compare, )*
                }
            }
        }
    };
}
pub(crate) use register_schedulers;
