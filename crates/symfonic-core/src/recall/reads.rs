//! Text reads a model expects from coding agents: `pattern` (a regular
//! expression, answered as `grep -n` answers, with a count and a way to get
//! the rest) and `lines` (a 1-based inclusive line range). Problems come back
//! as `[recall: ...]` messages.

use std::borrow::Cow;

use super::{Answer, FetchSpec, ECHO_CHARS};
use crate::search::grep::{self, Found};
use crate::search::lines::{self, LineRange, Span};
use crate::text::{count_chars, ellipsize, Text};
use crate::wtf8::Wtf8Buf;

/// Where the lines `spec` (as the model wrote it) lie in `text`, or the
/// message that says why they cannot be read.
pub fn line_span(text: &Text, spec: &str, mem_id: &str) -> Result<Span, String> {
    let echo = ellipsize(spec, ECHO_CHARS);
    let range = LineRange::parse(spec).map_err(|why| {
        format!("[recall: lines '{echo}' cannot be read: {why}; write \"120-180\", \"120\" or \"120-\" (1-based, inclusive)]")
    })?;
    lines::locate(text.as_bytes(), range).map_err(|n| {
        format!(
            "[recall: lines '{echo}' start past the end of {mem_id}, which has {n} line{}]",
            if n == 1 { "" } else { "s" }
        )
    })
}

/// A line range, as the payload's own text (without the last line's `\n`).
pub fn lines_answer<'a>(text: &'a Text, spec: &str, mem_id: &str) -> Answer<'a> {
    match line_span(text, spec, mem_id) {
        Ok(span) => Answer::Part {
            text: &text.as_bytes()[span.start..span.end],
            utf8: text.is_utf8(),
            start: text.char_of(span.start),
            lines: Some((span.first, LineRange::parse(spec).ok().and_then(|r| r.last))),
        },
        Err(msg) => Answer::Other(msg.into()),
    }
}

/// The whole payload as a line range (a final `\n` ends the last line).
fn whole(text: &Text) -> Span {
    let b = text.as_bytes();
    Span {
        start: 0,
        end: lines::end_of_line(b, 0, b.len() - usize::from(b.last() == Some(&b'\n'))),
        first: 1,
        last: usize::MAX,
    }
}

/// The answer to `pattern` (with `spec`'s `ignore_case`, `context` and
/// `lines`): a header line counting the matching lines, then the lines as
/// `grep -n` shows them, all within `max` code points; when they do not all
/// fit, the header says how to get the rest.
pub fn pattern_answer(text: &Text, pattern: &str, spec: &FetchSpec, mem_id: &str, max: usize) -> Wtf8Buf {
    let echo = ellipsize(pattern, ECHO_CHARS);
    let ascii = text.char_len() == text.as_bytes().len();
    let re = match grep::compile_for(pattern, spec.ignore_case, ascii) {
        Ok(re) => re,
        Err(why) => {
            return format!(
                "[recall: pattern '{echo}' does not compile: {why}; for a literal string use query, or escape the special characters with \\]"
            )
            .into()
        }
    };
    let asked = spec.lines.as_deref().map(LineRange::parse);
    let span = match spec.lines.as_deref() {
        None => whole(text),
        Some(l) => match line_span(text, l, mem_id) {
            Ok(s) => s,
            Err(msg) => return msg.into(),
        },
    };
    let flags = if spec.ignore_case { " (ignore_case)" } else { "" };
    let place = match asked {
        Some(Ok(r)) => format!("{mem_id} lines {}", LineRange::show(r.first, r.last)),
        _ => mem_id.to_string(),
    };
    let raw = text.as_bytes();
    let view: Cow<'_, str> = if text.is_utf8() {
        // SAFETY: a UTF-8 text's bytes are valid UTF-8.
        Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(raw) })
    } else {
        text.lossy()
    };
    if text.char_len() == 0 {
        return format!("[recall: no match for pattern '{echo}'{flags} in {place}]").into();
    }
    let last = asked.and_then(|r| r.ok()).and_then(|r| r.last);
    let header = |f: &Found| {
        match f.resume {
        _ if f.total == 0 => format!("[recall: no match for pattern '{echo}'{flags} in {place}"),
        None => format!(
            "[recall: {} matching line{} for pattern '{echo}'{flags} in {place}",
            f.total,
            if f.total == 1 { "" } else { "s" }
        ),
        Some(k) => format!(
            "[recall: {} matching lines for pattern '{echo}'{flags} in {place}; {} shown; for the rest pass lines='{}' with the same pattern",
            f.total,
            f.shown,
            LineRange::show(k, last)
        ),
    }
    };
    // The header's length with the most digits any count can have.
    let worst = Found {
        total: usize::MAX,
        shown: usize::MAX,
        resume: Some(usize::MAX),
        ..Found::default()
    };
    let reserve = count_chars(header(&worst).as_bytes()) + 2;
    let found = grep::search(&view, raw, &re, span, spec.context, max.saturating_sub(reserve));
    let mut out = header(&found);
    // Zero matches as written: say whether ignoring case would find some.
    if found.total == 0 && !spec.ignore_case {
        if let Ok(caseless) = grep::compile_for(pattern, true, ascii) {
            let n = grep::search(&view, raw, &caseless, span, 0, 0).total;
            if n > 0 {
                out.push_str(&format!("; with ignore_case=true: {n} matching lines"));
            }
        }
    }
    out.push(']');
    let mut bytes = out.into_bytes();
    if !found.body.is_empty() {
        bytes.push(b'\n');
        bytes.extend_from_slice(&found.body);
    }
    Wtf8Buf::from_bytes(bytes, text.is_utf8())
}

#[cfg(test)]
mod tests;
