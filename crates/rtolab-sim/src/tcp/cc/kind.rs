//! The congestion controls, by name: `CcKind` (made by `register_controllers!` in
//! `cc/mod.rs`) is the one enum of controllers, read by the sender (`SenderConfig::cc`,
//! `AnyCc::new`) and named by the scenario schema through `CcName`, which adds the alias
//! `"newreno"`. CUBIC's parameters are chosen here, by hand, as only the CUBIC controllers
//! read them.

use super::{CcKind, CubicParams, CUBIC_2_6_24_BETA};
use crate::tcp::recovery::RecoveryKind;
use crate::tcp::setting::SpecValue;
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

impl CcKind {
    /// CUBIC's parameters for this controller: HyStart as `hystart` says (default on; Linux
    /// 2.6.24's CUBIC had none) and β, a share of the window, in 1/1024 rounded (default
    /// 717/1024 for today's CUBIC, 819/1024 for 2.6.24's). Every other controller reads none
    /// and gets the defaults, so their configurations compare equal.
    pub fn cubic_params(self, hystart: Option<bool>, beta: Option<f64>) -> CubicParams {
        let scaled = |default: u32| beta.map_or(default, |b| (b * 1024.0).round() as u32);
        match self {
            CcKind::Cubic => {
                let defaults = CubicParams::default();
                CubicParams { hystart: hystart.unwrap_or(defaults.hystart), beta: scaled(defaults.beta) }
            }
            CcKind::Cubic2624 => CubicParams { hystart: false, beta: scaled(CUBIC_2_6_24_BETA) },
            _ => CubicParams::default(),
        }
    }
}

/// A congestion control as a spec names it (`cc`): a controller by its name, or
/// `"newreno"`, an alias of the Reno controller that also chooses NewReno recovery.
///
/// The alias is resolved here and in `TcpSpec::recovery_named` and nowhere else: with SACK
/// off and no `recovery` given, `"reno"` runs Reno recovery (RFC 5681 3.2) and `"newreno"`
/// NewReno recovery (RFC 6582; ns-2's agent under `stack = "ns2-newreno"`), as
/// `implied_recovery` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CcName {
    /// The controller that runs.
    pub kind: CcKind,
    /// The spec said `"newreno"`.
    pub newreno: bool,
}

impl CcName {
    /// Every name a spec may write, in the schema's order: the registry's, with
    /// `"newreno"` after `"reno"`.
    pub const NAMES: [&'static str; CcKind::ALL.len() + 1] = spec_names();

    /// The controller named as itself.
    pub fn of(kind: CcKind) -> CcName {
        CcName { kind, newreno: false }
    }

    /// The recovery the name chooses where the spec chooses none and SACK is off:
    /// `"reno"` Reno's, `"newreno"` NewReno's; the other names choose none.
    pub fn implied_recovery(self) -> Option<RecoveryKind> {
        match (self.kind, self.newreno) {
            (CcKind::Reno, false) => Some(RecoveryKind::Reno),
            (CcKind::Reno, true) => Some(RecoveryKind::NewReno),
            _ => None,
        }
    }
}

/// `CcKind`'s names in registry order, `"newreno"` inserted after `"reno"`.
const fn spec_names() -> [&'static str; CcKind::ALL.len() + 1] {
    let mut names = [""; CcKind::ALL.len() + 1];
    let (mut i, mut j) = (0, 0);
    while i < CcKind::ALL.len() {
        names[j] = CcKind::ALL[i].name();
        j += 1;
        if matches!(CcKind::ALL[i], CcKind::Reno) {
            names[j] = "newreno";
            j += 1;
        }
        i += 1;
    }
    names
}

/// The merged setting is the controller; the alias has chosen its recovery already.
impl SpecValue<CcKind> for CcName {
    fn runtime(self) -> CcKind {
        self.kind
    }
}

impl<'de> Deserialize<'de> for CcName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = CcName;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "one of `{}`", CcName::NAMES.join("`, `"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<CcName, E> {
                if v == "newreno" {
                    return Ok(CcName { kind: CcKind::Reno, newreno: true });
                }
                CcKind::deserialize(de::value::StrDeserializer::<E>::new(v))
                    .map(CcName::of)
                    .map_err(|_| E::unknown_variant(v, &CcName::NAMES))
            }
        }
        d.deserialize_str(V)
    }
}

/// The schema of `CcKind` with `"newreno"` after `"reno"`, under the name it always had.
impl JsonSchema for CcName {
    fn schema_name() -> Cow<'static, str> {
        "CcKind".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let mut schema = CcKind::json_schema(g);
        let newreno = json_schema!({
            "description": "Reno growth; the name selects NewReno loss recovery.",
            "type": "string",
            "const": "newreno"
        });
        if let Some(variants) = schema.get_mut("oneOf").and_then(|v| v.as_array_mut()) {
            variants.insert(1, newreno.into());
        }
        schema.insert(
            "description".into(),
            "Congestion control: how the window grows and shrinks. `\"newreno\"` is the older spelling\nof Reno growth with NewReno loss recovery (RFC 6582) unless `sack` or `recovery` says\notherwise.".into(),
        );
        schema
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name parses, and to the controller `CcKind` gives it; a bad one lists them all.
    #[test]
    fn every_name_parses() {
        let parse = |s: &str| serde_json::from_value::<CcName>(serde_json::Value::String(s.into()));
        for name in CcName::NAMES {
            let cc = parse(name).unwrap();
            assert_eq!(cc.newreno, name == "newreno");
            if !cc.newreno {
                assert_eq!(cc.kind, serde_json::from_value::<CcKind>(serde_json::Value::String(name.into())).unwrap());
            }
        }
        let err = parse("vegas").unwrap_err().to_string();
        assert!(err.contains("unknown variant `vegas`, expected one of `reno`, `newreno`, `cubic`"), "{err}");
    }
}
