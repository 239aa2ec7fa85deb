//! Parser for model-supplied json paths: RFC 9535 JSONPath (`$.items[*]`,
//! `$..sku`, `$.items[?@.stock==0]`, unions, slices, the five functions),
//! RFC 6901 JSON Pointers (`/a/b`, `#/a/b`), and the lenient forms models
//! write (`rows.0.price`, `rows.-1`, no leading `$`). The leniencies are
//! listed in `docs/jsonpath.md`; every one is a query the RFC rejects, so a
//! valid RFC query always means what the RFC says.

mod expr;
mod hint;
mod pointer;

pub(crate) use expr::{CmpOp, Comparable, Expr, FilterQuery, FnCall, Func, Lit};

/// A parsed query: the segments after `$`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Query {
    pub segs: Vec<Segment>,
}

impl Query {
    /// RFC 9535's singular query: child segments of one name or index each.
    /// It answers one node (or "not found"), any other query an array.
    pub(crate) fn is_singular(&self) -> bool {
        singular(&self.segs)
    }
}

pub(crate) fn singular(segs: &[Segment]) -> bool {
    segs.iter().all(|s| {
        !s.descendant
            && s.sels.len() == 1
            && matches!(
                s.sels[0],
                Selector::Name(_) | Selector::Index(_) | Selector::KeyOrIndex(..)
            )
    })
}

/// A child segment (`.name`, `[…]`) or a descendant segment (`..name`, `..[…]`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Segment {
    pub descendant: bool,
    pub sels: Vec<Selector>,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Selector {
    /// A member name (quoted, or the `.name` shorthand), escapes decoded.
    Name(String),
    /// Lenient `.0` / `.-1`: a key on objects, an index on arrays.
    KeyOrIndex(String, i64),
    Index(i64),
    Wild,
    /// `[start:end:step]`; `step` defaults to 1.
    Slice(Option<i64>, Option<i64>, i64),
    Filter(Box<Expr>),
}

/// Why a path is invalid: the byte position in the path as sent, and what
/// was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Invalid {
    pub at: usize,
    pub msg: String,
}

impl Invalid {
    /// `"<msg> at character N"`, N counted in code points from 1.
    pub(crate) fn describe(&self, path: &str) -> String {
        let at = self.at.min(path.len());
        let at = (0..=at).rev().find(|&i| path.is_char_boundary(i)).unwrap_or(0);
        let msg = hint::better(path, at).unwrap_or_else(|| self.msg.clone());
        format!("{msg} at character {}", path[..at].chars().count() + 1)
    }
}

/// Deepest nesting of filters, parentheses and function calls.
const MAX_DEPTH: usize = 64;
/// Largest index or slice bound RFC 9535 allows (I-JSON's exact integers).
const MAX_INT: i64 = (1 << 53) - 1;

/// RFC 9535 whitespace.
fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// Bytes that end a `.name`: RFC syntax characters and whitespace. Every
/// other character may appear in a name, so `.content-type` and `.$ref`
/// read as keys (the RFC's shorthand allows fewer; no valid query changes).
fn ends_name(c: u8) -> bool {
    c < 0x20
        || matches!(
            c,
            b' ' | b'.'
                | b'['
                | b']'
                | b'('
                | b')'
                | b','
                | b'\''
                | b'"'
                | b'='
                | b'!'
                | b'<'
                | b'>'
                | b'&'
                | b'|'
                | b'?'
                | b'*'
                | b'\\'
                | 0x7f
        )
}

/// Parses a path; `Err` says where and what was expected.
pub(crate) fn parse(path: &str) -> Result<Query, Invalid> {
    let b = path.as_bytes();
    let mut from = 0;
    let mut end = b.len();
    while from < end && is_blank(b[from]) {
        from += 1;
    }
    while end > from && is_blank(b[end - 1]) {
        end -= 1;
    }
    if matches!(b.get(from), Some(b'/' | b'#')) {
        return pointer::parse(&path[from..end]).map_err(|e| Invalid {
            at: e.at + from,
            msg: e.msg,
        });
    }
    let mut p = Parser {
        s: path,
        b,
        i: from,
        end,
        depth: 0,
    };
    let mut segs = Vec::new();
    match p.peek() {
        // `$` alone or before a segment is the root; `$ref` is a key.
        Some(b'$') if p.at(p.i + 1).is_none_or(|c| ends_name(c) || is_blank(c)) => p.i += 1,
        None | Some(b'.' | b'[') => {}
        Some(b'*') => {
            p.i += 1;
            segs.push(Segment {
                descendant: false,
                sels: vec![Selector::Wild],
            });
        }
        Some(_) => segs.push(p.name_segment()?),
    }
    p.segments(&mut segs, false)?;
    if p.i < p.end {
        return Err(p.unexpected("'.', '..' or '['"));
    }
    Ok(Query { segs })
}

pub(crate) struct Parser<'s> {
    s: &'s str,
    b: &'s [u8],
    i: usize,
    end: usize,
    /// Filters and parentheses open around the position: the parser recurses
    /// on them, so their nesting is bounded.
    depth: usize,
}

impl<'s> Parser<'s> {
    fn at(&self, i: usize) -> Option<u8> {
        if i < self.end {
            Some(self.b[i])
        } else {
            None
        }
    }

    fn peek(&self) -> Option<u8> {
        self.at(self.i)
    }

    fn starts_with(&self, t: &str) -> bool {
        self.b[self.i..self.end].starts_with(t.as_bytes())
    }

    fn blanks(&mut self) {
        while self.peek().is_some_and(is_blank) {
            self.i += 1;
        }
    }

    fn err(&self, at: usize, msg: impl Into<String>) -> Invalid {
        Invalid { at, msg: msg.into() }
    }

    /// "unexpected 'x', expected …" at the current position.
    fn unexpected(&self, expected: &str) -> Invalid {
        match self.s[self.i..self.end].chars().next() {
            None => self.err(self.i, format!("unexpected end, expected {expected}")),
            Some(c) => self.err(
                self.i,
                format!("unexpected {}, expected {expected}", show_char(c)),
            ),
        }
    }

    /// `*(S segment)`: appends segments until something else comes.
    fn segments(&mut self, segs: &mut Vec<Segment>, in_filter: bool) -> Result<(), Invalid> {
        loop {
            let save = self.i;
            self.blanks();
            match self.peek() {
                Some(b'.') if self.at(self.i + 1) == Some(b'.') => {
                    self.i += 2;
                    let mut seg = match self.peek() {
                        Some(b'[') => self.bracket()?,
                        Some(b'*') => {
                            self.i += 1;
                            Segment {
                                descendant: false,
                                sels: vec![Selector::Wild],
                            }
                        }
                        Some(c) if !ends_name(c) => self.name_segment()?,
                        _ => return Err(self.unexpected("a name, '*' or '[' after '..'")),
                    };
                    seg.descendant = true;
                    segs.push(seg);
                }
                Some(b'.') => {
                    self.i += 1;
                    match self.peek() {
                        Some(b'*') => {
                            self.i += 1;
                            segs.push(Segment {
                                descendant: false,
                                sels: vec![Selector::Wild],
                            });
                        }
                        // Lenient: `rows.[0]` and a trailing `.` (`$.`).
                        Some(b'[') => segs.push(self.bracket()?),
                        None if !in_filter => {}
                        Some(c) if !ends_name(c) => segs.push(self.name_segment()?),
                        _ => return Err(self.unexpected("a name or '*' after '.'")),
                    }
                }
                Some(b'[') => segs.push(self.bracket()?),
                _ => {
                    self.i = save;
                    return Ok(());
                }
            }
        }
    }

    /// A `.name` (the dot already read): up to the next syntax character.
    fn name_segment(&mut self) -> Result<Segment, Invalid> {
        let from = self.i;
        while self.peek().is_some_and(|c| !ends_name(c)) {
            self.i += 1;
        }
        if self.i == from {
            return Err(self.unexpected("a name"));
        }
        let text = &self.s[from..self.i];
        let sel = match loose_int(text) {
            Some(n) => Selector::KeyOrIndex(text.to_string(), n),
            None => Selector::Name(text.to_string()),
        };
        Ok(Segment {
            descendant: false,
            sels: vec![sel],
        })
    }

    /// `[` S selector *(S "," S selector) S `]`.
    fn bracket(&mut self) -> Result<Segment, Invalid> {
        let open = self.i;
        self.i += 1;
        let mut sels = Vec::new();
        loop {
            self.blanks();
            sels.push(self.selector(open)?);
            self.blanks();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Segment {
                        descendant: false,
                        sels,
                    });
                }
                None => return Err(self.err(open, "unclosed '['")),
                Some(b'=') => return Err(self.err(self.i, "'=' is not an operator: compare with '=='")),
                _ => return Err(self.unexpected("',' or ']'")),
            }
        }
    }

    fn selector(&mut self, open: usize) -> Result<Selector, Invalid> {
        match self.peek() {
            Some(q @ (b'\'' | b'"')) => Ok(Selector::Name(self.string(q)?)),
            Some(b'*') => {
                self.i += 1;
                Ok(Selector::Wild)
            }
            Some(b'?') => {
                self.i += 1;
                self.blanks();
                Ok(Selector::Filter(Box::new(self.logical()?)))
            }
            Some(b'-' | b'0'..=b'9' | b':') => self.index_or_slice(),
            None => Err(self.err(open, "unclosed '['")),
            Some(b']') if self.b[self.i - 1] == b'[' => Err(self.err(open, "empty '[]'")),
            _ => Err(self
                .unexpected("a quoted name, an index, a slice, '*' or a '?' filter (quote keys: ['key'])")),
        }
    }

    fn index_or_slice(&mut self) -> Result<Selector, Invalid> {
        let start = if self.peek() == Some(b':') {
            None
        } else {
            Some(self.int()?)
        };
        self.blanks();
        if self.peek() != Some(b':') {
            return match start {
                Some(n) => Ok(Selector::Index(n)),
                None => Err(self.unexpected("an index")),
            };
        }
        self.i += 1;
        self.blanks();
        let bound = |p: &mut Self| -> Result<Option<i64>, Invalid> {
            if matches!(p.peek(), Some(b'-' | b'0'..=b'9')) {
                let n = p.int()?;
                p.blanks();
                Ok(Some(n))
            } else {
                Ok(None)
            }
        };
        let stop = bound(self)?;
        let mut step = None;
        if self.peek() == Some(b':') {
            self.i += 1;
            self.blanks();
            step = bound(self)?;
        }
        Ok(Selector::Slice(start, stop, step.unwrap_or(1)))
    }

    /// RFC 9535 `int`: `0` or an optional `-` and digits without a leading 0,
    /// within ±(2^53 − 1).
    fn int(&mut self) -> Result<i64, Invalid> {
        let (from, digits) = self.sign_and_digits();
        let text = &self.s[from..self.i];
        if self.i == digits {
            return Err(self.unexpected("a digit"));
        }
        if self.b[digits] == b'0' && (self.i - digits > 1 || digits > from) {
            return Err(self.err(
                from,
                format!("'{text}' is not an integer (no leading zeros, no -0)"),
            ));
        }
        match text.parse::<i64>() {
            Ok(n) if (-MAX_INT..=MAX_INT).contains(&n) => Ok(n),
            _ => Err(self.err(from, "integer out of range (at most 2^53-1 either way)")),
        }
    }

    /// Reads an optional `-` and a run of digits: `(start, start of the digits)`.
    fn sign_and_digits(&mut self) -> (usize, usize) {
        let from = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        let digits = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        (from, digits)
    }

    /// A string literal in `q` quotes, escapes decoded.
    fn string(&mut self, q: u8) -> Result<String, Invalid> {
        let open = self.i;
        self.i += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.s[self.i..self.end].chars().next() else {
                return Err(self.err(open, "unterminated string"));
            };
            let at = self.i;
            self.i += c.len_utf8();
            match c {
                _ if c as u32 == q as u32 => return Ok(out),
                '\\' => out.push(self.escape(q, at)?),
                '\0'..='\x1f' => {
                    return Err(self.err(at, format!("{} in a string must be escaped", show_char(c))))
                }
                _ => out.push(c),
            }
        }
    }

    /// The character a `\` escape stands for (the backslash at `at`).
    fn escape(&mut self, q: u8, at: usize) -> Result<char, Invalid> {
        let bad = |p: &Self| {
            p.err(
                at,
                "invalid escape (valid: \\b \\f \\n \\r \\t \\/ \\\\ \\uXXXX and the quote)",
            )
        };
        let Some(e) = self.peek() else {
            return Err(bad(self));
        };
        self.i += 1;
        Ok(match e {
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'/' => '/',
            b'\\' => '\\',
            b'\'' | b'"' if e == q => e as char,
            b'u' => {
                let hi = self.hex4().ok_or_else(|| bad(self))?;
                let cp = if (0xD800..0xDC00).contains(&hi) {
                    let lo = if self.starts_with("\\u") {
                        self.i += 2;
                        self.hex4().filter(|lo| (0xDC00..0xE000).contains(lo))
                    } else {
                        None
                    };
                    let lo = lo.ok_or_else(|| {
                        self.err(at, "a high surrogate escape must be followed by a low one")
                    })?;
                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                } else {
                    hi
                };
                char::from_u32(cp)
                    .ok_or_else(|| self.err(at, "a lone surrogate escape is not a character"))?
            }
            _ => return Err(bad(self)),
        })
    }

    fn hex4(&mut self) -> Option<u32> {
        let t = self
            .b
            .get(self.i..self.i + 4)
            .filter(|_| self.i + 4 <= self.end)?;
        let mut v = 0;
        for &c in t {
            v = v * 16 + (c as char).to_digit(16)?;
        }
        self.i += 4;
        Some(v)
    }
}

/// `'x'`, or `U+000A` for characters a message should not hold raw.
fn show_char(c: char) -> String {
    if c.is_control() || c.is_whitespace() {
        format!("U+{:04X}", c as u32)
    } else {
        format!("'{c}'")
    }
}

/// An optionally negative decimal integer that fits in i64 (leading zeros allowed).
fn loose_int(t: &str) -> Option<i64> {
    let digits = t.strip_prefix('-').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}
