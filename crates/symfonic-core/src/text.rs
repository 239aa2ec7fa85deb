//! Payload text addressed in Unicode code points (as Python's `str` and JS
//! `Array.from(s)` count), with a sparse code-point → byte index so offsets
//! on multi-megabyte payloads resolve without scanning from the start.

use std::borrow::Cow;

use crate::transcode;
pub use crate::transcode::Settled;
use crate::wtf8;

mod count;
pub use count::{count_chars, mark_index};

/// Code points between two marks of the sparse index.
const MARK_EVERY: usize = 4096;

/// A payload as it crossed from JS, already owned. A JS string crosses as
/// its UTF-16 units and a Buffer as its bytes, not yet transcoded: that work
/// is [`settle`](Payload::settle)'s, which a record runs first (off the JS
/// thread for an async record, so the JS thread only copies).
#[derive(Debug)]
pub enum Payload {
    /// Known to be ASCII: no scan needed.
    Ascii(String),
    /// Well-formed text.
    Utf8(String),
    /// WTF-8 of a JS string with lone surrogates (see `crate::wtf8`).
    Wtf8(Vec<u8>),
    /// A JS string's UTF-16 units, lone surrogates possible (unsettled).
    Utf16(Vec<u16>),
    /// A Buffer's bytes, not yet validated as UTF-8 (unsettled; invalid
    /// sequences become U+FFFD).
    Bytes(Vec<u8>),
    /// Bytes held elsewhere (a JS Buffer the binding keeps alive), copied
    /// when settled, as `Bytes`.
    Shared(Shared),
    /// An image's or a document's bytes, held as bytes (never as text),
    /// after a UTF-8 `head` that says what they are (a NUL in it becomes
    /// U+FFFD: the stored head ends at its NUL). Stored as the head, a NUL,
    /// then the bytes; fetched and recalled as text, the entry is its head.
    Block { head: String, data: Box<Payload> },
}

/// How a payload's bytes are held: its `wtf8` field in a store's row (0, 1, 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Utf8 = 0,
    /// Holds lone surrogates (see `crate::wtf8`).
    Wtf8 = 1,
    /// A block's head and bytes (see [`Payload::Block`]).
    Block = 2,
}

impl Form {
    /// Its code in a store's row.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The form of a row's code; `None` for an unknown one.
    pub fn of_code(code: u64) -> Option<Form> {
        [Form::Utf8, Form::Wtf8, Form::Block]
            .get(usize::try_from(code).ok()?)
            .copied()
    }
}

/// Where a block payload's head ends (its first NUL), if it has one and it
/// is UTF-8.
pub fn block_head_len(payload: &[u8]) -> Option<usize> {
    let n = memchr::memchr(0, payload)?;
    transcode::is_utf8(&payload[..n]).then_some(n)
}

/// Bytes held elsewhere, as [`Held`] reads them.
pub struct Shared(pub Box<dyn Held>);

/// Bytes whose owner may go away while they are held (a JS Buffer's memory
/// is freed when its thread's env ends, whatever holds it).
pub trait Held: Send + Sync {
    /// Its length in bytes.
    fn size(&self) -> usize;
    /// A copy, or `None` once the owner is gone.
    fn copy(&self) -> Option<Vec<u8>>;
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Shared({} bytes)", self.0.size())
    }
}

impl Payload {
    /// Its size as it crossed, in bytes (UTF-16: two a unit).
    pub fn len(&self) -> usize {
        match self {
            Payload::Ascii(s) | Payload::Utf8(s) => s.len(),
            Payload::Wtf8(b) | Payload::Bytes(b) => b.len(),
            Payload::Shared(b) => b.0.size(),
            Payload::Utf16(u) => 2 * u.len(),
            Payload::Block { head, data } => head.len() + 1 + data.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The stored form: UTF-16 transcoded (SIMD) to UTF-8, or to WTF-8 when it
    /// holds lone surrogates; bytes validated (SIMD), invalid ones replaced.
    /// `None` if held bytes' owner is gone.
    pub fn settle(self) -> Option<Settled> {
        Some(match self {
            Payload::Ascii(s) => Settled::Ascii(s),
            Payload::Utf8(s) => Settled::Utf8(s),
            Payload::Wtf8(b) => Settled::Wtf8(b),
            Payload::Utf16(units) => {
                let settled = transcode::from_utf16(&units);
                transcode::spare::give_back(units);
                settled
            }
            Payload::Bytes(bytes) => transcode::from_utf8_lossy(bytes),
            Payload::Shared(b) => transcode::from_utf8_lossy(b.0.copy()?),
            Payload::Block { head, data } => {
                let head = if head.contains('\0') {
                    head.replace('\0', "\u{FFFD}")
                } else {
                    head
                };
                let data = data.raw()?;
                let mut b = Vec::new();
                b.reserve_exact(head.len() + 1 + data.len());
                b.extend_from_slice(head.as_bytes());
                b.push(0);
                b.extend_from_slice(&data);
                Settled::Block(b, head.len())
            }
        })
    }

    /// The bytes as given: a Buffer's as they are, a string's settled.
    fn raw(self) -> Option<Vec<u8>> {
        match self {
            Payload::Bytes(b) => Some(b),
            Payload::Shared(b) => b.0.copy(),
            other => Some(other.settle()?.into_bytes()),
        }
    }
}

impl Default for Payload {
    /// The empty payload.
    fn default() -> Self {
        Payload::Ascii(String::new())
    }
}

impl From<&str> for Payload {
    fn from(s: &str) -> Self {
        Payload::Utf8(s.to_owned())
    }
}

/// What [`Text::count`] found for a settled payload.
#[derive(Debug)]
pub enum Counted {
    /// All ASCII: code point offsets are byte offsets.
    Ascii,
    /// Its code points and the byte offset of every `MARK_EVERY`-th one.
    Marked(usize, Vec<usize>),
    /// Not counted ahead: [`Text::from_counted`] counts it.
    Later,
}

/// The code points of `s` and their marks, or `None` when it is ASCII: the
/// one decision [`Text::new`] and [`Text::count`] share.
fn utf8_marks(s: &str) -> Option<(usize, Vec<usize>)> {
    (!s.is_ascii()).then(|| mark_index(s.as_bytes(), MARK_EVERY))
}

#[derive(Debug)]
enum Body {
    Utf8(String),
    /// Holds at least one lone surrogate.
    Wtf8(Vec<u8>),
    /// A block: a UTF-8 head of this many bytes (the text), a NUL, its bytes.
    Block(Vec<u8>, usize),
}

/// A stored payload: UTF-8 (or WTF-8) text plus what is needed to slice it by code point.
#[derive(Debug)]
pub struct Text {
    body: Body,
    chars: usize,
    /// Byte offset of code point `k * MARK_EVERY`; empty when the text is ASCII
    /// (then code point offsets are byte offsets).
    marks: Vec<usize>,
}

impl Text {
    /// A text already known to be ASCII (e.g. a JS string whose UTF-8 and
    /// UTF-16 lengths agree): no scan needed.
    pub fn from_ascii(s: String) -> Self {
        debug_assert!(s.is_ascii());
        let chars = s.len();
        Text {
            body: Body::Utf8(s),
            chars,
            marks: Vec::new(),
        }
    }

    /// A text from well-formed UTF-8: ASCII needs no index; other text is
    /// counted and marked in one blockwise pass (see `count::mark_index`).
    pub fn new(s: String) -> Self {
        match utf8_marks(&s) {
            Some((chars, marks)) => Text {
                body: Body::Utf8(s),
                chars,
                marks,
            },
            None => Text::from_ascii(s),
        }
    }

    /// A text from WTF-8 bytes (see `crate::wtf8`); valid UTF-8 takes [`Text::new`].
    pub fn from_wtf8(b: Vec<u8>) -> Self {
        if transcode::is_utf8(&b) {
            // SAFETY: validated just above.
            return Text::new(unsafe { String::from_utf8_unchecked(b) });
        }
        let (chars, marks) = mark_index(&b, MARK_EVERY);
        Text {
            body: Body::Wtf8(b),
            chars,
            marks,
        }
    }

    /// What [`from_counted`](Self::from_counted) needs to build the text of
    /// `p` without a pass over it: whether it is ASCII, or its code points
    /// and marks (one pass, `count::mark_index`). Borrowing `p`, it can run
    /// on another thread while the JSON index is built (`Ledger::record`).
    pub fn count(p: &Settled) -> Counted {
        match p {
            Settled::Ascii(_) => Counted::Ascii,
            Settled::Utf8(s) => match utf8_marks(s) {
                Some((chars, marks)) => Counted::Marked(chars, marks),
                None => Counted::Ascii,
            },
            // Rare (lone surrogates): counted when built.
            Settled::Wtf8(_) => Counted::Later,
            // SAFETY: a block's head is UTF-8 (`Payload::settle`, `block_head_len`).
            Settled::Block(b, head) => {
                match utf8_marks(unsafe { std::str::from_utf8_unchecked(&b[..*head]) }) {
                    Some((chars, marks)) => Counted::Marked(chars, marks),
                    None => Counted::Ascii,
                }
            }
        }
    }

    /// The text of `p`, given what [`count`](Self::count) found for it.
    pub fn from_counted(p: Settled, counted: Counted) -> Self {
        match (p, counted) {
            (Settled::Ascii(s) | Settled::Utf8(s), Counted::Ascii) => Text::from_ascii(s),
            (Settled::Utf8(s), Counted::Marked(chars, marks)) => Text {
                body: Body::Utf8(s),
                chars,
                marks,
            },
            (Settled::Block(b, head), Counted::Ascii) => Text {
                body: Body::Block(b, head),
                chars: head,
                marks: Vec::new(),
            },
            (Settled::Block(b, head), Counted::Marked(chars, marks)) => Text {
                body: Body::Block(b, head),
                chars,
                marks,
            },
            (p, _) => Text::from_payload(p),
        }
    }

    /// A text from a settled payload, trusting what the payload already knows.
    pub fn from_payload(p: Settled) -> Self {
        match p {
            Settled::Ascii(s) => Text::from_ascii(s),
            Settled::Utf8(s) => Text::new(s),
            Settled::Wtf8(b) => Text::from_wtf8(b),
            p @ Settled::Block(..) => {
                let counted = Text::count(&p);
                Text::from_counted(p, counted)
            }
        }
    }

    /// The text's bytes: UTF-8, or WTF-8 when [`is_utf8`](Self::is_utf8) is
    /// false; a block's head.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.body {
            Body::Utf8(s) => s.as_bytes(),
            Body::Wtf8(b) => b,
            Body::Block(b, head) => &b[..*head],
        }
    }

    /// The bytes stored and hashed: the text's, or a block's head, its NUL and its bytes.
    pub fn payload(&self) -> &[u8] {
        match &self.body {
            Body::Block(b, _) => b,
            _ => self.as_bytes(),
        }
    }

    /// A block's bytes (after its head); `None` for text.
    pub fn block_data(&self) -> Option<&[u8]> {
        match &self.body {
            Body::Block(b, head) => Some(&b[*head + 1..]),
            _ => None,
        }
    }

    /// How the payload is held.
    pub fn form(&self) -> Form {
        match self.body {
            Body::Utf8(_) => Form::Utf8,
            Body::Wtf8(_) => Form::Wtf8,
            Body::Block(..) => Form::Block,
        }
    }

    /// Whether the text is well-formed (holds no lone surrogate; a block's head always is).
    pub fn is_utf8(&self) -> bool {
        !matches!(self.body, Body::Wtf8(_))
    }

    /// The text as display UTF-8: lone surrogates as U+FFFD, byte offsets unchanged.
    pub fn lossy(&self) -> Cow<'_, str> {
        match &self.body {
            Body::Utf8(s) => Cow::Borrowed(s),
            Body::Wtf8(b) => wtf8::to_string_lossy(b),
            // SAFETY: a block's head is UTF-8 (`Payload::settle`, `block_head_len`).
            Body::Block(b, head) => Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(&b[..*head]) }),
        }
    }

    /// Length in code points.
    pub fn char_len(&self) -> usize {
        self.chars
    }

    /// Bytes held, payload and index.
    pub fn heap_bytes(&self) -> usize {
        let held = match &self.body {
            Body::Utf8(s) => s.capacity(),
            Body::Wtf8(b) | Body::Block(b, _) => b.capacity(),
        };
        held + self.marks.capacity() * std::mem::size_of::<usize>()
    }

    /// Byte offset of code point `ci` (clamped to the end).
    pub fn byte_of(&self, ci: usize) -> usize {
        let bytes = self.as_bytes();
        if ci >= self.chars {
            return bytes.len();
        }
        if self.marks.is_empty() {
            return ci;
        }
        let mut b = self.marks[ci / MARK_EVERY];
        let mut left = ci % MARK_EVERY;
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
        let bytes = self.as_bytes();
        if self.marks.is_empty() {
            return bi.min(bytes.len());
        }
        let k = self.marks.partition_point(|&m| m <= bi) - 1;
        k * MARK_EVERY + count_chars(&bytes[self.marks[k]..bi])
    }

    /// Code points `[start, end)`, clamped to the text, as its bytes. A lone
    /// surrogate is one code point: a slice holds it whole or not at all, and
    /// a surrogate pair is never split.
    pub fn slice(&self, start: usize, end: usize) -> &[u8] {
        let a = self.byte_of(start);
        let b = self.byte_of(end.max(start));
        &self.as_bytes()[a..b]
    }

    /// [`slice`](Self::slice) for JS: owned, marked UTF-8 when the text is.
    pub fn slice_buf(&self, start: usize, end: usize) -> wtf8::Wtf8Buf {
        wtf8::Wtf8Buf::from_bytes(self.slice(start, end).to_vec(), self.is_utf8())
    }
}

/// The first `n` code points of UTF-8 (or WTF-8) bytes (all of them when shorter).
pub fn take_chars_bytes(b: &[u8], n: usize) -> &[u8] {
    let mut seen = 0usize;
    for (i, &c) in b.iter().enumerate() {
        if (c as i8) >= -0x40 {
            if seen == n {
                return &b[..i];
            }
            seen += 1;
        }
    }
    b
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
mod tests;
