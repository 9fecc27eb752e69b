//! Parsing specs from TOML or JSON text into a validated `Scenario`, with errors that name
//! the field path, the bad value and the expected form.

use super::Scenario;
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

/// Parses and validates a TOML scenario. Syntax errors carry line and column.
pub fn from_toml(text: &str) -> Result<Scenario, SpecError> {
    let de = toml::Deserializer::parse(text).map_err(|e| SpecError::new("", toml_message(&e, text)))?;
    let scenario: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = path_of(&e);
        SpecError::new(path, toml_message(e.inner(), text))
    })?;
    super::validate::validate(&scenario)?;
    Ok(scenario)
}

/// Parses and validates a JSON scenario (what Python dicts are turned into).
pub fn from_json(text: &str) -> Result<Scenario, SpecError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let scenario: Scenario = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = path_of(&e);
        let mut msg = e.inner().to_string();
        if let Some(i) = msg.find(" at line ") {
            msg.truncate(i);
        }
        SpecError::new(path, msg)
    })?;
    super::validate::validate(&scenario)?;
    Ok(scenario)
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
        assert_eq!(s.links[0].rate.bps(), 1e6);
        assert_eq!(s.flows[0].tcp.mss, 1448);
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
