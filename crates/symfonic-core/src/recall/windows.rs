//! The query windows: up to five windows of text around the matches of a
//! substring, exact first, then case-insensitive (a streaming fold, no copy
//! of the payload), with where each starts and how to read on.

use super::{ECHO_CHARS, MAX_CASELESS_QUERY_BYTES, MAX_WINDOWS, WINDOW_CHARS};
use crate::search::lines::{LineRange, Span};
use crate::search::{self, Blocks};
use crate::text::{count_chars, ellipsize, Text};
use crate::wtf8::{self, Wtf8Buf};

/// Matches read per answer, at most: more than any five windows show
/// unless the matches are packed (then the windows merge and stop at the cap).
const KEEP: usize = 256;
/// A window that merged several matches stops growing at this many code points.
const MAX_SPAN: usize = 6 * WINDOW_CHARS;

/// What a query asks, besides the text: matches starting at or after code
/// point `from` are shown, in answers of at most `budget` code points.
pub struct Ask<'a> {
    pub query: &'a Wtf8Buf,
    pub ignore_case: bool,
    pub within: Option<Span>,
    pub from: usize,
    pub count_only: bool,
    pub budget: usize,
}

/// Windows of 400 code points either side of each match (at most 5, `...`
/// where a window is cut inside the payload, joined by `\n---\n`), each
/// behind a line giving where it starts (`(offset N, line L)`); matches close
/// together share a window, so no text is shown twice. The search resumes
/// after each match. A first line counts the matches and, when they do not
/// all show, gives the `offset` to pass for the rest (where the last window
/// ends: no window starts before the offset, so none repeats text). No exact match but a case-insensitive one: those, and it says so.
/// Windows are payload slices and keep lone surrogates; the echoed query in
/// the message lines is display text (a lone surrogate there shows as U+FFFD).
/// With `blocks` (the payload's query index), ASCII searches read only the
/// blocks where a match can start. With `ignore_case`, case-insensitive
/// matches are shown whether or not exact ones exist; with `within`, only
/// matches starting in those lines are counted.
pub fn query_windows(text: &Text, ask: &Ask<'_>, mem_id: &str, blocks: Option<&Blocks>) -> Wtf8Buf {
    let query = ask.query;
    let (base, hay) = match ask.within {
        Some(s) => (s.start, &text.as_bytes()[s.start..s.end]),
        None => (0, text.as_bytes()),
    };
    let base_c = text.char_of(base);
    let from_b = text.byte_of(ask.from).saturating_sub(base).min(hay.len());
    let from_c = text.char_of(base + from_b) - base_c;
    let at = |b: usize| text.char_of(base + b);
    let place = match ask.within {
        Some(s) => format!("{mem_id} lines {}", LineRange::show(s.first, Some(s.last))),
        None => mem_id.to_string(),
    };
    let q = query.as_bytes();
    let q_chars = count_chars(q);
    let echo = ellipsize(&query.to_string_lossy(), ECHO_CHARS);
    let no_match = || Wtf8Buf::from(format!("[recall: no match for query '{echo}' in {place}]"));
    if q_chars > text.char_len() {
        return no_match();
    }
    let regions = |caseless| blocks.and_then(|b| b.regions(hay.len(), q, caseless));
    let found = if ask.ignore_case {
        search::Matches::default()
    } else {
        match regions(false) {
            Some(r) => search::within_from(hay, q, false, KEEP, &r, from_b),
            None => search::exact_from(hay, q, KEEP, from_b),
        }
    };
    let mut starts: Vec<usize> = found.first.iter().map(|&b| at(b)).collect();
    let (mut total, mut before) = (found.total, found.before);
    let mut mode = Mode::Exact;
    if total == 0 {
        let (s, t, b) = if q.len() > MAX_CASELESS_QUERY_BYTES {
            (Vec::new(), 0, 0)
        } else if q.is_ascii() {
            let m = match regions(true) {
                Some(r) => search::within_from(hay, q, true, KEEP, &r, from_b),
                None => search::ascii_caseless_from(hay, q, KEEP, from_b),
            };
            (m.first.iter().map(|&b| at(b)).collect(), m.total, m.before)
        } else {
            let (s, t, b) = folded_matches(hay, q, from_c);
            (s.into_iter().map(|c| base_c + c).collect(), t, b)
        };
        if t == 0 {
            return no_match();
        }
        (starts, total, before) = (s, t, b);
        mode = if ask.ignore_case {
            Mode::Caseless
        } else {
            Mode::Fallback
        };
    }
    let count = match mode {
        Mode::Exact => plural(total, "match", "matches"),
        Mode::Caseless => plural(total, "case-insensitive match", "case-insensitive matches"),
        Mode::Fallback => format!(
            "no exact match; {}",
            plural(total, "case-insensitive match", "case-insensitive matches")
        ),
    };
    let lead = match mode {
        Mode::Fallback => format!(
            "[recall: no exact match for query '{echo}' in {place}; {}",
            plural(total, "case-insensitive match", "case-insensitive matches")
        ),
        _ => format!("[recall: {count} for query '{echo}' in {place}"),
    };
    let since = if ask.from > 0 {
        format!("; {before} before offset={}", ask.from)
    } else {
        String::new()
    };
    if ask.count_only {
        return Wtf8Buf::from(format!("{lead}{since}]"));
    }
    if starts.is_empty() {
        return Wtf8Buf::from(format!("{lead}{since}; none at or after it]"));
    }
    // The header at its longest, so the windows never push it over.
    let reserve = count_chars(
        format!(
            "{lead}{since}; {0}-{0} shown; for the rest pass offset={0} with the same query]\n",
            text.char_len().max(total)
        )
        .as_bytes(),
    );
    let room = ask.budget.saturating_sub(reserve);
    let len = text.char_len();
    let bytes = text.as_bytes();
    // Windows as code point ranges, and the matches each shows.
    let mut windows: Vec<(usize, usize)> = Vec::new();
    let mut shown = 0usize;
    let mut next = None;
    let mut used = 0usize;
    let cost = |a: usize, b: usize| 2 * 3 + 5 + 40 + (b - a);
    // A match too long to show whole in an answer of its own: (its start,
    // the code points shown).
    let mut cut: Option<(usize, usize)> = None;
    // Windows start at or after `from`: an answer read on from the offset
    // the last one gave shows no text twice.
    for &c in &starts {
        let (a, b) = (
            c.saturating_sub(WINDOW_CHARS).max(ask.from.min(c)),
            (c + q_chars + WINDOW_CHARS).min(len),
        );
        match windows.last_mut() {
            Some(w) if a <= w.1 && b - w.0 <= MAX_SPAN => {
                let grown = used + (b - w.1);
                if grown > room {
                    w.1 = w.1.min(c).max(w.0);
                    next = Some(w.1);
                    break;
                }
                used = grown;
                w.1 = b;
            }
            last => {
                // A window's context never runs into a match it does not hold:
                // each match shows whole, in one window, once.
                let a = match last {
                    Some(w) => {
                        used -= w.1 - w.1.min(c).max(w.0);
                        w.1 = w.1.min(c).max(w.0);
                        a.max(w.1)
                    }
                    None => a,
                };
                if windows.len() == MAX_WINDOWS {
                    next = Some(windows.last().map_or(c, |w| w.1));
                    break;
                }
                if used + cost(a, b) > room {
                    if !windows.is_empty() {
                        next = Some(windows.last().map_or(c, |w| w.1));
                        break;
                    }
                    // The first window: its sides shrink to the room there is,
                    // and a match longer than that shows its head.
                    let left = room.saturating_sub(cost(0, 0));
                    if q_chars <= left {
                        let side = (left - q_chars) / 2;
                        let (a, b) = (
                            c.saturating_sub(side).max(ask.from.min(c)),
                            (c + q_chars + side).min(len),
                        );
                        used += cost(a, b);
                        windows.push((a, b));
                    } else {
                        let keep = left.saturating_sub(count_chars(cut_note(len, len, len).as_bytes()));
                        windows.push((c, c + keep));
                        cut = Some((c, keep));
                        shown += 1;
                        next = Some(c + q_chars);
                        break;
                    }
                } else {
                    used += cost(a, b);
                    windows.push((a, b));
                }
            }
        }
        shown += 1;
    }
    if next.is_none() && before + shown < total {
        // Matches past the ones read: resume after the last one shown, and
        // show nothing past it (the next match may be there).
        let end = starts[shown - 1] + q_chars;
        if let Some(w) = windows.last_mut() {
            w.1 = w.1.min(end);
        }
        next = Some(end);
    }
    let note = cut.map_or(String::new(), |(c, k)| cut_note(c, k, q_chars));
    if cut.is_some() && before + shown == total {
        next = None;
    }
    let windows: Vec<(usize, usize)> = windows.into_iter().filter(|w| w.1 > w.0).collect();
    let mut out: Vec<u8> = Vec::new();
    let first = before + 1;
    let range = if shown == 1 {
        format!("{first}")
    } else {
        format!("{first}-{}", before + shown)
    };
    let head = match next {
        Some(n) => Some(format!(
            "{lead}{since}; {range} shown{note}; for the rest pass offset={n} with the same query]"
        )),
        None if ask.from > 0 => Some(format!("{lead}{since}; {range} shown, the last{note}]")),
        None if mode == Mode::Fallback || cut.is_some() => Some(format!("{lead}{note}]")),
        None => None,
    };
    if let Some(h) = head {
        out.extend_from_slice(h.as_bytes());
        out.push(b'\n');
    }
    // Line numbers: from the query index where there is one, else counted on
    // from the previous window (a payload without one is small).
    let (mut line_at, mut line) = (0usize, 1usize);
    for (i, &(a, b)) in windows.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(b"\n---\n");
        }
        let ab = text.byte_of(a);
        line = match blocks {
            Some(index) => index.line_of(bytes, ab),
            None => line + memchr::memchr_iter(b'\n', &bytes[line_at..ab]).count(),
        };
        line_at = ab;
        out.extend_from_slice(format!("(offset {a}, line {line})\n").as_bytes());
        if a > 0 {
            out.extend_from_slice(b"...");
        }
        out.extend_from_slice(text.slice(a, b));
        if b < len {
            out.extend_from_slice(b"...");
        }
    }
    Wtf8Buf::from_bytes(out, text.is_utf8())
}

/// What the first line says of a match of `len` code points at code point
/// `at` of which the first `shown` are shown (a window ends at the cut).
fn cut_note(at: usize, shown: usize, len: usize) -> String {
    if shown == 0 {
        format!("; the match at offset={at} is {len} chars, too long for this answer: read it with offset={at} and max_chars={len}, without query")
    } else {
        format!(
            "; the match at offset={at} is {len} chars: its first {shown} shown; for the rest of it pass offset={} and max_chars={}, without query",
            at + shown,
            len - shown
        )
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Exact,
    /// `ignore_case` asked for.
    Caseless,
    /// No exact match: the case-insensitive ones.
    Fallback,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Case folding that maps each code point to exactly one, so code point
/// positions in the folded text are positions in the original. A lone
/// surrogate folds to itself.
fn fold(cp: u32) -> u32 {
    if cp < 0x80 {
        return (cp as u8).to_ascii_lowercase() as u32;
    }
    let Some(c) = char::from_u32(cp) else {
        return cp;
    };
    let mut l = c.to_lowercase();
    match (l.next(), l.next()) {
        (Some(x), None) => x as u32,
        _ => cp,
    }
}

/// Case-insensitive match starts (code points, first few) and the total, for
/// a query with non-ASCII letters (ASCII queries take `search::ascii_caseless`).
/// One pass over the payload, folding each code point as it is read and
/// feeding it to a KMP matcher over the folded query: linear time, and memory
/// bounded by the query (no folded copy of the payload). Matches are
/// non-overlapping, each search resuming after the previous match.
fn folded_matches(hay: &[u8], query: &[u8], from: usize) -> (Vec<usize>, usize, usize) {
    let mut needle = Vec::with_capacity(query.len());
    let mut i = 0;
    while i < query.len() {
        let (cp, n) = wtf8::decode_at(query, i);
        needle.push(fold(cp));
        i += n;
    }
    let m = needle.len();
    let mut starts = Vec::new();
    if m == 0 {
        return (starts, 0, 0);
    }
    // fail[k]: length of the longest proper border of needle[..=k].
    let mut fail = vec![0usize; m];
    let mut k = 0;
    for j in 1..m {
        while k > 0 && needle[j] != needle[k] {
            k = fail[k - 1];
        }
        if needle[j] == needle[k] {
            k += 1;
        }
        fail[j] = k;
    }
    let (mut total, mut before, mut state, mut ci, mut i) = (0usize, 0usize, 0usize, 0usize, 0usize);
    while i < hay.len() {
        let (cp, n) = if hay[i] < 0x80 {
            (hay[i] as u32, 1)
        } else {
            wtf8::decode_at(hay, i)
        };
        i += n;
        ci += 1;
        let c = fold(cp);
        while state > 0 && c != needle[state] {
            state = fail[state - 1];
        }
        if c == needle[state] {
            state += 1;
        }
        if state == m {
            if ci - m < from {
                before += 1;
            } else if starts.len() < KEEP {
                starts.push(ci - m);
            }
            total += 1;
            state = 0;
        }
    }
    (starts, total, before)
}

#[cfg(test)]
mod tests;
