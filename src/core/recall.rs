//! What `fetch` and `recall` answer: the precedence json path → query →
//! range → format, the query windows, code-point ranges, and the output cap.
//! Every answer is a string; problems a model can cause come back as
//! structured `[recall: ...]` / `[tool_memory ...]` messages, never errors.

use memchr::memmem;

use crate::core::json::{select, Selection};
use crate::core::ledger::Entry;
use crate::core::search;
use crate::core::text::{count_chars, ellipsize, take_chars, Text};

/// The default cap on a recall answer, in code points, marker included.
pub const MAX_OUTPUT_CHARS: usize = 50_000;
/// Code points shown on each side of a query match.
pub const WINDOW_CHARS: usize = 400;
/// Windows shown at most.
pub const MAX_WINDOWS: usize = 5;
/// The case-insensitive fallback is tried for queries up to this size (a
/// longer "query" is a pasted passage, and its matcher would cost more than
/// the search).
const MAX_CASELESS_QUERY_BYTES: usize = 1024;
/// Model-supplied strings are echoed in messages up to this many code points.
const ECHO_CHARS: usize = 200;

/// A fetch request, already normalised: empty strings are `None`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FetchSpec {
    pub full: bool,
    pub query: Option<String>,
    pub offset: Option<i64>,
    pub max_chars: Option<i64>,
    pub json_path: Option<String>,
}

impl FetchSpec {
    /// Builds a spec from loosely typed parts: unknown formats mean summary,
    /// empty strings mean absent, and numbers are floored and clamped
    /// (NaN means absent), so no model-sent value can make a fetch fail.
    pub fn new(
        format: Option<&str>,
        query: Option<String>,
        offset: Option<f64>,
        max_chars: Option<f64>,
        json_path: Option<String>,
    ) -> Self {
        FetchSpec {
            full: format == Some("full"),
            query: query.filter(|q| !q.is_empty()),
            offset: offset.and_then(to_int),
            max_chars: max_chars.and_then(to_int),
            json_path: json_path.filter(|p| !p.is_empty()),
        }
    }

    /// Whether any keyed slice was asked for (which implies full-fetch semantics).
    pub fn keyed(&self) -> bool {
        self.query.is_some() || self.json_path.is_some() || self.offset.is_some() || self.max_chars.is_some()
    }
}

fn to_int(x: f64) -> Option<i64> {
    if x.is_nan() {
        None
    } else {
        // `as` saturates at the i64 bounds, infinities included.
        Some(x.floor() as i64)
    }
}

/// A fetch answer, borrowed from the entry where it is a slice of it.
pub enum Answer<'a> {
    /// A contiguous part of the payload starting at code point `start`.
    Part {
        text: &'a str,
        start: usize,
    },
    Other(String),
}

impl Answer<'_> {
    pub fn into_string(self) -> String {
        match self {
            Answer::Part { text, .. } => text.to_string(),
            Answer::Other(s) => s,
        }
    }
}

/// The answer for an entry, by precedence json path → query → range → format.
pub fn fetch_entry<'a>(e: &'a Entry, spec: &FetchSpec) -> Answer<'a> {
    let text = &e.text;
    if let Some(path) = &spec.json_path {
        return Answer::Other(match &e.json {
            None => format!(
                "[recall: payload is not JSON; json_path '{}' not applicable]",
                ellipsize(path, ECHO_CHARS)
            ),
            Some(doc) => match select(text.as_str(), &doc.index, path) {
                Ok(Selection::Node(s)) => s.to_string(),
                Ok(Selection::Many(s)) => s,
                Err(msg) => msg,
            },
        });
    }
    if let Some(q) = &spec.query {
        return Answer::Other(query_windows(text, q, &e.handle.mem_id));
    }
    if spec.offset.is_some() || spec.max_chars.is_some() {
        let len = text.char_len();
        let start = spec.offset.unwrap_or(0).max(0) as u64;
        if start >= len as u64 {
            return Answer::Part { text: "", start: len };
        }
        let start = start as usize;
        let end = match spec.max_chars {
            Some(m) if m > 0 => start.saturating_add(m as usize).min(len),
            _ => len,
        };
        return Answer::Part {
            text: text.slice(start, end),
            start,
        };
    }
    if spec.full {
        Answer::Part {
            text: text.as_str(),
            start: 0,
        }
    } else {
        Answer::Other(e.handle.stub.clone())
    }
}

/// `[tool_memory not found: <mem_id>]`.
pub fn not_found(mem_id: &str) -> String {
    format!("[tool_memory not found: {}]", ellipsize(mem_id, ECHO_CHARS))
}

/// Windows of 400 code points either side of each match (at most 5, `...`
/// where a window is cut inside the payload, joined by `\n---\n`), the search
/// resuming after each match. More matches than windows: a first line says
/// how many. No exact match but a case-insensitive one: those, and it says so.
pub fn query_windows(text: &Text, query: &str, mem_id: &str) -> String {
    let hay = text.as_str();
    let q_chars = count_chars(query.as_bytes());
    let no_match = || {
        format!(
            "[recall: no match for query '{}' in {}]",
            ellipsize(query, ECHO_CHARS),
            mem_id
        )
    };
    if q_chars > text.char_len() {
        return no_match();
    }
    let found = search::exact(hay.as_bytes(), query.as_bytes(), MAX_WINDOWS);
    let mut starts: Vec<usize> = found.first.iter().map(|&b| text.char_of(b)).collect();
    let mut total = found.total;
    let mut head = None;
    if total == 0 {
        let (s, t) = if query.len() > MAX_CASELESS_QUERY_BYTES {
            (Vec::new(), 0)
        } else if query.is_ascii() {
            let m = search::ascii_caseless(hay.as_bytes(), query.as_bytes(), MAX_WINDOWS);
            (m.first.iter().map(|&b| text.char_of(b)).collect(), m.total)
        } else {
            folded_matches(hay, query)
        };
        if t == 0 {
            return no_match();
        }
        starts = s;
        total = t;
        let shown = if total > MAX_WINDOWS {
            format!("{total} case-insensitive matches, showing the first {MAX_WINDOWS}")
        } else {
            format!(
                "showing {total} case-insensitive match{}",
                if total == 1 { "" } else { "es" }
            )
        };
        head = Some(format!(
            "[recall: no exact match for query '{}' in {}; {}]",
            ellipsize(query, ECHO_CHARS),
            mem_id,
            shown
        ));
    } else if total > MAX_WINDOWS {
        head = Some(format!(
            "[recall: {total} matches for query '{}' in {}; showing the first {MAX_WINDOWS}]",
            ellipsize(query, ECHO_CHARS),
            mem_id
        ));
    }
    let len = text.char_len();
    let windows: Vec<String> = starts
        .iter()
        .map(|&c| {
            let a = c.saturating_sub(WINDOW_CHARS);
            let b = (c + q_chars + WINDOW_CHARS).min(len);
            let mut w = String::new();
            if a > 0 {
                w.push_str("...");
            }
            w.push_str(text.slice(a, b));
            if b < len {
                w.push_str("...");
            }
            w
        })
        .collect();
    let body = windows.join("\n---\n");
    match head {
        Some(h) => format!("{h}\n{body}"),
        None => body,
    }
}

/// Case folding that maps each code point to exactly one, so code point
/// positions in the folded text are positions in the original.
fn fold(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    let mut l = c.to_lowercase();
    match (l.next(), l.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

/// Case-insensitive match starts (code points, first few) and the total, for
/// a query with non-ASCII letters (ASCII queries take `search::ascii_caseless`).
fn folded_matches(hay: &str, query: &str) -> (Vec<usize>, usize) {
    let fq: String = query.chars().map(fold).collect();
    let fh: String = hay.chars().map(fold).collect();
    let mut starts = Vec::with_capacity(MAX_WINDOWS);
    let mut total = 0usize;
    // Byte → code point, counted incrementally from the previous match.
    let (mut last_b, mut last_c) = (0usize, 0usize);
    for b in memmem::find_iter(fh.as_bytes(), fq.as_bytes()) {
        if starts.len() < MAX_WINDOWS {
            last_c += count_chars(&fh.as_bytes()[last_b..b]);
            last_b = b;
            starts.push(last_c);
        }
        total += 1;
    }
    (starts, total)
}

/// Cuts an answer to `max` code points, marker included. A contiguous part
/// of the payload also says where to continue.
pub fn cap_answer(a: Answer<'_>, mem_id: &str, max: usize) -> String {
    match a {
        Answer::Part { text, start } => cap_output(text, mem_id, max, Some(start)),
        Answer::Other(s) => cap_output(&s, mem_id, max, None),
    }
}

/// Cuts `text` so that text plus the truncation marker fit in `max` code points.
pub fn cap_output(text: &str, mem_id: &str, max: usize, contiguous_from: Option<usize>) -> String {
    // Bytes bound code points from above: most answers skip the count.
    if text.len() <= max || count_chars(text.as_bytes()) <= max {
        return text.to_string();
    }
    let id = ellipsize(mem_id, ECHO_CHARS);
    let marker = |kept: usize| {
        let cont = contiguous_from
            .map(|s| format!("; continue with offset={}", s + kept))
            .unwrap_or_default();
        format!(
            "\n...[recall_tool_result output truncated at {max} chars; mem_id={id} retains full data in the ledger{cont}]"
        )
    };
    // The marker's length depends on the offset it names; an offset at most
    // `start + max` has no more digits than the one we finally print.
    let probe = count_chars(marker(max).as_bytes());
    if probe >= max {
        return take_chars(text, max).to_string();
    }
    let kept = max - probe;
    let mut out = take_chars(text, kept).to_string();
    out.push_str(&marker(kept));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Text {
        Text::new(s.to_string())
    }

    #[test]
    fn spec_normalises_model_values() {
        let s = FetchSpec::new(
            Some("FULL"),
            Some(String::new()),
            Some(f64::NAN),
            Some(-3.7),
            Some(String::new()),
        );
        assert!(!s.full);
        assert_eq!(s.query, None);
        assert_eq!(s.offset, None);
        assert_eq!(s.max_chars, Some(-4));
        assert_eq!(s.json_path, None);
        assert!(s.keyed());
        let s = FetchSpec::new(Some("full"), None, Some(f64::INFINITY), Some(2.9), None);
        assert!(s.full);
        assert_eq!(s.offset, Some(i64::MAX));
        assert_eq!(s.max_chars, Some(2));
    }

    #[test]
    fn windows_cut_with_ellipses_and_join() {
        let body = format!("{}FINDME{}", "a".repeat(1000), "b".repeat(1000));
        let w = query_windows(&t(&body), "FINDME", "trm_x");
        assert_eq!(w, format!("...{}FINDME{}...", "a".repeat(400), "b".repeat(400)));
        let w = query_windows(&t("xx FINDME yy FINDME"), "FINDME", "trm_x");
        assert_eq!(w, "xx FINDME yy FINDME\n---\nxx FINDME yy FINDME");
    }

    #[test]
    fn windows_count_code_points_in_multibyte_text() {
        let body = format!("{}é😀HIT😀é{}", "€".repeat(500), "ß".repeat(500));
        let w = query_windows(&t(&body), "HIT", "trm_x");
        let want = format!("...{}é😀HIT😀é{}...", "€".repeat(398), "ß".repeat(398));
        assert_eq!(w, want);
    }

    #[test]
    fn more_than_five_matches_are_counted() {
        let w = query_windows(&t(&"ab ".repeat(9)), "ab", "trm_x");
        let first = w.lines().next().unwrap();
        assert_eq!(
            first,
            "[recall: 9 matches for query 'ab' in trm_x; showing the first 5]"
        );
        assert_eq!(w.matches("\n---\n").count(), 4);
    }

    #[test]
    fn case_insensitive_fallback_and_no_match() {
        let w = query_windows(&t("Hello ÉCOLE world"), "école", "trm_x");
        assert!(
            w.starts_with(
                "[recall: no exact match for query 'école' in trm_x; showing 1 case-insensitive match]\n"
            ),
            "{w}"
        );
        assert!(w.ends_with("Hello ÉCOLE world"));
        assert_eq!(
            query_windows(&t("abc"), "zzz", "trm_x"),
            "[recall: no match for query 'zzz' in trm_x]"
        );
    }

    #[test]
    fn huge_queries_answer_quickly() {
        let big = "q".repeat(2_000_000);
        assert_eq!(
            query_windows(&t("short"), &big, "trm_x"),
            format!("[recall: no match for query '{}...' in trm_x]", "q".repeat(197))
        );
        let text = t(&"abc ".repeat(100_000));
        let long = "ABC ".repeat(1000);
        assert!(query_windows(&text, &long, "trm_x").starts_with("[recall: no match"));
        assert!(query_windows(&text, &long[..40], "trm_x").starts_with("[recall: no exact match"));
    }

    #[test]
    fn cap_keeps_text_plus_marker_within_max() {
        let text = "😀".repeat(100);
        let out = cap_output(&text, "trm_x", 120, Some(0));
        assert_eq!(out.chars().count(), 100);
        let out = cap_output(&text, "trm_x", 99, None);
        assert_eq!(out, take_chars(&text, 99));
        let big = "x".repeat(200_000);
        let out = cap_output(&big, "trm_abc", MAX_OUTPUT_CHARS, Some(10));
        assert!(out.chars().count() <= MAX_OUTPUT_CHARS);
        let kept = out.find('\n').unwrap();
        assert!(out.ends_with(&format!(
            "\n...[recall_tool_result output truncated at 50000 chars; mem_id=trm_abc retains full data in the ledger; continue with offset={}]",
            10 + kept
        )));
        let out = cap_output(&big, "trm_abc", MAX_OUTPUT_CHARS, None);
        assert!(out.ends_with("\n...[recall_tool_result output truncated at 50000 chars; mem_id=trm_abc retains full data in the ledger]"));
        assert_eq!(out.chars().count(), MAX_OUTPUT_CHARS);
    }
}
