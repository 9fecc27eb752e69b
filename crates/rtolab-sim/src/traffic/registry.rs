//! The registry of generator kinds: `generators!`, invoked in `traffic/mod.rs` with one line
//! per kind (`Variant("kind", file::Table)`, the table implementing `GeneratorKind`), makes
//! `GeneratorSpec`, the tagged table users write, and dispatches every `GeneratorKind` call
//! to the kind's own type.

use super::kind::Traffic;
use super::GeneratorSpec;
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

            pub(super) fn inner(&self) -> &dyn $crate::traffic::GeneratorKind {
                match self {
                    $( $(#[cfg($cfg)])? GeneratorSpec::$kind(g) => g, )*
                }
            }
        }
    };
}

pub(super) use generators;

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

    pub fn quic(&self) -> Option<&crate::quic::QuicSpec> {
        self.inner().quic()
    }

    pub fn check(&self, has_duration: bool) -> Result<(), (String, String)> {
        self.inner().check(has_duration)
    }

    /// What generator `index` starts under `seed`.
    pub fn plan(&self, index: usize, seed: u64) -> Traffic<'_> {
        self.inner().plan(self.kind(), self.name(index), seed)
    }
}
