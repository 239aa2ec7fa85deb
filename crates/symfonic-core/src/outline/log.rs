//! Logs, described by what a reader looks for first: how many lines, the time
//! range, the levels with their counts, where the errors are, the last lines.
//!
//! A text is a log when most of its first lines start with a timestamp or
//! carry a level token near their start. The timestamp forms are those seen
//! on real logs (ISO 8601 and RFC 3339, syslog, Apache/ctime, HDFS's
//! `yyMMdd HHmmss`, Spark's `yy/MM/dd HH:mm:ss`); timestamps are shown as
//! written, never reparsed.

use super::lines::{self, fit_lines, numbered, Lines};
use super::{Fact, Outline, PreviewStyle};

/// Lines examined to decide whether a text is a log.
const PROBE_LINES: usize = 200;
/// Bytes of a line searched for a level token.
const LEVEL_HEAD: usize = 160;
/// Bytes of a log read for counts; past it, the counts say so.
const SCAN_BYTES: usize = 64 << 20;
/// Error line numbers listed in full up to this many.
const LIST_ERRORS: usize = 6;

/// Level tokens, most severe first; the index orders the `levels` fact.
const LEVELS: [&str; 15] = [
    "FATAL", "EMERG", "ALERT", "PANIC", "CRITICAL", "CRIT", "SEVERE", "ERROR", "ERR", "WARNING", "WARN",
    "NOTICE", "INFO", "DEBUG", "TRACE",
];
/// Levels from this index on are not errors.
const FIRST_NON_ERROR: usize = 9;

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
        first_ts,
        last_ts,
        levels,
        errors,
        mentions,
        ..
    } = scan_halves(scanned);
    let count = lines.count;
    let mut schema = format!("log: {count} lines");
    if let (Some(a), Some(b)) = (first_ts, last_ts) {
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
    let tail = lines::tail(text, lines, 3, 240);
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
                text: fit_lines(&[(first_n, first_line)], 140),
            });
        }
        if !shown(last_n) && errs.first_line.is_none_or(|(n, _)| n != last_n) {
            facts.push(Fact {
                label: "last error",
                text: fit_lines(&[(last_n, last_line)], 140),
            });
        }
        recall.push(lines::recall_lines(count, Some(last_n)));
        if let Some(spelled) = errors_token(&levels) {
            recall.push(format!("pattern=\"{spelled}\""));
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
            lines::tail(text, lines, 3, 240 - 25 * quoted)
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

/// Texts at least this long are scanned by two threads, a half each (the
/// per-line checks were half of a 5 MB log's record, on one thread).
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// What a scan of a log's lines found. Two scans of consecutive parts merge
/// into the scan of the whole ([`Scan::then`]).
#[derive(Default, Debug, PartialEq)]
struct Scan<'a> {
    lines: usize,
    first_ts: Option<&'a str>,
    last_ts: Option<&'a str>,
    /// Per level: (spelling first seen, count).
    levels: [(Option<&'a str>, usize); LEVELS.len()],
    errors: ErrorLines<'a>,
    mentions: ErrorLines<'a>,
}

impl<'a> Scan<'a> {
    fn of(text: &'a str) -> Scan<'a> {
        let mut out = Scan::default();
        for (n, line) in numbered(text) {
            out.lines = n;
            let (ts_end, ts) = match timestamp(line) {
                Some((start, end)) => (end, Some(&line[start..end])),
                None => (0, None),
            };
            if let Some(ts) = ts {
                out.first_ts.get_or_insert(ts);
                out.last_ts = Some(ts);
            }
            match level(line, ts_end) {
                Some((i, spelled)) => {
                    let slot = &mut out.levels[i];
                    slot.0.get_or_insert(spelled);
                    slot.1 += 1;
                    if i < FIRST_NON_ERROR {
                        out.errors.push(n, line);
                    }
                }
                None => {
                    if mentions_error(line) {
                        out.mentions.push(n, line);
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
        self.first_ts = self.first_ts.or(next.first_ts);
        self.last_ts = next.last_ts.or(self.last_ts);
        for (mine, theirs) in self.levels.iter_mut().zip(next.levels) {
            mine.0 = mine.0.or(theirs.0);
            mine.1 += theirs.1;
        }
        self.errors.extend(next.errors, offset);
        self.mentions.extend(next.mentions, offset);
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

/// The error level as the log spells it, for a `pattern` suggestion.
fn errors_token(levels: &[(Option<&str>, usize); LEVELS.len()]) -> Option<String> {
    let (spelled, _) = levels[..FIRST_NON_ERROR]
        .iter()
        .filter(|(s, _)| s.is_some())
        .max_by_key(|(_, c)| *c)?;
    spelled.map(|s| s.chars().filter(|c| c.is_ascii_alphabetic()).collect())
}

/// Where the error lines are: all of them when few, else the first and last three.
#[derive(Default, Debug, PartialEq)]
struct ErrorLines<'a> {
    count: usize,
    first: Vec<usize>,
    recent: std::collections::VecDeque<usize>,
    first_line: Option<(usize, &'a str)>,
    last: Option<(usize, &'a str)>,
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
        let ts = timestamp(line);
        if ts.is_some() || level(line, 0).is_some() {
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

/// Byte range of a timestamp at the start of `line` (after an optional `[`).
fn timestamp(line: &str) -> Option<(usize, usize)> {
    let b = line.as_bytes();
    let start = usize::from(b.first() == Some(&b'['));
    let s = &b[start..];
    // (template, whether an ISO fraction and zone may follow)
    const FORMS: [(&[u8], bool); 8] = [
        (b"DDDD-DD-DD~DD:DD:DD", true),
        (b"DDDD/DD/DD DD:DD:DD", true),
        (b"DD/DD/DD DD:DD:DD", true),
        (b"Aaa Aaa DD DD:DD:DD DDDD", false),
        (b"Aaa Aaa DD DD:DD:DD", true),
        (b"Aaa _D DD:DD:DD", true),
        (b"DDDDDD DDDDDD", false),
        (b"DD:DD:DD", true),
    ];
    for (form, more) in FORMS {
        if let Some(mut end) = matches(s, form) {
            if more {
                end = fraction_and_zone(s, end);
            }
            // A timestamp ends at a word boundary.
            if s.get(end).is_some_and(|c| c.is_ascii_alphanumeric()) {
                continue;
            }
            return Some((start, start + end));
        }
    }
    None
}

/// Length of `form` matched at the start of `s`: `D` a digit, `A`/`a` an
/// upper/lower-case letter, `_` a space or digit, `~` `T` or a space.
fn matches(s: &[u8], form: &[u8]) -> Option<usize> {
    if s.len() < form.len() {
        return None;
    }
    for (&c, &f) in s.iter().zip(form) {
        let ok = match f {
            b'D' => c.is_ascii_digit(),
            b'A' => c.is_ascii_uppercase(),
            b'a' => c.is_ascii_lowercase(),
            b'_' => c == b' ' || c.is_ascii_digit(),
            b'~' => c == b'T' || c == b' ',
            f => c == f,
        };
        if !ok {
            return None;
        }
    }
    Some(form.len())
}

/// Extends a timestamp over `.123456`, `,123`, `Z`, `+02:00` / `+0200`.
fn fraction_and_zone(s: &[u8], mut i: usize) -> usize {
    if matches!(s.get(i), Some(b'.' | b',')) && s.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i += 1;
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    if s.get(i) == Some(&b'Z') {
        return i + 1;
    }
    if matches!(s.get(i), Some(b'+' | b'-')) {
        let z = &s[i + 1..];
        if let Some(n) = matches(z, b"DD:DD").or_else(|| matches(z, b"DDDD")) {
            return i + 1 + n;
        }
    }
    i
}

/// The first level token in the head of `line` after `from`: `(index in
/// LEVELS, as spelled)`. Upper-case tokens count as words (`INFO`,
/// `ERROR:`); other spellings only as the message's first word before `:`
/// or `[` (`error[E0308]:`, `warning:`), in brackets (`[error]`,
/// `##[warning]`) or after `level=`.
fn level(line: &str, from: usize) -> Option<(usize, &str)> {
    let b = line.as_bytes();
    let end = (from + LEVEL_HEAD).min(b.len());
    let mut i = from;
    while i < end {
        if !b[i].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_alphanumeric() {
            i += 1;
        }
        let word = &line[start..i];
        if word.len() < 3 || word.len() > 8 {
            continue;
        }
        let Some(k) = LEVELS.iter().position(|l| l.eq_ignore_ascii_case(word)) else {
            continue;
        };
        let before = start.checked_sub(1).map(|p| b[p]);
        let after = b.get(i).copied();
        let word_bounded = !before.is_some_and(|c| c == b'_' || c == b'.' || c == b'$');
        if word.bytes().all(|c| c.is_ascii_uppercase()) && word_bounded && after != Some(b'_') {
            return Some((k, word));
        }
        // A message's first word followed by `:` or `[` (`error: …`, `error[E0308]: …`).
        let first_word = line[from..start].trim().is_empty() && matches!(after, Some(b':' | b'['));
        if first_word {
            return Some((k, word));
        }
        let bracketed = before == Some(b'[') && after == Some(b']');
        let keyed = line[..start].ends_with("level=") || line[..start].ends_with("level\":\"");
        if bracketed || keyed {
            return Some((
                k,
                &line[start.saturating_sub(usize::from(bracketed))..i + usize::from(bracketed)],
            ));
        }
    }
    None
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

    fn ts(line: &str) -> Option<&str> {
        timestamp(line).map(|(a, b)| &line[a..b])
    }

    #[test]
    fn timestamps_of_real_log_formats() {
        assert_eq!(
            ts("081109 203615 148 INFO dfs.Node: block sent"),
            Some("081109 203615")
        );
        assert_eq!(
            ts("[Sun Dec 04 04:47:44 2005] [notice] worker started"),
            Some("Sun Dec 04 04:47:44 2005")
        );
        assert_eq!(ts("Jun 14 15:16:01 host sshd[42]: x"), Some("Jun 14 15:16:01"));
        assert_eq!(ts("Jun  4 05:06:07 host x"), Some("Jun  4 05:06:07"));
        assert_eq!(
            ts("17/06/09 20:10:40 INFO app.Main: up"),
            Some("17/06/09 20:10:40")
        );
        assert_eq!(
            ts("2024-06-27T06:37:02.0520063Z Runner ready"),
            Some("2024-06-27T06:37:02.0520063Z")
        );
        assert_eq!(
            ts("2024-06-27 06:37:02,123+02:00 x"),
            Some("2024-06-27 06:37:02,123+02:00")
        );
        assert_eq!(ts("12:00:01 started"), Some("12:00:01"));
        assert_eq!(ts("1234567 not a time"), None);
        assert_eq!(ts("function f() {}"), None);
    }

    #[test]
    fn level_tokens() {
        assert_eq!(level("081109 203615 148 INFO dfs.Node", 13), Some((12, "INFO")));
        assert_eq!(
            level("[Sun Dec 04 04:47:44 2005] [error] worker down", 25),
            Some((7, "[error]"))
        );
        assert_eq!(
            level("2024-06-27T06:37:02Z ##[error]Process completed", 20),
            Some((7, "[error]"))
        );
        assert_eq!(level("ts level=warn msg=x", 0), Some((10, "warn")));
        assert_eq!(level("npm ERR! code 1", 0), Some((8, "ERR")));
        assert_eq!(level("an error happened", 0), None);
        assert_eq!(
            level("2026-12-03T10:40:09Z error[E0277]: cannot divide", 20),
            Some((7, "error"))
        );
        assert_eq!(level("Error: Cannot find module 'x'", 0), Some((7, "Error")));
        assert_eq!(level("see error: below", 0), None);
        assert_eq!(level("const INFO_URL = 1", 0), None);
        assert_eq!(level("x.ERROR y", 0), None);
    }

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
