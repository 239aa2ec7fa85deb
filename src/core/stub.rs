//! The stub (format v1) that stands in a conversation for an archived result,
//! and the pieces it is made of: summary line, schema hint, preview. All of it
//! is a pure function of the inputs, byte-identical in any process, which is
//! what keeps a provider's prompt cache warm across model calls.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::core::text::{ellipsize, take_chars};

/// Header line of every stub.
pub const STUB_HEADER: &str = "[symfonic.tool_memory v1]";
/// Call ids longer than this (in code points, once escaped) keep their first
/// 40 and last 21 code points around `...` in the stub.
pub const MAX_CALL_ID_CHARS: usize = 64;
/// Tool names longer than this (in code points, once escaped) are cut to 125
/// plus `...` in the stub and the summary; tool servers (MCP) name tools freely.
pub const MAX_TOOL_NAME_CHARS: usize = 128;
/// Cap on the schema line's content.
pub const MAX_SCHEMA_CHARS: usize = 300;
const MAX_SUMMARY_ARGS: usize = 3;
/// Cap on one argument's value in the summary, in code points.
const MAX_ARG_CHARS: usize = 40;
/// Cap on one argument's name in the summary, in code points (once escaped).
pub const MAX_ARG_KEY_CHARS: usize = 64;
const FIRST_LINE_CHARS: usize = 100;

/// What a stub shows.
pub struct StubParts<'a> {
    pub tool_name: &'a str,
    pub tool_call_id: &'a str,
    pub mem_id: &'a str,
    pub size_chars: usize,
    pub schema: Option<&'a str>,
    pub summary: &'a str,
    pub preview: Option<&'a str>,
}

/// Renders the v1 stub; optional lines appear only when non-empty. Every field
/// is put on one line here (see `escape_controls`) and the tool name, call id
/// and schema are capped, whatever the caller built them from: a stub line
/// can never be forged by a field. (Escaping is idempotent, so fields built by
/// `summary`/`preview` come out unchanged.)
pub fn render(p: &StubParts) -> String {
    let mut lines: Vec<String> = Vec::with_capacity(7);
    lines.push(STUB_HEADER.to_string());
    lines.push(format!(
        "tool={} call_id={}",
        tool_name(p.tool_name),
        short_call_id(p.tool_call_id)
    ));
    lines.push(format!(
        "size_original={} chars, archived as mem={}",
        p.size_chars,
        escape_controls(p.mem_id)
    ));
    if let Some(s) = p.schema.filter(|s| !s.is_empty()) {
        lines.push(format!("schema: {}", one_line(s, MAX_SCHEMA_CHARS, 0)));
    }
    lines.push(format!("summary: {}", escape_controls(p.summary)));
    if let Some(s) = p.preview.filter(|s| !s.is_empty()) {
        lines.push(format!("preview: {}", escape_controls(s)));
    }
    lines.push(format!(
        "To re-expand: call recall_tool_result(mem_id='{}', format=\"full\").  For a slice, pass query=<substring>, offset/max_chars=<range>, or json_path=<path> instead of format=\"full\".",
        escape_controls(p.mem_id)
    ));
    lines.join("\n")
}

/// Whether `c` would break or hide a stub line: C0 and C1 controls, DEL, and
/// the two characters JS and some models treat as line breaks (U+2028, U+2029).
fn needs_escape(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// Code points `c` takes once escaped.
fn escaped_len(c: char) -> usize {
    match c {
        '\n' | '\r' | '\t' => 2,
        c if needs_escape(c) => {
            // `\u{` + lowercase hex digits + `}`
            let digits = (32 - (c as u32).leading_zeros()).div_ceil(4).max(1) as usize;
            4 + digits
        }
        _ => 1,
    }
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if needs_escape(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

/// `s` on one line: `\n`, `\r`, `\t` as those two-character escapes, other C0/C1
/// controls, DEL, U+2028 and U+2029 as `\u{..}`; all other text (non-ASCII
/// included) as is. Backslashes are not doubled, so ordinary text is unchanged
/// and escaping twice changes nothing.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// `s` escaped (see `escape_controls`) in at most `max` code points: when
/// longer, its head and its last `tail` code points around `...`. Cuts fall
/// between characters, never inside one or inside an escape. `max` must be
/// at least `tail + 3`.
pub fn one_line(s: &str, max: usize, tail: usize) -> String {
    debug_assert!(max >= tail + 3);
    // Cheap exit before counting: every code point takes one byte or more.
    if s.len() <= max && !s.chars().any(needs_escape) {
        return s.to_string();
    }
    let mut total = 0usize;
    for c in s.chars() {
        total += escaped_len(c);
        if total > max {
            break;
        }
    }
    if total <= max {
        return escape_controls(s).into_owned();
    }
    let head_budget = max.saturating_sub(3 + tail);
    let mut out = String::new();
    let mut used = 0;
    let mut head_end = 0;
    for (i, c) in s.char_indices() {
        let n = escaped_len(c);
        if used + n > head_budget {
            break;
        }
        used += n;
        push_escaped(&mut out, c);
        head_end = i + c.len_utf8();
    }
    out.push_str("...");
    // The tail never overlaps the head: together they are shorter than `s`.
    let mut tail_start = s.len();
    let mut used = 0;
    for (i, c) in s.char_indices().rev() {
        let n = escaped_len(c);
        if used + n > tail || i < head_end {
            break;
        }
        used += n;
        tail_start = i;
    }
    for c in s[tail_start..].chars() {
        push_escaped(&mut out, c);
    }
    out
}

/// A tool name as the stub and summary show it: one line, at most
/// `MAX_TOOL_NAME_CHARS` code points.
pub fn tool_name(name: &str) -> String {
    one_line(name, MAX_TOOL_NAME_CHARS, 0)
}

/// Long provider call ids (some are 1.5 KB) keep their head and tail; at most
/// `MAX_CALL_ID_CHARS` code points, on one line.
pub fn short_call_id(id: &str) -> String {
    one_line(id, MAX_CALL_ID_CHARS, 21)
}

/// The first `n` code points with line breaks turned to spaces, trimmed, and
/// any other control character escaped (so up to 8 code points each).
pub fn preview(text: &str, n: usize) -> String {
    if n == 0 {
        return String::new();
    }
    let flat = take_chars(text, n)
        .replace("\r\n", " ")
        .replace(['\n', '\r'], " ");
    escape_controls(flat.trim()).into_owned()
}

/// `tool (k='v', n=1, x=[1], ...): shape`, or `tool: shape` without args; one line.
pub fn summary(tool_name: &str, args: Option<&Map<String, Value>>, shape: &str) -> String {
    let mut out = self::tool_name(tool_name);
    if let Some(args) = args.filter(|a| !a.is_empty()) {
        let mut parts: Vec<String> = args
            .iter()
            .take(MAX_SUMMARY_ARGS)
            .map(|(k, v)| format!("{}={}", one_line(k, MAX_ARG_KEY_CHARS, 0), arg_repr(v)))
            .collect();
        if args.len() > MAX_SUMMARY_ARGS {
            parts.push("...".into());
        }
        out.push_str(" (");
        out.push_str(&parts.join(", "));
        out.push(')');
    }
    out.push_str(": ");
    out.push_str(shape);
    escape_controls(&out).into_owned()
}

/// A Python-repr-like rendering of one argument, on one line, cut to 40 code points.
fn arg_repr(v: &Value) -> String {
    let s = match v {
        Value::String(s) => {
            let mut r = String::with_capacity(s.len() + 2);
            r.push('\'');
            for c in s.chars() {
                match c {
                    '\\' => r.push_str("\\\\"),
                    '\'' => r.push_str("\\'"),
                    c => push_escaped(&mut r, c),
                }
            }
            r.push('\'');
            r
        }
        // serde_json escapes C0 controls in strings, but not DEL, C1 or U+2028/9.
        other => escape_controls(&other.to_string()).into_owned(),
    };
    ellipsize(&s, MAX_ARG_CHARS)
}

/// Summary tail for a text payload: `text result, first line: ...` (the first
/// 100 code points of the first non-blank line, control characters escaped).
pub fn text_shape(text: &str) -> String {
    let first = text.trim_start().split('\n').next().unwrap_or("").trim_end();
    let shown = take_chars(first, FIRST_LINE_CHARS);
    let more = if shown.len() < first.len() { "..." } else { "" };
    format!("text result, first line: {}{more}", escape_controls(shown))
}

/// Schema hint for a text payload: `text: lines=N` (lines as Python's `splitlines` counts `\n`-separated ones).
pub fn text_schema(text: &str) -> String {
    if text.is_empty() {
        return "text: lines=0".into();
    }
    let nl = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    let lines = nl + usize::from(!text.ends_with('\n'));
    format!("text: lines={lines}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stub_matches_the_v1_format_exactly() {
        let s = render(&StubParts {
            tool_name: "get_keepa_data",
            tool_call_id: "call_1",
            mem_id: "trm_0123456789ab",
            size_chars: 12345,
            schema: Some("table: rows=300 cols=6 [asin,price,bsr,a,b,...]"),
            summary: "get_keepa_data (asin='B07XY'): tabular result, 300 rows / 6 cols",
            preview: Some("[{\"asin\": 1}]"),
        });
        let want = "[symfonic.tool_memory v1]\n\
tool=get_keepa_data call_id=call_1\n\
size_original=12345 chars, archived as mem=trm_0123456789ab\n\
schema: table: rows=300 cols=6 [asin,price,bsr,a,b,...]\n\
summary: get_keepa_data (asin='B07XY'): tabular result, 300 rows / 6 cols\n\
preview: [{\"asin\": 1}]\n\
To re-expand: call recall_tool_result(mem_id='trm_0123456789ab', format=\"full\").  For a slice, pass query=<substring>, offset/max_chars=<range>, or json_path=<path> instead of format=\"full\".";
        assert_eq!(s, want);
    }

    #[test]
    fn optional_lines_are_omitted_when_empty() {
        let s = render(&StubParts {
            tool_name: "t",
            tool_call_id: "c",
            mem_id: "trm_000000000000",
            size_chars: 0,
            schema: None,
            summary: "t: text result, first line: ",
            preview: Some(""),
        });
        assert!(!s.contains("schema:"));
        assert!(!s.contains("preview:"));
        assert_eq!(s.lines().count(), 5);
    }

    #[test]
    fn summary_shows_three_args_then_ellipsis() {
        let args = json!({"asin": "B07XY", "domain": 1, "x": [1], "y": true});
        let s = summary(
            "get_keepa_data",
            args.as_object(),
            "tabular result, 300 rows / 6 cols",
        );
        assert_eq!(
            s,
            "get_keepa_data (asin='B07XY', domain=1, x=[1], ...): tabular result, 300 rows / 6 cols"
        );
        assert_eq!(summary("t", None, "5 chars"), "t: 5 chars");
        let long = json!({"q": "x".repeat(100), "nl": "a\nb'c"});
        let s = summary("t", long.as_object(), "s");
        assert!(s.contains(&format!("q='{}...", "x".repeat(36))), "{s}");
        assert!(s.contains("nl='a\\nb\\'c'"), "{s}");
    }

    #[test]
    fn long_call_ids_are_shortened() {
        let id = "x".repeat(1500);
        let s = short_call_id(&id);
        assert_eq!(s.chars().count(), 64);
        assert_eq!(short_call_id("call_abc"), "call_abc");
    }

    #[test]
    fn preview_flattens_newlines_and_counts_code_points() {
        assert_eq!(preview("a\nb\r\nc😀😀  ", 7), "a b c😀");
        assert_eq!(preview("  x\n", 200), "x");
        assert_eq!(preview("abc", 0), "");
    }

    #[test]
    fn text_shape_and_schema() {
        assert_eq!(text_shape("hello\nworld"), "text result, first line: hello");
        let long = "é".repeat(150);
        assert_eq!(
            text_shape(&long),
            format!("text result, first line: {}...", "é".repeat(100))
        );
        assert_eq!(text_schema("a\nb\nc"), "text: lines=3");
        assert_eq!(text_schema("a\nb\n"), "text: lines=2");
        assert_eq!(text_schema(""), "text: lines=0");
    }
}
