//! Byte-level scanning of JSON text: the validating scans of strings and
//! scalars that the index walk (`index/scalar.rs`) runs as it validates, and
//! the plain scans that later reads run over text it has validated.
//! Every function is bounds-safe: on text that is not valid JSON it returns
//! some position ≤ `b.len()` instead of panicking, so a mismatched index can
//! only produce a wrong answer, never a crash.

use std::borrow::Cow;

/// Byte classes for the structure scanner: 0 = uninteresting.
const CLASS_NONE: u8 = 0;
const CLASS_QUOTE: u8 = 1;
const CLASS_OPEN: u8 = 2;
const CLASS_CLOSE: u8 = 3;

static STRUCT_CLASS: [u8; 256] = {
    let mut t = [CLASS_NONE; 256];
    t[b'"' as usize] = CLASS_QUOTE;
    t[b'{' as usize] = CLASS_OPEN;
    t[b'[' as usize] = CLASS_OPEN;
    t[b'}' as usize] = CLASS_CLOSE;
    t[b']' as usize] = CLASS_CLOSE;
    t
};

/// Bytes that end a bare scalar (number, `true`, `false`, `null`).
static SCALAR_END: [bool; 256] = {
    let mut t = [false; 256];
    t[b',' as usize] = true;
    t[b'}' as usize] = true;
    t[b']' as usize] = true;
    t[b':' as usize] = true;
    t[b' ' as usize] = true;
    t[b'\t' as usize] = true;
    t[b'\n' as usize] = true;
    t[b'\r' as usize] = true;
    t[b'"' as usize] = true;
    t[b'{' as usize] = true;
    t[b'[' as usize] = true;
    t
};

#[inline]
pub(crate) fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// First non-whitespace position at or after `i`. Every byte above the space
/// is not whitespace, which settles compact JSON with one compare.
#[inline(always)]
pub(crate) fn ws(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        if c > b' ' || !is_ws(c) {
            break;
        }
        i += 1;
    }
    i
}

/// `i` is at an opening quote; returns the position just after the closing quote.
#[inline]
pub(crate) fn string_end(b: &[u8], i: usize) -> usize {
    let mut p = i + 1;
    // Short strings dominate (keys, ids): a plain loop beats memchr's setup.
    let short_end = (p + 16).min(b.len());
    while p < short_end {
        match b[p] {
            b'"' => return p + 1,
            b'\\' => p += 2,
            _ => p += 1,
        }
    }
    loop {
        if p >= b.len() {
            return b.len();
        }
        match memchr::memchr2(b'"', b'\\', &b[p..]) {
            None => return b.len(),
            Some(k) => {
                p += k;
                if b[p] == b'"' {
                    return p + 1;
                }
                p += 2;
            }
        }
    }
}

/// `i` is at the first byte of a bare scalar; returns the position after it.
#[inline]
pub(crate) fn scalar_end(b: &[u8], i: usize) -> usize {
    let mut p = i + 1;
    while p < b.len() && !SCALAR_END[b[p] as usize] {
        p += 1;
    }
    p.min(b.len())
}

/// Scans a container that starts at `i` (`{` or `[`) to just past its closing
/// bracket, calling `jump` at every nested opening bracket: when it returns
/// `Some(end)` the scan continues from `end` (a subtree skipped via the index).
/// Iterative: depth costs a counter, not stack.
#[inline]
pub(crate) fn container_end(b: &[u8], i: usize, mut jump: impl FnMut(usize) -> Option<usize>) -> usize {
    let mut depth: usize = 1;
    let mut p = i + 1;
    while p < b.len() {
        match STRUCT_CLASS[b[p] as usize] {
            CLASS_NONE => p += 1,
            CLASS_QUOTE => p = string_end(b, p),
            CLASS_OPEN => {
                if let Some(e) = jump(p) {
                    p = e;
                } else {
                    depth += 1;
                    p += 1;
                }
            }
            _ => {
                depth -= 1;
                p += 1;
                if depth == 0 {
                    return p;
                }
            }
        }
    }
    b.len()
}

/// Kind of the JSON value whose first byte is `c`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Object,
    Array,
    Str,
    Num,
    Bool,
    Null,
}

impl Kind {
    #[inline]
    pub(crate) fn of(c: u8) -> Kind {
        match c {
            b'{' => Kind::Object,
            b'[' => Kind::Array,
            b'"' => Kind::Str,
            b't' | b'f' => Kind::Bool,
            b'n' => Kind::Null,
            _ => Kind::Num,
        }
    }

    /// Short name used in schema lines.
    pub(crate) fn short(self) -> &'static str {
        match self {
            Kind::Object => "object",
            Kind::Array => "array",
            Kind::Str => "str",
            Kind::Num => "num",
            Kind::Bool => "bool",
            Kind::Null => "null",
        }
    }

    /// Bit for kind sets.
    #[inline]
    pub(crate) fn bit(self) -> u8 {
        1 << (self as u8)
    }

    pub(crate) fn from_bit(bit: u8) -> Kind {
        match bit.trailing_zeros() {
            0 => Kind::Object,
            1 => Kind::Array,
            2 => Kind::Str,
            3 => Kind::Num,
            4 => Kind::Bool,
            _ => Kind::Null,
        }
    }
}

/// Decodes the body of a JSON string literal (the bytes between the quotes).
/// Invalid escapes or lone surrogates become U+FFFD rather than errors.
pub(crate) fn decode(raw: &[u8]) -> Cow<'_, str> {
    if memchr::memchr(b'\\', raw).is_none() {
        return crate::wtf8::to_string_lossy(raw);
    }
    let mut out: Vec<u8> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let e = raw.get(i + 1).copied().unwrap_or(b'\\');
        i += 2;
        let simple = match e {
            b'"' => Some(b'"'),
            b'\\' => Some(b'\\'),
            b'/' => Some(b'/'),
            b'b' => Some(8),
            b'f' => Some(12),
            b'n' => Some(b'\n'),
            b'r' => Some(b'\r'),
            b't' => Some(b'\t'),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        if e != b'u' {
            push_char(&mut out, '\u{fffd}');
            continue;
        }
        let Some(hi) = hex4(raw, i) else {
            push_char(&mut out, '\u{fffd}');
            continue;
        };
        i += 4;
        let ch = if (0xD800..0xDC00).contains(&hi) {
            match (raw.get(i), raw.get(i + 1), hex4(raw, i + 2)) {
                (Some(b'\\'), Some(b'u'), Some(lo)) if (0xDC00..0xE000).contains(&lo) => {
                    i += 6;
                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                }
                _ => None,
            }
        } else {
            char::from_u32(hi)
        };
        push_char(&mut out, ch.unwrap_or('\u{fffd}'));
    }
    Cow::Owned(crate::wtf8::to_string_lossy(&out).into_owned())
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

fn hex4(raw: &[u8], i: usize) -> Option<u32> {
    let s = raw.get(i..i + 4)?;
    let mut v = 0u32;
    for &c in s {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// Whether the string literal body `raw` decodes to exactly `key`.
#[inline]
pub(crate) fn key_eq(raw: &[u8], key: &str) -> bool {
    if raw == key.as_bytes() {
        return true;
    }
    memchr::memchr(b'\\', raw).is_some() && decode(raw) == key
}

/// 16-bit key hash; 0 is reserved for "escaped key, always compare".
#[inline]
pub(crate) fn key_hash(bytes: &[u8]) -> u16 {
    // FNV-1a folded to 16 bits: keys are short, this is cheap and spreads well.
    let mut h: u32 = 0x811c_9dc5;
    for &c in bytes {
        h = (h ^ c as u32).wrapping_mul(0x0100_0193);
    }
    let h = ((h >> 16) ^ h) as u16;
    if h == 0 {
        1
    } else {
        h
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// High bit set in each byte of `x` that may be `"`, `\` or a control
/// character (< 0x20). The lowest set bit is always exact (borrows only
/// propagate upwards), which is all the caller relies on.
#[inline]
fn special_mask(x: u64) -> u64 {
    let q = x ^ (ONES * b'"' as u64);
    let s = x ^ (ONES * b'\\' as u64);
    let zero_q = q.wrapping_sub(ONES) & !q;
    let zero_s = s.wrapping_sub(ONES) & !s;
    let ctrl = x.wrapping_sub(ONES * 0x20) & !x;
    (zero_q | zero_s | ctrl) & HIGHS
}

/// One bit per byte of `w` that is `"`, `\` or a control character (< 0x20),
/// with SSE2 (every x86_64 CPU has it).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn special_mask16(w: &[u8; 16]) -> u32 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86_64 baseline; the load is unaligned and
    // reads exactly the 16 bytes of `w`.
    unsafe {
        let x = _mm_loadu_si128(w.as_ptr().cast());
        let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
        let slash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
        let low = _mm_set1_epi8(0x1f);
        let ctrl = _mm_cmpeq_epi8(_mm_min_epu8(x, low), x);
        _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, slash), ctrl)) as u32
    }
}

/// Validating version of [`string_end`]: `None` on a raw control character,
/// a bad escape or a missing closing quote. `\uXXXX` may be any code unit
/// (lone surrogates included), as `JSON.parse` accepts.
///
/// Always inlined: left to the compiler, it stayed a call from the walk's
/// two sites, saving and restoring registers for strings mostly under 16
/// bytes (inlining `valid_scalar_end` as well is slower).
///
/// Sixteen bytes at a time with SSE2 where there are sixteen left, eight
/// (SWAR) otherwise: even a key of five bytes costs fewer instructions in one
/// SSE2 step than in one SWAR step (measurements: benchmark/HISTORY.md).
#[inline(always)]
pub(crate) fn valid_string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut p = i + 1;
    loop {
        // Sixteen bytes at a time up to the first byte that needs a look,
        // eight near the end of the text.
        'scan: {
            #[cfg(target_arch = "x86_64")]
            while let Some(w) = b.get(p..p + 16) {
                let m = special_mask16(w.try_into().ok()?);
                if m != 0 {
                    p += m.trailing_zeros() as usize;
                    break 'scan;
                }
                p += 16;
            }
            while let Some(w) = b.get(p..p + 8) {
                let m = special_mask(u64::from_le_bytes(w.try_into().ok()?));
                if m != 0 {
                    p += (m.trailing_zeros() / 8) as usize;
                    break 'scan;
                }
                p += 8;
            }
        }
        match *b.get(p)? {
            b'"' => return Some(p + 1),
            b'\\' => match *b.get(p + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => p += 2,
                b'u' => {
                    let h = b.get(p + 2..p + 6)?;
                    if !h.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    p += 6;
                }
                _ => return None,
            },
            0..=0x1f => return None,
            _ => p += 1,
        }
    }
}

/// Validating scalar scan: a number (RFC 8259 grammar) or `true`/`false`/`null`,
/// which must be followed by a delimiter or the end. Returns the end.
#[inline]
pub(crate) fn valid_scalar_end(b: &[u8], i: usize) -> Option<usize> {
    let digit = |p: usize| b.get(p).is_some_and(u8::is_ascii_digit);
    let mut p = i;
    match b[i] {
        b't' | b'f' | b'n' => {
            let word: &[u8] = match b[i] {
                b't' => b"true",
                b'f' => b"false",
                _ => b"null",
            };
            let got = b.get(i..i + word.len())?;
            if !got.iter().zip(word).all(|(x, y)| x == y) {
                return None;
            }
            p += word.len();
        }
        _ => {
            if b[p] == b'-' {
                p += 1;
            }
            match b.get(p) {
                Some(b'0') => p += 1,
                Some(b'1'..=b'9') => {
                    p += 1;
                    while digit(p) {
                        p += 1;
                    }
                }
                _ => return None,
            }
            if b.get(p) == Some(&b'.') {
                p += 1;
                if !digit(p) {
                    return None;
                }
                while digit(p) {
                    p += 1;
                }
            }
            if matches!(b.get(p), Some(b'e' | b'E')) {
                p += 1;
                if matches!(b.get(p), Some(b'+' | b'-')) {
                    p += 1;
                }
                if !digit(p) {
                    return None;
                }
                while digit(p) {
                    p += 1;
                }
            }
        }
    }
    match b.get(p) {
        None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') => Some(p),
        _ => None,
    }
}
