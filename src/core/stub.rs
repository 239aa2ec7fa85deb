//! The stub (format v1) that stands in a conversation for an archived result,
//! and the pieces it is made of: summary line, schema hint, preview. All of it
//! is a pure function of the inputs, byte-identical in any process, which is
//! what keeps a provider's prompt cache warm across model calls.

use serde_json::{Map, Value};

use crate::core::text::{ellipsize, take_chars};

/// Header line of every stub.
pub const STUB_HEADER: &str = "[symfonic.tool_memory v1]";
/// Call ids longer than this are shortened in the stub.
const MAX_CALL_ID_CHARS: usize = 64;
/// Cap on the schema line's content.
pub const MAX_SCHEMA_CHARS: usize = 300;
const MAX_SUMMARY_ARGS: usize = 3;
const MAX_ARG_CHARS: usize = 40;
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

/// Renders the v1 stub; optional lines appear only when non-empty.
pub fn render(p: &StubParts) -> String {
    let mut lines: Vec<String> = Vec::with_capacity(7);
    lines.push(STUB_HEADER.to_string());
    lines.push(format!(
        "tool={} call_id={}",
        p.tool_name,
        short_call_id(p.tool_call_id)
    ));
    lines.push(format!(
        "size_original={} chars, archived as mem={}",
        p.size_chars, p.mem_id
    ));
    if let Some(s) = p.schema.filter(|s| !s.is_empty()) {
        lines.push(format!("schema: {s}"));
    }
    lines.push(format!("summary: {}", p.summary));
    if let Some(s) = p.preview.filter(|s| !s.is_empty()) {
        lines.push(format!("preview: {s}"));
    }
    lines.push(format!(
        "To re-expand: call recall_tool_result(mem_id='{}', format=\"full\").  For a slice, pass query=<substring>, offset/max_chars=<range>, or json_path=<path> instead of format=\"full\".",
        p.mem_id
    ));
    lines.join("\n")
}

/// Long provider call ids (some are 1.5 KB) keep their head and tail.
pub fn short_call_id(id: &str) -> String {
    let n = id.chars().count();
    if n <= MAX_CALL_ID_CHARS {
        return id.to_string();
    }
    let head = take_chars(id, 40);
    let tail: String = id.chars().skip(n - 21).collect();
    format!("{head}...{tail}")
}

/// The first `n` code points with line breaks turned to spaces, trimmed.
pub fn preview(text: &str, n: usize) -> String {
    if n == 0 {
        return String::new();
    }
    take_chars(text, n)
        .replace("\r\n", " ")
        .replace(['\n', '\r'], " ")
        .trim()
        .to_string()
}

/// `tool (k='v', n=1, x=[1], ...): shape`, or `tool: shape` without args.
pub fn summary(tool_name: &str, args: Option<&Map<String, Value>>, shape: &str) -> String {
    let mut out = String::from(tool_name);
    if let Some(args) = args.filter(|a| !a.is_empty()) {
        let mut parts: Vec<String> = args
            .iter()
            .take(MAX_SUMMARY_ARGS)
            .map(|(k, v)| format!("{k}={}", arg_repr(v)))
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
    out.replace(['\n', '\r'], " ")
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
                    '\n' => r.push_str("\\n"),
                    '\r' => r.push_str("\\r"),
                    '\t' => r.push_str("\\t"),
                    c => r.push(c),
                }
            }
            r.push('\'');
            r
        }
        other => other.to_string(),
    };
    ellipsize(&s, MAX_ARG_CHARS)
}

/// Summary tail for a text payload: `text result, first line: ...`.
pub fn text_shape(text: &str) -> String {
    let first = text.trim_start().split('\n').next().unwrap_or("").trim_end();
    let shown = take_chars(first, FIRST_LINE_CHARS);
    let more = if shown.len() < first.len() { "..." } else { "" };
    format!("text result, first line: {shown}{more}")
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
