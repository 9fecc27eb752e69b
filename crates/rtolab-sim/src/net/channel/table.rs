//! Reading a `loss` table by its `kind` without hiding the field path of an error.
//!
//! serde_path_to_error names a field only while the table is read from the input itself;
//! buffering the whole table first, as an internally tagged enum does, would leave every error
//! at the table's path. So the entries are read in order up to `kind` (`read_tag`): those
//! before it are kept as JSON values, and the model's table is then read from `Tagged`: the
//! `kind`, the kept entries, and the rest straight from the input. An error in a kept entry
//! has the table's path; `spec::load::refine_tagged` then reads the table again to name the
//! field, as it does for the queues' and generators' tables, without the TOML line and column.
//! JSON keeps the order written; the TOML reader gives a table's keys sorted, so there the
//! kept entries are those whose names sort before `kind` (Gilbert–Elliott's `bad`, `ber_bad`,
//! `ber_good` and `good`).

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess};
use serde::Deserialize;
use serde_json::Value;

/// The entries of a table met before its `kind`, in order.
pub type Kept = Vec<(String, Value)>;

/// The tag of the table `map` is reading, and the entries met before it.
pub fn read_tag<'de, A: MapAccess<'de>, K: Deserialize<'de>>(map: &mut A) -> Result<(K, Kept), A::Error> {
    let mut kept = Vec::new();
    while let Some(key) = map.next_key::<String>()? {
        if key == "kind" {
            return Ok((map.next_value()?, kept));
        }
        kept.push((key, map.next_value()?));
    }
    Err(de::Error::missing_field("kind"))
}

/// The whole table again, for the model's table to read: `kind = name` first, then the kept
/// entries, then what `rest` has not yet given.
pub struct Tagged<A> {
    kind: Option<&'static str>,
    kept: std::vec::IntoIter<(String, Value)>,
    value: Pending,
    rest: A,
}

/// The value of the key last given.
enum Pending {
    Kind(&'static str),
    Kept(Value),
    Rest,
}

impl<A> Tagged<A> {
    pub fn new(kind: &'static str, kept: Kept, rest: A) -> Self {
        Tagged { kind: Some(kind), kept: kept.into_iter(), value: Pending::Rest, rest }
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Tagged<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        if let Some(name) = self.kind.take() {
            self.value = Pending::Kind(name);
            return seed.deserialize("kind".into_deserializer()).map(Some);
        }
        if let Some((key, value)) = self.kept.next() {
            self.value = Pending::Kept(value);
            return seed.deserialize(key.into_deserializer()).map(Some);
        }
        self.value = Pending::Rest;
        self.rest.next_key_seed(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        match std::mem::replace(&mut self.value, Pending::Rest) {
            Pending::Kind(name) => seed.deserialize(name.into_deserializer()),
            Pending::Kept(value) => seed.deserialize(value).map_err(de::Error::custom),
            Pending::Rest => self.rest.next_value_seed(seed),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::{from_json, from_toml, LossSpec};

    fn toml(loss: &str) -> String {
        format!("duration = \"1s\"\n[[links]]\nname = \"l\"\nrate = \"1Mbps\"\ndelay = \"10ms\"\nloss = {loss}\n[[flows]]\nname = \"f\"\nroute = [\"l\"]\n")
    }

    const TIME_FORM: &str = "good = \"exp(8s)\", bad = \"exp(2s)\", ber_good = 1e-6, ber_bad = 1e-3";

    /// Where `kind` stands changes nothing: the same table, and an error names its field
    /// (read in place after `kind`, found again by `refine_tagged` before it; TOML gives the
    /// keys sorted, JSON as written).
    #[test]
    fn a_table_reads_alike_wherever_its_kind_stands() {
        let first = from_toml(&toml(&format!("{{ kind = \"gilbert-elliott\", {TIME_FORM} }}"))).unwrap();
        let last = from_toml(&toml(&format!("{{ {TIME_FORM}, kind = \"gilbert-elliott\" }}"))).unwrap();
        assert!(matches!(&first.links[0].loss, Some(LossSpec::GilbertElliott(_))));
        assert_eq!(first.links[0].loss, last.links[0].loss);

        let bad = TIME_FORM.replace("exp(8s)", "gamma(8s)");
        let e = from_toml(&toml(&format!("{{ {bad}, kind = \"gilbert-elliott\" }}"))).unwrap_err();
        assert_eq!(e.path, "links[0].loss.good");
        assert!(e.message.contains("unknown distribution"), "{e}");
        let e = from_toml(&toml(&format!("{{ kind = \"gilbert-elliott\", {bad} }}"))).unwrap_err();
        assert_eq!(e.path, "links[0].loss.good");
        assert!(e.message.contains("unknown distribution"), "{e}");

        let json = r#"{"duration": 1, "links": [{"name": "l", "rate": 1e6, "delay": 0, "loss": {"mean_loss": 0.05, "mean_burst": 3, "colour": 1, "kind": "gilbert-elliott"}}], "flows": [{"name": "f", "route": ["l"]}]}"#;
        let e = from_json(json).unwrap_err();
        assert_eq!(e.path, "links[0].loss.colour");
        assert!(e.message.contains("unknown field `colour`"), "{e}");
        let e = from_toml(&toml("{ mean_loss = 0.05 }")).unwrap_err();
        assert_eq!((e.path.as_str(), e.message.as_str()), ("links[0].loss", "line 6, column 8: missing field `kind`"));
    }
}
