//! Level tokens near the start of a log line, however the log spells them:
//! `ERROR`, `ERROR:`, `[Error]`, `error[E0308]:`, `level=error`, or Android
//! logcat's one-letter `E` are one severity, counted together.

/// Severities, most severe first (the order of a stub's `levels`).
pub(super) const SEVERITIES: usize = 13;
/// Severities before this one are errors.
pub(super) const FIRST_NON_ERROR: usize = 7;

/// Level words and their severity.
const WORDS: [(&str, usize); 16] = [
    ("FATAL", 0),
    ("EMERG", 1),
    ("ALERT", 2),
    ("PANIC", 3),
    ("CRITICAL", 4),
    ("CRIT", 4),
    ("SEVERE", 5),
    ("ERROR", 6),
    ("ERR", 6),
    ("WARNING", 7),
    ("WARN", 7),
    ("NOTICE", 8),
    ("INFO", 9),
    ("DEBUG", 10),
    ("TRACE", 11),
    ("VERBOSE", 12),
];

/// logcat's priorities: Fatal, Assert, Error, Warn, Info, Debug, Verbose.
const LETTERS: [(u8, usize); 7] = [
    (b'F', 0),
    (b'A', 0),
    (b'E', 6),
    (b'W', 7),
    (b'I', 9),
    (b'D', 10),
    (b'V', 12),
];

/// Bytes of a line searched for a level word.
const HEAD: usize = 160;

/// A level token: its severity and its byte range in the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Level {
    pub severity: usize,
    pub start: usize,
    pub end: usize,
}

/// The level of `line`, searched from byte `from` (the end of its
/// timestamp): logcat's priority letter where logcat puts it, else the first
/// level word of the head. Upper-case words count as words (`INFO`,
/// `ERROR:`); other spellings only as the message's first word before `:` or
/// `[` (`error[E0308]:`, `warning:`), in brackets (`[error]`, `##[warning]`,
/// the brackets kept) or after `level=`.
pub(super) fn level(line: &str, from: usize) -> Option<Level> {
    logcat(line.as_bytes(), from).or_else(|| word(line, from))
}

/// logcat's letter: `  1702  2395 E Tag:` (threadtime), `: E/Tag(1702):`
/// (time), or `E/Tag( 1702):` at the start of a line (brief).
fn logcat(b: &[u8], from: usize) -> Option<Level> {
    let mut i = from;
    let spaces = |i: &mut usize| {
        let s = *i;
        while b.get(*i) == Some(&b' ') {
            *i += 1;
        }
        *i > s
    };
    let digits = |i: &mut usize| {
        let s = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > s
    };
    if from > 0 {
        if b.get(i) == Some(&b':') {
            i += 1;
        }
        if !spaces(&mut i) {
            return None;
        }
        let mut j = i;
        if digits(&mut j) && spaces(&mut j) && digits(&mut j) && spaces(&mut j) {
            // threadtime: the letter after the pid and tid, then a space.
            return letter(b, j).filter(|_| b.get(j + 1) == Some(&b' '));
        }
    }
    // time and brief: `E/Tag(`.
    letter(b, i).filter(|_| b.get(i + 1) == Some(&b'/') && tag_then_pid(&b[i + 2..]))
}

/// `Tag( 1702):` or `Tag  (1702):`: a tag, padding, a pid in parentheses.
fn tag_then_pid(b: &[u8]) -> bool {
    let tag = b
        .iter()
        .take(128)
        .take_while(|&&c| c != b' ' && c != b'(')
        .count();
    let rest = &b[tag..];
    let pad = rest.iter().take_while(|&&c| c == b' ').count();
    let Some(inner) = rest[pad..].strip_prefix(b"(") else {
        return false;
    };
    let inner = &inner[inner.iter().take_while(|&&c| c == b' ').count()..];
    let pid = inner.iter().take_while(|c| c.is_ascii_digit()).count();
    tag > 0 && pid > 0 && inner[pid..].starts_with(b"):")
}

fn letter(b: &[u8], i: usize) -> Option<Level> {
    let c = *b.get(i)?;
    LETTERS.iter().find(|(l, _)| *l == c).map(|&(_, severity)| Level {
        severity,
        start: i,
        end: i + 1,
    })
}

fn word(line: &str, from: usize) -> Option<Level> {
    let b = line.as_bytes();
    let end = (from + HEAD).min(b.len());
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
        let w = &line[start..i];
        if w.len() < 3 || w.len() > 8 {
            continue;
        }
        let Some(&(_, severity)) = WORDS.iter().find(|(l, _)| l.eq_ignore_ascii_case(w)) else {
            continue;
        };
        let at = |start, end| Some(Level { severity, start, end });
        let before = start.checked_sub(1).map(|p| b[p]);
        let after = b.get(i).copied();
        let bounded = !before.is_some_and(|c| c == b'_' || c == b'.' || c == b'$');
        if w.bytes().all(|c| c.is_ascii_uppercase()) && bounded && after != Some(b'_') {
            return at(start, i);
        }
        // A message's first word followed by `:` or `[` (`error: …`, `error[E0308]: …`).
        if line[from..start].trim().is_empty() && matches!(after, Some(b':' | b'[')) {
            return at(start, i);
        }
        if before == Some(b'[') && after == Some(b']') {
            return at(start - 1, i + 1);
        }
        if line[..start].ends_with("level=") || line[..start].ends_with("level\":\"") {
            return at(start, i);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (severity, as spelled)
    fn lv(line: &str, from: usize) -> Option<(usize, &str)> {
        level(line, from).map(|l| (l.severity, &line[l.start..l.end]))
    }

    #[test]
    fn level_words() {
        assert_eq!(lv("081109 203615 148 INFO dfs.Node", 13), Some((9, "INFO")));
        assert_eq!(
            lv("[Sun Dec 04 04:47:44 2005] [error] worker down", 25),
            Some((6, "[error]"))
        );
        assert_eq!(
            lv("2024-06-27T06:37:02Z ##[error]Process completed", 20),
            Some((6, "[error]"))
        );
        assert_eq!(lv("ts level=warn msg=x", 0), Some((7, "warn")));
        assert_eq!(lv("npm ERR! code 1", 0), Some((6, "ERR")));
        assert_eq!(lv("an error happened", 0), None);
        assert_eq!(
            lv("2026-12-03T10:40:09Z error[E0277]: cannot divide", 20),
            Some((6, "error"))
        );
        assert_eq!(lv("Error: Cannot find module 'x'", 0), Some((6, "Error")));
        assert_eq!(lv("x kernel[0]: [HID] [Error] start", 0), Some((6, "[Error]")));
        assert_eq!(lv("x com.apple[43]: ERROR: failed", 0), Some((6, "ERROR")));
        assert_eq!(lv("see error: below", 0), None);
        assert_eq!(lv("const INFO_URL = 1", 0), None);
        assert_eq!(lv("x.ERROR y", 0), None);
        // Spellings of one severity.
        assert_eq!(lv("WARNING: x", 0).map(|l| l.0), lv("[warn] x", 0).map(|l| l.0));
        assert_eq!(lv("CRIT x", 0).map(|l| l.0), lv("CRITICAL x", 0).map(|l| l.0));
    }

    #[test]
    fn logcat_letters() {
        let line = "03-17 16:13:38.811  1702  2395 E WindowManager: x";
        assert_eq!(lv(line, 18), Some((6, "E")));
        let line = "03-17 16:13:38.811  1702  8671 D PowerManagerService: INFO x";
        assert_eq!(lv(line, 18), Some((10, "D")));
        assert_eq!(
            lv("05-16 07:39:26.519: W/sh(16446): type=1400", 18),
            Some((7, "W"))
        );
        assert_eq!(lv("E/AndroidRuntime( 1702): FATAL EXCEPTION", 0), Some((6, "E")));
        // Not where logcat puts it: a word search.
        assert_eq!(lv("081109 203615 148 INFO dfs", 13), Some((9, "INFO")));
        assert_eq!(lv("12:00:01 E is a letter", 8), None);
        assert_eq!(lv("12:00:01 1 2 Ex x", 8), None);
        assert_eq!(lv("A/B testing (beta): x", 0), None);
        assert_eq!(lv("I/chatty  ( 1234): x", 0), Some((9, "I")));
    }
}
