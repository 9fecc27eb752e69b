//! The input's shape against the scenario's JSON Schema, before serde reads it: a list where
//! a table is expected (which serde's derived code would read as the table's fields in
//! order), a text where a number is expected, a table where a name is expected. Each is one
//! error naming the field path, the value and the expected form in the user's words; the
//! same description of a field's form replaces serde messages that speak of Rust types.
//!
//! Invariant: the check refuses only values no alternative of the schema accepts, so every
//! scenario serde accepts as intended passes it; what it cannot decide (an unknown field, a
//! bad unit inside a text) it leaves to serde and `validate`.

use super::load::SpecError;
use serde_json::Value;

/// The scenario's schema as a JSON tree (built once per process).
fn schema() -> &'static Value {
    static SCHEMA: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(|| serde_json::to_value(schemars::schema_for!(super::Scenario)).expect("a schema serialises"))
}

/// Follows `$ref`s to the schema they name.
fn resolve<'a>(root: &'a Value, mut s: &'a Value) -> &'a Value {
    while let Some(r) = s.get("$ref").and_then(Value::as_str) {
        match r.strip_prefix("#/$defs/").and_then(|name| root.get("$defs")?.get(name)) {
            Some(target) => s = target,
            None => break,
        }
    }
    s
}

fn alternatives(s: &Value) -> Option<&Vec<Value>> {
    s.get("anyOf").or_else(|| s.get("oneOf")).and_then(Value::as_array)
}

fn types(s: &Value) -> Vec<&str> {
    match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether schema `s` could accept `v` by its JSON type alone: a name not in a list of names
/// is serde's to report (it lists the names), not a shape error.
fn accepts(root: &Value, s: &Value, v: &Value) -> bool {
    matches(root, s, v, false)
}

/// Whether schema `s` fits `v`, its `const`, `enum` and `kind` tag included: how the one
/// alternative to look inside is chosen.
fn fits(root: &Value, s: &Value, v: &Value) -> bool {
    matches(root, s, v, true)
}

fn same_type(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

fn matches(root: &Value, s: &Value, v: &Value, strict: bool) -> bool {
    let s = resolve(root, s);
    if let Some(alts) = alternatives(s) {
        return alts.iter().any(|a| matches(root, a, v, strict));
    }
    if let Some(c) = s.get("const") {
        return if strict { c == v } else { same_type(c, v) };
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        return if strict { e.contains(v) } else { e.iter().any(|x| same_type(x, v)) };
    }
    let ts = types(s);
    if ts.is_empty() {
        return true;
    }
    ts.iter().any(|t| match (*t, v) {
        ("object", Value::Object(m)) => !strict || tag_matches(root, s, m),
        ("array", Value::Array(_)) | ("string", Value::String(_)) | ("boolean", Value::Bool(_)) | ("null", Value::Null) => true,
        ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => n.is_u64() || n.is_i64() || n.as_f64().is_some_and(|x| x.fract() == 0.0),
        _ => false,
    })
}

/// A table of an internally tagged enum's variant matches only its own `kind`.
fn tag_matches(root: &Value, s: &Value, m: &serde_json::Map<String, Value>) -> bool {
    match s.get("properties").and_then(|p| p.get("kind")).map(|k| resolve(root, k)).and_then(|k| k.get("const")) {
        Some(tag) => m.get("kind").is_none_or(|k| k == tag),
        None => true,
    }
}

/// What schema `s` expects, in the words of the spec's documentation.
///
/// A named type's one-line description is its form (the units' "a positive rate such as
/// \"2Mbps\" …"); a field's own description is about the field, so it is not used.
pub fn describe(root: &Value, s: &Value) -> String {
    let named = s.get("$ref").is_some();
    let s = resolve(root, s);
    let short = s.get("description").and_then(Value::as_str).filter(|d| named && d.len() <= 120 && !d.contains('\n'));
    if let Some(alts) = alternatives(s) {
        let tags: Vec<String> = alts.iter().filter_map(|a| resolve(root, a).get("properties")?.get("kind")?.get("const")).map(|c| c.to_string()).collect();
        if !tags.is_empty() && tags.len() == alts.len() {
            return format!("a table {{ kind = {}, … }}", tags.join(" | "));
        }
        let mut parts: Vec<String> = alts.iter().filter(|a| resolve(root, a).get("type") != Some(&Value::String("null".into()))).map(|a| describe(root, a)).collect();
        parts.dedup();
        return short.map(String::from).unwrap_or_else(|| parts.join(" or "));
    }
    if let Some(c) = s.get("const") {
        return c.to_string();
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = e.iter().map(Value::to_string).collect();
        return format!("one of {}", names.join(", "));
    }
    let ts = types(s);
    if let Some(d) = short.filter(|_| !ts.contains(&"object")) {
        return d.to_string();
    }
    let words: Vec<&str> = ts
        .iter()
        .filter(|t| **t != "null")
        .map(|t| match *t {
            "object" => "a table { key = value, … }",
            "array" => "a list [ … ]",
            "string" => "a text in quotes",
            "integer" => "a whole number",
            "number" => "a number",
            "boolean" => "true or false",
            _ => "a value",
        })
        .collect();
    if words.is_empty() {
        "a value".to_string()
    } else {
        words.join(" or ")
    }
}

/// The value as the user wrote it, shortened: `the list ["droptail", "5p"]`, `the text "10"`.
pub fn shown(v: &Value) -> String {
    let mut text = v.to_string();
    if text.chars().count() > 60 {
        text = text.chars().take(57).collect::<String>() + "…";
    }
    match v {
        Value::Array(_) => format!("the list {text}"),
        Value::Object(_) => format!("the table {text}"),
        Value::String(_) => format!("the text {text}"),
        _ => text,
    }
}

/// Checks `tree` (the whole scenario as written) against the scenario's schema.
pub fn check(tree: &Value) -> Result<(), SpecError> {
    let root = schema();
    walk(root, root, tree, String::new())
}

fn field(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn walk(root: &Value, s: &Value, v: &Value, path: String) -> Result<(), SpecError> {
    let s = resolve(root, s);
    if !accepts(root, s, v) {
        return Err(SpecError::new(path, format!("got {}, expected {}", shown(v), describe(root, s))));
    }
    if let Some(alts) = alternatives(s) {
        // Go on inside the one alternative that fits; several or none are serde's to tell.
        let fitting: Vec<&Value> = alts.iter().filter(|a| fits(root, a, v)).collect();
        if let [one] = fitting[..] {
            return walk(root, one, v, path);
        }
        return Ok(());
    }
    if let Some(all) = s.get("allOf").and_then(Value::as_array) {
        for part in all {
            walk(root, part, v, path.clone())?;
        }
    }
    match v {
        Value::Object(m) => {
            let props = s.get("properties");
            let extra = s.get("additionalProperties").filter(|a| a.is_object());
            for (k, item) in m {
                if let Some(p) = props.and_then(|p| p.get(k)).or(extra) {
                    walk(root, p, item, field(&path, k))?;
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = s.get("items").filter(|i| i.is_object()) {
                for (i, item) in items.iter().enumerate() {
                    walk(root, item_schema, item, format!("{path}[{i}]"))?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// The schema of the field at `path` (`links[0].queue.limit`) and the value written there,
/// when the schema names the field.
pub fn schema_at(tree: &Value, path: &str) -> Option<(Value, Value)> {
    let root = schema();
    let mut s = root.clone();
    let mut v = tree.clone();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, indices) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        s = step(root, &s, &v, key)?;
        v = v.get(key)?.clone();
        for index in indices.split(']').filter(|x| !x.is_empty()) {
            let i: usize = index.trim_start_matches('[').parse().ok()?;
            s = resolve(root, &s).get("items")?.clone();
            v = v.get(i)?.clone();
        }
    }
    Some((s, v))
}

/// The schema of property `key` of a table `v` under schema `s`: through the one fitting
/// alternative if `s` has several; a tag (`kind`) that fits none is any of the tags.
fn step(root: &Value, s: &Value, v: &Value, key: &str) -> Option<Value> {
    let s = resolve(root, s);
    if let Some(alts) = alternatives(s) {
        let fitting: Vec<&Value> = alts.iter().filter(|a| fits(root, a, v)).collect();
        if let [one] = fitting[..] {
            return step(root, one, v, key);
        }
        let tags: Vec<Value> = alts.iter().filter_map(|a| resolve(root, a).get("properties")?.get(key)?.get("const").cloned()).collect();
        return (key == "kind" && !tags.is_empty()).then(|| serde_json::json!({ "enum": tags }));
    }
    s.get("properties").and_then(|p| p.get(key)).or_else(|| s.get("additionalProperties").filter(|a| a.is_object())).cloned()
}

/// The durations written as bare numbers, other than 0: (path, seconds). A bare number is
/// read as seconds (the schema's forms say so); a run reports them, so that `delay = 70`
/// meant as milliseconds does not pass unseen.
pub fn bare_durations(tree: &Value) -> Vec<(String, f64)> {
    let root = schema();
    let mut found = Vec::new();
    visit(root, root, tree, String::new(), &mut |name, v, path| {
        if let (Some("Duration" | "RandomDuration"), Some(x)) = (name, v.as_f64()) {
            if x != 0.0 {
                found.push((path.to_string(), x));
            }
        }
    });
    found
}

/// Calls `f` with each node's named type (the `$defs` name its schema refers to), value and
/// path, going into tables, lists and the one fitting alternative.
fn visit(root: &Value, s: &Value, v: &Value, path: String, f: &mut dyn FnMut(Option<&str>, &Value, &str)) {
    let name = s.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"));
    f(name, v, &path);
    let s = resolve(root, s);
    if let Some(alts) = alternatives(s) {
        if let [one] = alts.iter().filter(|a| fits(root, a, v)).collect::<Vec<_>>()[..] {
            visit(root, one, v, path, f);
        }
        return;
    }
    match v {
        Value::Object(m) => {
            for (k, item) in m {
                if let Some(p) = s.get("properties").and_then(|p| p.get(k)).or_else(|| s.get("additionalProperties").filter(|a| a.is_object())) {
                    visit(root, p, item, field(&path, k), f);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = s.get("items").filter(|i| i.is_object()) {
                for (i, item) in items.iter().enumerate() {
                    visit(root, item_schema, item, format!("{path}[{i}]"), f);
                }
            }
        }
        _ => {}
    }
}

/// Whether a serde message speaks of Rust types (`struct RedSpec`, `enum InitialWindow`,
/// `u32`), which a user cannot act on.
pub fn speaks_rust(message: &str) -> bool {
    const WORDS: [&str; 15] = ["struct ", "enum ", "u8", "u16", "u32", "u64", "usize", "i32", "i64", "f32", "f64", "sequence", "a map", "variant identifier", "newtype"];
    WORDS.iter().any(|w| message.contains(w))
}

/// The message for an error at `path` of `tree` in the user's words, when the schema knows
/// the field: the value and the expected form.
pub fn plain_message(tree: &Value, path: &str) -> Option<String> {
    let (s, v) = schema_at(tree, path)?;
    Some(format!("got {}, expected {}", shown(&v), describe(schema(), &s)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scenario(link: Value, flow_tcp: Value) -> Value {
        let mut l = json!({"name": "l", "rate": "1Mbps", "delay": "10ms"});
        for (k, v) in link.as_object().unwrap() {
            l[k] = v.clone();
        }
        json!({"links": [l], "flows": [{"name": "f", "route": ["l"], "tcp": flow_tcp}]})
    }

    #[test]
    fn a_list_where_a_table_is_expected_is_refused_with_the_forms() {
        let e = check(&scenario(json!({"queue": ["droptail", "5p"]}), json!({}))).unwrap_err();
        assert_eq!(e.path, "links[0].queue");
        let kinds = crate::net::QueueSpec::NAMES.iter().map(|k| format!("{k:?}")).collect::<Vec<_>>().join(" | ");
        assert!(kinds.starts_with(r#""droptail" | "red" | "codel" | "pie" | "fq_codel""#), "{kinds}");
        assert_eq!(e.message, format!(r#"got the list ["droptail","5p"], expected a table {{ kind = {kinds}, … }}"#));
        let e = check(&scenario(json!({}), json!(["linux"]))).unwrap_err();
        assert_eq!(e.path, "flows[0].tcp");
        assert!(e.message.starts_with(r#"got the list ["linux"], expected a table"#), "{e}");
    }

    #[test]
    fn well_formed_scenarios_pass() {
        check(&scenario(json!({"queue": {"kind": "red", "limit": "50p"}, "spikes": {"interval": "exp(1s)", "length": "1s"}}), json!({"iw": 10, "stack": "linux"}))).unwrap();
        check(&scenario(json!({"delay": 0.07, "rate": 1e6}), json!({"iw": "rfc3390"}))).unwrap();
    }

    #[test]
    fn a_text_where_a_number_is_expected_names_the_form() {
        let tree = scenario(json!({}), json!({"mss": "1000"}));
        let e = check(&tree).unwrap_err();
        assert_eq!((e.path.as_str(), e.message.as_str()), ("flows[0].tcp.mss", r#"got the text "1000", expected a whole number"#));
        assert_eq!(plain_message(&tree, "flows[0].tcp.mss").unwrap(), e.message);
    }

    #[test]
    fn bare_durations_are_found_with_their_paths() {
        let tree = scenario(json!({"delay": 70, "spikes": {"interval": 20, "length": "1s"}}), json!({"min_rto": 0.2, "initial_rto": 0}));
        // In the order of the tree's keys: the document's (serde_json keeps it, as quinn-proto's
        // qlog has it do for the whole build).
        assert_eq!(bare_durations(&tree), vec![("links[0].delay".to_string(), 70.0), ("links[0].spikes.interval".to_string(), 20.0), ("flows[0].tcp.min_rto".to_string(), 0.2)]);
        assert!(bare_durations(&scenario(json!({}), json!({}))).is_empty());
    }

    /// A name that is not one of the allowed names is left to serde, whose message lists them.
    #[test]
    fn unknown_names_are_serdes_to_report() {
        check(&scenario(json!({}), json!({"detect": "all", "cc": "vegas", "iw": "10"}))).unwrap();
        check(&scenario(json!({"queue": {"kind": "sfq"}}), json!({}))).unwrap();
    }

    #[test]
    fn rust_words_are_recognised() {
        assert!(speaks_rust("invalid length 4, expected struct RedSpec with 11 elements"));
        assert!(speaks_rust("data did not match any variant of untagged enum InitialWindow"));
        assert!(!speaks_rust(r#"got "2Mbsp", expected a positive rate"#));
    }
}
