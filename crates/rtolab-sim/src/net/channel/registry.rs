//! The registry macro of the channel models: one list of entries makes the names a `loss`
//! table's `kind` takes (`LossModelKind`), the spec's `loss` (`LossSpec`: a number is
//! Bernoulli loss, a table is read by its `kind`) with its schema and its checks, and the
//! channel a link direction runs (`ChannelModel`: none, Bernoulli, or a registered model) with
//! its dispatch.
//!
//! An entry reads
//!
//! ```text
//! /// Doc comment (what the model is).
//! Variant = "kind-name" => file::Type,
//! ```
//!
//! where `file::Type` is a `LossModel`; an entry may carry `#[cfg(test)]` (a toy the tests
//! register). Used once, in `channel/mod.rs`.
//!
//! Invariants: `LossModelKind`, `LossSpec` and `ChannelModel` have one variant per entry, in
//! the entry order (the schema's order of the tables in `loss`), after the plain forms; every
//! call on `ChannelModel` is a `match` over its variants (static dispatch on the per-packet
//! path).

macro_rules! register_channels {
    ($( $(#[doc = $doc:literal])* $(#[cfg($cfg:meta)])? $kind:ident = $name:literal => $ty:ty, )*) => {
        // Without a doc comment: the schema lists the names alone, as the tag of each table.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
        pub enum LossModelKind {
            $( $(#[cfg($cfg)])? #[serde(rename = $name)] $kind, )*
        }

        impl LossModelKind {
            /// Every registered `kind`, in registry order.
            pub const NAMES: &'static [&'static str] = &[$( $(#[cfg($cfg)])? $name, )*];

            /// The `kind` a table gives this model.
            pub const fn name(self) -> &'static str {
                match self {
                    $( $(#[cfg($cfg)])? LossModelKind::$kind => $name, )*
                }
            }

            /// The model `name` names, if one is registered.
            pub fn named(name: &str) -> Option<Self> {
                match name {
                    $( $(#[cfg($cfg)])? $name => Some(LossModelKind::$kind), )*
                    _ => None,
                }
            }

            /// Reads `table` (its `kind` included) as this model's table alone, for the path
            /// inside the table of its first error (`spec::load::refine_tagged`).
            pub fn table_error(self, table: serde_json::Value) -> Option<serde_path_to_error::Error<serde_json::Error>> {
                match self {
                    $( $(#[cfg($cfg)])? LossModelKind::$kind => serde_path_to_error::deserialize::<_, <$ty as $crate::net::channel::LossModel>::Spec>(table).err(), )*
                }
            }
        }

        /// Loss on a link direction, applied to each transmission.
        #[derive(Clone, Debug, PartialEq)]
        pub enum LossSpec {
            /// Independent loss with this probability per packet.
            Bernoulli($crate::units::Probability),
            $( $(#[doc = $doc])* $(#[cfg($cfg)])? $kind(<$ty as $crate::net::channel::LossModel>::Spec), )*
        }

        impl LossSpec {
            /// The checks of a model's table (a probability is checked as it is read).
            pub fn validate(&self) -> Result<(), $crate::net::channel::FieldError> {
                match self {
                    LossSpec::Bernoulli(_) => Ok(()),
                    $( $(#[cfg($cfg)])? LossSpec::$kind(spec) => <$ty as $crate::net::channel::LossModel>::validate(spec), )*
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for LossSpec {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(LossVisitor)
            }
        }

        /// Reads `loss`: a number is a Bernoulli probability, a table goes to its model's
        /// table by its `kind`.
        struct LossVisitor;

        impl<'de> serde::de::Visitor<'de> for LossVisitor {
            type Value = LossSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "a probability in [0, 1] or a table {{ kind = \"{}\", ... }}", LossModelKind::NAMES.join("\" | \""))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<LossSpec, E> {
                $crate::units::Probability::try_from(v).map(LossSpec::Bernoulli).map_err(E::custom)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<LossSpec, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<LossSpec, E> {
                self.visit_f64(v as f64)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<LossSpec, A::Error> {
                let (kind, kept) = $crate::net::channel::table::read_tag::<_, LossModelKind>(&mut map)?;
                let table = serde::de::value::MapAccessDeserializer::new($crate::net::channel::table::Tagged::new(kind.name(), kept, map));
                match kind {
                    $( $(#[cfg($cfg)])? LossModelKind::$kind => serde::Deserialize::deserialize(table).map(LossSpec::$kind), )*
                }
            }
        }

        impl schemars::JsonSchema for LossSpec {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                "Loss".into()
            }
            fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let tables: &[&str] = &[$( $(#[cfg($cfg)])? <$ty as $crate::net::channel::LossModel>::TABLE, )*];
                let any_of = [
                    schemars::json_schema!({ "type": "number", "minimum": 0.0, "maximum": 1.0 }),
                    $( $(#[cfg($cfg)])? g.subschema_for::<<$ty as $crate::net::channel::LossModel>::Spec>(), )*
                ];
                schemars::json_schema!({
                    "description": format!("a Bernoulli loss probability, or {}", tables.join(", or ")),
                    "anyOf": any_of
                })
            }
        }

        /// The loss model of a channel.
        pub enum ChannelModel {
            Perfect,
            /// Independent loss with this probability per transmission.
            Bernoulli(f64),
            $( $(#[doc = $doc])* $(#[cfg($cfg)])? $kind($ty), )*
        }

        impl ChannelModel {
            /// The model `loss` asks for on the direction `cx` names (none without `loss` or
            /// with a probability of 0).
            pub fn new(loss: Option<&LossSpec>, cx: &$crate::net::channel::ChannelContext) -> Self {
                match loss {
                    None => ChannelModel::Perfect,
                    Some(LossSpec::Bernoulli(p)) if p.0 > 0.0 => ChannelModel::Bernoulli(p.0),
                    Some(LossSpec::Bernoulli(_)) => ChannelModel::Perfect,
                    $( $(#[cfg($cfg)])? Some(LossSpec::$kind(spec)) => ChannelModel::$kind(<$ty as $crate::net::channel::LossModel>::new(spec, cx)), )*
                }
            }

            /// Whether the transmission of `bytes` over [start, end] is lost; Bernoulli draws
            /// from `rng` only when its probability is positive.
            #[inline]
            pub fn lost(&mut self, start: $crate::time::SimTime, end: $crate::time::SimTime, bytes: u32, rng: &mut rand_xoshiro::Xoshiro256PlusPlus) -> bool {
                match self {
                    ChannelModel::Perfect => false,
                    ChannelModel::Bernoulli(p) => *p > 0.0 && rand::Rng::random::<f64>(rng) < *p,
                    $( $(#[cfg($cfg)])? ChannelModel::$kind(m) => $crate::net::channel::LossModel::lost(m, start, end, bytes, rng), )*
                }
            }

            /// The state trace (time, 1 = bad), when the model has one and recording was asked for.
            pub fn trace(&self) -> Option<&[($crate::time::SimTime, u8)]> {
                match self {
                    ChannelModel::Perfect | ChannelModel::Bernoulli(_) => None,
                    $( $(#[cfg($cfg)])? ChannelModel::$kind(m) => $crate::net::channel::LossModel::trace(m), )*
                }
            }

            /// Brings a time-based state process up to `end` (for its trace and time shares).
            pub fn finish(&mut self, end: $crate::time::SimTime) {
                match self {
                    ChannelModel::Perfect | ChannelModel::Bernoulli(_) => {}
                    $( $(#[cfg($cfg)])? ChannelModel::$kind(m) => $crate::net::channel::LossModel::finish(m, end), )*
                }
            }

            /// Fraction of [0, end] the channel spent in its bad state, for time-based models.
            pub fn bad_share(&self, end: $crate::time::SimTime) -> Option<f64> {
                match self {
                    ChannelModel::Perfect | ChannelModel::Bernoulli(_) => None,
                    $( $(#[cfg($cfg)])? ChannelModel::$kind(m) => $crate::net::channel::LossModel::bad_share(m, end), )*
                }
            }
        }
    };
}
pub(crate) use register_channels;
