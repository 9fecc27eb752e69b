//! The registry macro of the loss recovery algorithms: one list of entries makes their names
//! (`RecoveryKind`, one enum for the scenario schema's `recovery` and for the sender's
//! `SenderConfig::recovery`), what runs instead without SACK, the enum that holds one of
//! them (`AnyRecovery`) and its `LossRecovery` implementation.
//!
//! An entry reads
//!
//! ```text
//! /// Doc comment (the schema's description of the name).
//! Variant = "spec-name", without_sack OtherVariant => file::Type,
//! ```
//!
//! `without_sack` names the recovery that runs when SACK is off, and only a recovery that
//! needs SACK blocks has one. An entry may omit `= "spec-name"` and carry `#[serde(skip)]`
//! instead: a stack profile may choose it, a spec cannot name it and the schema does not list
//! it (ns-2's agents). Used once, in `recovery/mod.rs`.
//!
//! Invariants: `RecoveryKind` and `AnyRecovery` have one variant per entry, in the entry
//! order (the schema's order); a recovery starts an episode as its type's `Default`; every
//! call on `AnyRecovery` is a `match` over its variants (static dispatch).

macro_rules! register_recoveries {
    ($(
        $(#[$attr:meta])*
        $kind:ident $(= $name:literal)? $(, without_sack $fallback:ident)? => $ty:ty,
    )*) => {
        // The doc comments are the schema's descriptions; the schema keeps the name it had
        // as the spec's own enum.
        /// Loss recovery after a fast retransmit.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
        #[schemars(rename = "RecoverySpec")]
        pub enum RecoveryKind {
            $( $(#[$attr])* $(#[serde(rename = $name)])? $kind, )*
        }

        impl RecoveryKind {
            /// Needs SACK blocks from the receiver (RFC 6675's scoreboard): exactly the
            /// recoveries that name another to run without SACK.
            pub fn needs_sack(self) -> bool {
                self.without_sack() != self
            }

            /// The recovery that runs instead when SACK is off: a stack's SACK recovery becomes
            /// its NewReno (ns-2: the other agent).
            pub fn without_sack(self) -> RecoveryKind {
                match self {
                    $( RecoveryKind::$kind => None $( .or(Some(RecoveryKind::$fallback)) )?.unwrap_or(self), )*
                }
            }
        }

        /// The algorithms rtolab has, as one enum so calls are static.
        #[derive(Clone, Debug)]
        pub enum AnyRecovery {
            $( $kind($ty), )*
        }

        impl AnyRecovery {
            pub fn new(kind: RecoveryKind) -> Self {
                match kind {
                    $( RecoveryKind::$kind => AnyRecovery::$kind(<$ty>::default()), )*
                }
            }
        }

        impl $crate::tcp::recovery::LossRecovery for AnyRecovery {
            fn enter(&mut self, w: $crate::tcp::recovery::Window, dupthresh: u64) -> $crate::tcp::recovery::Entry {
                match self {
                    $( AnyRecovery::$kind(r) => r.enter(w, dupthresh), )*
                }
            }
            fn on_recovery_ack(&mut self) {
                match self {
                    $( AnyRecovery::$kind(r) => r.on_recovery_ack(), )*
                }
            }
            fn on_recovery_send(&mut self) {
                match self {
                    $( AnyRecovery::$kind(r) => r.on_recovery_send(), )*
                }
            }
            fn on_dupack(&mut self, w: $crate::tcp::recovery::Window) -> Option<u64> {
                match self {
                    $( AnyRecovery::$kind(r) => r.on_dupack(w), )*
                }
            }
            fn on_partial_ack(&mut self, w: $crate::tcp::recovery::Window, acked: u64) -> $crate::tcp::recovery::PartialAck {
                match self {
                    $( AnyRecovery::$kind(r) => r.on_partial_ack(w, acked), )*
                }
            }
            fn exit_cwnd(&self, w: $crate::tcp::recovery::Window) -> Option<u64> {
                match self {
                    $( AnyRecovery::$kind(r) => r.exit_cwnd(w), )*
                }
            }
            fn transmit(&self) -> $crate::tcp::recovery::Transmit {
                match self {
                    $( AnyRecovery::$kind(r) => r.transmit(), )*
                }
            }
            fn may_send(&self, cwnd: u64, mss: u64) -> bool {
                match self {
                    $( AnyRecovery::$kind(r) => r.may_send(cwnd, mss), )*
                }
            }
            fn forgets_recovery_point(&self) -> bool {
                match self {
                    $( AnyRecovery::$kind(r) => r.forgets_recovery_point(), )*
                }
            }
            fn on_exit(&mut self) {
                match self {
                    $( AnyRecovery::$kind(r) => r.on_exit(), )*
                }
            }
            fn extra_window(&self, mss: u64) -> u64 {
                match self {
                    $( AnyRecovery::$kind(r) => r.extra_window(mss), )*
                }
            }
            fn burst_limit(&self) -> Option<u32> {
                match self {
                    $( AnyRecovery::$kind(r) => r.burst_limit(), )*
                }
            }
            fn grows_on_exit(&self) -> bool {
                match self {
                    $( AnyRecovery::$kind(r) => r.grows_on_exit(), )*
                }
            }
            fn reduce(&mut self, w: $crate::tcp::recovery::Window, red: $crate::tcp::recovery::Reduction) -> Option<u64> {
                match self {
                    $( AnyRecovery::$kind(r) => r.reduce(w, red), )*
                }
            }
            fn reduces_by_delivery(&self) -> bool {
                match self {
                    $( AnyRecovery::$kind(r) => r.reduces_by_delivery(), )*
                }
            }
            fn sent_in_recovery(&mut self, bytes: u64, mss: u64) {
                match self {
                    $( AnyRecovery::$kind(r) => r.sent_in_recovery(bytes, mss), )*
                }
            }
        }
    };
}
pub(crate) use register_recoveries;
