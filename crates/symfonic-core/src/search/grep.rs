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

use regex_automata::meta;
pub use regex_automata::meta::Regex;
use regex_automata::Input;
use regex_syntax::hir::{
    Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Literal,
};

use super::lines::{self, trim_cr, Span};
use crate::text::{count_chars, take_chars_bytes};

/// Longest pattern, in code points.
pub const MAX_PATTERN_CHARS: usize = 1000;
/// Bounds on the compiled program and the lazy DFA's cache (regex's defaults
/// are 10 MiB and 2 MiB). 4 MiB admits `\w{1,50}`; an 8 MiB cache keeps
/// case-insensitive Unicode classes in the DFA (`(?i)\w{1,30}@\w{1,30}` on a
/// 5 MB log: 1.7 s with 2 MiB, where it falls back to the NFA; 2 ms with 8).
const SIZE_LIMIT: usize = 4 << 20;
const DFA_SIZE_LIMIT: usize = 8 << 20;
/// Nesting depth of groups and repetitions (the crate allows 250).
const NEST_LIMIT: u32 = 64;
/// Most lines of context either side of a match.
pub const MAX_CONTEXT: usize = 50;
/// A line longer than this many code points is shown cut.
pub const LINE_CHARS: usize = 1000;
/// Code points shown either side of the match on a cut line.
const CUT_SIDE: usize = 200;

/// `pattern` compiled with the search's flags, or what is wrong with it
/// (one line, for the model).
pub fn compile(pattern: &str, ignore_case: bool) -> Result<Regex, String> {
    compile_for(pattern, ignore_case, false)
}

/// [`compile`] for a haystack known to be ASCII (`ascii`): an ASCII pattern
/// is then compiled without Unicode classes and case folding, which match
/// exactly the same there (no non-ASCII byte to tell them apart) and are far
/// cheaper: `(?i)error|timeout` gets a literal prefilter (Unicode folding
/// adds U+017F for `s` and U+212A for `k`), `\b` stays in the DFA.
pub fn compile_for(pattern: &str, ignore_case: bool, ascii: bool) -> Result<Regex, String> {
    if pattern.chars().count() > MAX_PATTERN_CHARS {
        return Err(format!("it is longer than {MAX_PATTERN_CHARS} characters"));
    }
    let parse = |unicode: bool| {
        regex_syntax::ParserBuilder::new()
            .nest_limit(NEST_LIMIT)
            .case_insensitive(ignore_case)
            .multi_line(true)
            .crlf(true)
            .unicode(unicode)
            .utf8(unicode)
            .build()
            .parse(pattern)
            .map_err(Box::new)
    };
    // The parser alone first: its errors carry a kind and a position.
    let hir = parse(true).map_err(|e| syntax_problem(pattern, &e))?;
    // `\p{..}` and the like have no ASCII form: those keep the Unicode one.
    let hir = match ascii && pattern.is_ascii() {
        true => parse(false).unwrap_or(hir),
        false => hir,
    };
    let config = meta::Config::new()
        .nfa_size_limit(Some(SIZE_LIMIT))
        .hybrid_cache_capacity(DFA_SIZE_LIMIT);
    meta::Builder::new()
        .configure(config)
        .build_from_hir(&within_line(hir))
        .map_err(|e| match e.size_limit() {
            Some(_) => "it compiles to more than 4 MiB (use fewer or smaller repetitions)".to_string(),
            None => e.to_string().split_whitespace().collect::<Vec<_>>().join(" "),
        })
}

/// `h` with `\n` (and the `\r` of a CRLF, so `\s$` does not match every
/// line of a CRLF log) taken out of every class, and every literal holding a
/// `\n` made a never-match. Recursion depth is bounded by the parser's nest limit.
fn within_line(h: Hir) -> Hir {
    match h.into_kind() {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(Literal(b)) if b.contains(&b'\n') => Hir::fail(),
        HirKind::Literal(Literal(b)) => Hir::literal(b),
        HirKind::Class(Class::Unicode(mut c)) => {
            c.difference(&ClassUnicode::new([
                ClassUnicodeRange::new('\n', '\n'),
                ClassUnicodeRange::new('\r', '\r'),
            ]));
            Hir::class(Class::Unicode(c))
        }
        HirKind::Class(Class::Bytes(mut c)) => {
            c.difference(&ClassBytes::new([
                ClassBytesRange::new(b'\n', b'\n'),
                ClassBytesRange::new(b'\r', b'\r'),
            ]));
            Hir::class(Class::Bytes(c))
        }
        HirKind::Look(l) => Hir::look(l),
        HirKind::Repetition(mut r) => {
            r.sub = Box::new(within_line(*r.sub));
            Hir::repetition(r)
        }
        HirKind::Capture(mut c) => {
            c.sub = Box::new(within_line(*c.sub));
            Hir::capture(c)
        }
        HirKind::Concat(v) => Hir::concat(v.into_iter().map(within_line).collect()),
        HirKind::Alternation(v) => Hir::alternation(v.into_iter().map(within_line).collect()),
    }
}

fn syntax_problem(pattern: &str, e: &regex_syntax::Error) -> String {
    let (kind, at) = match e {
        regex_syntax::Error::Parse(a) => (a.kind().to_string(), a.span().start.offset),
        regex_syntax::Error::Translate(h) => (h.kind().to_string(), h.span().start.offset),
        other => (other.to_string(), 0),
    };
    let at = pattern.get(..at).map_or(0, |p| p.chars().count()) + 1;
    format!("{kind} at character {at}")
}

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
    };
    let (mut total, mut shown) = (0, 0);
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
        if out.resume.is_none() {
            if let Some((n, s, owed)) = after.take() {
                out.after(n, s, owed, ln);
            }
            out.before(ls, ln);
            let line = trim_cr(&raw[ls..le]);
            let wrote = if is_long(line) {
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
        if out.resume.is_none() {
            out.after(n, s, owed, usize::MAX);
        }
    }
    let Body { mut buf, resume, .. } = out;
    if buf.last() == Some(&b'\n') {
        buf.pop();
    }
    Found {
        body: buf,
        total,
        shown,
        resume,
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
}

impl Body<'_> {
    /// Writes `n<sep>text` (after `--` when it does not follow the last line
    /// written), or notes where to resume (`at`, the byte the entry shows
    /// from) when it does not fit.
    fn emit(&mut self, n: usize, sep: u8, text: &[u8], at: usize) -> bool {
        if self.resume.is_some() {
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

    /// A line over `LINE_CHARS` code points, from byte `ls`: one entry per
    /// match from byte `from` on, `CUT_SIDE` code points either side, matches
    /// whose parts would overlap sharing one (so no text shows twice).
    /// Whether any was written.
    fn long_line(&mut self, hay: &[u8], re: &Regex, ln: usize, ls: usize, from: usize, le: usize) -> bool {
        let line = &self.raw[ls..le];
        let mut p = from;
        let mut wrote = false;
        // The part being built: its byte range in the line. Parts start at or
        // after `from`, so an answer that resumes there shows nothing twice.
        let floor = from - ls;
        let mut part: Option<(usize, usize)> = None;
        let flush = |body: &mut Self, (a, b): (usize, usize)| -> bool {
            let mut text = Vec::with_capacity(b - a + 6);
            if a > 0 {
                text.extend_from_slice(b"...");
            }
            text.extend_from_slice(&line[a..b]);
            if b < line.len() {
                text.extend_from_slice(b"...");
            }
            // Not written: the search resumes where this part starts.
            body.emit(ln, b':', &text, ls + a)
        };
        while p <= le {
            let Some(m) = re.search(&Input::new(hay).range(p..le)) else {
                break;
            };
            let (ms, me) = (m.start() - ls, (m.end() - ls).min(line.len()));
            let me = ms + take_chars_bytes(&line[ms..me], 2 * CUT_SIDE).len();
            let a = back_chars(line, ms, CUT_SIDE).max(floor);
            let b = me + take_chars_bytes(&line[me..], CUT_SIDE).len();
            part = match part {
                Some((pa, pb)) if a <= pb && b - pa <= LINE_CHARS => Some((pa, b)),
                Some((pa, pb)) => {
                    // A part's context never runs into a match it does not hold.
                    let end = pb.min(ms).max(pa);
                    if !flush(self, (pa, end)) {
                        return wrote;
                    }
                    wrote = true;
                    Some((a.max(end), b))
                }
                None => Some((a, b)),
            };
            // An empty match moves on by one character.
            p = if m.end() > m.start() {
                m.end()
            } else {
                next_char(hay, m.end())
            };
        }
        if let Some(last) = part {
            wrote |= flush(self, last);
        }
        wrote
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
