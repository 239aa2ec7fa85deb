//! Text reads a model expects from coding agents: `pattern` (a regular
//! expression, answered as `grep -n` answers, with a count and the `offset`
//! that reads on) and `lines` (a 1-based inclusive line range, numbered).
//! Problems come back as `[recall: ...]` messages.

use std::borrow::Cow;

use super::{Answer, FetchSpec, ECHO_CHARS};
use crate::search::grep;
use crate::search::lines::{self, LineRange, Span};
use crate::text::{count_chars, ellipsize, take_chars_bytes, Text};
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

/// A line range: each line as `N:text` (the `\r` of a CRLF not shown), cut
/// at a whole line within `budget` code points, with a first line saying how
/// to read on when cut, and the payload's size when the range runs past its
/// end. With `raw`, the payload's own text (without the last line's `\n`),
/// as a part of the payload.
pub fn lines_answer<'a>(
    text: &'a Text,
    spec: &FetchSpec,
    l: &str,
    mem_id: &str,
    budget: usize,
) -> Answer<'a> {
    let span = match line_span(text, l, mem_id) {
        Ok(span) => span,
        Err(msg) => return Answer::Other(msg.into()),
    };
    let asked = LineRange::parse(l).ok().and_then(|r| r.last);
    let raw = text.as_bytes();
    if spec.raw {
        return Answer::Part {
            text: &raw[span.start..span.end],
            utf8: text.is_utf8(),
            start: text.char_of(span.start),
            lines: Some((span.first, asked)),
        };
    }
    let clipped = asked.is_some_and(|a| a > span.last);
    let worst = usize::MAX / 2;
    let reserve = 120 + ellipsize(mem_id, ECHO_CHARS).len() + 4 * worst.to_string().len();
    let room = budget.saturating_sub(reserve);
    let mut out: Vec<u8> = Vec::new();
    let (mut used, mut n, mut s) = (0usize, span.first, span.start);
    let mut head = None;
    loop {
        let e = lines::line_end(raw, s, span.end);
        let line = lines::trim_cr(&raw[s..e]);
        let tag = format!("{n}:");
        let cost = tag.len() + count_chars(line) + 1;
        if used + cost > room && budget != usize::MAX {
            if n == span.first {
                // One line longer than the answer: its head, then where it goes on.
                let keep = room.saturating_sub(tag.len() + 3);
                let part = take_chars_bytes(line, keep);
                out.extend_from_slice(tag.as_bytes());
                out.extend_from_slice(part);
                out.extend_from_slice(b"...");
                let next_lines = if n < span.last {
                    format!(
                        ", and lines='{}' for the lines after it",
                        LineRange::show(n + 1, asked)
                    )
                } else {
                    String::new()
                };
                head = Some(format!(
                    "[recall: line {n} of {mem_id} is {} chars, too long for one answer; its first {} follow; for the rest of it pass offset={} with max_chars{next_lines}]",
                    count_chars(line),
                    count_chars(part),
                    text.char_of(s + part.len())
                ));
            } else {
                head = Some(format!(
                    "[recall: lines {}-{} of {mem_id} follow; for the rest pass lines='{}']",
                    span.first,
                    n - 1,
                    LineRange::show(n, asked)
                ));
            }
            break;
        }
        if !out.is_empty() {
            out.push(b'\n');
        }
        out.extend_from_slice(tag.as_bytes());
        out.extend_from_slice(line);
        used += cost;
        if e >= span.end {
            break;
        }
        n += 1;
        s = e + 1;
    }
    let head = head.or_else(|| {
        clipped.then(|| {
            format!(
                "[recall: {mem_id} has {} line{}; lines {} follow]",
                span.last,
                if span.last == 1 { "" } else { "s" },
                LineRange::show(span.first, Some(span.last))
            )
        })
    });
    let mut bytes = head.map(|h| h.into_bytes()).unwrap_or_default();
    if !bytes.is_empty() {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(&out);
    Answer::Other(Wtf8Buf::from_bytes(bytes, text.is_utf8()))
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

/// The answer to `pattern` (with `spec`'s `ignore_case`, `context`, `lines`,
/// `offset` and format `count`): a header line counting the matching lines, then
/// the lines as `grep -n` shows them, all within `budget` code points; when
/// they do not all fit, the header gives the `offset` to pass for the rest.
pub fn pattern_answer(text: &Text, pattern: &str, spec: &FetchSpec, mem_id: &str, budget: usize) -> Wtf8Buf {
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
    let mut flags = if spec.ignore_case { " (ignore_case)" } else { "" }.to_string();
    if let Some(c) = spec.context_asked {
        let bound = if c < 0 { "the least" } else { "the most" };
        flags.push_str(&format!(" (context={c} read as {}, {bound})", spec.context));
    }
    let place = match asked {
        Some(Ok(r)) => format!("{mem_id} lines {}", LineRange::show(r.first, r.last)),
        _ => mem_id.to_string(),
    };
    let same = if spec.lines.is_some() {
        "the same pattern and lines"
    } else {
        "the same pattern"
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
    let from = spec.offset.map(|o| o.max(0) as usize);
    let from_b = from.map_or(span.start, |o| text.byte_of(o).max(span.start));
    // Matching lines, and the matches on long lines.
    let count = |re: &grep::Regex| {
        let f = grep::search(&view, raw, re, span, span.start, 0, 0);
        (f.total, f.long_matches)
    };
    // Zero matches as written: say whether ignoring case would find some.
    let caseless_hint = || {
        if spec.ignore_case {
            return String::new();
        }
        match grep::compile_for(pattern, true, ascii) {
            Ok(caseless) => match count(&caseless).0 {
                0 => String::new(),
                n => format!("; with ignore_case=true: {n} matching lines"),
            },
            Err(_) => String::new(),
        }
    };
    // A pattern with special characters that finds nothing, or more lines
    // than hold its text: the model likely meant the text (`[error]`).
    let held = match pattern.contains(SPECIAL) {
        true => grep::compile_for(&regex_syntax::escape(pattern), spec.ignore_case, ascii)
            .map_or(0, |lit| count(&lit).0),
        false => 0,
    };
    let literal_hint = |total: usize| {
        if held == 0 || (total != 0 && total <= held) {
            return String::new();
        }
        literal_note(&echo, held, pattern)
    };
    let on_long = |n: usize| {
        format!(
            ", {n} match{} on lines over {} chars",
            if n == 1 { "" } else { "es" },
            grep::LINE_CHARS
        )
    };
    let counted = |total: usize, long: usize| {
        // Worth saying where a line holds more than one match.
        let on_long = if long > total {
            on_long(long)
        } else {
            String::new()
        };
        format!(
            "[recall: {total} matching line{} for pattern '{echo}'{flags} in {place}{on_long}",
            if total == 1 { "" } else { "s" }
        )
    };
    let mut counts = None;
    if spec.count_only || from.is_some() {
        let (total, long) = count(&re);
        if total == 0 {
            return format!(
                "[recall: no match for pattern '{echo}'{flags} in {place}{}{}{}]",
                literal_hint(0),
                caseless_hint(),
                newline_hint(pattern)
            )
            .into();
        }
        if spec.count_only {
            return format!("{}{}]", counted(total, long), literal_hint(total)).into();
        }
        counts = Some((total, long));
    }
    let since = from.map_or("; ".to_string(), |o| format!("; from offset={o}: "));
    // The header at its longest, so the lines never push it over; and the
    // note on a match too long to show whole, kept only when one is cut.
    let worst = text.char_len().max(1);
    let reserve = count_chars(
        format!(
            "{}{}{since}{worst} shown; for the rest pass offset={worst} with {same}]",
            counted(worst, 0),
            on_long(worst)
        )
        .as_bytes(),
    ) + 2;
    let note_room = count_chars(cut_note(worst, worst, worst).as_bytes());
    let reserve = reserve
        + match held {
            0 => 0,
            _ => count_chars(literal_note(&echo, worst, pattern).as_bytes()),
        };
    let found = grep::search_noting(
        &view,
        raw,
        &re,
        span,
        from_b,
        spec.context,
        budget.saturating_sub(reserve),
        note_room,
    );
    let (total, long) = counts.unwrap_or((found.total, found.long_matches));
    let mut out = if total == 0 {
        format!(
            "[recall: no match for pattern '{echo}'{flags} in {place}{}{}{}",
            literal_hint(0),
            caseless_hint(),
            newline_hint(pattern)
        )
    } else {
        counted(total, long) + &literal_hint(total)
    };
    let note = found.cut.map_or(String::new(), |(s, k, e)| {
        let (s, k, e) = (text.char_of(s), text.char_of(k), text.char_of(e));
        cut_note(s, k - s, e - s)
    });
    match (found.resume, from) {
        (_, Some(o)) if found.total == 0 => out.push_str(&format!("; none at or after offset={o}")),
        (Some(r), _) => out.push_str(&format!(
            "{since}{} shown{note}; for the rest pass offset={} with {same}",
            found.shown,
            text.char_of(r)
        )),
        (None, Some(_)) => out.push_str(&format!("{since}{} shown, the last{note}", found.shown)),
        (None, None) => out.push_str(&note),
    }
    // A long matching line shows around its matches: the read that has it whole.
    if let Some(n) = long_line_shown(raw, &found.body) {
        let note = format!(
            "; line {n} is over {} chars and shows around its matches: lines='{n}' reads it from its start",
            grep::LINE_CHARS
        );
        if count_chars(out.as_bytes()) + count_chars(note.as_bytes()) + count_chars(&found.body) + 2 <= budget
        {
            out.push_str(&note);
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

/// The first matching line of `body` shown in parts (`N:...part...`) that
/// is over `LINE_CHARS` in `raw`.
fn long_line_shown(raw: &[u8], body: &[u8]) -> Option<usize> {
    body.split(|&c| c == b'\n').find_map(|l| {
        let colon = l.iter().position(|&c| !c.is_ascii_digit())?;
        let n: usize = std::str::from_utf8(&l[..colon]).ok()?.parse().ok()?;
        let rest = &l[colon..];
        if !(rest.starts_with(b":...") || (rest.starts_with(b":") && rest.ends_with(b"..."))) {
            return None;
        }
        let span = lines::locate(
            raw,
            LineRange {
                first: n,
                last: Some(n),
            },
        )
        .ok()?;
        let line = lines::trim_cr(&raw[span.start..span.end]);
        (line.len() > grep::LINE_CHARS && count_chars(line) > grep::LINE_CHARS).then_some(n)
    })
}

/// What the header says of a match of `len` code points, from code point
/// `at`, of which the first `shown` are shown.
fn cut_note(at: usize, shown: usize, len: usize) -> String {
    if shown == 0 {
        format!("; the match at offset={at} is {len} chars, too long for this answer: read it with offset={at} and max_chars={len}, without pattern")
    } else {
        format!(
            "; the match at offset={at} is {len} chars: its first {shown} shown; for the rest of it pass offset={} and max_chars={}, without pattern",
            at + shown,
            len - shown
        )
    }
}

/// A pattern's text is on `held` lines: how to find them.
fn literal_note(echo: &str, held: usize, pattern: &str) -> String {
    format!(
        "; the text '{echo}' as written is on {held} line{}: in a pattern \\ . + * ? ( ) [ ] {{ }} | ^ $ are special, so for the text pass query={} or pattern={}",
        if held == 1 { "" } else { "s" },
        json_quoted(pattern),
        json_quoted(&regex_syntax::escape(pattern))
    )
}

/// Characters special in a pattern, which a model may mean as text.
const SPECIAL: &[char] = &[
    '\\', '.', '+', '*', '?', '(', ')', '[', ']', '{', '}', '|', '^', '$',
];

/// `s` as a JSON string, the way a tool call's argument is written.
fn json_quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// For a pattern that matched nothing and holds a line break: why.
fn newline_hint(pattern: &str) -> &'static str {
    if pattern.contains("\\n") || pattern.contains('\n') {
        "; a pattern matches within one line, so \\n never matches (use $ for a line's end)"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests;
