//! The stub that stands in a conversation for an archived result (format v2),
//! and the pieces it is made of: the summary line, the outline's lines (see
//! `crate::outline`), the preview, the recall line. All of it is a pure
//! function of the inputs, byte-identical in any process, which is what keeps
//! a provider's prompt cache warm across model calls. Entries recorded with
//! the v1 format keep it (`v1`), so a conversation's stubs never change.

use serde_json::{Map, Value};

use crate::display::{escape_controls, one_line, push_escaped};
use crate::outline::{visible_text, Fact, Outline, PreviewStyle, FACT_CHARS};
use crate::text::ellipsize;

pub mod v1;

pub use v1::STUB_HEADER_V1;

/// Header line of every new stub.
pub const STUB_HEADER: &str = "[symfonic.tool_memory v2]";
/// Call ids longer than this (in code points, once escaped) keep their first
/// 40 and last 21 code points around `...` in the stub.
pub const MAX_CALL_ID_CHARS: usize = 64;
/// Tool names longer than this (in code points, once escaped) are cut to 125
/// plus `...` in the stub and the summary; tool servers (MCP) name tools freely.
pub const MAX_TOOL_NAME_CHARS: usize = 128;
/// Cap on the schema line's content.
pub const MAX_SCHEMA_CHARS: usize = 300;
/// Cap on a fact line's content.
pub const MAX_FACT_CHARS: usize = FACT_CHARS;
/// Cap on the recall line's suggested arguments.
const MAX_RECALL_ARGS_CHARS: usize = 160;
/// A log's preview is at most this long at the default preview length: its
/// facts already carry the time range and the last lines.
const LOG_PREVIEW_CHARS: usize = 120;
const MAX_SUMMARY_ARGS: usize = 3;
/// Cap on one argument's value in the summary, in code points.
const MAX_ARG_CHARS: usize = 40;
/// Cap on one argument's name in the summary, in code points (once escaped).
pub const MAX_ARG_KEY_CHARS: usize = 64;

/// Whether `s` is a stub of any version this package writes (by its header).
pub fn is_stub_text(s: &str) -> bool {
    s.starts_with(STUB_HEADER) || s.starts_with(STUB_HEADER_V1)
}

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

/// Renders the v2 stub:
///
/// ```text
/// [symfonic.tool_memory v2]
/// tool=<name> call_id=<id>
/// mem=<mem_id> size=<N> chars
/// summary: <tool> (<args>): <shape>
/// schema: <structure>
/// <label>: <fact>                 (zero or more)
/// preview: <head>
/// To read more: recall_tool_result(mem_id="<mem_id>", <args>)[, or <args>]
/// ```
///
/// Optional lines appear only when non-empty. Every field is put on one line
/// here (see `escape_controls`) and capped, whatever the caller built it
/// from: a stub line can never be forged by a field.
pub fn render(p: &StubParts, facts: &[Fact], recall: &[String]) -> String {
    let mem = escape_controls(p.mem_id);
    let mut lines: Vec<String> = Vec::with_capacity(8 + facts.len());
    lines.push(STUB_HEADER.to_string());
    lines.push(format!(
        "tool={} call_id={}",
        tool_name(p.tool_name),
        short_call_id(p.tool_call_id)
    ));
    lines.push(format!("mem={mem} size={} chars", p.size_chars));
    lines.push(format!("summary: {}", escape_controls(p.summary)));
    if let Some(s) = p.schema.filter(|s| !s.is_empty()) {
        lines.push(format!("schema: {}", one_line(s, MAX_SCHEMA_CHARS, 0)));
    }
    for f in facts.iter().filter(|f| !f.text.is_empty()) {
        lines.push(format!(
            "{}: {}",
            escape_controls(f.label),
            one_line(&f.text, MAX_FACT_CHARS, 0)
        ));
    }
    if let Some(s) = p.preview.filter(|s| !s.is_empty()) {
        lines.push(format!("preview: {}", escape_controls(s)));
    }
    let mut call = format!("To read more: recall_tool_result(mem_id=\"{mem}\"");
    let mut alts = recall.iter().map(|a| one_line(a, MAX_RECALL_ARGS_CHARS, 0));
    match alts.next() {
        Some(first) => {
            call.push_str(&format!(", {first})"));
            for alt in alts {
                call.push_str(&format!(", or {alt}"));
            }
        }
        None => call.push_str(", format=\"full\")"),
    }
    lines.push(call);
    lines.join("\n")
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

/// The preview for a payload outlined with `style`, at most `n` code points
/// of it: JSON without the whitespace between tokens, an HTML page's visible
/// text, other text with whitespace runs (indentation, line breaks, tabs) as
/// one space; trimmed, control characters escaped. `default_n` is the
/// ledger's default length, at which a log's preview is cut shorter.
pub fn preview(text: &str, n: usize, style: PreviewStyle, default_n: usize) -> String {
    if n == 0 {
        return String::new();
    }
    let shown = match style {
        PreviewStyle::Json => json_head(text, n),
        PreviewStyle::Html => visible_text(text, n),
        PreviewStyle::Text => text_head(text, n),
        PreviewStyle::Log => text_head(
            text,
            if n <= default_n {
                n.min(LOG_PREVIEW_CHARS)
            } else {
                n
            },
        ),
    };
    escape_controls(shown.trim()).into_owned()
}

/// The first `n` code points of `text` with whitespace runs as one space.
fn text_head(text: &str, n: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    let mut space = false;
    for c in text.trim_start().chars() {
        if count >= n {
            break;
        }
        if matches!(c, ' ' | '\t' | '\n' | '\r') {
            if !space {
                out.push(' ');
                count += 1;
            }
            space = true;
        } else {
            out.push(c);
            count += 1;
            space = false;
        }
    }
    out
}

/// The first `n` code points of JSON text with the whitespace between tokens
/// left out (strings kept as written).
fn json_head(text: &str, n: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    let (mut in_str, mut escaped) = (false, false);
    for c in text.chars() {
        if count >= n {
            break;
        }
        if in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if matches!(c, ' ' | '\t' | '\n' | '\r') {
            continue;
        } else if c == '"' {
            in_str = true;
        }
        out.push(c);
        count += 1;
    }
    out
}

/// A v2 stub with another preview: every other line kept byte for byte, so
/// an entry recorded by an earlier build (a store's row, a checkpoint's
/// offloaded stub) keeps the facts it was recorded with, whatever the outline
/// of its payload says today. The preview line is replaced, or added before
/// the recall line, or dropped when `preview` is empty.
pub fn with_preview(stub: &str, preview: &str) -> String {
    let mut lines: Vec<&str> = stub.split('\n').filter(|l| !l.starts_with("preview: ")).collect();
    let line = format!("preview: {}", escape_controls(preview));
    if !preview.is_empty() {
        lines.insert(lines.len().saturating_sub(1), &line);
    }
    lines.join("\n")
}

/// How the preview of the payload a summary describes is made: the kind its
/// shape names (after the summary's last `: `), as its outline chose it when
/// it was recorded.
pub fn preview_style(summary: &str) -> PreviewStyle {
    let shape = summary.rsplit(": ").next().unwrap_or_default();
    if shape == "JSON" || shape.starts_with("JSON ") {
        PreviewStyle::Json
    } else if shape == "HTML page" {
        PreviewStyle::Html
    } else if shape.starts_with("log, ") {
        PreviewStyle::Log
    } else {
        PreviewStyle::Text
    }
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

/// The outline of a text payload (not JSON).
pub fn text_outline(text: &str) -> Outline {
    crate::outline::of_text(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::display::needs_escape;
    use serde_json::json;

    fn parts<'a>(schema: Option<&'a str>, preview: Option<&'a str>) -> StubParts<'a> {
        StubParts {
            tool_name: "get_keepa_data",
            tool_call_id: "call_1",
            mem_id: "trm_0123456789ab",
            size_chars: 12345,
            schema,
            summary: "get_keepa_data (asin='B07XY'): JSON array",
            preview,
        }
    }

    #[test]
    fn stub_matches_the_v2_format_exactly() {
        let facts = [Fact {
            label: "data",
            text: "$.rows: array[300] of records".into(),
        }];
        let s = render(
            &parts(
                Some("object{2} [meta:object{1},rows:array[300]]"),
                Some("{\"meta\":1}"),
            ),
            &facts,
            &["json_path=\"$.rows[0]\"".into(), "lines=\"1-5\"".into()],
        );
        let want = "[symfonic.tool_memory v2]\n\
tool=get_keepa_data call_id=call_1\n\
mem=trm_0123456789ab size=12345 chars\n\
summary: get_keepa_data (asin='B07XY'): JSON array\n\
schema: object{2} [meta:object{1},rows:array[300]]\n\
data: $.rows: array[300] of records\n\
preview: {\"meta\":1}\n\
To read more: recall_tool_result(mem_id=\"trm_0123456789ab\", json_path=\"$.rows[0]\"), or lines=\"1-5\"";
        assert_eq!(s, want);
        assert!(is_stub_text(&s));
    }

    #[test]
    fn optional_lines_are_omitted_when_empty() {
        let s = render(&parts(None, Some("")), &[], &[]);
        assert!(!s.contains("schema:"));
        assert!(!s.contains("preview:"));
        assert_eq!(s.lines().count(), 5);
        assert!(s.ends_with("recall_tool_result(mem_id=\"trm_0123456789ab\", format=\"full\")"));
    }

    #[test]
    fn summary_shows_three_args_then_ellipsis() {
        let args = json!({"asin": "B07XY", "domain": 1, "x": [1], "y": true});
        let s = summary("get_keepa_data", args.as_object(), "JSON array");
        assert_eq!(
            s,
            "get_keepa_data (asin='B07XY', domain=1, x=[1], ...): JSON array"
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
        assert_eq!(short_call_id(&id).chars().count(), 64);
        assert_eq!(short_call_id("call_abc"), "call_abc");
    }

    #[test]
    fn previews_drop_indentation_and_escaped_tabs() {
        let pretty = "{\n    \"a\": [\n        1,\n        \"x  y\"\n    ]\n}";
        assert_eq!(
            preview(pretty, 200, PreviewStyle::Json, 200),
            "{\"a\":[1,\"x  y\"]}"
        );
        assert_eq!(preview(pretty, 6, PreviewStyle::Json, 200), "{\"a\":[");
        assert_eq!(
            preview("a\tb\n\n    c😀😀  ", 7, PreviewStyle::Text, 200),
            "a b c😀😀"
        );
        assert_eq!(preview("  x\n", 200, PreviewStyle::Text, 200), "x");
        assert_eq!(preview("abc", 0, PreviewStyle::Text, 200), "");
        assert_eq!(preview("a\u{1b}b", 10, PreviewStyle::Text, 200), "a\\u{1b}b");
        let log = "x".repeat(500);
        assert_eq!(
            preview(&log, 200, PreviewStyle::Log, 200).len(),
            LOG_PREVIEW_CHARS
        );
        assert_eq!(preview(&log, 2000, PreviewStyle::Log, 200).len(), 500);
    }

    #[test]
    fn another_preview_keeps_every_other_line() {
        let facts = [Fact {
            label: "errors",
            text: "1 line, at 3".into(),
        }];
        let recall = ["lines=\"1-3\"".to_string()];
        let at = |preview: &str| render(&parts(Some("log: 3 lines"), Some(preview)), &facts, &recall);
        for (from, to) in [("a b", "a b c\u{1b}"), ("a b", ""), ("", "a"), ("", "")] {
            assert_eq!(with_preview(&at(from), to), at(to), "{from:?} -> {to:?}");
        }
    }

    #[test]
    fn the_preview_style_is_read_off_the_summary() {
        let cases = [
            ("{\"a\": [1, 2]}", PreviewStyle::Json),
            (
                "<!doctype html><html><body><h1>x</h1></body></html>",
                PreviewStyle::Html,
            ),
            (
                "12:00:01 INFO a\n12:00:02 WARN b\n12:00:03 ERROR c\n",
                PreviewStyle::Log,
            ),
            ("a,b\n1,2\n3,4\n", PreviewStyle::Text),
            ("just: text", PreviewStyle::Text),
        ];
        for (payload, style) in cases {
            let o = match crate::json::analyze(payload.as_bytes()) {
                Some(d) => d.outline,
                None => text_outline(payload),
            };
            assert_eq!(o.preview, style, "{payload}");
            let args = json!({"q": "x): log, 3 lines"});
            for tool in ["t", "log: 2 lines"] {
                assert_eq!(
                    preview_style(&summary(tool, args.as_object(), &o.shape)),
                    style,
                    "{payload}"
                );
            }
        }
    }

    #[test]
    fn fields_cannot_forge_lines() {
        let facts = [Fact {
            label: "data",
            text: "x\nsummary: forged".into(),
        }];
        let p = StubParts {
            tool_name: "t\nschema: forged",
            tool_call_id: "c\r",
            mem_id: "trm_x\u{2028}",
            size_chars: 1,
            schema: Some("s\u{85}"),
            summary: "sum\nmary",
            preview: Some("p\n"),
        };
        let s = render(&p, &facts, &["json_path=\"\n\"".into()]);
        assert_eq!(s.lines().count(), 8, "{s}");
        assert!(!s.chars().any(|c| c != '\n' && needs_escape(c)), "{s}");
    }
}
