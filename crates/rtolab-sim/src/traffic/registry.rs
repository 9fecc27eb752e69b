//! The registry of generator kinds: one line per kind (`kind = "..."` and its table type,
//! which implements `GeneratorKind`). The macro makes `GeneratorSpec`, the tagged table users
//! write, and dispatches every `GeneratorKind` call to the kind's own type.

use super::kind::{GeneratorKind, Traffic};
use crate::tcp::settings::TcpSpec;

macro_rules! generators {
    ($( $(#[doc = $doc:literal])* $(#[cfg($cfg:meta)])? $kind:ident($name:literal, $ty:ty), )*) => {
        /// Traffic generators that create flows, by `kind`.
        #[derive(Clone, Debug, serde::Deserialize, schemars::JsonSchema)]
        #[serde(tag = "kind", deny_unknown_fields)]
        pub enum GeneratorSpec {
            $( $(#[doc = $doc])* $(#[cfg($cfg)])? #[serde(rename = $name)] $kind($ty), )*
        }

        impl GeneratorSpec {
            /// Every registered `kind`, in registry order.
            pub const KINDS: &'static [&'static str] = &[$( $(#[cfg($cfg)])? $name, )*];

            /// The generator's `kind`.
            pub fn kind(&self) -> &'static str {
                match self {
                    $( $(#[cfg($cfg)])? GeneratorSpec::$kind(_) => $name, )*
                }
            }

            /// The error of reading `table` (without its `kind`) as kind `kind`'s table, with
            /// the inner field's path (an internally tagged table hides it from serde).
            pub fn table_error(kind: &str, table: serde_json::Value) -> Option<serde_path_to_error::Error<serde_json::Error>> {
                match kind {
                    $( $(#[cfg($cfg)])? $name => serde_path_to_error::deserialize::<_, $ty>(table).err(), )*
                    _ => None,
                }
            }

            fn inner(&self) -> &dyn GeneratorKind {
                match self {
                    $( $(#[cfg($cfg)])? GeneratorSpec::$kind(g) => g, )*
                }
            }
        }
    };
}

generators! {
    /// `kind = "burst"`: flows that start together and share a number of bytes.
    Burst("burst", super::burst::BurstSpec),
    /// `kind = "web"`: users that fetch files and think in between.
    Web("web", super::web::WebSpec),
    /// `kind = "voip"`: voice calls, one per user, scored by the E-model.
    Voip("voip", super::voip::VoipSpec),
    /// `kind = "toy"`: the registry's own example of a new kind (tests only).
    #[cfg(test)]
    Toy("toy", super::toy::ToySpec),
}

impl GeneratorSpec {
    /// The generator's name: its table's, or "<kind><index>" for generator `index`.
    pub fn name(&self, index: usize) -> String {
        self.inner().name().map_or_else(|| format!("{}{index}", self.kind()), str::to_string)
    }

    pub fn route(&self) -> (&[String], bool) {
        self.inner().route()
    }

    pub fn tcp(&self) -> Option<&TcpSpec> {
        self.inner().tcp()
    }

    pub fn check(&self, has_duration: bool) -> Result<(), (String, String)> {
        self.inner().check(has_duration)
    }

    /// What generator `index` starts under `seed`.
    pub fn plan(&self, index: usize, seed: u64) -> Traffic<'_> {
        self.inner().plan(self.kind(), self.name(index), seed)
    }
}
