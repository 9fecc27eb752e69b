//! The trace a link direction is given in a scenario: `trace = "traces/lte.trace"`, or the
//! table `trace = { file = "traces/lte.trace", loop = false }`. The file is read once, when
//! the scenario is loaded (`TraceSpec::load`), and the runtime direction (`trace.rs`) shares
//! the parsed trace.

use super::trace::{Trace, TraceLink};
use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A delivery trace for a link direction, in place of its `rate`.
#[derive(Clone, Debug)]
pub struct TraceSpec {
    /// The file as written.
    pub file: String,
    /// Whether the trace repeats with its last timestamp as period (default true).
    pub looped: bool,
    /// The parsed trace, once `load` has read it.
    pub loaded: Option<Arc<Trace>>,
}

/// The table form of a trace.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TraceTable {
    /// The trace file: one delivery opportunity of 1500 bytes per line, its time in
    /// milliseconds. A relative path is read from the scenario file's directory.
    file: String,
    /// Repeat the trace with its last timestamp as period (default true); false stops
    /// delivering at its end.
    #[serde(rename = "loop", default = "yes")]
    looped: bool,
}

fn yes() -> bool {
    true
}

const TRACE_FORM: &str = "a trace file's path, or a table { file = \"...\", loop = false }";

impl<'de> Deserialize<'de> for TraceSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = TraceSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(TRACE_FORM)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<TraceSpec, E> {
                Ok(TraceSpec { file: v.to_string(), looped: true, loaded: None })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<TraceSpec, A::Error> {
                let t = TraceTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(TraceSpec { file: t.file, looped: t.looped, loaded: None })
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for TraceSpec {
    fn schema_name() -> Cow<'static, str> {
        "TraceSpec".into()
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        let table = g.subschema_for::<TraceTable>();
        json_schema!({
            "description": format!("{TRACE_FORM}; one delivery opportunity of 1500 bytes per line, its time in milliseconds"),
            "anyOf": [ { "type": "string" }, table ]
        })
    }
}

impl TraceSpec {
    /// Where the file is: a relative path is taken from `base` (the scenario file's
    /// directory), or from the working directory when the scenario has no file.
    pub fn path(&self, base: Option<&Path>) -> PathBuf {
        let p = Path::new(&self.file);
        match base {
            Some(b) if p.is_relative() => b.join(p),
            _ => p.to_path_buf(),
        }
    }

    /// Reads and parses the file; the error says what is wrong, naming the file as written.
    pub fn load(&mut self, base: Option<&Path>) -> Result<(), String> {
        let path = self.path(base);
        let text = std::fs::read(&path).map_err(|e| format!("got {:?}, cannot read {}: {}", self.file, path.display(), io_reason(&e)))?;
        let text = String::from_utf8(text).map_err(|_| format!("got {:?}, expected a text file of one time in milliseconds per line", self.file))?;
        let trace = Trace::parse(&text).map_err(|e| format!("got {:?}: {e}", self.file))?;
        self.loaded = Some(Arc::new(trace));
        Ok(())
    }

    /// The runtime form, once loaded.
    pub fn link(&self) -> Option<TraceLink> {
        Some(TraceLink { trace: self.loaded.clone()?, looped: self.looped })
    }
}

/// An I/O error in words, without the OS's error number.
fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::IsADirectory => "it is a directory".into(),
        _ => {
            let s = e.to_string();
            s.split(" (os error").next().unwrap_or(&s).to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::{from_toml, parse_in};
    use std::path::Path;

    /// A scratch directory of this test process with `files` written in it.
    fn dir_with(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("rtolab-trace-spec-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        for (f, text) in files {
            std::fs::write(d.join(f), text).unwrap();
        }
        d
    }

    fn scenario(link: &str) -> String {
        format!("duration = \"2s\"\n[[links]]\nname = \"l\"\ndelay = \"10ms\"\n{link}\n[[flows]]\nname = \"f\"\nroute = [\"l\"]\nsize = \"100kB\"\n")
    }

    fn load(link: &str, base: &Path) -> Result<crate::spec::Scenario, crate::spec::SpecError> {
        parse_in(&scenario(link), "toml", Some(base))
    }

    const EVERY_MS: &str = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

    #[test]
    fn a_relative_trace_is_read_from_the_base_directory() {
        let d = dir_with("relative", &[("t.trace", EVERY_MS)]);
        let s = load("trace = \"t.trace\"", &d).unwrap();
        let t = s.links[0].trace.as_ref().unwrap();
        assert_eq!((t.looped, t.loaded.as_ref().unwrap().opportunities()), (true, 10));
        let s = load("trace = { file = \"t.trace\", loop = false }", &d).unwrap();
        assert!(!s.links[0].trace.as_ref().unwrap().looped);
    }

    #[test]
    fn trace_errors_name_the_field_the_value_and_the_form() {
        let d = dir_with("errors", &[("t.trace", EVERY_MS), ("down.trace", "5\n3\n"), ("empty.trace", ""), ("word.trace", "1\nten\n")]);
        let cases = [
            ("rate = \"1Mbps\"\ntrace = \"t.trace\"", "links[0].trace", "not both"),
            ("queue = { kind = \"droptail\", limit = \"10p\" }", "links[0].rate", "`rate` (e.g. \"2Mbps\") or `trace`"),
            ("trace = \"nope.trace\"", "links[0].trace", "\"nope.trace\", cannot read"),
            ("trace = \"down.trace\"", "links[0].trace", "line 2: got 3 after 5, expected non-decreasing times"),
            ("trace = \"empty.trace\"", "links[0].trace", "no delivery opportunities"),
            ("trace = \"word.trace\"", "links[0].trace", "line 2: got \"ten\", expected a whole number of milliseconds"),
            ("trace = { file = \"t.trace\", repeat = false }", "links[0].trace.repeat", "unknown field `repeat`"),
            ("trace = \"t.trace\"\nreverse = { trace = \"down.trace\" }", "links[0].reverse.trace", "non-decreasing"),
            ("trace = \"t.trace\"\nreverse = { rate = \"1Mbps\", trace = \"t.trace\" }", "links[0].reverse.trace", "not both"),
            ("trace = \"t.trace\"\narq = { window = \"3p\", attempts = 3 }", "links[0].arq", "trace-driven"),
            ("rate = \"1Mbps\"\narq = { window = \"3p\", attempts = 3 }\nreverse = { trace = \"t.trace\" }", "links[0].reverse.arq", "trace-driven"),
        ];
        for (link, path, words) in cases {
            let e = load(link, &d).unwrap_err();
            assert_eq!(e.path, path, "{link}: {e}");
            assert!(e.message.contains(words), "{link}: {e}");
        }
        // The reverse direction's ARQ may be turned off under a trace.
        load("trace = \"t.trace\"\nreverse = { arq = \"off\", rate = \"1Mbps\" }", &d).unwrap();
    }

    /// A reverse `rate` replaces the link's trace in that direction, and a reverse `trace`
    /// the link's rate; a run over a trace is the same twice.
    #[test]
    fn reverse_overrides_and_runs_repeat_exactly() {
        let d = dir_with("reverse", &[("t.trace", EVERY_MS)]);
        let s = load("trace = \"t.trace\"\nreverse = { rate = \"1Mbps\" }", &d).unwrap();
        let dirs = crate::build::links::link_dirs(&s, 1, Default::default());
        assert!(dirs[0].cfg.trace.is_some() && dirs[1].cfg.trace.is_none());
        assert_eq!((dirs[0].cfg.rate_bps, dirs[1].cfg.rate_bps), (12_000_000, 1_000_000));
        let s = load("rate = \"1Mbps\"\nreverse = { trace = \"t.trace\" }", &d).unwrap();
        let dirs = crate::build::links::link_dirs(&s, 1, Default::default());
        assert!(dirs[0].cfg.trace.is_none() && dirs[1].cfg.trace.is_some());
        let s = load("trace = \"t.trace\"", &d).unwrap();
        let a = crate::run(&s, Some(3)).unwrap();
        let b = crate::run(&s, Some(3)).unwrap();
        assert_eq!(format!("{:?}", a.flows), format!("{:?}", b.flows));
        assert!(a.flows[0].end_s.is_some(), "{:?}", a.flows);
    }

    /// Without a base directory a relative path is the working directory's.
    #[test]
    fn without_a_base_the_working_directory_is_used() {
        let e = from_toml(&scenario("trace = \"surely-not-here.trace\"")).unwrap_err();
        assert_eq!(e.path, "links[0].trace");
    }
}
