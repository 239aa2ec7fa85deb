//! Which answers are cheap enough for the calling thread: an indexed json
//! path, a range, a recall cut at its cap, a query the query index confines
//! to a few blocks, anything on a payload up to [`QUICK_BYTES`]. A hop to
//! another thread and back costs more than these whenever the CPUs are busy
//! (a recall would wait behind record analysis for them); an answer whose
//! cost grows with the payload still goes to the read lane, so the calling
//! thread never scans or copies megabytes.

use super::{fetch_entry, json_answer, Answer, FetchSpec};
use crate::entry::Entry;
use crate::json;
use crate::search;

/// Payloads up to this many bytes are answered on the calling thread
/// whatever is asked, and no quick answer copies more than this (a
/// case-insensitive scan of it takes some tens of microseconds).
pub const QUICK_BYTES: usize = 64 * 1024;
/// A range or a recall cut at its cap copies at most this many bytes on the
/// calling thread (a memcpy of some tens of microseconds).
const QUICK_COPY_BYTES: usize = 256 * 1024;
/// A query with non-ASCII letters may fall back to the folded scan (about a
/// third of the speed), so it is quick on payloads a quarter that size.
const QUICK_FOLDED_BYTES: usize = QUICK_BYTES / 4;

/// The answer to `spec` from `e` if it is cheap (see the module docs), else
/// `None`. `max_output` is the recall cap in code points (`usize::MAX` for
/// `fetch`), which bounds what a full read or a range copies.
pub fn quick_answer<'a>(e: &'a Entry, spec: &'a FetchSpec, max_output: usize) -> Option<Answer<'a>> {
    let bytes = e.text.as_bytes();
    // A regex compiles in up to milliseconds (Unicode classes), whatever the
    // payload (a json path takes precedence over it).
    if spec.pattern.is_some() && spec.json_path.is_none() {
        return None;
    }
    if bytes.len() <= QUICK_BYTES {
        return Some(fetch_entry(e, spec, max_output));
    }
    if let Some(path) = &spec.json_path {
        let bounded = match &e.json {
            // Answered by a message: not JSON.
            None => true,
            Some(doc) => json::bounded_lookup(bytes, &doc.index, path),
        };
        return if bounded {
            json_answer(e, spec, path, max_output, QUICK_BYTES)
        } else {
            None
        };
    }
    // A line range is found by counting lines.
    if spec.lines.is_some() {
        return None;
    }
    if let Some(q) = &spec.query {
        let q = q.as_bytes();
        if !q.is_ascii() || bytes.len() <= QUICK_FOLDED_BYTES {
            return (bytes.len() <= QUICK_FOLDED_BYTES).then(|| fetch_entry(e, spec, max_output));
        }
        // Quick once the query index (built by an earlier query) shows that
        // little of the payload can hold a match, either case.
        let regions = e.blocks.get()?.regions(bytes.len(), q, true)?;
        return (search::scanned(&regions) <= QUICK_BYTES).then(|| fetch_entry(e, spec, max_output));
    }
    match fetch_entry(e, spec, max_output) {
        // A slice is borrowed; a copy of it is cut at `max_output` code points
        // of at most 4 bytes each.
        Answer::Part { text, .. } if text.len().min(max_output.saturating_mul(4)) > QUICK_COPY_BYTES => None,
        answer => Some(answer),
    }
}
