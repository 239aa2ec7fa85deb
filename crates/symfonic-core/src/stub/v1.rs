//! The v1 stub, kept to re-render entries recorded before v2 (a store's rows,
//! checkpoints written in offload mode): their stub must stay byte for byte
//! what the conversation already holds, whatever preview length is asked.

use super::{short_call_id, tool_name, StubParts, MAX_SCHEMA_CHARS};
use crate::display::{escape_controls, one_line};

/// Header line of a v1 stub.
pub const STUB_HEADER_V1: &str = "[symfonic.tool_memory v1]";

/// Renders the v1 stub from a handle's stored schema and summary; optional
/// lines appear only when non-empty, every field on one line.
pub fn render(p: &StubParts) -> String {
    let mut lines: Vec<String> = Vec::with_capacity(7);
    lines.push(STUB_HEADER_V1.to_string());
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

/// The v1 preview: the first `n` code points with line breaks turned to
/// spaces, trimmed, and any other control character escaped.
pub fn preview(text: &str, n: usize) -> String {
    if n == 0 {
        return String::new();
    }
    let flat = crate::text::take_chars(text, n)
        .replace("\r\n", " ")
        .replace(['\n', '\r'], " ");
    escape_controls(flat.trim()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn preview_flattens_newlines_and_counts_code_points() {
        assert_eq!(preview("a\nb\r\nc😀😀  ", 7), "a b c😀");
        assert_eq!(preview("  x\n", 200), "x");
        assert_eq!(preview("abc", 0), "");
    }
}
