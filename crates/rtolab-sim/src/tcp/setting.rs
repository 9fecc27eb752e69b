//! What declaring a TCP setting means: `declare_tcp_settings!` turns the one table of
//! settings (`settings.rs`) into the scenario's `TcpSpec`, the stacks' `Profile` with each
//! stack's defaults, the merge of the two (`TcpSpec::settings`) and what `rtolab emulate`
//! refuses (`TcpSpec::kernel_refusal`), so that a setting is declared once.
//!
//! An entry of the table reads
//!
//! ```text
//! /// The doc comment: `rtolab schema`'s description of the spec field.
//! name: SpecType => RuntimeType = default; Stack1 | Stack2 = value; …, kernel: Kernel::…;
//! ```
//!
//! `SpecType` is what a spec writes (the field is `Option<SpecType>`, `None` keeping the
//! stack's value); `RuntimeType` the merged value's, reached by `SpecValue`; `default`
//! every stack's value unless a `Stack = value` says otherwise. An entry ending in
//! `merged_by method` is merged by that `TcpSpec` method instead, where the value depends on
//! other settings. A second list declares what only the stacks set (no spec field, no
//! kernel): `name: RuntimeType = default; Stack = value,`.

use crate::time::SimDuration;
use crate::units::Duration;

/// How `rtolab emulate` gives a setting to the kernel, which *is* the `linux` stack. The
/// knobs are applied in `rtolab-emu/src/kernel.rs`; a value the kernel cannot honour is
/// refused there, naming the field, by `TcpSpec::kernel_refusal`.
#[derive(Clone, Copy)]
pub enum Kernel<T: 'static> {
    /// Set through this knob (a sysctl, route option or socket option), or checked against
    /// the settings that decide it.
    Sets(&'static str),
    /// Set through this knob, except for the values `refuses` names a reason for.
    SetsExcept(&'static str, fn(&T) -> Option<&'static str>),
    /// No knob: the value the kernel has anyway is accepted, another refused with the
    /// reason `refuses` gives.
    Fixed(fn(&T) -> Option<&'static str>),
    /// No knob, and no value to match: refused whenever set, with this reason.
    Lacks(&'static str),
}

impl<T> Kernel<T> {
    /// Why the kernel cannot run `value`, if it cannot.
    pub fn refuses(&self, value: &T) -> Option<&'static str> {
        match self {
            Kernel::Sets(_) => None,
            Kernel::SetsExcept(_, refuses) | Kernel::Fixed(refuses) => refuses(value),
            Kernel::Lacks(why) => Some(why),
        }
    }
}

/// A spec's value as the merged setting's: the same value for most settings; wrapped for a
/// setting whose stacks may leave it unset; a quantity in simulator time.
pub trait SpecValue<T> {
    fn runtime(self) -> T;
}

impl<T> SpecValue<T> for T {
    fn runtime(self) -> T {
        self
    }
}

impl<T> SpecValue<Option<T>> for T {
    fn runtime(self) -> Option<T> {
        Some(self)
    }
}

impl SpecValue<SimDuration> for Duration {
    fn runtime(self) -> SimDuration {
        self.sim()
    }
}

impl SpecValue<Option<SimDuration>> for Duration {
    fn runtime(self) -> Option<SimDuration> {
        Some(self.sim())
    }
}

/// Declares the TCP settings; see the module's documentation. Used once, by `settings.rs`.
macro_rules! declare_tcp_settings {
    (
        spec {
            $(
                $(#[$doc:meta])*
                $name:ident: $sty:ty => $pty:ty = $default:expr $(; $($stack:ident)|+ = $value:expr)*,
                kernel: $kernel:expr $(, merged_by $by:ident)?;
            )*
        }
        stacks {
            $(
                $(#[$pdoc:meta])*
                $pname:ident: $ppty:ty = $pdefault:expr $(; $($pstack:ident)|+ = $pvalue:expr)*,
            )*
        }
    ) => {
        /// TCP configuration of one flow. `stack` names the stack whose defaults apply (default:
        /// rtolab's own); every other field overrides one of them.
        #[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct TcpSpec {
            /// A named stack: "rfc", "linux", "freebsd", "ns3", "ns2-sack1", "ns2-newreno"; none
            /// means rtolab's defaults.
            pub stack: Option<Stack>,
            $( $(#[$doc])* pub $name: Option<$sty>, )*
        }

        /// Every TCP setting's value: a stack's defaults (`Stack::profile`), or those with a
        /// spec's overrides merged (`TcpSpec::settings`). The fields a spec can set are
        /// documented as `TcpSpec`'s.
        #[derive(Clone, Debug)]
        pub struct Profile {
            $( $(#[$doc])* pub $name: $pty, )*
            $( $(#[$pdoc])* pub $pname: $ppty, )*
        }

        /// The defaults of `stack`: each setting's `default`, then the values it declares for
        /// `stack`.
        pub(crate) fn defaults(stack: Stack) -> Profile {
            let mut p = Profile { $( $name: $default, )* $( $pname: $pdefault, )* };
            $( $( if matches!(stack, $(Stack::$stack)|+) { p.$name = $value; } )* )*
            $( $( if matches!(stack, $(Stack::$pstack)|+) { p.$pname = $pvalue; } )* )*
            p
        }

        impl TcpSpec {
            /// The settings of this flow: its stack's defaults with every field the spec sets
            /// merged in (a setting `merged_by` a method takes that method's answer).
            pub fn settings(&self) -> Profile {
                let spec = self;
                let mut p = spec.profile();
                $( declare_tcp_settings!(@merge spec, p, $name $(, $by)?); )*
                p
            }

            /// The first field this spec sets (in the table's order) at a value the kernel
            /// cannot run, with the reason: `(field, why)`.
            pub fn kernel_refusal(&self) -> Option<(&'static str, &'static str)> {
                $(
                    if let Some(value) = &self.$name {
                        let kernel: Kernel<$sty> = $kernel;
                        if let Some(why) = kernel.refuses(value) {
                            return Some((stringify!($name), why));
                        }
                    }
                )*
                None
            }
        }
    };
    (@merge $spec:ident, $p:ident, $name:ident) => {
        if let Some(value) = $spec.$name.clone() {
            $p.$name = SpecValue::runtime(value);
        }
    };
    (@merge $spec:ident, $p:ident, $name:ident, $by:ident) => {
        $p.$name = $spec.$by();
    };
}

pub(crate) use declare_tcp_settings;
