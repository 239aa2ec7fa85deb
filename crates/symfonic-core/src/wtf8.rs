//! WTF-8: UTF-8 extended to lone surrogates, each encoded as the 3-byte
//! sequence its code point would have (`ED A0..BF 80..BF`). A JS string is a
//! sequence of UTF-16 units, not always valid Unicode; WTF-8 stores any of
//! them losslessly and injectively, while a well-formed string's WTF-8 *is*
//! its UTF-8, byte for byte (so ids and the fast paths of well-formed text
//! are unchanged). Code points (lone surrogates included, one each, as
//! `Array.from` counts them) still start at every non-continuation byte, and
//! the encoding is self-synchronising, so byte search and code-point slicing
//! work on it unchanged.

use std::borrow::Cow;

/// UTF-8 of U+FFFD, what a lone surrogate looks like in display text.
const REPLACEMENT: [u8; 3] = [0xEF, 0xBF, 0xBD];

/// Text bound for JS: UTF-8, or WTF-8 when it may hold lone surrogates.
/// `utf8` is a promise that the bytes are valid UTF-8 (then they cross to JS
/// through V8's UTF-8 decoder); otherwise they cross as UTF-16 units.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Wtf8Buf {
    bytes: Vec<u8>,
    utf8: bool,
}

impl Wtf8Buf {
    /// Well-formed text.
    pub fn from_string(s: String) -> Self {
        Wtf8Buf {
            bytes: s.into_bytes(),
            utf8: true,
        }
    }

    /// WTF-8 bytes (as [`from_utf16`] makes, or slices of them at code point
    /// boundaries). `utf8` must only be true for valid UTF-8.
    pub fn from_bytes(bytes: Vec<u8>, utf8: bool) -> Self {
        debug_assert!(!utf8 || std::str::from_utf8(&bytes).is_ok());
        Wtf8Buf { bytes, utf8 }
    }

    /// The WTF-8 bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Whether the bytes are known to be valid UTF-8.
    pub fn is_utf8(&self) -> bool {
        self.utf8
    }

    /// The UTF-16 units of the text, lone surrogates kept.
    pub fn to_utf16(&self) -> Vec<u16> {
        to_utf16(&self.bytes)
    }

    /// The text with each lone surrogate as U+FFFD (for display and tests).
    pub fn to_string_lossy(&self) -> Cow<'_, str> {
        to_string_lossy(&self.bytes)
    }
}

impl std::fmt::Debug for Wtf8Buf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf16_lossy(&self.to_utf16()))
    }
}

impl PartialEq<&str> for Wtf8Buf {
    fn eq(&self, other: &&str) -> bool {
        self.bytes == other.as_bytes()
    }
}

impl PartialEq<String> for Wtf8Buf {
    fn eq(&self, other: &String) -> bool {
        self.bytes == other.as_bytes()
    }
}

impl From<String> for Wtf8Buf {
    fn from(s: String) -> Self {
        Wtf8Buf::from_string(s)
    }
}

impl From<&str> for Wtf8Buf {
    fn from(s: &str) -> Self {
        Wtf8Buf::from_string(s.to_owned())
    }
}

/// WTF-8 of UTF-16 units, and whether any of them is a lone surrogate.
pub fn from_utf16(units: &[u16]) -> (Vec<u8>, bool) {
    let mut out = Vec::with_capacity(units.len() + units.len() / 2);
    let mut lone = false;
    let mut i = 0;
    while i < units.len() {
        let u = units[i] as u32;
        i += 1;
        let cp = if (0xD800..0xDC00).contains(&u) {
            match units.get(i).map(|&v| v as u32) {
                Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                    i += 1;
                    0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
                }
                _ => {
                    lone = true;
                    u
                }
            }
        } else {
            lone |= (0xDC00..0xE000).contains(&u);
            u
        };
        push_code_point(&mut out, cp);
    }
    (out, lone)
}

/// Appends code point `cp` (a lone surrogate allowed) in WTF-8.
pub fn push_code_point(out: &mut Vec<u8>, cp: u32) {
    match cp {
        0..=0x7F => out.push(cp as u8),
        0x80..=0x7FF => out.extend_from_slice(&[0xC0 | (cp >> 6) as u8, 0x80 | (cp & 0x3F) as u8]),
        0x800..=0xFFFF => out.extend_from_slice(&[
            0xE0 | (cp >> 12) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]),
        _ => out.extend_from_slice(&[
            0xF0 | (cp >> 18) as u8,
            0x80 | ((cp >> 12) & 0x3F) as u8,
            0x80 | ((cp >> 6) & 0x3F) as u8,
            0x80 | (cp & 0x3F) as u8,
        ]),
    }
}

/// The code point starting at byte `i` (a lone surrogate as its own value)
/// and its length in bytes. `b[i]` must start a sequence of WTF-8 text;
/// anything else decodes as U+FFFD of length 1, so the walk never stalls.
#[inline]
pub fn decode_at(b: &[u8], i: usize) -> (u32, usize) {
    let c = b[i] as u32;
    let cont = |k: usize| b.get(i + k).map_or(0, |&x| (x & 0x3F) as u32);
    match c {
        0..=0x7F => (c, 1),
        0xC0..=0xDF => (((c & 0x1F) << 6) | cont(1), 2),
        0xE0..=0xEF => (((c & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3),
        0xF0..=0xF7 => (((c & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3), 4),
        _ => (0xFFFD, 1),
    }
}

/// UTF-16 units of WTF-8 bytes: lone surrogates come back as themselves.
pub fn to_utf16(b: &[u8]) -> Vec<u16> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        // ASCII runs dominate real payloads.
        if b[i] < 0x80 {
            out.push(b[i] as u16);
            i += 1;
            continue;
        }
        let (cp, n) = decode_at(b, i);
        i += n;
        if cp >= 0x10000 {
            let v = cp - 0x10000;
            out.push(0xD800 | (v >> 10) as u16);
            out.push(0xDC00 | (v & 0x3FF) as u16);
        } else {
            out.push(cp as u16);
        }
    }
    out
}

/// Whether `b[i..]` starts with the WTF-8 of a surrogate.
#[inline]
fn surrogate_at(b: &[u8], i: usize) -> bool {
    b[i] == 0xED && b.get(i + 1).is_some_and(|&x| x >= 0xA0)
}

/// Whether WTF-8 bytes hold a lone surrogate.
pub fn has_surrogate(b: &[u8]) -> bool {
    memchr::memchr_iter(0xED, b).any(|i| surrogate_at(b, i))
}

/// Whether `b` is well-formed WTF-8: UTF-8 where surrogates may appear
/// only as lone ones, each as its 3-byte sequence (a pair must be the 4-byte
/// sequence of its code point). What [`from_utf16`] makes, and nothing else;
/// for bytes read back from a store.
pub fn is_wtf8(b: &[u8]) -> bool {
    let mut start = 0;
    let mut lead_end = None; // where the previous lone lead surrogate ended
    for i in memchr::memchr_iter(0xED, b) {
        if !surrogate_at(b, i) {
            continue; // an ordinary ED sequence, checked with its segment
        }
        let (Some(&second), Some(&third)) = (b.get(i + 1), b.get(i + 2)) else {
            return false;
        };
        let cont = |x: u8| (0x80..0xC0).contains(&x);
        if !cont(second) || !cont(third) || !is_utf8(&b[start..i]) {
            return false;
        }
        let trail = second >= 0xB0;
        if trail && lead_end == Some(i) {
            return false; // a pair written as two surrogates
        }
        lead_end = (!trail).then_some(i + 3);
        start = i + 3;
    }
    is_utf8(&b[start..])
}

/// WTF-8 as display text: each lone surrogate becomes one U+FFFD, which has
/// the same length in bytes, so byte offsets into the result are offsets
/// into `b` (a JSON index built on it applies to `b`). Other invalid bytes
/// (not produced by this module) become U+FFFD as `from_utf8_lossy` does.
pub fn to_string_lossy(b: &[u8]) -> Cow<'_, str> {
    // Validation with SIMD: several times `str::from_utf8` on non-ASCII text.
    if is_utf8(b) {
        // SAFETY: validated just above.
        return Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(b) });
    }
    let mut v = b.to_vec();
    for i in memchr::memchr_iter(0xED, b) {
        if surrogate_at(b, i) && i + 2 < b.len() {
            v[i..i + 3].copy_from_slice(&REPLACEMENT);
        }
    }
    if is_utf8(&v) {
        // SAFETY: validated just above.
        return Cow::Owned(unsafe { String::from_utf8_unchecked(v) });
    }
    Cow::Owned(String::from_utf8_lossy(&v).into_owned())
}

/// Whether `b` is valid UTF-8 (SIMD).
fn is_utf8(b: &[u8]) -> bool {
    simdutf::validate_utf8(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn well_formed_text_is_its_utf8() {
        for s in ["", "abc", "café", "日本語", "😀🎉 x", "\u{FFFD}"] {
            let (b, lone) = from_utf16(&units(s));
            assert_eq!(b, s.as_bytes(), "{s}");
            assert!(!lone);
            assert_eq!(to_utf16(&b), units(s));
            assert_eq!(to_string_lossy(&b), s);
        }
    }

    #[test]
    fn only_what_from_utf16_makes_is_wtf8() {
        for u in [
            &[0x78u16, 0xD800][..],
            &[0xDC00, 0xD800],
            &[0xD83D, 0xD83D, 0xDE00],
            &[0x61, 0xDE00, 0x62],
        ] {
            let (b, _) = from_utf16(u);
            assert!(is_wtf8(&b), "{u:?}");
        }
        assert!(is_wtf8("日本 😀 \u{D7FF}".as_bytes()));
        for bad in [
            &b"\xed\xa0\xbd\xed\xb8\x80"[..], // a pair as two surrogates
            b"\xed\xa0",                      // cut
            b"\xed\xa0\x41",                  // not a continuation
            b"\xed\xa0\x80\xff",              // invalid after a surrogate
            b"\xff\xed\xa0\x80",              // invalid before
            b"\xc3",
        ] {
            assert!(!is_wtf8(bad), "{bad:?}");
        }
        // A trail then a lead is two lone surrogates, not a pair.
        assert!(is_wtf8(b"\xed\xb0\x80\xed\xa0\x80"));
    }

    #[test]
    fn lone_surrogates_round_trip_and_stay_distinct() {
        let cases: [&[u16]; 6] = [
            &[0x78, 0xD800],
            &[0x78, 0xDBFF],
            &[0x78, 0xDFFF],
            &[0xDC00, 0xD800],
            &[0xD83D, 0xD83D, 0xDE00],
            &[0x61, 0xDE00, 0x62],
        ];
        let mut seen = std::collections::HashSet::new();
        for u in cases {
            let (b, lone) = from_utf16(u);
            assert!(lone, "{u:?}");
            assert!(has_surrogate(&b));
            assert_eq!(to_utf16(&b), u);
            assert!(seen.insert(b.clone()), "{u:?} aliases");
            assert_ne!(b, "x\u{FFFD}".as_bytes());
            let lossy = to_string_lossy(&b);
            assert_eq!(lossy.len(), b.len());
            assert!(lossy.contains('\u{FFFD}'));
        }
        // A real pair next to a lone lead: one 4-byte and one 3-byte sequence.
        let (b, _) = from_utf16(&[0xD83D, 0xD83D, 0xDE00]);
        assert_eq!(b.len(), 7);
        assert!(!has_surrogate("日本 😀".as_bytes()));
    }
}
