//! Lines of a text payload: how many, the longest, the last ones as a stub
//! shows them (`1999: … ⏎ 2000: …`), and the line-range read that fits.

use crate::display::code_points;
use crate::display::one_line;

/// Shown between two lines of a payload inside one stub line.
pub(crate) const LINE_SEP: &str = " ⏎ ";

pub(crate) struct Lines {
    /// Lines as Python's `splitlines` counts `\n`-separated ones.
    pub count: usize,
    /// Code points of the longest line (without its line end).
    pub longest: usize,
}

impl Lines {
    pub(crate) fn measure(text: &str) -> Lines {
        let b = text.as_bytes();
        let mut count = 0;
        let mut longest = 0;
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', b).chain(std::iter::once(b.len())) {
            if nl == b.len() && start == b.len() {
                break;
            }
            count += 1;
            let line = trim_cr(&b[start..nl]);
            // A line's code points are at most its bytes: count only candidates.
            if line.len() > longest {
                let cp = code_points(line);
                longest = longest.max(cp);
            }
            start = nl + 1;
        }
        Lines { count, longest }
    }
}

pub(crate) fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Iterates `(1-based number, line without its line end)`.
pub(crate) fn numbered(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = text;
    let mut n = 0;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        n += 1;
        let (line, next) = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        rest = next;
        Some((n, line.strip_suffix('\r').unwrap_or(line)))
    })
}

/// The last `k` non-blank lines as `N: text`, joined by `LINE_SEP`, within
/// `budget` code points: the last line gets room first, each is cut to fit.
pub(crate) fn tail(text: &str, lines: &Lines, k: usize, budget: usize) -> String {
    let b = text.as_bytes();
    let mut end = b.len();
    let mut number = lines.count;
    let mut picked: Vec<(usize, &str)> = Vec::new();
    // Walks back line by line; a text ending in `\n` has no line after it.
    if b.last() == Some(&b'\n') {
        end -= 1;
    }
    while picked.len() < k && number > 0 {
        let start = memchr::memrchr(b'\n', &b[..end]).map_or(0, |i| i + 1);
        let line = text[start..end].trim_end_matches('\r');
        if !line.trim().is_empty() {
            picked.push((number, line));
        }
        number -= 1;
        if start == 0 {
            break;
        }
        end = start - 1;
        // Long runs of blank lines at the end cost at most k·64 lines of walking.
        if lines.count - number > k * 64 {
            break;
        }
    }
    picked.reverse();
    fit_lines(&picked, budget)
}

/// `N: text` items joined by `LINE_SEP` within `budget` code points; later
/// items get their share first, so the last line is never the one dropped.
pub(crate) fn fit_lines(items: &[(usize, &str)], budget: usize) -> String {
    let mut shown: Vec<String> = Vec::with_capacity(items.len());
    let mut left = budget;
    for (i, (n, line)) in items.iter().enumerate().rev() {
        let prefix = format!("{n}: ");
        let sep = if i > 0 { LINE_SEP.chars().count() } else { 0 };
        let share = left / (i + 1);
        let room = share.saturating_sub(prefix.len() + sep);
        if room < 8 {
            break;
        }
        let body = one_line(collapse(line).as_str(), room, 0);
        left -= prefix.len() + body.chars().count() + sep;
        shown.push(format!("{prefix}{body}"));
    }
    shown.reverse();
    shown.join(LINE_SEP)
}

/// Whitespace runs (indentation, tabs) as one space, trimmed.
pub(crate) fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.trim().chars() {
        if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
            if !space {
                out.push(' ');
            }
            space = true;
        } else {
            out.push(c);
            space = false;
        }
    }
    out
}

/// `lines="a-b"`: the last 50 lines, or the lines around `at`.
pub(crate) fn recall_lines(count: usize, at: Option<usize>) -> String {
    let (a, b) = match at {
        Some(at) => (at.saturating_sub(10).max(1), (at + 10).min(count.max(1))),
        None => (count.saturating_sub(49).max(1), count.max(1)),
    };
    format!("lines=\"{a}-{b}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_lines_like_splitlines() {
        assert_eq!(Lines::measure("").count, 0);
        assert_eq!(Lines::measure("a").count, 1);
        assert_eq!(Lines::measure("a\n").count, 1);
        assert_eq!(Lines::measure("a\r\nbé\n\n").count, 3);
        assert_eq!(Lines::measure("a\r\nbéé\nc").longest, 3);
    }

    #[test]
    fn tail_numbers_the_last_lines_and_skips_blank_ones() {
        let t = "one\ntwo\nthree\n\nfour\n";
        let l = Lines::measure(t);
        assert_eq!(tail(t, &l, 2, 100), "3: three ⏎ 5: four");
        assert_eq!(tail("x", &Lines::measure("x"), 3, 100), "1: x");
        let long = format!("a\n{}\nb", "y".repeat(500));
        let s = tail(&long, &Lines::measure(&long), 3, 120);
        assert!(s.chars().count() <= 120, "{s}");
        assert!(s.ends_with("3: b") && s.contains("2: yyy"), "{s}");
    }

    #[test]
    fn numbered_lines_drop_line_ends() {
        let v: Vec<_> = numbered("a\r\nb\n\nc").collect();
        assert_eq!(v, vec![(1, "a"), (2, "b"), (3, ""), (4, "c")]);
    }
}
