//! The ARQ tables of a link direction: `arq = { window = "3p", attempts = 6 }`, and a
//! reverse direction's `arq = "off"`. A direction's `loss` is the channel registry's
//! `LossSpec` (`net/channel/`).

use crate::units::Duration;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;
use std::fmt;

/// Link-layer ARQ on a link direction (paper 001): selective repeat over the channel with a
/// buffer of `window` packets; a packet that fails `attempts` attempts is discarded and the
/// buffer flushed.
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArqSpec {
    /// Packets in the ARQ buffer, e.g. "3p".
    pub window: ArqWindow,
    /// Attempts per packet, the first included.
    pub attempts: u32,
    /// Deliver to the next hop in order (default true).
    #[serde(default = "yes")]
    pub in_order: bool,
    /// Time from the end of an attempt's transmission until its outcome is known (default 0).
    pub feedback_delay: Option<Duration>,
    /// Send ICMP DROP on a flush and ICMP DEFER on a retry's success or a backlog toward
    /// the flow's sender (paper 001 Sec. II; default false).
    #[serde(default)]
    pub icmp: bool,
    /// Packets waiting (queue and ARQ buffer) at which ICMP DEFER is sent (default 3).
    #[serde(default = "three")]
    pub defer_backlog: u32,
}

/// The ARQ buffer in packets: `"3p"` or `3`, at least one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArqWindow(pub u32);

const ARQ_WINDOW_FORM: &str = "expected a window of at least 1 packet, e.g. \"3p\"";

impl<'de> Deserialize<'de> for ArqWindow {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ArqWindow;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(ARQ_WINDOW_FORM)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ArqWindow, E> {
                match u32::try_from(v) {
                    Ok(n) if n >= 1 => Ok(ArqWindow(n)),
                    _ => Err(E::custom(format!("got {v}, {ARQ_WINDOW_FORM}"))),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ArqWindow, E> {
                u64::try_from(v).map_err(|_| E::custom(format!("got {v}, {ARQ_WINDOW_FORM}"))).and_then(|v| self.visit_u64(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ArqWindow, E> {
                let n = v.trim().strip_suffix('p').and_then(|n| n.trim().parse::<u64>().ok());
                n.ok_or_else(|| E::custom(format!("got {v:?}, {ARQ_WINDOW_FORM}"))).and_then(|n| self.visit_u64(n))
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for ArqWindow {
    fn schema_name() -> Cow<'static, str> {
        "ArqWindow".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "description": ARQ_WINDOW_FORM, "type": ["string", "integer"] })
    }
}

fn yes() -> bool {
    true
}
fn three() -> u32 {
    3
}

/// A reverse direction's ARQ: its own table, or "off".
#[derive(Clone, Debug, PartialEq)]
pub enum ArqOverride {
    Off,
    On(ArqSpec),
}

impl<'de> Deserialize<'de> for ArqOverride {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ArqOverride;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("\"off\" or an ARQ table { window = \"3p\", attempts = 6 }")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ArqOverride, E> {
                if v == "off" {
                    Ok(ArqOverride::Off)
                } else {
                    Err(E::custom(format!("got {v:?}, expected \"off\" or an ARQ table")))
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ArqOverride, A::Error> {
                ArqSpec::deserialize(de::value::MapAccessDeserializer::new(map)).map(ArqOverride::On)
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for ArqOverride {
    fn schema_name() -> Cow<'static, str> {
        "ArqOverride".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let arq = g.subschema_for::<ArqSpec>();
        json_schema!({ "anyOf": [ { "const": "off" }, arq ] })
    }
}
