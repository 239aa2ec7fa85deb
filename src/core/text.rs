//! Payload text addressed in Unicode code points (as Python's `str` and JS
//! `Array.from(s)` count), with a sparse code-point → byte index so offsets
//! on multi-megabyte payloads resolve without scanning from the start.

/// Code points between two marks of the sparse index.
const MARK_EVERY: usize = 4096;

/// A stored payload: UTF-8 text plus what is needed to slice it by code point.
#[derive(Debug)]
pub struct Text {
    s: String,
    chars: usize,
    /// Byte offset of code point `k * MARK_EVERY`; empty when the text is ASCII
    /// (then code point offsets are byte offsets).
    marks: Vec<usize>,
}

/// Counts code points in UTF-8 bytes: every byte that is not a continuation byte.
pub fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

impl Text {
    /// A text already known to be ASCII (e.g. a JS string copied as Latin-1
    /// because its UTF-8 and UTF-16 lengths agree): no scan needed.
    pub fn from_ascii(s: String) -> Self {
        debug_assert!(s.is_ascii());
        let chars = s.len();
        Text {
            s,
            chars,
            marks: Vec::new(),
        }
    }

    pub fn new(s: String) -> Self {
        if s.is_ascii() {
            let chars = s.len();
            return Text {
                s,
                chars,
                marks: Vec::new(),
            };
        }
        let mut marks = Vec::with_capacity(s.len() / MARK_EVERY + 1);
        let mut chars = 0usize;
        for (b, _) in s.char_indices() {
            if chars.is_multiple_of(MARK_EVERY) {
                marks.push(b);
            }
            chars += 1;
        }
        marks.shrink_to_fit();
        Text { s, chars, marks }
    }

    pub fn as_str(&self) -> &str {
        &self.s
    }

    /// Length in code points.
    pub fn char_len(&self) -> usize {
        self.chars
    }

    /// Bytes held, payload and index.
    pub fn heap_bytes(&self) -> usize {
        self.s.capacity() + self.marks.capacity() * std::mem::size_of::<usize>()
    }

    /// Byte offset of code point `ci` (clamped to the end).
    pub fn byte_of(&self, ci: usize) -> usize {
        if ci >= self.chars {
            return self.s.len();
        }
        if self.marks.is_empty() {
            return ci;
        }
        let mut b = self.marks[ci / MARK_EVERY];
        let mut left = ci % MARK_EVERY;
        let bytes = self.s.as_bytes();
        while left > 0 {
            b += 1;
            while (bytes[b] as i8) < -0x40 {
                b += 1;
            }
            left -= 1;
        }
        b
    }

    /// Code point index of byte offset `bi`, which must be a char boundary.
    pub fn char_of(&self, bi: usize) -> usize {
        if self.marks.is_empty() {
            return bi.min(self.s.len());
        }
        let k = self.marks.partition_point(|&m| m <= bi) - 1;
        k * MARK_EVERY + count_chars(&self.s.as_bytes()[self.marks[k]..bi])
    }

    /// Code points `[start, end)`, clamped to the text.
    pub fn slice(&self, start: usize, end: usize) -> &str {
        let a = self.byte_of(start);
        let b = self.byte_of(end.max(start));
        &self.s[a..b]
    }
}

/// The first `n` code points of `s` (all of it when shorter).
pub fn take_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((b, _)) => &s[..b],
        None => s,
    }
}

/// `s` cut to at most `n` code points, the cut marked with `...` inside the limit.
pub fn ellipsize(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        return s.to_string();
    }
    let mut out = take_chars(s, n.saturating_sub(3)).to_string();
    out.push_str("...");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_offsets_are_bytes() {
        let t = Text::new("0123456789".into());
        assert_eq!(t.char_len(), 10);
        assert_eq!(t.slice(5, 9), "5678");
        assert_eq!(t.slice(8, 100), "89");
        assert_eq!(t.slice(100, 200), "");
        assert_eq!(t.char_of(4), 4);
    }

    #[test]
    fn multibyte_and_emoji_count_as_one() {
        let s = "aé😀b€".to_string();
        let t = Text::new(s);
        assert_eq!(t.char_len(), 5);
        assert_eq!(t.slice(1, 3), "é😀");
        assert_eq!(t.slice(2, 3), "😀");
        assert_eq!(t.slice(3, 5), "b€");
        assert_eq!(t.char_of(t.byte_of(4)), 4);
    }

    #[test]
    fn sparse_index_agrees_with_a_naive_walk() {
        let mut s = String::new();
        for i in 0..20_000 {
            s.push(match i % 5 {
                0 => 'a',
                1 => 'ß',
                2 => '€',
                3 => '😀',
                _ => '\n',
            });
        }
        let t = Text::new(s.clone());
        let chars: Vec<char> = s.chars().collect();
        assert_eq!(t.char_len(), chars.len());
        for &(a, b) in &[
            (0, 1),
            (4095, 4097),
            (4096, 8192),
            (12_345, 12_400),
            (19_990, 25_000),
        ] {
            let want: String = chars[a.min(chars.len())..b.min(chars.len())].iter().collect();
            assert_eq!(t.slice(a, b), want, "slice {a}..{b}");
            assert_eq!(t.char_of(t.byte_of(a)), a.min(chars.len()));
        }
    }

    #[test]
    fn ellipsize_counts_code_points() {
        assert_eq!(ellipsize("😀😀😀😀", 4), "😀😀😀😀");
        assert_eq!(ellipsize("😀😀😀😀😀", 4), "😀...");
        assert_eq!(take_chars("é😀x", 2), "é😀");
    }
}
