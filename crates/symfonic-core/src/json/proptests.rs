//! Property tests of the JSON engine: the path parser and the validating index
//! pass never panic whatever they are given, and the pass agrees with
//! serde_json on validity. Case counts are bounded so `cargo test` stays fast.

use proptest::prelude::*;
use serde_json::Value;

use super::{analyze, analyze_with, path, select};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        ..ProptestConfig::default()
    }
}

/// Strings made mostly of path syntax, so the parser's branches are all reached.
fn path_like() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        Just("[".to_string()),
        Just("]".to_string()),
        Just(".".to_string()),
        Just("$".to_string()),
        Just("*".to_string()),
        Just(":".to_string()),
        Just("-".to_string()),
        Just("\"".to_string()),
        Just("'".to_string()),
        Just("\\".to_string()),
        Just(" ".to_string()),
        "[0-9]{1,20}",
        "[a-zé😀]{1,3}",
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(atom, 0..24).prop_map(|v| v.concat())
}

/// Arbitrary JSON values, a few levels deep (serde_json's recursion limit is 128).
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 96, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec((any::<String>(), inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// JSON tokens and a few bytes that are not. Number atoms have no exponent
/// (one could overflow an f64, which serde_json refuses and JSON does not) and
/// no atom starts with `u` (a lone `\uD800` escape, which JSON.parse accepts
/// and serde_json does not).
fn atom() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::sample::select(
            [
                "{", "}", "[", "]", ",", ":", "\"", "\\", " ", "\t", "\n", "-", ".", "+", "/", "x", "true",
                "false", "null", "\u{0}", "\u{1f}", "\u{7f}", "é", "😀",
            ]
            .to_vec()
        )
        .prop_map(|s| s.as_bytes().to_vec()),
        "[0-9]{1,3}".prop_map(String::into_bytes),
        Just(vec![0xff]),
        Just(vec![0xc3]),
    ]
}

/// Byte strings of random atoms (mostly not JSON).
fn json_ish() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(atom(), 0..48).prop_map(|v| v.concat())
}

/// Valid JSON with up to three atoms inserted or overwriting a byte (often
/// still JSON, often just not). The base has no `e` anywhere, so three edits
/// cannot make an out-of-range exponent.
fn mutated_json() -> impl Strategy<Value = Vec<u8>> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-df-z0-9 é😀\\\\\"\n\u{1}]{0,8}".prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(("[a-d0-9]{0,3}", inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    });
    let edits = prop::collection::vec((any::<prop::sample::Index>(), atom(), any::<bool>()), 1..=3);
    (value, any::<bool>(), edits).prop_map(|(v, pretty, edits)| {
        let mut b = if pretty {
            serde_json::to_vec_pretty(&v).unwrap()
        } else {
            serde_json::to_vec(&v).unwrap()
        };
        for (at, a, insert) in edits {
            let i = at.index(b.len() + 1);
            let end = if insert || i == b.len() { i } else { i + 1 };
            b.splice(i..end, a);
        }
        b
    })
}

fn serde_ok(b: &[u8]) -> bool {
    serde_json::from_slice::<Value>(b).is_ok()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn path_parser_never_panics(p in any::<String>()) {
        let _ = path::parse(&p);
    }

    #[test]
    fn path_parser_never_panics_on_path_syntax(p in path_like()) {
        let _ = path::parse(&p);
    }

    #[test]
    fn select_never_panics(v in json_value(), p in path_like()) {
        let text = serde_json::to_string(&v).unwrap();
        let doc = analyze(text.as_bytes()).unwrap();
        let _ = select(text.as_bytes(), &doc.index, &p);
    }

    #[test]
    fn analyze_never_panics_on_arbitrary_bytes(b in prop::collection::vec(any::<u8>(), 0..256)) {
        // Both walks: one thread, and split between two.
        let _ = analyze_with(&b, usize::MAX);
        let _ = analyze_with(&b, 0);
    }

    #[test]
    fn analyze_agrees_with_serde_json_on_json_ish_bytes(b in json_ish()) {
        let ours = analyze_with(&b, usize::MAX).is_some();
        prop_assert_eq!(ours, serde_ok(&b), "{:?}", String::from_utf8_lossy(&b));
        prop_assert_eq!(analyze_with(&b, 0).is_some(), ours);
    }

    #[test]
    fn analyze_agrees_with_serde_json_on_edited_json(b in mutated_json()) {
        let ours = analyze_with(&b, usize::MAX).is_some();
        prop_assert_eq!(ours, serde_ok(&b), "{:?}", String::from_utf8_lossy(&b));
        prop_assert_eq!(analyze_with(&b, 0).is_some(), ours);
    }

    #[test]
    fn every_valid_json_value_is_accepted(v in json_value()) {
        for text in [serde_json::to_string(&v).unwrap(), serde_json::to_string_pretty(&v).unwrap()] {
            let doc = analyze_with(text.as_bytes(), usize::MAX);
            prop_assert!(doc.is_some(), "{}", text);
            prop_assert!(analyze_with(text.as_bytes(), 0).is_some(), "{}", text);
            let doc = doc.unwrap();
            prop_assert!(!doc.outline.schema.contains('\n') && doc.outline.facts.iter().all(|f| !f.text.contains('\n')));
            // The whole document selects as itself.
            prop_assert_eq!(select(text.as_bytes(), &doc.index, "$"), Ok(super::Selection::Node(text.as_bytes())));
        }
    }

    #[test]
    fn cut_json_agrees_with_serde_json(v in json_value(), at in any::<prop::sample::Index>()) {
        let text = serde_json::to_string(&v).unwrap();
        let mut cut = at.index(text.len() + 1);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let prefix = &text.as_bytes()[..cut];
        prop_assert_eq!(analyze_with(prefix, usize::MAX).is_some(), serde_ok(prefix), "{:?}", &text[..cut]);
    }
}
