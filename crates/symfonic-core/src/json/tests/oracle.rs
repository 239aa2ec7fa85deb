//! Differential property test against an RFC 9535 oracle (serde_json_path,
//! which passes the whole compliance suite): on random documents, random
//! valid queries (unions, slices, descendants, filters with comparisons,
//! logical operators, nested queries and the five functions) select the same
//! nodes in the same order. Bounded case count, fixed by proptest's config.

use proptest::prelude::*;
use serde_json::Value;
use serde_json_path::JsonPath;

use super::*;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 1000,
        // Fixed, so CI runs the same cases every time; a new oracle bug found
        // by another seed is worked around above, never met in CI at random.
        rng_seed: proptest::test_runner::RngSeed::Fixed(9535),
        ..ProptestConfig::default()
    }
}

/// Small documents over few keys, so that queries hit often.
fn document() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..4).prop_map(Value::from),
        prop_oneof![Just(1.5), Just(-0.5), Just(2.0)].prop_map(Value::from),
        prop_oneof![Just("a"), Just("b"), Just("ab"), Just("xb"), Just("é")].prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(
                (prop_oneof![Just("a"), Just("b"), Just("c"), Just("a b")], inner),
                0..5
            )
            .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}

fn singular_query() -> impl Strategy<Value = String> {
    let step = prop_oneof![
        Just(".a".to_string()),
        Just(".b".to_string()),
        Just("['c']".to_string()),
        Just("[0]".to_string()),
        // No `[-1]`: serde_json_path 0.7 reads a negative index in a filter's
        // singular query as Nothing (`$[?@[-1]==null]` on `[[null]]`); the
        // RFC's answer is tested in rfc.rs.
        Just("[1]".to_string()),
    ];
    (
        prop_oneof![Just("@"), Just("@"), Just("$")],
        prop::collection::vec(step, 0..3),
    )
        .prop_map(|(root, steps)| format!("{root}{}", steps.concat()))
}

fn any_query() -> impl Strategy<Value = String> {
    let step = prop_oneof![
        Just(".a".to_string()),
        Just("[*]".to_string()),
        Just("..b".to_string()),
        Just("[0,1]".to_string()),
        Just("[1:]".to_string()),
    ];
    (
        prop_oneof![Just("@"), Just("$")],
        prop::collection::vec(step, 1..3),
    )
        .prop_map(|(root, steps)| format!("{root}{}", steps.concat()))
}

fn literal() -> impl Strategy<Value = String> {
    prop_oneof![
        (-2i64..4).prop_map(|n| n.to_string()),
        Just("1.5".to_string()),
        Just("'a'".to_string()),
        Just("\"ab\"".to_string()),
        Just("true".to_string()),
        Just("null".to_string()),
    ]
}

fn comparable() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => literal(),
        3 => singular_query(),
        1 => singular_query().prop_map(|q| format!("length({q})")),
        1 => any_query().prop_map(|q| format!("count({q})")),
        1 => any_query().prop_map(|q| format!("value({q})")),
    ]
}

/// A filter as we are asked it, and as the oracle is asked it: serde_json_path
/// 0.7 answers `<=`/`>=` false when both sides are absent, where RFC 9535
/// (2.3.5.2.2, and its table's `$.absent1 <= $.absent2`) defines them as
/// `<` or `==`, so the oracle gets that definition spelled out.
fn filter() -> impl Strategy<Value = (String, String)> {
    let op = prop_oneof![
        Just("=="),
        Just("!="),
        Just("<"),
        Just("<="),
        Just(">"),
        Just(">=")
    ];
    let same = |s: String| (s.clone(), s);
    let basic = prop_oneof![
        4 => (comparable(), op, comparable()).prop_map(|(a, o, b)| {
            let ours = format!("{a}{o}{b}");
            match o {
                "<=" => (ours, format!("({a}<{b} || {a}=={b})")),
                ">=" => (ours, format!("({b}<{a} || {a}=={b})")),
                _ => (ours.clone(), ours),
            }
        }),
        2 => singular_query().prop_map(same),
        1 => any_query().prop_map(same),
        1 => (singular_query(), prop_oneof![Just("a.*"), Just("b"), Just("[a-x]b"), Just(".")])
            .prop_map(move |(q, r)| same(format!("match({q}, '{r}')"))),
        1 => (singular_query(), prop_oneof![Just("a"), Just("b$"), Just("^x")])
            .prop_map(move |(q, r)| same(format!("search({q}, '{r}')"))),
    ];
    basic.prop_recursive(2, 8, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| (format!("{} && {}", a.0, b.0), format!("{} && {}", a.1, b.1))),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| (format!("{} || {}", a.0, b.0), format!("{} || {}", a.1, b.1))),
            inner
                .clone()
                .prop_map(|a| (format!("!({})", a.0), format!("!({})", a.1))),
        ]
    })
}

/// A query as we are asked it, and as the oracle is (see `filter`).
fn query() -> impl Strategy<Value = (String, String)> {
    let same = |s: &str| (s.to_string(), s.to_string());
    let selector = prop_oneof![
        3 => Just(same("'a'")),
        1 => Just(same("'c'")),
        2 => Just(same("*")),
        2 => (-3i64..3).prop_map(|i| (i.to_string(), i.to_string())),
        2 => (prop::option::of(-3i64..4), prop::option::of(-3i64..4), prop::option::of(-2i64..3))
            .prop_map(|(a, b, c)| {
                let show = |x: Option<i64>| x.map(|v| v.to_string()).unwrap_or_default();
                let s = match c {
                    Some(c) => format!("{}:{}:{c}", show(a), show(b)),
                    None => format!("{}:{}", show(a), show(b)),
                };
                (s.clone(), s)
            }),
        4 => filter().prop_map(|(f, g)| (format!("?{f}"), format!("?{g}"))),
    ];
    let bracket = |prefix: &'static str| {
        move |s: Vec<(String, String)>| {
            let (ours, theirs): (Vec<String>, Vec<String>) = s.into_iter().unzip();
            (
                format!("{prefix}[{}]", ours.join(",")),
                format!("{prefix}[{}]", theirs.join(",")),
            )
        }
    };
    let segment = prop_oneof![
        2 => Just(same(".a")),
        1 => Just(same(".*")),
        1 => Just(same("..b")),
        1 => Just(same("..*")),
        4 => prop::collection::vec(selector.clone(), 1..3).prop_map(bracket("")),
        2 => prop::collection::vec(selector, 1..3).prop_map(bracket("..")),
    ];
    prop::collection::vec(segment, 1..4).prop_map(|s| {
        let (ours, theirs): (Vec<String>, Vec<String>) = s.into_iter().unzip();
        (format!("${}", ours.concat()), format!("${}", theirs.concat()))
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn queries_select_what_the_oracle_selects(document in document(), (q, theirs) in query()) {
        let oracle = JsonPath::parse(&theirs).unwrap_or_else(|e| panic!("oracle rejects {theirs}: {e}"));
        let want: Vec<Value> = oracle.query(&document).all().into_iter().cloned().collect();
        let text = serde_json::to_string(&document).unwrap();
        let d = doc(&text);
        let got: Vec<Value> = match select(text.as_bytes(), &d.index, &q) {
            Ok(Selection::Node(t)) => vec![serde_json::from_slice(t).unwrap()],
            Ok(Selection::Many(t)) => serde_json::from_slice(&t).unwrap(),
            Err(m) => {
                prop_assert!(m.contains("' not found: "), "{q} on {text}: {m}");
                Vec::new()
            }
        };
        prop_assert_eq!(got, want, "{} on {}", q, text);
    }
}
