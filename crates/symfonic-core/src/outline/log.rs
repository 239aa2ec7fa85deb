//! Logs, described by what a reader looks for first: how many lines, the time
//! range, the levels with their counts, where the errors are, the last lines.
//! Every count and the range are taken over the whole log (up to 64 MB, and
//! the stub says so past it), and the `pattern` suggested finds exactly the
//! lines counted as errors.
//!
//! A text is a log when most of its first lines start with a timestamp (see
//! `stamp`) or carry a level token near their start (see `level`).

mod level;
mod stamp;
mod suggest;

use super::lines::{self, fit_lines, numbered, Lines};
use super::{Fact, Outline, PreviewStyle};
use level::{level, FIRST_NON_ERROR, SEVERITIES};
use stamp::{timestamp, Range, Stamp};
use suggest::{error_pattern, Spellings};

/// Lines examined to decide whether a text is a log.
const PROBE_LINES: usize = 200;
/// Bytes of a log read for counts; past it, the counts say so.
const SCAN_BYTES: usize = 64 << 20;
/// Error line numbers listed in full up to this many.
const LIST_ERRORS: usize = 6;
/// Room for the last lines, less `QUOTE_COST` for each error line quoted
/// above them, and for one quoted error line: the stub stays near 1,000
/// code points with both quoted, whatever prefix the log's lines carry.
const TAIL_CHARS: usize = 240;
const QUOTE_COST: usize = 50;
const QUOTE_CHARS: usize = 110;

pub(super) fn outline(text: &str, lines: &Lines) -> Option<Outline> {
    if !looks_like_log(text) {
        return None;
    }
    let scanned = if text.len() > SCAN_BYTES {
        &text[..floor_char_boundary(text, SCAN_BYTES)]
    } else {
        text
    };
    let Scan {
        range,
        levels,
        errors,
        mentions,
        spellings,
        ..
    } = scan_halves(scanned);
    let count = lines.count;
    let mut schema = format!("log: {count} lines");
    if let Some((a, b)) = range.bounds() {
        schema.push_str(&format!("; time {a} .. {b}"));
    }
    let leveled: Vec<String> = levels
        .iter()
        .filter_map(|(spelled, c)| spelled.map(|s| format!("{s} {c}")))
        .collect();
    let has_levels = !leveled.is_empty();
    if has_levels {
        schema.push_str(&format!("; levels {}", leveled.join(", ")));
    }
    if scanned.len() < text.len() {
        schema.push_str(&format!(" (counts over the first {} MB)", SCAN_BYTES >> 20));
    }
    let mut facts = Vec::new();
    // Without level tokens, lines that mention an error stand in for them.
    let (errs, label) = if has_levels {
        (&errors, "errors")
    } else {
        (&mentions, "error mentions")
    };
    let tail = lines::tail(text, lines, 3, TAIL_CHARS);
    let mut recall = Vec::new();
    if let Some((last_n, last_line)) = errs.last {
        facts.push(Fact {
            label,
            text: errs.describe(),
        });
        // The first error is often the cause, the last the verdict: each is
        // shown unless the last lines already show it.
        let shown = |n: usize| tail.contains(&format!("{n}: "));
        if let Some((first_n, first_line)) = errs.first_line.filter(|(n, _)| !shown(*n)) {
            facts.push(Fact {
                label: "first error",
                text: fit_lines(&[(first_n, first_line)], QUOTE_CHARS),
            });
        }
        // On a log out of time order, the verdict is the latest error in time.
        match errs.latest_if_not_last() {
            Some((n, line)) => facts.push(Fact {
                label: "latest error",
                text: fit_lines(&[(n, line)], QUOTE_CHARS),
            }),
            None if !shown(last_n) && errs.first_line.is_none_or(|(n, _)| n != last_n) => facts.push(Fact {
                label: "last error",
                text: fit_lines(&[(last_n, last_line)], QUOTE_CHARS),
            }),
            None => {}
        }
        recall.push(lines::recall_lines(count, Some(last_n)));
        if has_levels {
            if let Some(p) = error_pattern(scanned, &spellings) {
                recall.push(format!("pattern={}", json_string(&p)));
            }
        }
    } else {
        recall.push(lines::recall_lines(count, None));
    }
    if count > 1 {
        // Each error line shown above takes some of the tail's room.
        let quoted = facts.iter().filter(|f| f.label.ends_with(" error")).count();
        let text = if quoted == 0 {
            tail
        } else {
            lines::tail(text, lines, 3, TAIL_CHARS - QUOTE_COST * quoted)
        };
        facts.push(Fact {
            label: "last lines",
            text,
        });
    }
    Some(Outline {
        shape: format!("log, {count} lines"),
        schema,
        facts,
        recall,
        preview: PreviewStyle::Log,
    })
}

/// A pattern as a JSON string, the way a tool call's argument is written.
fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Texts at least this long are scanned by two threads, a half each (the
/// per-line checks were half of a 5 MB log's record, on one thread).
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// What a scan of a log's lines found. Two scans of consecutive parts merge
/// into the scan of the whole ([`Scan::then`]).
#[derive(Default, Debug, PartialEq)]
struct Scan<'a> {
    lines: usize,
    /// Bytes of the text scanned.
    bytes: usize,
    range: Range<'a>,
    /// Per severity: (spelling first seen, count).
    levels: [(Option<&'a str>, usize); SEVERITIES],
    errors: ErrorLines<'a>,
    mentions: ErrorLines<'a>,
    /// How the error lines spell their level, for the suggested pattern.
    spellings: Spellings<'a>,
}

impl<'a> Scan<'a> {
    fn of(text: &'a str) -> Scan<'a> {
        let mut out = Scan {
            bytes: text.len(),
            ..Scan::default()
        };
        for (n, line) in numbered(text) {
            out.lines = n;
            let ts = timestamp(line);
            if let Some(s) = ts {
                out.range.add(s);
            }
            match level(line, ts.map_or(0, |s| s.end)) {
                Some(l) => {
                    let slot = &mut out.levels[l.severity];
                    slot.0.get_or_insert(&line[l.start..l.end]);
                    slot.1 += 1;
                    if l.severity < FIRST_NON_ERROR {
                        out.errors.push(n, line);
                        out.errors.stamped(n, line, ts);
                        let at = line.as_ptr() as usize - text.as_ptr() as usize;
                        out.spellings.add(line, at, l.start, l.end);
                    }
                }
                None => {
                    if mentions_error(line) {
                        out.mentions.push(n, line);
                        out.mentions.stamped(n, line, ts);
                    }
                }
            }
        }
        out
    }

    /// This scan followed by the scan of the lines right after it.
    fn then(mut self, next: Scan<'a>) -> Scan<'a> {
        let offset = self.lines;
        self.lines += next.lines;
        let bytes = self.bytes;
        self.bytes += next.bytes;
        self.range = self.range.then(next.range);
        for (mine, theirs) in self.levels.iter_mut().zip(next.levels) {
            mine.0 = mine.0.or(theirs.0);
            mine.1 += theirs.1;
        }
        self.errors.extend(next.errors, offset);
        self.mentions.extend(next.mentions, offset);
        self.spellings = self.spellings.then(next.spellings, bytes);
        self
    }
}

/// The scan of `text`, by two threads when it is long (split after a line end).
fn scan_halves(text: &str) -> Scan<'_> {
    let b = text.as_bytes();
    let split = if b.len() >= PARALLEL_MIN_BYTES {
        memchr::memchr(b'\n', &b[b.len() / 2..]).map(|i| b.len() / 2 + i + 1)
    } else {
        None
    };
    let Some(m) = split.filter(|&m| m < b.len()) else {
        return Scan::of(text);
    };
    // A line end is a char boundary: both halves are whole lines.
    let (first, second) = text.split_at(m);
    std::thread::scope(|s| {
        let other = std::thread::Builder::new().spawn_scoped(s, move || Scan::of(second));
        let a = Scan::of(first);
        let b = match other {
            Ok(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            Err(_) => Scan::of(second),
        };
        a.then(b)
    })
}

/// Where the error lines are: all of them when few, else the first and last three.
#[derive(Default, Debug, PartialEq)]
struct ErrorLines<'a> {
    count: usize,
    first: Vec<usize>,
    recent: std::collections::VecDeque<usize>,
    first_line: Option<(usize, &'a str)>,
    last: Option<(usize, &'a str)>,
    /// The error line with the latest timestamp (the last of equals), while
    /// every error line's timestamp can be ordered with the others.
    latest: Latest<'a>,
}

/// The latest of some timestamped lines: `Unordered` once two of them
/// cannot be compared (forms, zones, a clock without a date).
#[derive(Default, Debug, PartialEq, Clone, Copy)]
enum Latest<'a> {
    #[default]
    None,
    At(Stamp<'a>, usize, &'a str),
    Unordered,
}

impl<'a> Latest<'a> {
    fn add(self, s: Stamp<'a>, n: usize, line: &'a str) -> Self {
        match self {
            Latest::None => Latest::At(s, n, line),
            Latest::At(t, ..) => match s.not_before(&t) {
                Some(true) => Latest::At(s, n, line),
                Some(false) => self,
                None => Latest::Unordered,
            },
            Latest::Unordered => self,
        }
    }
}

impl<'a> ErrorLines<'a> {
    fn push(&mut self, n: usize, line: &'a str) {
        self.count += 1;
        self.first_line.get_or_insert((n, line));
        if self.first.len() < LIST_ERRORS {
            self.first.push(n);
        }
        self.recent.push_back(n);
        if self.recent.len() > 3 {
            self.recent.pop_front();
        }
        self.last = Some((n, line));
    }

    fn stamped(&mut self, n: usize, line: &'a str, ts: Option<Stamp<'a>>) {
        self.latest = match ts {
            Some(s) => self.latest.add(s, n, line),
            // An error line without a time cannot be placed in time.
            None => Latest::Unordered,
        };
    }

    /// The error line with the latest time, when it is not the last line.
    fn latest_if_not_last(&self) -> Option<(usize, &'a str)> {
        match (self.latest, self.last) {
            (Latest::At(_, n, line), Some((last, _))) if n != last => Some((n, line)),
            _ => None,
        }
    }

    /// Appends the error lines of the lines after these (`next`'s line
    /// numbers count from `offset` + 1).
    fn extend(&mut self, next: ErrorLines<'a>, offset: usize) {
        if self.first_line.is_none() {
            self.first_line = next.first_line.map(|(n, l)| (n + offset, l));
        }
        for n in next.first.into_iter().take(LIST_ERRORS - self.first.len()) {
            self.first.push(n + offset);
        }
        for n in next.recent {
            self.recent.push_back(n + offset);
            if self.recent.len() > 3 {
                self.recent.pop_front();
            }
        }
        if let Some((n, l)) = next.last {
            self.last = Some((n + offset, l));
        }
        self.latest = match next.latest {
            Latest::None => self.latest,
            Latest::At(s, n, l) => self.latest.add(s, n + offset, l),
            Latest::Unordered => Latest::Unordered,
        };
        self.count += next.count;
    }

    fn describe(&self) -> String {
        let join =
            |v: &mut dyn Iterator<Item = &usize>| v.map(|n| n.to_string()).collect::<Vec<_>>().join(", ");
        let noun = if self.count == 1 { "line" } else { "lines" };
        if self.count <= LIST_ERRORS {
            format!("{} {noun}, at {}", self.count, join(&mut self.first.iter()))
        } else {
            format!(
                "{} {noun}, first at {}; last at {}",
                self.count,
                join(&mut self.first.iter().take(3)),
                join(&mut self.recent.iter())
            )
        }
    }
}

fn looks_like_log(text: &str) -> bool {
    let mut seen = 0;
    let mut marked = 0;
    for (_, line) in numbered(text)
        .filter(|(_, l)| !l.trim().is_empty())
        .take(PROBE_LINES)
    {
        seen += 1;
        if timestamp(line).is_some() || level(line, 0).is_some() {
            marked += 1;
        }
    }
    seen >= 3 && marked * 10 >= seen * 6
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Whether a line without a level token reads as an error report.
fn mentions_error(line: &str) -> bool {
    const WORDS: [&str; 5] = ["error", "fail", "fatal", "exception", "panic"];
    let head = &line.as_bytes()[..line.len().min(400)];
    head.windows(4).enumerate().any(|(i, w)| {
        let c = w[0] | 0x20;
        (c == b'e' || c == b'f' || c == b'p')
            && WORDS.iter().any(|word| {
                let wb = word.as_bytes();
                head.len() >= i + wb.len() && head[i..i + wb.len()].eq_ignore_ascii_case(wb)
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_halves_scan_as_one() {
        // Errors before, at and after the split, few and many of them, and
        // a level spelled one way in the first half and another in the second.
        let spread: [&dyn Fn(usize) -> bool; 4] = [&|i| i % 7 == 3, &|i| i % 1_000 == 3, &|i| i == 3, &|i| {
            [3, 19_999, 20_000, 20_001, 30_000, 39_999].contains(&i)
        }];
        for is_error in spread {
            let text: String = (0..40_000)
                .map(|i| {
                    let level = match i {
                        _ if is_error(i) => "ERROR",
                        _ if i > 20_000 && i % 5 == 0 => "[warn]",
                        _ => "INFO",
                    };
                    let ts = if i % 11 == 0 {
                        String::new()
                    } else {
                        format!("2026-01-01T00:{:02}:{:02}Z ", i / 60 % 60, i % 60)
                    };
                    let tail = if i % 13 == 0 { "request failed" } else { "ok" };
                    format!("{ts}{level} worker {i} {tail}\n")
                })
                .collect();
            assert!(text.len() >= PARALLEL_MIN_BYTES);
            let one = Scan::of(&text);
            assert_eq!(scan_halves(&text), one);
            assert_eq!(one.lines, 40_000);
            // And the same on a part that does not end with a line end.
            let cut = &text[..text.len() - 4];
            assert_eq!(scan_halves(cut), Scan::of(cut));
        }
    }

    #[test]
    fn error_mentions() {
        assert!(mentions_error("authentication failure; logname="));
        assert!(mentions_error("java.lang.NullPointerException at"));
        assert!(!mentions_error("all good"));
    }
}
