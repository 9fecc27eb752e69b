//! The spec's choice of spurious-timeout detectors (`detect`): `"none"` or a list of the
//! registry's names (`DetectorName`); `TcpSpec::detectors` turns it into the `Detectors`
//! that run.

use super::DetectorName;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NoDetector {
    None,
}

/// `"none"` or a list of detectors.
#[derive(Clone, Debug, PartialEq, Eq, JsonSchema)]
#[serde(untagged)]
pub enum DetectSpec {
    None(NoDetector),
    List(Vec<DetectorName>),
}

/// By hand rather than derived, so that a bad value gets an error saying what is expected
/// (an untagged enum's derived error names neither).
impl<'de> Deserialize<'de> for DetectSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Expect;
        impl<'de> serde::de::Visitor<'de> for Expect {
            type Value = DetectSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                let names: Vec<String> = DetectorName::all().iter().map(|n| format!("\"{}\"", n.name())).collect();
                write!(f, "\"none\" or a list of {}", names.join(", "))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<DetectSpec, E> {
                match v {
                    "none" => Ok(DetectSpec::None(NoDetector::None)),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<DetectSpec, A::Error> {
                let mut names = Vec::new();
                while let Some(name) = seq.next_element::<DetectorName>()? {
                    names.push(name);
                }
                Ok(DetectSpec::List(names))
            }
        }
        d.deserialize_any(Expect)
    }
}
