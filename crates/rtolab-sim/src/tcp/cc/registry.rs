//! The registry macro of the congestion controls: one list of entries makes the controllers'
//! names (`CcKind`, read by the scenario schema and the sender), their Linux names, the enum
//! that holds one of them (`AnyCc`) and its `CongestionControl` implementation.
//!
//! An entry reads
//!
//! ```text
//! /// Doc comment (the schema's description of the name).
//! Variant = "spec-name", kernel "linux-name" => file::Type, |core, cubic| file::Type::new(core),
//! ```
//!
//! where the closure builds the controller from its `WindowCore` and the configuration's
//! `CubicParams` (either pattern may be `_`). Used once, in `cc/mod.rs`.
//!
//! Invariants: `CcKind` and `AnyCc` have one variant per entry, in the entry order (which is
//! the schema's order); every call on `AnyCc` is a `match` over its variants (static
//! dispatch, no indirect call on the per-ACK path).

macro_rules! register_controllers {
    ($(
        $(#[doc = $doc:literal])*
        $kind:ident = $name:literal, kernel $kernel:literal => $ty:ty, |$core:pat_param, $cubic:pat_param| $new:expr,
    )*) => {
        /// The controllers: how the window grows and shrinks.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
        pub enum CcKind {
            $( $(#[doc = $doc])* #[serde(rename = $name)] $kind, )*
        }

        impl CcKind {
            /// Every registered controller, in registry order.
            pub const ALL: [CcKind; [$($name),*].len()] = [$(CcKind::$kind),*];

            /// The name a spec gives this controller (`cc`).
            pub const fn name(self) -> &'static str {
                match self {
                    $( CcKind::$kind => $name, )*
                }
            }

            /// The name the Linux kernel gives this congestion control (`TCP_CONGESTION`).
            pub fn kernel_name(self) -> &'static str {
                match self {
                    $( CcKind::$kind => $kernel, )*
                }
            }
        }

        /// The algorithms rtolab has, as one enum so the hot path needs no dynamic dispatch.
        #[derive(Clone, Debug)]
        pub enum AnyCc {
            $( $kind($ty), )*
        }

        impl AnyCc {
            /// The controller `kind` on `core`; CUBIC's take their HyStart and β from `cubic`
            /// (Linux 2.6.24's reads β alone).
            pub fn new(kind: CcKind, cubic: $crate::tcp::cc::CubicParams, core: $crate::tcp::cc::WindowCore) -> Self {
                match kind {
                    $( CcKind::$kind => {
                        let $core = core;
                        let $cubic = cubic;
                        AnyCc::$kind($new)
                    } )*
                }
            }
        }

        impl $crate::tcp::cc::CongestionControl for AnyCc {
            fn core(&self) -> &$crate::tcp::cc::WindowCore {
                match self {
                    $( AnyCc::$kind(c) => c.core(), )*
                }
            }
            fn core_mut(&mut self) -> &mut $crate::tcp::cc::WindowCore {
                match self {
                    $( AnyCc::$kind(c) => c.core_mut(), )*
                }
            }
            fn on_ack(&mut self, ack: &$crate::tcp::cc::AckSample) -> $crate::tcp::cc::Growth {
                match self {
                    $( AnyCc::$kind(c) => c.on_ack(ack), )*
                }
            }
            fn on_congestion_event(&mut self, now: $crate::time::SimTime, flight: u64) {
                match self {
                    $( AnyCc::$kind(c) => c.on_congestion_event(now, flight), )*
                }
            }
            fn on_rto(&mut self, now: $crate::time::SimTime, flight: u64, first_timeout: bool) {
                match self {
                    $( AnyCc::$kind(c) => c.on_rto(now, flight, first_timeout), )*
                }
            }
            fn min_cwnd(&self) -> u64 {
                match self {
                    $( AnyCc::$kind(c) => c.min_cwnd(), )*
                }
            }
            fn on_recovery_exit(&mut self, now: $crate::time::SimTime) {
                match self {
                    $( AnyCc::$kind(c) => c.on_recovery_exit(now), )*
                }
            }
            fn on_tx_start(&mut self, now: $crate::time::SimTime, last_send: $crate::time::SimTime) {
                match self {
                    $( AnyCc::$kind(c) => c.on_tx_start(now, last_send), )*
                }
            }
            fn set_recovery_cwnd(&mut self, bytes: u64) {
                match self {
                    $( AnyCc::$kind(c) => c.set_recovery_cwnd(bytes), )*
                }
            }
            fn halve_window(&mut self) {
                match self {
                    $( AnyCc::$kind(c) => c.halve_window(), )*
                }
            }
            fn shrink_window(&mut self, bytes: u64) {
                match self {
                    $( AnyCc::$kind(c) => c.shrink_window(bytes), )*
                }
            }
            fn pacing(&self) -> Option<(u64, u32)> {
                match self {
                    $( AnyCc::$kind(c) => c.pacing(), )*
                }
            }
            fn on_established(
                &mut self,
                now: $crate::time::SimTime,
                srtt: Option<$crate::time::SimDuration>,
                min_rtt: Option<$crate::time::SimDuration>,
                delivered: u32,
            ) {
                match self {
                    $( AnyCc::$kind(c) => c.on_established(now, srtt, min_rtt, delivered), )*
                }
            }
            fn on_rate_sample(
                &mut self,
                now: $crate::time::SimTime,
                rs: &$crate::tcp::rate::RateSample,
                srtt: Option<$crate::time::SimDuration>,
            ) {
                match self {
                    $( AnyCc::$kind(c) => c.on_rate_sample(now, rs, srtt), )*
                }
            }
            fn on_enter_loss(&mut self, counters: &$crate::tcp::rate::RateSample) {
                match self {
                    $( AnyCc::$kind(c) => c.on_enter_loss(counters), )*
                }
            }
            fn on_idle_restart(&mut self, now: $crate::time::SimTime, delivered_mstamp_us: u64) {
                match self {
                    $( AnyCc::$kind(c) => c.on_idle_restart(now, delivered_mstamp_us), )*
                }
            }
            fn take_app_limited_mark(&mut self) -> bool {
                match self {
                    $( AnyCc::$kind(c) => c.take_app_limited_mark(), )*
                }
            }
            /// `prior` is a snapshot of this same controller (`Episode::prior`), so the kinds match.
            fn undo(&mut self, prior: &Self) {
                match (self, prior) {
                    $( (AnyCc::$kind(c), AnyCc::$kind(p)) => c.undo(p), )*
                    _ => unreachable!("an undo restores a snapshot of the same controller"),
                }
            }
        }
    };
}
pub(crate) use register_controllers;
