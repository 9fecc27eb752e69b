//! Parsing specs from TOML or JSON text into a validated `Scenario`, with errors that name
//! the field path, the bad value and the expected form.

use super::Scenario;
use std::path::Path;
use thiserror::Error;

/// A spec that cannot run, and why. `path` is the dotted field path (`links[1].rate`), or
/// empty for a syntax error, whose message then carries line and column.
#[derive(Debug, Clone, Error, PartialEq)]
#[error("{}", display(.path, .message))]
pub struct SpecError {
    pub path: String,
    pub message: String,
}

fn display(path: &str, message: &str) -> String {
    if path.is_empty() {
        message.to_string()
    } else {
        format!("{path}: {message}")
    }
}

impl SpecError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        SpecError { path: path.into(), message: message.into() }
    }
}

/// serde_path_to_error writes `links[1].rate`; a top-level error has path `.`.
fn path_of<E>(e: &serde_path_to_error::Error<E>) -> String {
    let p = e.path().to_string();
    if p == "." {
        String::new()
    } else {
        p
    }
}

/// Parses and validates a TOML scenario for the simulator. Syntax errors carry line and
/// column.
pub fn from_toml(text: &str) -> Result<Scenario, SpecError> {
    toml_any_target(text, None)
}

/// Parses and validates a JSON scenario for the simulator (what Python dicts become).
pub fn from_json(text: &str) -> Result<Scenario, SpecError> {
    json_any_target(text, None)
}

/// Parses and validates a scenario for any target (the emulator checks what the kernel can
/// honour itself); `format` is "toml" or "json".
pub fn parse_for_any_target(text: &str, format: &str) -> Result<Scenario, SpecError> {
    parse_in(text, format, None)
}

/// As `parse_for_any_target`, with the directory relative trace files are read from (the
/// scenario file's; `None`: the working directory).
pub fn parse_in(text: &str, format: &str, base: Option<&Path>) -> Result<Scenario, SpecError> {
    match format {
        "toml" => toml_any_target(text, base),
        "json" => json_any_target(text, base),
        other => Err(SpecError::new("", format!("format must be \"toml\" or \"json\", got {other:?}"))),
    }
}

fn toml_any_target(text: &str, base: Option<&Path>) -> Result<Scenario, SpecError> {
    let de = toml::Deserializer::parse(text).map_err(|e| SpecError::new("", toml_message(&e, text)))?;
    let tree = toml::from_str::<serde_json::Value>(text).ok();
    if let Some(t) = &tree {
        super::shape::check(t)?;
    }
    let mut scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = path_of(&e);
        in_user_words(tree.as_ref().and_then(|t| refine_tagged(&path, t)).unwrap_or_else(|| SpecError::new(path, toml_message(e.inner(), text))), tree.as_ref())
    })?;
    super::validate::validate(&scenario)?;
    scenario.load_traces(base)?;
    Ok(scenario)
}

fn json_any_target(text: &str, base: Option<&Path>) -> Result<Scenario, SpecError> {
    let tree = serde_json::from_str::<serde_json::Value>(text).ok();
    if let Some(t) = &tree {
        super::shape::check(t)?;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let mut scenario: Scenario = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = path_of(&e);
        in_user_words(tree.as_ref().and_then(|t| refine_tagged(&path, t)).unwrap_or_else(|| SpecError::new(path, json_message(e.inner()))), tree.as_ref())
    })?;
    super::validate::validate(&scenario)?;
    scenario.load_traces(base)?;
    Ok(scenario)
}

/// `e` with an unknown field answered by the nearest valid one first (`nearest`), and a message
/// that speaks of Rust types replaced by the value and the field's form
/// from the schema (`shape`), when the schema knows the field.
fn in_user_words(e: SpecError, tree: Option<&serde_json::Value>) -> SpecError {
    let e = SpecError { message: super::nearest::nearest_first(&e.message), ..e };
    if !super::shape::speaks_rust(&e.message) {
        return e;
    }
    match tree.and_then(|t| super::shape::plain_message(t, &e.path)) {
        Some(message) => SpecError { message, ..e },
        None => e,
    }
}

fn json_message(e: &serde_json::Error) -> String {
    let mut msg = e.to_string();
    if let Some(i) = msg.find(" at line ") {
        msg.truncate(i);
    }
    msg
}

/// Internally tagged enums (`kind = "..."`) buffer their table, which hides the inner field
/// path from serde_path_to_error. When an error lands on such a table, deserialize it again
/// straight into its variant's struct to find the field. A `loss` table keeps its path unless
/// its `kind` came after the entry in error (`net/channel/table.rs`); its model's table reads
/// it again, `kind` included.
fn refine_tagged(path: &str, tree: &serde_json::Value) -> Option<SpecError> {
    use super::{GeneratorSpec, LossModelKind, QueueSpec};
    let pointer = format!("/{}", path.replace("].", "/").replace('[', "/").replace(']', "").replace('.', "/"));
    let mut table = tree.pointer(&pointer)?.as_object()?.clone();
    if path.ends_with("loss") {
        let kind = LossModelKind::named(table.get("kind")?.as_str()?)?;
        return Some(inner_error(path, &kind.table_error(serde_json::Value::Object(table))?));
    }
    let kind = table.remove("kind")?;
    let value = serde_json::Value::Object(table);
    let error = if path.ends_with("queue") { QueueSpec::table_error(kind.as_str()?, value) } else { GeneratorSpec::table_error(kind.as_str()?, value) };
    Some(inner_error(path, &error?))
}

/// `err`, from reading the table at `path` again, with its field's path.
fn inner_error(path: &str, err: &serde_path_to_error::Error<serde_json::Error>) -> SpecError {
    // An error of the table itself (a missing field) has the path "."; it is the table's.
    let inner = path_of(err);
    SpecError::new(if inner.is_empty() { path.to_string() } else { format!("{path}.{inner}") }, json_message(err.inner()))
}

/// A TOML error as one line: "line L, column C: message".
fn toml_message(e: &toml::de::Error, text: &str) -> String {
    let msg = e.message().trim().to_string();
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().map(|l| l.chars().count()).unwrap_or(0) + 1;
            format!("line {line}, column {col}: {msg}")
        }
        None => msg,
    }
}

/// What a run should say of a spec it accepts: each duration written as a bare number other
/// than 0, read as seconds (`links[0].delay = 70 is read as 70 s …`). `format` is "toml" or
/// "json"; text that does not parse has nothing to say (its errors come from parsing).
pub fn notes(text: &str, format: &str) -> Vec<String> {
    let tree = match format {
        "toml" => toml::from_str::<serde_json::Value>(text).ok(),
        _ => serde_json::from_str::<serde_json::Value>(text).ok(),
    };
    let Some(tree) = tree else {
        return Vec::new();
    };
    super::shape::bare_durations(&tree)
        .into_iter()
        .map(|(path, s)| format!("{path} = {s} is read as {s} s (a bare number is seconds); write \"{s}ms\" if milliseconds were meant"))
        .collect()
}

/// The JSON Schema of a scenario, for editors and docs.
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Scenario);
    serde_json::to_string_pretty(&schema).expect("a schema serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
        duration = "10s"
        [[links]]
        name = "l"
        rate = "1Mbps"
        delay = "10ms"
        [[flows]]
        name = "f"
        route = ["l"]
    "#;

    #[test]
    fn minimal_scenario_loads_with_defaults() {
        let s = from_toml(MINIMAL).unwrap();
        assert_eq!(s.links[0].rate.map(|r| r.bps()), Some(1e6));
        assert_eq!(s.flows[0].tcp().mss(), 1448);
    }

    #[test]
    fn syntax_error_has_line_and_column() {
        let e = from_toml("duration = \"10s\"\n[[links]\n").unwrap_err();
        assert!(e.message.starts_with("line 2, column"), "{e}");
    }

    #[test]
    fn unknown_field_names_its_path() {
        let e = from_toml(&MINIMAL.replace("delay = \"10ms\"", "delay = \"10ms\"\nspeed = 3")).unwrap_err();
        assert_eq!(e.path, "links[0].speed");
        assert!(e.message.contains("unknown field `speed`"), "{e}");
    }

    #[test]
    fn bad_unit_names_path_value_and_form() {
        let e = from_toml(&MINIMAL.replace("1Mbps", "2Mbsp")).unwrap_err();
        assert_eq!(e.path, "links[0].rate");
        assert!(e.message.contains("\"2Mbsp\"") && e.message.contains("expected a positive rate"), "{e}");
    }

    #[test]
    fn errors_inside_tagged_tables_name_the_inner_field() {
        let web = "duration = \"9s\"\n[[links]]\nname = \"l\"\nrate = 1e6\ndelay = 0\n\
                   [[generators]]\nkind = \"web\"\nusers = 2\nsize = \"1kB\"\nthink = \"gamma(1s)\"\nroute = [\"l\"]\n";
        let e = from_toml(web).unwrap_err();
        assert_eq!(e.path, "generators[0].think");
        assert!(e.message.contains("unknown distribution"), "{e}");
        let e = from_toml(&web.replace("think", "thinking")).unwrap_err();
        assert_eq!(e.path, "generators[0].thinking");
        let red = "[[links]]\nname = \"l\"\nrate = 1e6\ndelay = 0\nqueue = { kind = \"red\", limit = \"5p\", q_weight = \"x\" }\n";
        assert_eq!(from_toml(red).unwrap_err().path, "links[0].queue.q_weight");
        // A field missing from a tagged table is the table's error (no empty path segment).
        let e = from_toml(&red.replace("limit = \"5p\", q_weight = \"x\" ", "")).unwrap_err();
        assert_eq!((e.path.as_str(), e.message.contains("missing field `limit`")), ("links[0].queue", true), "{e}");
    }

    #[test]
    fn json_errors_have_paths_too() {
        let e = from_json(r#"{"links": [{"name": "l", "rate": -5, "delay": 0}]}"#).unwrap_err();
        assert_eq!(e.path, "links[0].rate");
    }

    #[test]
    fn schema_mentions_every_top_level_field() {
        let s = json_schema();
        for f in ["links", "flows", "generators", "output", "duration", "seed"] {
            assert!(s.contains(&format!("\"{f}\"")), "{f}");
        }
    }
}
