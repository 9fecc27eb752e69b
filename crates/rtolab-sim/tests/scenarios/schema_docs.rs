//! Every field of the scenario schema says what it is: `rtolab schema` is the reference users
//! read, so a field without a description (its unit, default and meaning) is a defect.

use serde_json::Value;

/// The properties without a description under `node`, as dotted paths. A variant's `kind`
/// tag (a single allowed value) is described by its variant, which must carry one.
fn undocumented(node: &Value, path: &str, out: &mut Vec<String>) {
    match node {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                for (name, sub) in props {
                    let described = sub.get("description").and_then(Value::as_str).is_some_and(|d| !d.trim().is_empty());
                    let tag = name == "kind" && (sub.get("const").is_some() || sub.get("enum").and_then(Value::as_array).is_some_and(|e| e.len() == 1));
                    let variant_described = map.get("description").and_then(Value::as_str).is_some_and(|d| !d.trim().is_empty());
                    if !(described || tag && variant_described) {
                        out.push(format!("{path}.{name}"));
                    }
                }
            }
            for (key, sub) in map {
                undocumented(sub, &format!("{path}.{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, sub) in items.iter().enumerate() {
                undocumented(sub, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_schema_property_has_a_description() {
    let schema: Value = serde_json::from_str(&rtolab_sim::spec::json_schema()).unwrap();
    let mut missing = Vec::new();
    undocumented(&schema, "schema", &mut missing);
    assert!(missing.is_empty(), "{} schema properties have no description:\n{}", missing.len(), missing.join("\n"));
}
