//! What `fetch` and `recall` answer: the precedence json path → pattern →
//! query → lines → range → format, the query windows and code-point ranges
//! (text reads in `reads`, the output cap in `cap`). Every answer is a
//! string; problems a model can cause come back as structured `[recall: ...]`
//! / `[tool_memory ...]` messages, never errors.

use crate::display::ECHO_CHARS;
use crate::entry::Entry;
use crate::search;
use crate::text::ellipsize;
use crate::wtf8::Wtf8Buf;

mod cap;
mod json;
mod quick;
mod reads;
mod windows;
pub use cap::{cap_answer, cap_output};
pub use json::json_answer;
pub use quick::quick_answer;
pub use windows::{query_windows, Ask};

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

/// A fetch request, already normalised: empty strings are `None`.
/// The query is WTF-8 (see `crate::wtf8`): a lone surrogate in it matches only
/// that lone surrogate, never U+FFFD nor half of a pair. The pattern is
/// display text (a lone surrogate there is U+FFFD, as in the text it searches).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FetchSpec {
    pub full: bool,
    pub query: Option<Wtf8Buf>,
    pub offset: Option<i64>,
    pub max_chars: Option<i64>,
    pub json_path: Option<String>,
    /// A regular expression: grep-style answers (see `reads`).
    pub pattern: Option<String>,
    /// For `pattern` and `query`.
    pub ignore_case: bool,
    /// Lines of context around each `pattern` match (clamped to 0..=50).
    pub context: usize,
    /// The context asked for, when it was out of range (the answer says so).
    pub context_asked: Option<i64>,
    /// A line range as the model wrote it (`"120-180"`): read alone, or the
    /// lines a `pattern` or `query` searches.
    pub lines: Option<String>,
    /// Format `count`, for `pattern` and `query`: the count alone, no lines or windows.
    pub count_only: bool,
    /// Format `raw`: JSON nodes as written and `lines` without numbers, the payload's own text.
    pub raw: bool,
    /// Format `paths`, for `json_path`: `[path, value]` pairs, paths as RFC 9535 Normalized Paths.
    pub paths: bool,
}

impl FetchSpec {
    /// Builds a spec from loosely typed parts: the format is `full`, `count`,
    /// `paths` or `raw` (anything else means the summary), empty strings mean
    /// absent, and numbers are floored and clamped (NaN means absent), so no
    /// model-sent value can make a fetch fail.
    pub fn new(
        format: Option<&str>,
        query: Option<Wtf8Buf>,
        offset: Option<f64>,
        max_chars: Option<f64>,
        json_path: Option<String>,
    ) -> Self {
        FetchSpec {
            full: format == Some("full"),
            count_only: format == Some("count"),
            paths: format == Some("paths"),
            raw: format == Some("raw"),
            query: query.filter(|q| !q.as_bytes().is_empty()),
            offset: offset.and_then(to_int),
            max_chars: max_chars.and_then(to_int),
            json_path: json_path.filter(|p| !p.is_empty()),
            ..FetchSpec::default()
        }
    }

    /// The text reads, normalised the same way (`context`: floored, clamped
    /// to `0..=MAX_CONTEXT`; NaN or absent means 0).
    pub fn with_reads(
        mut self,
        pattern: Option<String>,
        ignore_case: Option<bool>,
        context: Option<f64>,
        lines: Option<String>,
    ) -> Self {
        self.pattern = pattern.filter(|p| !p.is_empty());
        self.ignore_case = ignore_case.unwrap_or(false);
        let asked = context.and_then(to_int);
        self.context = asked.map_or(0, |c| c.clamp(0, search::grep::MAX_CONTEXT as i64) as usize);
        self.context_asked = asked.filter(|&c| c != self.context as i64);
        self.lines = lines.filter(|l| !l.trim().is_empty());
        self
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
    /// A contiguous part of the payload starting at code point `start`
    /// (its bytes; `utf8` when the payload is well-formed); `lines` when it
    /// is a line range (its first line, and the last asked for).
    Part {
        text: &'a [u8],
        utf8: bool,
        start: usize,
        lines: Option<(usize, Option<usize>)>,
    },
    /// The answer to a json path, already paged within the cap.
    Json(Wtf8Buf),
    Other(Wtf8Buf),
}

impl Answer<'_> {
    pub fn into_buf(self) -> Wtf8Buf {
        match self {
            Answer::Part { text, utf8, .. } => Wtf8Buf::from_bytes(text.to_vec(), utf8),
            Answer::Json(text) | Answer::Other(text) => text,
        }
    }
}

/// The answer for an entry, by precedence json path → pattern → query →
/// lines → range → format. `max_output` (code points; `usize::MAX` for
/// `fetch`) is what answers that page or count (json paths, pattern, query,
/// numbered lines) fit in; `max_chars`, when given, narrows it for json paths.
pub fn fetch_entry<'a>(e: &'a Entry, spec: &'a FetchSpec, max_output: usize) -> Answer<'a> {
    let text = &e.text;
    if let Some(data) = text.block_data() {
        return Answer::Other(block_read(&e.handle.mem_id, &text.lossy(), data.len()).into());
    }
    let utf8 = text.is_utf8();
    if let Some(path) = &spec.json_path {
        return json_answer(e, spec, path, max_output, usize::MAX).expect("no limit, no refusal");
    }
    let id = &e.handle.mem_id;
    let len = text.char_len();
    // `fetch` keeps slice semantics (`""`); the model is told the size.
    if let Some(o) = spec
        .offset
        .filter(|&o| o > 0 && o as u64 >= len as u64 && max_output != usize::MAX)
    {
        return Answer::Other(past_end(o, id, len).into());
    }
    let budget = max_output;
    if let Some(p) = &spec.pattern {
        return Answer::Other(reads::pattern_answer(text, p, spec, id, budget));
    }
    if let Some(q) = &spec.query {
        let within = match spec.lines.as_deref().map(|l| reads::line_span(text, l, id)) {
            None => None,
            Some(Ok(span)) => Some(span),
            Some(Err(msg)) => return Answer::Other(msg.into()),
        };
        let blocks = if within.is_none() { e.blocks() } else { None };
        let ask = Ask {
            query: q,
            ignore_case: spec.ignore_case,
            within,
            from: spec.offset.map_or(0, |o| o.max(0) as usize),
            count_only: spec.count_only,
            budget,
        };
        return Answer::Other(query_windows(text, &ask, id, blocks));
    }
    if let Some(l) = &spec.lines {
        return reads::lines_answer(text, spec, l, id, max_output);
    }
    if spec.offset.is_some() || spec.max_chars.is_some() {
        let start = match spec.offset.unwrap_or(0) {
            // A model's `offset=-500` means the last 500 (`fetch` keeps 0).
            o if o < 0 && max_output != usize::MAX => {
                len.saturating_sub(o.unsigned_abs().min(len as u64) as usize)
            }
            o => o.max(0) as usize,
        };
        if start >= len {
            return Answer::Part {
                text: b"",
                utf8: true,
                start: len,
                lines: None,
            };
        }
        let end = match spec.max_chars {
            Some(m) if m > 0 => start.saturating_add(m as usize).min(len),
            _ => len,
        };
        return Answer::Part {
            text: text.slice(start, end),
            utf8,
            start,
            lines: None,
        };
    }
    if spec.full {
        Answer::Part {
            text: text.as_bytes(),
            utf8,
            start: 0,
            lines: None,
        }
    } else {
        Answer::Other(e.handle.stub.clone().into())
    }
}

/// What a text read of a block's entry answers, whatever it asks: what the
/// block is (its head's first line) and where its bytes are given back.
pub fn block_read(mem_id: &str, head: &str, bytes: usize) -> String {
    let what = head.lines().next().unwrap_or_default();
    format!(
        "[tool_memory: {} is {}: bytes, not text ({bytes} bytes), which a text read cannot show; a recall tool that answers blocks gives it back as itself, and Ledger.fetchBlock gives its bytes]",
        ellipsize(mem_id, ECHO_CHARS),
        ellipsize(what, 2 * ECHO_CHARS),
    )
}

/// `[recall: offset=N is past the end of <id>, which has L chars]`.
fn past_end(offset: i64, mem_id: &str, len: usize) -> String {
    format!(
        "[recall: offset={offset} is past the end of {}, which has {len} char{}]",
        ellipsize(mem_id, ECHO_CHARS),
        if len == 1 { "" } else { "s" }
    )
}

/// What `fetch` (the app's call) answers when the store below the ledger
/// failed to read an entry: the store's own words, for the app's logs.
pub fn store_failed(mem_id: &str, e: &crate::store::StoreError) -> String {
    format!(
        "[tool_memory error: store read failed for {}: {}]",
        ellipsize(mem_id, ECHO_CHARS),
        ellipsize(&e.to_string(), ECHO_CHARS)
    )
}

/// What `recall` (the model's call) answers then: what happened and what the
/// model can do, never the store's address or its error text (those reach
/// the app through `fetch`, `handle`, and the middleware's events).
pub fn store_unavailable(mem_id: &str, e: &crate::store::StoreError) -> String {
    let id = ellipsize(mem_id, ECHO_CHARS);
    if e.timed_out {
        format!("[tool_memory error: the store did not answer in time for {id}; try again later]")
    } else if e.message.starts_with("corrupt row") {
        format!("[tool_memory error: the stored copy of {id} failed its integrity check and was not served; it can no longer be recalled]")
    } else {
        format!("[tool_memory error: the store could not be read for {id}; try again later]")
    }
}

/// The store had the entry before its expiry, and it is gone: `why` says what
/// is known (evicted under a policy that evicts, or deleted by another client).
pub fn evicted(mem_id: &str, why: &str) -> String {
    format!(
        "[tool_memory error: {} is gone from the store before its expiry: {}; it can no longer be recalled]",
        ellipsize(mem_id, ECHO_CHARS),
        ellipsize(why, ECHO_CHARS)
    )
}

/// An entry whose time to live has passed (before a sweep removed it).
pub fn expired(mem_id: &str) -> String {
    format!(
        "[tool_memory not found: {} has expired (its time to live passed); it can no longer be recalled]",
        ellipsize(mem_id, ECHO_CHARS)
    )
}

/// `[tool_memory not found: <mem_id> in namespace '<ns>']` (`in the default
/// namespace` for `""`): an id recalled in the wrong thread says where it
/// looked, and one that is not of the form `trm_` + 12 hex digits says so.
pub fn not_found(mem_id: &str, namespace: &str) -> String {
    let id = ellipsize(mem_id, ECHO_CHARS);
    let hint = id_hint(mem_id);
    if namespace.is_empty() {
        format!("[tool_memory not found: {id} in the default namespace{hint}]")
    } else {
        format!(
            "[tool_memory not found: {id} in namespace '{}'{hint}]",
            ellipsize(namespace, ECHO_CHARS)
        )
    }
}

/// A recall on a closed ledger: `[tool_memory error: <id> cannot be recalled: the ledger is closed]`.
pub fn closed(mem_id: &str) -> String {
    format!(
        "[tool_memory error: {} cannot be recalled: {}]",
        ellipsize(mem_id, ECHO_CHARS),
        crate::store::CLOSED
    )
}

/// A recall whose ledger failed otherwise (a ledger written in JS threw).
pub fn fetch_failed(mem_id: &str) -> String {
    format!(
        "[tool_memory error: ledger fetch failed for {}]",
        ellipsize(mem_id, ECHO_CHARS)
    )
}

/// For an id that is not `trm_` + 12 lowercase hex digits: what an id looks
/// like, and the id it holds when it holds one (`mem=trm_…`, quoted, upper case).
fn id_hint(mem_id: &str) -> String {
    let well_formed = |s: &str| {
        s.len() == 16
            && s.starts_with("trm_")
            && s[4..].bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
    };
    if well_formed(mem_id) {
        return String::new();
    }
    let lower = mem_id.to_ascii_lowercase();
    let inner = lower
        .match_indices("trm_")
        .filter_map(|(i, _)| lower.get(i..i + 16))
        .find(|s| well_formed(s));
    match inner {
        Some(id) => format!("; an id is trm_ and 12 hex digits, as the stub shows it: did you mean {id}?"),
        None => "; an id is trm_ and 12 hex digits (e.g. trm_3f2a9c01d4e7), copied whole from the stub"
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_normalises_model_values() {
        let s = FetchSpec::new(
            Some("FULL"),
            Some(Wtf8Buf::default()),
            Some(f64::NAN),
            Some(-3.7),
            Some(String::new()),
        );
        assert!(!s.full);
        assert_eq!(s.query, None);
        assert_eq!(s.offset, None);
        assert_eq!(s.max_chars, Some(-4));
        assert_eq!(s.json_path, None);
        let s = FetchSpec::new(Some("full"), None, Some(f64::INFINITY), Some(2.9), None);
        assert!(s.full);
        assert_eq!(s.offset, Some(i64::MAX));
        assert_eq!(s.max_chars, Some(2));
    }
}
