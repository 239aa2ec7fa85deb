//! The recall tool's `pattern`: a regular-expression search answered as
//! `grep -n` answers, on the `regex` crate's engine (finite automata: time
//! linear in the payload for a given pattern, no backtracking). A pattern is
//! bounded in length, compiled size and DFA cache, so no model-sent one can
//! hang a thread or exhaust memory; one that does not compile is described,
//! not thrown.
//!
//! Lines: a pattern matches within a line, as grep's do. Its syntax tree is
//! confined to one line before compiling (`\n` and `\r` taken out of every
//! class, a literal `\n` never matches), so each search stops at the next matching
//! line instead of running on (`[^x]*y` would otherwise scan to the end from
//! every line: quadratic). `^`/`$` match at line ends, `\r\n` included, and
//! the `\r` is not shown. The search runs on the payload's
//! display text (a lone surrogate reads as U+FFFD, the same three bytes
//! long), and the lines shown are the payload's own bytes.

pub use regex_automata::meta::Regex;
use regex_automata::Input;

use super::lines::{self, trim_cr, Span};
use crate::text::{count_chars, take_chars_bytes};
pub use compile::{compile, compile_for, MAX_PATTERN_CHARS};

mod compile;

/// Most lines of context either side of a match.
pub const MAX_CONTEXT: usize = 50;
/// A line longer than this many code points is shown cut.
pub const LINE_CHARS: usize = 1000;
/// Code points shown either side of the match on a cut line.
const CUT_SIDE: usize = 200;

/// What a search found and showed.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// `N:line` for matching lines, `N-line` for context, `--` between
    /// groups that are not adjacent; a line over `LINE_CHARS` is shown as
    /// one `N:...part...` per match (matches close together share one); no
    /// final newline.
    pub body: Vec<u8>,
    /// Matching lines in the range, from where the search started.
    pub total: usize,
    /// Matching lines shown (whole, or at least one match of a long line).
    pub shown: usize,
    /// Where to search on when the budget ran out: the byte offset of the
    /// first line (or, in a long line, the first match) not shown.
    pub resume: Option<usize>,
    /// A match too long to show whole, which ends the answer: its start, the
    /// end of its head shown, and its end (bytes).
    pub cut: Option<(usize, usize, usize)>,
    /// Matches on the matching lines over `LINE_CHARS` (each such line shows
    /// one part per match, so the line count alone undersells them).
    pub long_matches: usize,
}

/// Searches lines `span` of `raw` (matching on `view`, its display text of
/// the same length) from byte `from` (at or after `span.start`), and shows
/// what fits in `budget` code points, counting every matching line.
pub fn search(
    view: &str,
    raw: &[u8],
    re: &Regex,
    span: Span,
    from: usize,
    context: usize,
    budget: usize,
) -> Found {
    search_noting(view, raw, re, span, from, context, budget, 0)
}

/// [`search`], keeping `cut_note` code points of the budget for the note on
/// a match too long to show whole (it is only written with such a match).
#[allow(clippy::too_many_arguments)]
pub fn search_noting(
    view: &str,
    raw: &[u8],
    re: &Regex,
    span: Span,
    from: usize,
    context: usize,
    budget: usize,
    cut_note: usize,
) -> Found {
    debug_assert_eq!(view.len(), raw.len());
    if raw.is_empty() {
        return Found::default(); // no lines
    }
    let context = context.min(MAX_CONTEXT);
    let hay = &view.as_bytes()[..span.end];
    let from = from.clamp(span.start, span.end);
    // Context lines stop at the line `from` is in, as at the range's start.
    let first = lines::line_start(raw, span.start, from);
    let span = Span {
        start: first,
        first: lines::line_of(raw, span.start, span.first, first),
        ..span
    };
    let mut out = Body {
        raw,
        span,
        context,
        buf: Vec::new(),
        used: 0,
        budget,
        last: 0,
        resume: None,
        cut: None,
        cut_note,
    };
    let (mut total, mut shown, mut long_matches) = (0, 0, 0);
    // (byte, line) of a known line start, to number the next match from.
    let mut anchor = (span.start, span.first);
    // After the last match: the next line's (number, start) and lines owed.
    let mut after: Option<(usize, usize, usize)> = None;
    let mut pos = from;
    while pos <= span.end {
        // Matches stay within a line, so where one ends tells its line: the
        // search stops at the first match state, no reverse scan for a start.
        let Some(m) = re.search_half(&Input::new(hay).range(pos..).earliest(true)) else {
            break;
        };
        let e = m.offset();
        let ls = lines::line_start(raw, anchor.0, e.max(anchor.0));
        let ln = lines::line_of(raw, anchor.0, anchor.1, ls);
        let le = lines::line_end(raw, e, span.end);
        total += 1;
        let line = trim_cr(&raw[ls..le]);
        if is_long(line) {
            long_matches += re
                .find_iter(Input::new(hay).range(pos.max(ls)..ls + line.len()))
                .count();
        }
        if out.open() {
            if let Some((n, s, owed)) = after.take() {
                out.after(n, s, owed, ln);
            }
            out.before(ls, ln);
            // A line that does not fit whole on a page of its own shows in parts.
            let alone = out.used == 0 && count_chars(line) > out.room(ln);
            let wrote = if is_long(line) || alone {
                out.long_line(hay, re, ln, ls, pos.max(ls), ls + line.len())
            } else {
                out.emit(ln, b':', line, ls)
            };
            if wrote {
                shown += 1;
            }
        }
        anchor = (ls, ln);
        if le >= span.end {
            break;
        }
        after = Some((ln + 1, le + 1, context));
        pos = le + 1;
    }
    if let Some((n, s, owed)) = after {
        if out.open() {
            out.after(n, s, owed, usize::MAX);
        }
    }
    let Body {
        mut buf, resume, cut, ..
    } = out;
    if buf.last() == Some(&b'\n') {
        buf.pop();
    }
    Found {
        body: buf,
        total,
        shown,
        resume,
        cut,
        long_matches,
    }
}

/// The answer's lines as they are written, within a budget.
struct Body<'a> {
    raw: &'a [u8],
    span: Span,
    context: usize,
    buf: Vec<u8>,
    /// Code points written.
    used: usize,
    budget: usize,
    /// The last line written (0: none yet).
    last: usize,
    resume: Option<usize>,
    /// See [`Found::cut`].
    cut: Option<(usize, usize, usize)>,
    /// Code points kept for the note on a cut match.
    cut_note: usize,
}

impl Body<'_> {
    /// Whether more can be written (the budget has not run out, no match was cut).
    fn open(&self) -> bool {
        self.resume.is_none() && self.cut.is_none()
    }

    /// Writes `n<sep>text` (after `--` when it does not follow the last line
    /// written), or notes where to resume (`at`, the byte the entry shows
    /// from) when it does not fit.
    fn emit(&mut self, n: usize, sep: u8, text: &[u8], at: usize) -> bool {
        if !self.open() {
            return false;
        }
        let gap = self.context > 0 && self.last > 0 && n > self.last + 1;
        let head = format!("{}{n}{}", if gap { "--\n" } else { "" }, sep as char);
        let cost = head.len() + count_chars(text) + 1;
        if self.used + cost > self.budget {
            self.resume = Some(at);
            return false;
        }
        self.buf.extend_from_slice(head.as_bytes());
        self.buf.extend_from_slice(text);
        self.buf.push(b'\n');
        self.used += cost;
        self.last = n;
        true
    }

    /// Code points a part of line `ln` can hold in what is left of the
    /// budget (its `N:`, a `--` before it, two `...` and its newline aside).
    fn room(&self, ln: usize) -> usize {
        let fixed = format!("--\n{ln}:").len() + 6 + 1;
        self.budget.saturating_sub(self.used + fixed)
    }

    /// A matching line shown in parts: a line over `LINE_CHARS` code points,
    /// or one that does not fit whole in an answer that has shown nothing yet.
    /// One part per match from byte `from` on, up to `CUT_SIDE` code points
    /// either side, shrunk to the budget left; matches whose parts would
    /// overlap share one (so no text shows twice). A match that does not fit
    /// whole (over `2 * CUT_SIDE`, or over the budget) ends the answer: its
    /// head is shown, `cut` says where its rest is, and the search resumes
    /// after it. Whether any part was written.
    fn long_line(&mut self, hay: &[u8], re: &Regex, ln: usize, ls: usize, from: usize, le: usize) -> bool {
        let line = &self.raw[ls..le];
        let mut p = from;
        let mut wrote = false;
        // Parts start at or after `from` (then after the part before), so an
        // answer that resumes there shows nothing twice.
        let mut floor = from - ls;
        // The part being built: its byte range in the line.
        let mut part: Option<(usize, usize)> = None;
        while p <= le {
            let Some(m) = re.search(&Input::new(hay).range(p..le)) else {
                break;
            };
            let (ms, me) = (m.start() - ls, (m.end() - ls).min(line.len()));
            // An empty match moves on by one character.
            let next = if m.end() > m.start() {
                m.end()
            } else {
                next_char(hay, m.end())
            };
            let whole = take_chars_bytes(&line[ms..me], 2 * CUT_SIDE).len() == me - ms;
            if let Some((pa, pb)) = part {
                let a = back_chars(line, ms, CUT_SIDE).max(floor);
                let b = me + take_chars_bytes(&line[me..], CUT_SIDE).len();
                if whole && a <= pb && b - pa <= LINE_CHARS && count_chars(&line[pa..b]) <= self.room(ln) {
                    part = Some((pa, b));
                    p = next;
                    continue;
                }
                // A part's context never runs into a match it does not hold.
                let end = pb.min(ms).max(pa);
                if !self.part(ln, ls, line, (pa, end)) {
                    return wrote;
                }
                wrote = true;
                floor = end;
            }
            let room = self.room(ln);
            let chars = if whole {
                count_chars(&line[ms..me])
            } else {
                usize::MAX
            };
            if chars <= room {
                let side = CUT_SIDE.min((room - chars) / 2);
                let a = back_chars(line, ms, side).max(floor);
                let b = me + take_chars_bytes(&line[me..], side).len();
                part = Some((a, b));
                p = next;
                continue;
            }
            if self.used > 0 {
                // On a page of its own.
                self.resume = Some(ls + ms);
                return wrote;
            }
            // Its head, the note on where the rest of it is, and on after it.
            let keep = room.saturating_sub(self.cut_note).min(2 * CUT_SIDE);
            let kb = ms + take_chars_bytes(&line[ms..me], keep).len();
            let mut text = Vec::with_capacity(kb - ms + 6);
            if ms > 0 {
                text.extend_from_slice(b"...");
            }
            text.extend_from_slice(&line[ms..kb]);
            text.extend_from_slice(b"...");
            if kb > ms && self.emit(ln, b':', &text, ls + ms) {
                wrote = true;
            }
            self.cut = Some((ls + ms, ls + kb, ls + me));
            let end = lines::line_end(self.raw, ls + me, self.span.end);
            self.resume = if me < line.len() {
                Some(ls + me)
            } else {
                (end < self.span.end).then_some(end + 1)
            };
            return wrote;
        }
        if let Some(last) = part {
            wrote |= self.part(ln, ls, line, last);
        }
        wrote
    }

    /// Writes bytes `a..b` of `line` (line `ln`, from byte `ls`) as a part,
    /// `...` where it is cut; not written, the search resumes where it starts.
    fn part(&mut self, ln: usize, ls: usize, line: &[u8], (a, b): (usize, usize)) -> bool {
        let mut text = Vec::with_capacity(b - a + 6);
        if a > 0 {
            text.extend_from_slice(b"...");
        }
        text.extend_from_slice(&line[a..b]);
        if b < line.len() {
            text.extend_from_slice(b"...");
        }
        self.emit(ln, b':', &text, ls + a)
    }

    /// Up to `context` lines before line `ln` (starting at byte `ls`), not
    /// repeating lines written and not before the range.
    fn before(&mut self, ls: usize, ln: usize) {
        let floor = (self.last + 1).max(self.span.first);
        let k = self.context.min(ln.saturating_sub(floor));
        let mut starts = Vec::with_capacity(k);
        let mut s = ls;
        for _ in 0..k {
            s = lines::line_start(self.raw, self.span.start, s - 1);
            starts.push(s);
        }
        for (i, &s) in starts.iter().enumerate().rev() {
            let e = lines::line_end(self.raw, s, self.span.end);
            let line = shown_line(trim_cr(&self.raw[s..e]));
            self.emit(ln - 1 - i, b'-', &line, s);
        }
    }

    /// Up to `owed` lines from line `n` (starting at byte `s`), before line `stop`.
    fn after(&mut self, mut n: usize, mut s: usize, owed: usize, stop: usize) {
        for _ in 0..owed {
            if n >= stop || s > self.span.end {
                return;
            }
            let e = lines::line_end(self.raw, s, self.span.end);
            let line = shown_line(trim_cr(&self.raw[s..e]));
            if !self.emit(n, b'-', &line, s) || e >= self.span.end {
                return;
            }
            n += 1;
            s = e + 1;
        }
    }
}

/// The byte after the character at `i` (UTF-8 or WTF-8).
fn next_char(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() && (b[j] as i8) < -0x40 {
        j += 1;
    }
    j
}

/// A context line as shown: whole up to `LINE_CHARS` code points; longer,
/// its head, with `...` where it is cut.
fn shown_line(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if !is_long(line) {
        return line.into();
    }
    let b = take_chars_bytes(line, 2 * CUT_SIDE).len();
    let mut out = Vec::with_capacity(b + 3);
    out.extend_from_slice(&line[..b]);
    out.extend_from_slice(b"...");
    out.into()
}

/// Whether `line` is shown cut (over `LINE_CHARS` code points).
fn is_long(line: &[u8]) -> bool {
    line.len() > LINE_CHARS && count_chars(line) > LINE_CHARS
}

/// The byte offset `n` code points before `pos` in UTF-8 (or WTF-8) `b`.
fn back_chars(b: &[u8], mut pos: usize, n: usize) -> usize {
    for _ in 0..n {
        if pos == 0 {
            break;
        }
        pos -= 1;
        while pos > 0 && (b[pos] as i8) < -0x40 {
            pos -= 1;
        }
    }
    pos
}

#[cfg(test)]
mod tests;
