//! The nearest valid field for an unknown one: serde's "unknown field `min_rtoo`, expected one
//! of `stack`, `cc`, …" becomes "unknown field `min_rtoo`; did you mean `min_rto`? (the valid
//! fields: `stack`, `cc`, …)", so that a typo is answered first and the list follows.

/// At most this share of a name's characters may differ for it to be offered (normalised
/// Damerau–Levenshtein similarity, `strsim`): `min_rtoo` → `min_rto` is 0.875, `delai` →
/// `delay` 0.8, `speed` against `size` 0.4 (not offered).
const SIMILAR: f64 = 0.6;

/// `message` with the nearest valid field named first, when it is serde's unknown-field
/// message and one valid field is similar enough; otherwise `message` as it is.
pub fn nearest_first(message: &str) -> String {
    let Some((unknown, valid)) = parse_unknown_field(message) else {
        return message.to_string();
    };
    let best = valid
        .iter()
        .map(|v| (strsim::normalized_damerau_levenshtein(&unknown, v), v))
        .filter(|(score, _)| *score >= SIMILAR)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let listed = valid.iter().map(|v| format!("`{v}`")).collect::<Vec<_>>().join(", ");
    match best {
        Some((_, name)) => format!("unknown field `{unknown}`; did you mean `{name}`? (the valid fields: {listed})"),
        None => format!("unknown field `{unknown}`; the valid fields: {listed}"),
    }
}

/// The unknown name and the valid ones from serde's message ("unknown field `x`, expected one
/// of `a`, `b`", "… expected `a` or `b`", "… expected `a`", or "there are no fields").
fn parse_unknown_field(message: &str) -> Option<(String, Vec<String>)> {
    let rest = message.strip_prefix("unknown field `").or_else(|| message.split_once("unknown field `").map(|(_, r)| r))?;
    let (unknown, rest) = rest.split_once('`')?;
    let expected = rest.split_once("expected ")?.1;
    let valid: Vec<String> = expected.split('`').skip(1).step_by(2).map(str::to_string).collect();
    (!valid.is_empty()).then(|| (unknown.to_string(), valid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_is_answered_by_the_nearest_field_then_the_list() {
        let serde = "unknown field `min_rtoo`, expected one of `stack`, `min_rto`, `max_rto`";
        assert_eq!(nearest_first(serde), "unknown field `min_rtoo`; did you mean `min_rto`? (the valid fields: `stack`, `min_rto`, `max_rto`)");
        let two = "unknown field `delai`, expected `delay` or `rate`";
        assert!(nearest_first(two).starts_with("unknown field `delai`; did you mean `delay`?"));
    }

    #[test]
    fn nothing_similar_lists_the_fields_and_other_messages_pass_unchanged() {
        let far = "unknown field `speed`, expected `size` or `route`";
        assert_eq!(nearest_first(far), "unknown field `speed`; the valid fields: `size`, `route`");
        assert_eq!(nearest_first("missing field `name`"), "missing field `name`");
    }
}
