//! The `pattern` a log's stub suggests: one that finds exactly the lines the
//! stub counts as errors. It is built from the level tokens as the log
//! spells them (`ERROR|Error`, ` E `, `\[error\]`, or anchored at the
//! token's field, `^(\S+ +){2}ERROR `) and checked against the log before it
//! is suggested; when no simple pattern is exact, none is. The check reads
//! the candidates as what they are, literals (at a field, for the anchored
//! one), so it costs a literal search, not a regex pass.

use aho_corasick::{AhoCorasick, Input};

/// Distinct spellings kept; a log with more suggests no pattern.
const MAX: usize = 8;

/// How the error lines spell their level: each token with the byte before
/// and after it and the space-separated field it starts, first seen first.
/// Two of consecutive parts merge into those of the whole ([`Spellings::then`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Spellings<'a> {
    seen: Vec<Spelling<'a>>,
    /// More than `MAX` distinct spellings.
    overflow: bool,
    /// Where each error line starts (bytes into the text scanned), ascending.
    lines: Vec<usize>,
}

/// One spelling: the token, the bytes either side (when not letters or
/// digits), and how many space-separated fields precede it when it starts one.
type Spelling<'a> = (&'a str, Option<u8>, Option<u8>, Option<u8>);

impl<'a> Spellings<'a> {
    /// The token at `start..end` of an error line, which starts `at` bytes
    /// into the text scanned.
    pub(super) fn add(&mut self, line: &'a str, at: usize, start: usize, end: usize) {
        self.lines.push(at);
        let b = line.as_bytes();
        let side = |i: Option<usize>| {
            i.and_then(|i| b.get(i).copied())
                .filter(|&c| c == b' ' || c.is_ascii_punctuation())
        };
        self.push((
            &line[start..end],
            side(start.checked_sub(1)),
            side(Some(end)),
            field(&b[..start]),
        ));
    }

    fn push(&mut self, s: Spelling<'a>) {
        if self.seen.contains(&s) {
            return;
        }
        if self.seen.len() == MAX {
            self.overflow = true;
        } else {
            self.seen.push(s);
        }
    }

    /// These spellings followed by those of the lines right after them,
    /// which start `bytes` into the text.
    pub(super) fn then(mut self, next: Spellings<'a>, bytes: usize) -> Spellings<'a> {
        self.overflow |= next.overflow;
        self.lines.extend(next.lines.iter().map(|&at| at + bytes));
        for s in next.seen {
            self.push(s);
        }
        self
    }
}

/// Fields (runs of non-spaces) before a token that starts one, up to 15.
fn field(before: &[u8]) -> Option<u8> {
    if before.last().is_some_and(|&c| c != b' ') {
        return None;
    }
    let mut n = 0;
    let mut in_field = false;
    for &c in before {
        if c == b' ' {
            in_field = false;
        } else if !in_field {
            in_field = true;
            n += 1;
        }
    }
    // A line that starts with a space has no fields to anchor on.
    (n < 16 && before.first() != Some(&b' ')).then_some(n)
}

/// The simplest candidate that matches exactly the error lines of `text`
/// (each of them holds its own spelling; a candidate is dropped at the
/// first other line it matches).
pub(super) fn error_pattern(text: &str, spellings: &Spellings) -> Option<String> {
    if spellings.overflow || spellings.lines.is_empty() {
        return None;
    }
    candidates(spellings)
        .into_iter()
        .find(|c| matches_exactly(text, c, &spellings.lines))
        .map(|c| c.pattern)
}

/// A suggested pattern: the literals it alternates, at the start of the
/// field it is anchored at (`^(\S+ +){k}`), if any.
struct Candidate {
    pattern: String,
    literals: Vec<String>,
    field: Option<u8>,
}

/// Simplest first: the tokens' letters (`error`), the tokens as spelled
/// (`\[error\]`), the tokens with the bytes either side (` E `, `ERROR:`),
/// the tokens anchored at their field (`^(\S+ +){2}(FATAL|ERROR) `).
fn candidates(sp: &Spellings) -> Vec<Candidate> {
    let letters = |t: &str| t.trim_matches(|c: char| !c.is_ascii_alphanumeric()).to_string();
    let side = |c: Option<u8>| c.map(|c| char::from(c).to_string()).unwrap_or_default();
    let distinct = |alts: Vec<String>| {
        let mut out: Vec<String> = Vec::new();
        for a in alts.into_iter().filter(|a| !a.is_empty()) {
            if !out.contains(&a) {
                out.push(a);
            }
        }
        out
    };
    let alternation = |lits: &[String]| lits.iter().map(|l| escape(l)).collect::<Vec<_>>().join("|");
    let mut out: Vec<Candidate> = Vec::new();
    for literals in [
        distinct(sp.seen.iter().map(|s| letters(s.0)).collect()),
        distinct(sp.seen.iter().map(|s| s.0.to_string()).collect()),
        distinct(
            sp.seen
                .iter()
                .map(|s| format!("{}{}{}", side(s.1), s.0, side(s.2)))
                .collect(),
        ),
    ] {
        let pattern = alternation(&literals);
        if !literals.is_empty() && out.iter().all(|c| c.pattern != pattern) {
            out.push(Candidate {
                pattern,
                literals,
                field: None,
            });
        }
    }
    let field = sp.seen.first().and_then(|s| s.3);
    if let Some(k) = field.filter(|_| sp.seen.iter().all(|s| s.3 == field)) {
        let literals = distinct(sp.seen.iter().map(|s| format!("{}{}", s.0, side(s.2))).collect());
        let alts = alternation(&literals);
        let head = match k {
            0 => "^".to_string(),
            1 => "^\\S+ +".to_string(),
            k => format!("^(\\S+ +){{{k}}}"),
        };
        let pattern = if literals.len() > 1 {
            format!("{head}({alts})")
        } else {
            format!("{head}{alts}")
        };
        out.push(Candidate {
            pattern,
            literals,
            field: Some(k),
        });
    }
    out
}

/// `s` with the characters a regular expression treats as syntax escaped.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Whether the lines of `text` the candidate matches (as the recall tool
/// matches a pattern, line by line) are exactly those starting at `lines`.
fn matches_exactly(text: &str, c: &Candidate, lines: &[usize]) -> bool {
    let Ok(ac) = AhoCorasick::new(&c.literals) else {
        return false;
    };
    let b = text.as_bytes();
    let mut expected = lines.iter().copied();
    let mut at = 0;
    while let Some(m) = ac.find(Input::new(b).span(at..b.len())) {
        let start = memchr::memrchr(b'\n', &b[..m.start()]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &b[m.start()..]).map_or(b.len(), |i| m.start() + i);
        let line = &text[start..end];
        let hit = match c.field {
            None => true,
            Some(k) => field_start(line, k)
                .is_some_and(|p| c.literals.iter().any(|l| line[p..].starts_with(l.as_str()))),
        };
        // Another line matched, or an error line was passed over unmatched.
        if hit && expected.next() != Some(start) {
            return false;
        }
        at = end + 1;
        if at >= b.len() {
            break;
        }
    }
    expected.next().is_none()
}

/// Where `^(\S+ +){k}` leaves off in `line`: after `k` runs of
/// non-whitespace, each followed by spaces (the regex's own reading).
fn field_start(line: &str, k: u8) -> Option<usize> {
    let mut chars = line.char_indices().peekable();
    for _ in 0..k {
        let mut word = false;
        while chars.next_if(|&(_, c)| !c.is_whitespace()).is_some() {
            word = true;
        }
        let mut gap = false;
        while chars.next_if(|&(_, c)| c == ' ').is_some() {
            gap = true;
        }
        if !(word && gap) {
            return None;
        }
    }
    Some(chars.peek().map_or(line.len(), |&(i, _)| i))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spellings a scan of `text` finds on its error lines: (line
    /// number, token) pairs.
    fn spellings<'a>(text: &'a str, errors: &[(usize, &str)]) -> Spellings<'a> {
        let mut s = Spellings::default();
        let mut offset = 0;
        for (n, line) in text.split('\n').enumerate() {
            if let Some((_, token)) = errors.iter().find(|(e, _)| *e == n + 1) {
                let at = line.find(token).unwrap();
                s.add(line, offset, at, at + token.len());
            }
            offset += line.len() + 1;
        }
        s
    }

    fn pattern(text: &str, errors: &[(usize, &str)]) -> Option<String> {
        error_pattern(text, &spellings(text, errors))
    }

    #[test]
    fn the_simplest_exact_pattern() {
        // `Error` alone would miss `ERROR:`; both spellings find exactly the two.
        let text = "a [Error] x\nb ERROR: y\nc fine\n";
        assert_eq!(
            pattern(text, &[(1, "[Error]"), (2, "ERROR")]).as_deref(),
            Some("Error|ERROR")
        );
        // A message that mentions `error` takes the brackets along.
        let text = "[error] a\n[notice] no error here\n[error] b\n";
        assert_eq!(
            pattern(text, &[(1, "[error]"), (3, "[error]")]).as_deref(),
            Some("\\[error\\]")
        );
        // logcat's letter, with the spaces around it.
        let text = "1 2 E Tag: x\n1 2 I Tag: E. coli\n";
        assert_eq!(pattern(text, &[(1, "E")]).as_deref(), Some(" E "));
        // A message that holds the token takes the anchor at its field.
        let text = "t1 ERROR a\nt2 WARN b ERROR c\nt3 FATAL d\n";
        assert_eq!(
            pattern(text, &[(1, "ERROR"), (3, "FATAL")]).as_deref(),
            Some("^\\S+ +(ERROR |FATAL )")
        );
        let text = "a b ERROR x\na b WARN ERROR y\n";
        assert_eq!(
            pattern(text, &[(1, "ERROR")]).as_deref(),
            Some("^(\\S+ +){2}ERROR ")
        );
    }

    #[test]
    fn none_when_no_candidate_is_exact() {
        // The second line holds the token where the first does, but is not counted.
        let text = "x ERROR a\ny ERROR b\n";
        assert_eq!(pattern(text, &[(1, "ERROR")]), None);
        assert_eq!(pattern(text, &[]), None);
        // Many spellings: no pattern.
        let marks = ['!', '?', ':', ';', ',', '.', '#', '%', '&', '*', '+', '='];
        let text: String = marks.iter().map(|m| format!("x ERROR{m}\n")).collect();
        let errors: Vec<(usize, &str)> = (1..=12).map(|n| (n, "ERROR")).collect();
        let sp = spellings(&text, &errors);
        assert!(sp.overflow);
        assert_eq!(error_pattern(&text, &sp), None);
    }

    #[test]
    fn spellings_of_two_parts_merge_into_those_of_the_whole() {
        let text = "a ERROR x\nb [error] y\nok\nc ERROR: z\nd ERROR x\n";
        let errors = [(1, "ERROR"), (2, "[error]"), (4, "ERROR"), (5, "ERROR")];
        let whole = spellings(text, &errors);
        let mut at = 0;
        for (n, line) in text.split_inclusive('\n').enumerate() {
            at += line.len();
            let (head, tail) = text.split_at(at);
            let first: Vec<_> = errors.iter().copied().filter(|(e, _)| *e <= n + 1).collect();
            let second: Vec<_> = errors
                .iter()
                .filter(|(e, _)| *e > n + 1)
                .map(|&(e, t)| (e - n - 1, t))
                .collect();
            assert_eq!(
                spellings(head, &first).then(spellings(tail, &second), at),
                whole,
                "split after line {}",
                n + 1
            );
        }
    }

    #[test]
    fn the_anchor_reads_fields_as_the_regex_does() {
        assert_eq!(field_start("a b  ERROR x", 2), Some(5));
        assert_eq!(field_start("ERROR x", 0), Some(0));
        assert_eq!(field_start("a\tb ERROR", 1), None); // `\S+` stops at a tab, ` +` needs a space
        assert_eq!(field_start(" a ERROR", 1), None);
        assert_eq!(field_start("a\u{a0}b ERROR", 1), None); // no-break space is whitespace to `\S`
        assert_eq!(field_start("a ", 1), Some(2));
        assert_eq!(field_start("a", 1), None);
    }
}
