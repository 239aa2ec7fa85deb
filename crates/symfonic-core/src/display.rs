//! One-line display of text: the escaping every stub and outline field goes
//! through, so that no tool name, argument, key or payload text can break or
//! forge a line, and code-point counts of UTF-8. A leaf: it imports nothing of the crate.

use std::borrow::Cow;

/// Model-supplied strings (ids, namespaces, paths, patterns) are echoed in
/// messages up to this many code points.
pub const ECHO_CHARS: usize = 200;

/// Whether `c` would break or hide a stub line: C0 and C1 controls, DEL, and
/// the two characters JS and some models treat as line breaks (U+2028, U+2029).
pub(crate) fn needs_escape(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

/// Code points `c` takes once escaped.
pub(crate) fn escaped_len(c: char) -> usize {
    match c {
        '\n' | '\r' | '\t' => 2,
        c if needs_escape(c) => {
            // `\u{` + lowercase hex digits + `}`
            let digits = (32 - (c as u32).leading_zeros()).div_ceil(4).max(1) as usize;
            4 + digits
        }
        _ => 1,
    }
}

pub(crate) fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if needs_escape(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        c => out.push(c),
    }
}

/// `s` on one line: `\n`, `\r`, `\t` as those two-character escapes, other C0/C1
/// controls, DEL, U+2028 and U+2029 as `\u{..}`; all other text (non-ASCII
/// included) as is. Backslashes are not doubled, so ordinary text is unchanged
/// and escaping twice changes nothing.
pub fn escape_controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// `s` escaped (see `escape_controls`) in at most `max` code points: when
/// longer, its head and its last `tail` code points around `...`. Cuts fall
/// between characters, never inside one or inside an escape. `max` must be
/// at least `tail + 3`.
pub fn one_line(s: &str, max: usize, tail: usize) -> String {
    debug_assert!(max >= tail + 3);
    // Cheap exit before counting: every code point takes one byte or more.
    if s.len() <= max && !s.chars().any(needs_escape) {
        return s.to_string();
    }
    let mut total = 0usize;
    for c in s.chars() {
        total += escaped_len(c);
        if total > max {
            break;
        }
    }
    if total <= max {
        return escape_controls(s).into_owned();
    }
    let head_budget = max.saturating_sub(3 + tail);
    let mut out = String::new();
    let mut used = 0;
    let mut head_end = 0;
    for (i, c) in s.char_indices() {
        let n = escaped_len(c);
        if used + n > head_budget {
            break;
        }
        used += n;
        push_escaped(&mut out, c);
        head_end = i + c.len_utf8();
    }
    out.push_str("...");
    // The tail never overlaps the head: together they are shorter than `s`.
    let mut tail_start = s.len();
    let mut used = 0;
    for (i, c) in s.char_indices().rev() {
        let n = escaped_len(c);
        if used + n > tail || i < head_end {
            break;
        }
        used += n;
        tail_start = i;
    }
    for c in s[tail_start..].chars() {
        push_escaped(&mut out, c);
    }
    out
}

/// Unicode code points in UTF-8 text: bytes that are not continuation bytes.
pub fn code_points(b: &[u8]) -> usize {
    // Per-chunk u8 counters let the compiler vectorise the comparison.
    b.chunks(255)
        .map(|chunk| chunk.iter().fold(0u8, |n, &c| n + u8::from((c as i8) >= -0x40)) as usize)
        .sum()
}
