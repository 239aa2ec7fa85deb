//! Lines of a payload, numbered from 1 as grep and editors number them: a
//! line ends at `\n` (a `\r` before it belongs to the line's terminator), and
//! a final `\n` ends the last line rather than starting an empty one.

use memchr::{memchr, memchr_iter, memrchr};

/// A model's `lines` argument: `"120-180"`, `"120"`, or `"120-"` (to the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRange {
    /// First line, 1-based.
    pub first: usize,
    /// Last line, inclusive; `None`: to the end.
    pub last: Option<usize>,
}

impl LineRange {
    /// Reads `"120-180"`, `"120"`, `"120-"`; also `:`, `..`, `–` or `,` between
    /// the numbers and spaces around them (models write ranges in all these
    /// ways). Line 0 reads as 1. `Err` says what is wrong, for the message.
    pub fn parse(s: &str) -> Result<LineRange, &'static str> {
        let s = s.trim();
        let num = |t: &str| -> Result<Option<usize>, &'static str> {
            let t = t.trim();
            if t.is_empty() {
                return Ok(None);
            }
            if !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err("it is not a line range");
            }
            // Digits past usize read as "far past the end".
            Ok(Some(t.parse::<usize>().unwrap_or(usize::MAX).max(1)))
        };
        let sep = ["..", "-", ":", "\u{2013}", ","]
            .iter()
            .filter_map(|p| s.find(p).map(|i| (i, p.len())))
            .min();
        let (first, last) = match sep {
            None => {
                let n = num(s)?.ok_or("it is empty")?;
                (n, Some(n))
            }
            Some((i, n)) => (num(&s[..i])?.ok_or("it has no first line")?, num(&s[i + n..])?),
        };
        if last.is_some_and(|l| l < first) {
            return Err("its last line comes before its first");
        }
        Ok(LineRange { first, last })
    }

    /// `"120-180"` / `"120-"`, as a model would write it back.
    pub fn show(first: usize, last: Option<usize>) -> String {
        match last {
            Some(l) if l == first => format!("{first}"),
            Some(l) => format!("{first}-{l}"),
            None => format!("{first}-"),
        }
    }
}

/// Where a line range lies in a payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Byte offset of the first line's start.
    pub start: usize,
    /// Byte offset of the last line's end (before its `\n` or `\r\n`).
    pub end: usize,
    pub first: usize,
    /// The last line of the range that exists.
    pub last: usize,
}

/// Lines in `hay`: `\n`s, plus one for a last line without a `\n`.
pub fn count(hay: &[u8]) -> usize {
    let n = memchr_iter(b'\n', hay).count();
    n + usize::from(hay.last().is_some_and(|&b| b != b'\n'))
}

/// Where `range` lies in `hay`, or `Err(lines in hay)` when its first line
/// is past the end. A range running past the end stops at the last line.
pub fn locate(hay: &[u8], range: LineRange) -> Result<Span, usize> {
    let mut nl = memchr_iter(b'\n', hay);
    let start = if range.first == 1 {
        0
    } else {
        match nl.nth(range.first - 2) {
            Some(i) if i + 1 < hay.len() => i + 1,
            // Fewer lines than `first`: their count, for the message.
            _ => return Err(count(hay)),
        }
    };
    if hay.is_empty() {
        return Err(0);
    }
    let (mut line, mut pos) = (range.first, start);
    let end = loop {
        let end = memchr(b'\n', &hay[pos..]).map_or(hay.len(), |i| pos + i);
        // No line after this one: no `\n`, or a final one.
        if range.last == Some(line) || end + 1 >= hay.len() {
            break end;
        }
        pos = end + 1;
        line += 1;
    };
    Ok(Span {
        start,
        end: end_of_line(hay, start, end),
        first: range.first,
        last: line,
    })
}

/// `end` (a `\n` or the end of the text) moved before the `\r` of a CRLF,
/// not before `start`.
pub fn end_of_line(hay: &[u8], start: usize, end: usize) -> usize {
    end - usize::from(end > start && hay[end - 1] == b'\r')
}

/// The 1-based line holding byte `at`, counting from byte `from` on line `line`.
pub fn line_of(hay: &[u8], from: usize, line: usize, at: usize) -> usize {
    line + memchr_iter(b'\n', &hay[from..at]).count()
}

/// The start of the line holding byte `at` (not before `floor`).
pub fn line_start(hay: &[u8], floor: usize, at: usize) -> usize {
    memrchr(b'\n', &hay[floor..at]).map_or(floor, |i| floor + i + 1)
}

/// The end of the line holding byte `at` (before its `\n`; at most `ceil`).
pub fn line_end(hay: &[u8], at: usize, ceil: usize) -> usize {
    memchr(b'\n', &hay[at..ceil]).map_or(ceil, |i| at + i)
}

/// `line` without the `\r` of a CRLF terminator.
pub fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(first: usize, last: Option<usize>) -> LineRange {
        LineRange { first, last }
    }

    #[test]
    fn ranges_read_as_models_write_them() {
        assert_eq!(LineRange::parse("120-180"), Ok(r(120, Some(180))));
        assert_eq!(LineRange::parse(" 120 "), Ok(r(120, Some(120))));
        assert_eq!(LineRange::parse("120-"), Ok(r(120, None)));
        assert_eq!(LineRange::parse("120:180"), Ok(r(120, Some(180))));
        assert_eq!(LineRange::parse("120..180"), Ok(r(120, Some(180))));
        assert_eq!(LineRange::parse("120 – 180"), Ok(r(120, Some(180))));
        assert_eq!(LineRange::parse("0-3"), Ok(r(1, Some(3))));
        assert_eq!(
            LineRange::parse("99999999999999999999999-"),
            Ok(r(usize::MAX, None))
        );
        assert!(LineRange::parse("").is_err());
        assert!(LineRange::parse("-5").is_err());
        assert!(LineRange::parse("ten").is_err());
        assert!(LineRange::parse("1.5").is_err());
        assert!(LineRange::parse("180-120").is_err());
        assert_eq!(LineRange::show(3, Some(3)), "3");
        assert_eq!(LineRange::show(3, Some(9)), "3-9");
        assert_eq!(LineRange::show(3, None), "3-");
    }

    /// The lines of `s` as a naive split sees them.
    fn naive(s: &str) -> Vec<&str> {
        let mut v: Vec<&str> = s.split('\n').collect();
        if s.ends_with('\n') || s.is_empty() {
            v.pop();
        }
        v
    }

    #[test]
    fn locate_agrees_with_a_naive_split() {
        for s in [
            "",
            "a",
            "a\n",
            "a\nb",
            "a\nb\n",
            "\n",
            "\n\n",
            "a\n\nb\n\n",
            "x\r\ny\r\n",
        ] {
            let lines = naive(s);
            assert_eq!(count(s.as_bytes()), lines.len(), "{s:?}");
            for first in 1..=lines.len() + 2 {
                for last in [None, Some(first), Some(first + 1), Some(first + 5)] {
                    let got = locate(s.as_bytes(), r(first, last));
                    if first > lines.len() {
                        assert_eq!(got, Err(lines.len()), "{s:?} {first}");
                        continue;
                    }
                    let l = last.unwrap_or(usize::MAX).min(lines.len());
                    let want = lines[first - 1..l].join("\n");
                    let want = want.strip_suffix('\r').unwrap_or(&want);
                    let span = got.unwrap();
                    assert_eq!(&s[span.start..span.end], want, "{s:?} {first} {last:?}");
                    assert_eq!((span.first, span.last), (first, l), "{s:?} {first} {last:?}");
                }
            }
        }
    }

    #[test]
    fn line_helpers() {
        let s = b"ab\ncd\r\nef";
        assert_eq!(line_of(s, 0, 1, 7), 3);
        assert_eq!(line_start(s, 0, 4), 3);
        assert_eq!(line_end(s, 4, s.len()), 6);
        assert_eq!(trim_cr(&s[3..6]), b"cd");
    }
}
