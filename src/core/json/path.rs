//! Parser for model-supplied json paths: `rows.0.price`, `rows[-1]`,
//! `["key.with.dots"]`, `$.items[*].id`, `rows[10:20:2]`.

/// One step of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Seg {
    /// A quoted key: object lookup only.
    Key(String),
    /// An unquoted integer: a key on objects, an index on arrays.
    KeyOrIndex(String, i64),
    /// `*`: every element / every member value.
    Wild,
    /// Python-style slice `[start:stop:step]`.
    Slice(Option<i64>, Option<i64>, i64),
}

impl Seg {
    pub(crate) fn branches(&self) -> bool {
        matches!(self, Seg::Wild | Seg::Slice(..))
    }
}

/// Parses a path; `Err` is the short reason for the model. Works on bytes:
/// every syntax character is ASCII, so UTF-8 continuation bytes never match.
pub(crate) fn parse(path: &str) -> Result<Vec<Seg>, String> {
    let s = path.trim();
    let b = s.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'$') && matches!(b.get(1), None | Some(b'.' | b'[')) {
        i = 1;
    }
    let mut segs = Vec::new();
    while i < b.len() {
        match b[i] {
            b'.' => i += 1,
            b'[' => {
                let (seg, next) = bracket(s, i)?;
                segs.push(seg);
                i = next;
            }
            _ => {
                let from = i;
                while i < b.len() && b[i] != b'.' && b[i] != b'[' {
                    i += 1;
                }
                let text = &s[from..i];
                segs.push(if text == "*" {
                    Seg::Wild
                } else {
                    match int(text) {
                        Some(n) => Seg::KeyOrIndex(text.to_string(), n),
                        None => Seg::Key(text.to_string()),
                    }
                });
            }
        }
    }
    Ok(segs)
}

/// Position of byte `i` of `s` in code points, 1-based, for messages.
fn at(s: &str, i: usize) -> usize {
    s[..i.min(s.len())].chars().count() + 1
}

/// First `max` code points of `s`, with `...` when cut.
fn short(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// Parses `[...]` starting at `s[open] == '['`; returns the segment and the
/// position after `]`.
fn bracket(s: &str, open: usize) -> Result<(Seg, usize), String> {
    let b = s.as_bytes();
    let skip_ws = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let unclosed = || format!("unclosed '[' at character {}", at(s, open));
    let mut i = skip_ws(open + 1);
    if let Some(&q) = b.get(i).filter(|c| **c == b'"' || **c == b'\'') {
        let unterminated = || format!("unterminated quoted key at character {}", at(s, i));
        let mut key = String::new();
        let mut j = i + 1;
        loop {
            let from = j;
            while j < b.len() && b[j] != q && b[j] != b'\\' {
                j += 1;
            }
            key.push_str(&s[from..j]);
            match b.get(j) {
                None => return Err(unterminated()),
                Some(&c) if c == q => {
                    j += 1;
                    break;
                }
                Some(_) => {
                    // A backslash keeps the next character literally (\" \' \\).
                    let c = s[j + 1..].chars().next().ok_or_else(unterminated)?;
                    key.push(c);
                    j += 1 + c.len_utf8();
                }
            }
        }
        let j = skip_ws(j);
        return match b.get(j) {
            Some(b']') => Ok((Seg::Key(key), j + 1)),
            None => Err(unclosed()),
            Some(_) => Err(format!(
                "expected ']' after the quoted key at character {}",
                at(s, j)
            )),
        };
    }
    while i < b.len() && b[i] != b']' {
        i += 1;
    }
    if i >= b.len() {
        return Err(unclosed());
    }
    let inner = s[open + 1..i].trim();
    let next = i + 1;
    if inner == "*" {
        return Ok((Seg::Wild, next));
    }
    if inner.contains(':') {
        let shown = short(inner, 40);
        let parts: Vec<&str> = inner.split(':').map(str::trim).collect();
        if parts.len() > 3 {
            return Err(format!("bad slice '[{shown}]': at most start:stop:step"));
        }
        let bound = |t: &str| -> Result<Option<i64>, String> {
            if t.is_empty() {
                Ok(None)
            } else {
                int(t)
                    .map(Some)
                    .ok_or_else(|| format!("bad slice '[{shown}]': '{}' is not an integer", short(t, 20)))
            }
        };
        let start = bound(parts[0])?;
        let stop = bound(parts[1])?;
        let step = match parts.get(2) {
            Some(t) => bound(t)?.unwrap_or(1),
            None => 1,
        };
        if step == 0 {
            return Err("slice step cannot be zero".to_string());
        }
        return Ok((Seg::Slice(start, stop, step), next));
    }
    match int(inner) {
        Some(n) => Ok((Seg::KeyOrIndex(inner.to_string(), n), next)),
        None if inner.is_empty() => Err(format!("empty '[]' at character {}", at(s, open))),
        None => Err(format!(
            "'[{}]' is not an index, slice or '*'; quote keys as [\"key\"]",
            short(inner, 40)
        )),
    }
}

/// An optionally negative decimal integer that fits in i64.
fn int(t: &str) -> Option<i64> {
    let digits = t.strip_prefix('-').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}
