//! The RFC 9535 compliance test suite (fixtures/jsonpath-cts): every valid
//! query answers the RFC's nodes in this package's shape (a singular query
//! its one node or "not found", any other a JSON array of the nodes), every
//! invalid one a structured `[recall: invalid json_path …]`, except the
//! deliberate leniencies listed in docs/jsonpath.md.

use serde_json::Value;

use super::*;

/// CTS cases the RFC rejects and this package accepts (docs/jsonpath.md).
pub(crate) const LENIENT: &[&str] = &[
    "basic, no leading whitespace",
    "basic, no trailing whitespace",
    "basic, name shorthand, number",
];

fn cases() -> Vec<Value> {
    let text = include_str!("../../../../../fixtures/jsonpath-cts/cts.json");
    let cts: Value = serde_json::from_str(text).unwrap();
    cts["tests"].as_array().unwrap().clone()
}

/// What the package answers for `selector` on `document`, as a nodelist, or
/// `Err` with the message of an invalid query.
fn answer(document: &Value, selector: &str) -> Result<Vec<Value>, String> {
    let text = serde_json::to_string(document).unwrap();
    let d = doc(&text);
    let singular = path::parse(selector).map(|q| q.is_singular()).unwrap_or(false);
    match select(text.as_bytes(), &d.index, selector) {
        Ok(Selection::Node(t)) => {
            assert!(singular, "{selector}: a bare node for a non-singular query");
            Ok(vec![serde_json::from_slice(t).unwrap()])
        }
        Ok(Selection::Many(t)) => {
            assert!(!singular, "{selector}: an array for a singular query");
            match serde_json::from_slice(&t).unwrap() {
                Value::Array(v) => Ok(v),
                other => panic!("{selector}: {other}"),
            }
        }
        Err(m) if singular && m.contains("' not found: ") => Ok(Vec::new()),
        Err(m) => Err(m),
    }
}

#[test]
fn cts_valid_queries_answer_the_rfc_nodes() {
    let mut failed = Vec::new();
    let mut valid = 0;
    for case in cases() {
        if case["invalid_selector"] == Value::Bool(true) {
            continue;
        }
        valid += 1;
        let name = case["name"].as_str().unwrap();
        let selector = case["selector"].as_str().unwrap();
        let wants: Vec<Value> = match case.get("results") {
            Some(Value::Array(r)) => r.clone(),
            _ => vec![case["result"].clone()],
        };
        match answer(&case["document"], selector) {
            Ok(got) if wants.iter().any(|w| w.as_array() == Some(&got)) => {}
            other => failed.push(format!("{name}: {selector:?} → {other:?}, want {}", wants[0])),
        }
    }
    assert_eq!(valid, 456);
    assert!(
        failed.is_empty(),
        "{} of {valid} failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn cts_invalid_queries_get_a_structured_answer() {
    let mut failed = Vec::new();
    let mut invalid = 0;
    for case in cases() {
        if case["invalid_selector"] != Value::Bool(true) {
            continue;
        }
        invalid += 1;
        let name = case["name"].as_str().unwrap();
        let selector = case["selector"].as_str().unwrap();
        let got = answer(&serde_json::json!({"a": [1, {"b": 2}]}), selector);
        let rejected = matches!(&got, Err(m) if m.starts_with("[recall: invalid json_path '") && m.contains(" at character "));
        if rejected == LENIENT.contains(&name) {
            failed.push(format!("{name}: {selector:?} → {got:?}"));
        }
    }
    assert_eq!(invalid, 247);
    assert!(LENIENT.len() <= 15);
    assert!(
        failed.is_empty(),
        "{} of {invalid}:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// Normalized Paths (RFC 9535 §2.7) of every node of every valid query equal
/// the suite's `result_paths`; a nodelist is explained instead of `[]` only
/// when the RFC's answer is empty.
#[test]
fn cts_normalized_paths_and_explanations() {
    let (mut failed, mut checked, mut explained) = (Vec::new(), 0, 0);
    for case in cases() {
        if case["invalid_selector"] == Value::Bool(true) {
            continue;
        }
        let name = case["name"].as_str().unwrap();
        let selector = case["selector"].as_str().unwrap();
        let wants: Vec<Value> = match (case.get("result_paths"), case.get("results_paths")) {
            (Some(p), _) => vec![p.clone()],
            (_, Some(Value::Array(p))) => p.clone(),
            _ => continue,
        };
        let text = serde_json::to_string(&case["document"]).unwrap();
        let d = doc(&text);
        let got: Vec<Value> = match crate::json::resolve(text.as_bytes(), &d.index, selector) {
            Ok(crate::json::Resolved::Node(n)) => vec![Value::String(crate::json::normalized_path(
                text.as_bytes(),
                &d.index,
                n,
            ))],
            Ok(crate::json::Resolved::Nodes(ns)) => ns
                .iter()
                .map(|&n| Value::String(crate::json::normalized_path(text.as_bytes(), &d.index, n)))
                .collect(),
            Err(m) if m.contains(" not found: ") || m.contains(" selects nothing: ") => {
                explained += usize::from(m.contains(" selects nothing: "));
                Vec::new()
            }
            Err(m) => {
                failed.push(format!("{name}: {selector:?} → {m}"));
                continue;
            }
        };
        checked += 1;
        if !wants.iter().any(|w| w.as_array() == Some(&got)) {
            failed.push(format!("{name}: {selector:?} → {got:?}, want {}", wants[0]));
        }
    }
    assert_eq!(checked, 456);
    assert!(explained > 0);
    assert!(
        failed.is_empty(),
        "{} failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
