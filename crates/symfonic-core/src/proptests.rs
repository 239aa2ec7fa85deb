//! Property tests of the stub: whatever the tool name, arguments, call id and
//! payload (tool servers name tools freely, models write arguments), building
//! it never panics and every line of it is one line with no control character.
//! Case counts are bounded so `cargo test` stays fast.

use proptest::prelude::*;
use serde_json::{Map, Value};

use crate::display;
use crate::ledger::{Ledger, LedgerConfig, RecordRequest};
use crate::outline::Fact;
use crate::stub::{self, MAX_CALL_ID_CHARS, MAX_SCHEMA_CHARS, MAX_TOOL_NAME_CHARS};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 192,
        ..ProptestConfig::default()
    }
}

/// Text rich in what could break a line: controls, U+2028/9, quotes, backslashes.
fn nasty_string(max: usize) -> impl Strategy<Value = String> {
    let c = prop_oneof![
        3 => any::<char>(),
        2 => prop::sample::select(vec![
            '\n', '\r', '\t', '\u{0}', '\u{b}', '\u{c}', '\u{1b}', '\u{7f}', '\u{85}', '\u{9f}',
            '\u{2028}', '\u{2029}', '\\', '\'', '"', ' ', 'é', '😀', '{', '[',
        ]),
        2 => prop::char::range('a', 'z'),
    ];
    prop::collection::vec(c, 0..max).prop_map(|v| v.into_iter().collect())
}

fn arg_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<f64>().prop_map(Value::from),
        nasty_string(60).prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((nasty_string(12), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

fn args() -> impl Strategy<Value = Option<Map<String, Value>>> {
    prop::option::of(
        prop::collection::vec((nasty_string(80), arg_value()), 0..6).prop_map(|kv| kv.into_iter().collect()),
    )
}

/// Payloads: free text, or JSON whose keys and strings are nasty.
fn payload() -> impl Strategy<Value = String> {
    prop_oneof![
        nasty_string(400),
        arg_value().prop_map(|v| serde_json::to_string(&v).unwrap()),
        prop::collection::vec((nasty_string(20), arg_value()), 0..4)
            .prop_map(|kv| serde_json::to_string(&vec![Value::Object(kv.into_iter().collect()); 3]).unwrap()),
    ]
}

fn is_breaking(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

fn check_stub(s: &str, optional_lines: usize) -> Result<(), TestCaseError> {
    let lines: Vec<&str> = s.split('\n').collect();
    prop_assert!(
        (5..=5 + optional_lines).contains(&lines.len()),
        "{} lines: {:?}",
        lines.len(),
        s
    );
    let v1 = lines[0] == stub::STUB_HEADER_V1;
    prop_assert!(v1 || lines[0] == stub::STUB_HEADER, "{:?}", lines[0]);
    for line in &lines {
        prop_assert!(!line.chars().any(is_breaking), "{:?}", line);
    }
    let tool = lines[1];
    prop_assert!(tool.starts_with("tool="));
    prop_assert!(
        tool.chars().count() <= "tool= call_id=".len() + MAX_TOOL_NAME_CHARS + MAX_CALL_ID_CHARS,
        "{:?}",
        tool
    );
    if v1 {
        prop_assert!(lines[2].starts_with("size_original="));
        prop_assert!(lines.last().unwrap().starts_with("To re-expand: "));
    } else {
        prop_assert!(lines[2].starts_with("mem="));
        prop_assert!(lines[3].starts_with("summary: "));
        prop_assert!(lines
            .last()
            .unwrap()
            .starts_with("To read more: recall_tool_result(mem_id="));
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn recorded_stubs_are_single_line_fields(
        tool_name in nasty_string(300),
        call_id in nasty_string(200),
        tool_args in args(),
        content in payload(),
        preview_chars in 0usize..300,
    ) {
        let ledger = Ledger::new(LedgerConfig { preview_chars, ..LedgerConfig::default() });
        let h = ledger
            .record(RecordRequest {
                namespace: String::new(),
                tool_call_id: call_id.clone(),
                tool_name: tool_name.clone(),
                tool_args,
                content: crate::text::Payload::Utf8(content),
            })
            .unwrap();
        check_stub(&h.stub, 5)?;
        prop_assert!(!h.summary.chars().any(is_breaking), "{:?}", h.summary);
        prop_assert!(!h.preview.as_deref().unwrap_or("").chars().any(is_breaking));
        if let Some(schema) = &h.schema {
            prop_assert!(!schema.chars().any(is_breaking));
            prop_assert!(schema.chars().count() <= MAX_SCHEMA_CHARS);
        }
        // The handle keeps what it was given, whole.
        prop_assert_eq!(&h.tool_name, &tool_name);
        prop_assert_eq!(&h.tool_call_id, &call_id);
        let longer = ledger.stub("", &h.mem_id, Some(preview_chars + 50)).unwrap();
        check_stub(&longer, 5)?;
    }

    #[test]
    fn render_puts_any_field_on_one_line(
        tool_name in nasty_string(300),
        call_id in nasty_string(200),
        mem_id in nasty_string(20),
        schema in nasty_string(400),
        summary in nasty_string(300),
        preview in nasty_string(300),
        fact in nasty_string(400),
        recall in nasty_string(200),
        size_chars in any::<usize>(),
    ) {
        let parts = stub::StubParts {
            tool_name: &tool_name,
            tool_call_id: &call_id,
            mem_id: &mem_id,
            size_chars,
            schema: Some(&schema),
            summary: &summary,
            preview: Some(&preview),
        };
        let facts = [Fact { label: "data", text: fact.clone() }, Fact { label: "last lines", text: fact }];
        // Only the fields' own line breaks could add lines, and they are escaped.
        check_stub(&stub::render(&parts, &facts, &[recall.clone(), recall]), 5)?;
        check_stub(&stub::v1::render(&parts), 2)?;
    }

    #[test]
    fn one_line_caps_escapes_and_is_idempotent(s in nasty_string(200), max in 3usize..100, tail in 0usize..30) {
        let tail = tail.min(max - 3);
        let out = display::one_line(&s, max, tail);
        prop_assert!(out.chars().count() <= max, "{:?} -> {:?}", s, out);
        prop_assert!(!out.chars().any(is_breaking));
        prop_assert_eq!(display::one_line(&out, max, tail), out.clone());
        if s.chars().count() <= max && !s.chars().any(is_breaking) {
            prop_assert_eq!(out, s);
        }
    }
}
