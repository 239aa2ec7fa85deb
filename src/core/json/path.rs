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

/// Parses a path; `Err` is the short reason for the model.
pub(crate) fn parse(path: &str) -> Result<Vec<Seg>, String> {
    let s = path.trim();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    if chars.first() == Some(&'$') && matches!(chars.get(1), None | Some('.') | Some('[')) {
        i = 1;
    }
    let mut segs = Vec::new();
    while i < chars.len() {
        match chars[i] {
            '.' => i += 1,
            '[' => {
                let (seg, next) = bracket(&chars, i)?;
                segs.push(seg);
                i = next;
            }
            _ => {
                let from = i;
                while i < chars.len() && chars[i] != '.' && chars[i] != '[' {
                    i += 1;
                }
                let text: String = chars[from..i].iter().collect();
                segs.push(if text == "*" {
                    Seg::Wild
                } else {
                    match int(&text) {
                        Some(n) => Seg::KeyOrIndex(text, n),
                        None => Seg::Key(text),
                    }
                });
            }
        }
    }
    Ok(segs)
}

/// Parses `[...]` starting at `chars[open] == '['`; returns the segment and the
/// position after `]`.
fn bracket(chars: &[char], open: usize) -> Result<(Seg, usize), String> {
    let mut i = open + 1;
    while i < chars.len() && chars[i].is_whitespace() {
        i += 1;
    }
    let unclosed = || format!("unclosed '[' at character {}", open + 1);
    if let Some(&q) = chars.get(i).filter(|c| **c == '"' || **c == '\'') {
        let mut key = String::new();
        i += 1;
        loop {
            match chars.get(i) {
                None => return Err(format!("unterminated quoted key at character {}", open + 2)),
                Some('\\') => {
                    match chars.get(i + 1) {
                        Some(&c) => key.push(c),
                        None => {
                            return Err(format!(
                                "unterminated quoted key at character {}",
                                open + 2
                            ))
                        }
                    }
                    i += 2;
                }
                Some(&c) if c == q => {
                    i += 1;
                    break;
                }
                Some(&c) => {
                    key.push(c);
                    i += 1;
                }
            }
        }
        while i < chars.len() && chars[i].is_whitespace() {
            i += 1;
        }
        return match chars.get(i) {
            Some(']') => Ok((Seg::Key(key), i + 1)),
            None => Err(unclosed()),
            Some(_) => Err(format!(
                "expected ']' after the quoted key at character {}",
                i + 1
            )),
        };
    }
    let from = i;
    while i < chars.len() && chars[i] != ']' {
        i += 1;
    }
    if i >= chars.len() {
        return Err(unclosed());
    }
    let inner: String = chars[from..i].iter().collect();
    let inner = inner.trim();
    let next = i + 1;
    if inner == "*" {
        return Ok((Seg::Wild, next));
    }
    if inner.contains(':') {
        let parts: Vec<&str> = inner.split(':').map(str::trim).collect();
        if parts.len() > 3 {
            return Err(format!("bad slice '[{inner}]': at most start:stop:step"));
        }
        let bound = |t: &str| -> Result<Option<i64>, String> {
            if t.is_empty() {
                Ok(None)
            } else {
                int(t)
                    .map(Some)
                    .ok_or_else(|| format!("bad slice '[{inner}]': '{t}' is not an integer"))
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
        None if inner.is_empty() => Err(format!("empty '[]' at character {}", open + 1)),
        None => Err(format!(
            "'[{}]' is not an index, slice or '*'; quote keys as [\"key\"]",
            inner.chars().take(40).collect::<String>()
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
