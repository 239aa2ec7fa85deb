//! The recall answer cap, and how a contiguous part of the payload cut by it
//! says to continue: the `offset=` to read on from (and the `lines=` for a
//! raw line read). Answers that page (json paths, pattern, query, numbered
//! lines) are built within the cap and say how to read on themselves; the
//! cap here is only their safety net.

use super::{Answer, ECHO_CHARS};
use crate::entry::Entry;
use crate::search::lines::LineRange;
use crate::text::{count_chars, ellipsize, take_chars_bytes};
use crate::wtf8::Wtf8Buf;

/// Cuts an answer from `e` to `max` code points, marker included, saying
/// how to continue (see the module docs).
pub fn cap_answer(e: &Entry, a: Answer<'_>, max: usize) -> Wtf8Buf {
    let id = &e.handle.mem_id;
    match a {
        Answer::Part {
            text,
            utf8,
            start,
            lines,
        } => cap_bytes(text, utf8, id, max, &|kept, head| {
            let offset = format!(
                "; continue with offset={}{}",
                start + kept,
                pages(e, start, text, max)
            );
            match lines {
                // The line the cut falls in, read again from its start.
                Some((first, last)) => {
                    let at = first + memchr::memchr_iter(b'\n', head).count();
                    format!("{offset} or lines='{}'", LineRange::show(at, last))
                }
                None => offset,
            }
        }),
        Answer::Json(s) | Answer::Other(s) => cap_output(&s, id, max, None),
    }
}

/// For a read to the end of a payload many answers long (`format='full'`
/// on 73 MB): which page of about how many this is, and a narrower read.
fn pages(e: &Entry, start: usize, text: &[u8], max: usize) -> String {
    let len = e.text.char_len();
    let whole = e.text.as_bytes();
    // The part runs to the payload's end (it is a slice of it).
    let to_end = text.as_ptr() as usize + text.len() == whole.as_ptr() as usize + whole.len();
    // Under a cap this small the marker is most of an answer: no pages to count.
    if !to_end || max < 1000 || text.len() < max {
        return String::new();
    }
    let page = max - 200;
    let all = len.div_ceil(page);
    if all < 3 {
        return String::new();
    }
    let narrower = match e.json.is_some() {
        true => "json_path (the stub shows what is there)",
        false => "pattern or query",
    };
    format!(
        " (page {} of about {all} at this size; to read a part, pass {narrower})",
        start / page + 1
    )
}

/// Cuts `text` so that text plus the truncation marker fit in `max` code
/// points; `contiguous_from`, when it is the payload from that code point.
pub fn cap_output(text: &Wtf8Buf, mem_id: &str, max: usize, contiguous_from: Option<usize>) -> Wtf8Buf {
    let cont = |kept: usize, _: &[u8]| {
        contiguous_from
            .map(|s| format!("; continue with offset={}", s + kept))
            .unwrap_or_default()
    };
    cap_bytes(text.as_bytes(), text.is_utf8(), mem_id, max, &cont)
}

fn fits(text: &[u8], max: usize) -> bool {
    // Bytes bound code points from above: most answers skip the count, and
    // the count stops at `max` (a capped 5 MB answer reads only its head).
    text.len() <= max || take_chars_bytes(text, max).len() == text.len()
}

/// [`cap_output`] on UTF-8 (or WTF-8, `utf8` false) bytes; `cont` says how
/// to continue after the `kept` code points `head`.
fn cap_bytes(
    text: &[u8],
    utf8: bool,
    mem_id: &str,
    max: usize,
    cont: &dyn Fn(usize, &[u8]) -> String,
) -> Wtf8Buf {
    if fits(text, max) {
        return Wtf8Buf::from_bytes(text.to_vec(), utf8);
    }
    let id = ellipsize(mem_id, ECHO_CHARS);
    let marker = |kept: usize, head: &[u8]| {
        format!(
            "\n...[recall_tool_result output truncated at {max} chars; mem_id={id} retains full data in the ledger{}]",
            cont(kept, head)
        )
    };
    // The marker's length depends on the offset (and line) it names; those
    // of a longer head have no fewer digits than the ones finally printed.
    let probe = count_chars(marker(max, take_chars_bytes(text, max)).as_bytes());
    if probe >= max {
        return Wtf8Buf::from_bytes(take_chars_bytes(text, max).to_vec(), utf8);
    }
    let kept = max - probe;
    let head = take_chars_bytes(text, kept);
    let mut out = head.to_vec();
    out.extend_from_slice(marker(kept, head).as_bytes());
    Wtf8Buf::from_bytes(out, utf8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recall::MAX_OUTPUT_CHARS;

    fn cap(text: &str, id: &str, max: usize, from: Option<usize>) -> String {
        cap_output(&text.into(), id, max, from)
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn cap_keeps_text_plus_marker_within_max() {
        let text = "😀".repeat(100);
        let out = cap(&text, "trm_x", 120, Some(0));
        assert_eq!(out.chars().count(), 100);
        let out = cap(&text, "trm_x", 99, None);
        assert_eq!(out, crate::text::take_chars(&text, 99));
        let big = "x".repeat(200_000);
        let out = cap(&big, "trm_abc", MAX_OUTPUT_CHARS, Some(10));
        assert!(out.chars().count() <= MAX_OUTPUT_CHARS);
        let kept = out.find('\n').unwrap();
        assert!(out.ends_with(&format!(
            "\n...[recall_tool_result output truncated at 50000 chars; mem_id=trm_abc retains full data in the ledger; continue with offset={}]",
            10 + kept
        )));
        let out = cap(&big, "trm_abc", MAX_OUTPUT_CHARS, None);
        assert!(out.ends_with("\n...[recall_tool_result output truncated at 50000 chars; mem_id=trm_abc retains full data in the ledger]"));
        assert_eq!(out.chars().count(), MAX_OUTPUT_CHARS);
    }
}
