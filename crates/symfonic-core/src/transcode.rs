//! Transcoding a payload as it crossed from JS into its stored form, with
//! SIMD (simdutf): a JS string arrives as its UTF-16 units (the one copy the
//! JS thread makes), a Buffer as its bytes, and both are settled here, off
//! the JS thread.
//!
//! A string's stored form is its UTF-8 when it is well-formed (so ids and the
//! fast paths of well-formed text are what they always were), and its WTF-8
//! when it holds lone surrogates (lossless, see `crate::wtf8`). ASCII, the
//! common case, takes one pass of its own (checked and narrowed blockwise);
//! other text three SIMD passes: validate, measure the exact UTF-8 length
//! (the output is allocated once, exactly: `stats().bytes` counts capacity),
//! then convert. A Buffer's bytes, copied off the JS thread from the Buffer a
//! record holds, are validated as UTF-8 in place and kept as is;
//! invalid UTF-8 becomes U+FFFD per bad sequence, as `String::from_utf8_lossy`
//! has always made it (same text, same ids).

use std::borrow::Cow;
use std::mem::MaybeUninit;

use simdutf::ErrorCode;

use crate::wtf8;

pub mod spare;

/// A payload in its stored form, as `text::Payload::settle` makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// Known to be ASCII: no scan needed.
    Ascii(String),
    /// Well-formed text.
    Utf8(String),
    /// WTF-8, lone surrogates possible (see `crate::wtf8`).
    Wtf8(Vec<u8>),
    /// A block's payload: a UTF-8 head of this many bytes, a NUL, then the
    /// block's bytes as given (see `text::Payload::Block`).
    Block(Vec<u8>, usize),
}

impl Settled {
    /// The bytes that are stored and hashed: UTF-8, WTF-8, or a block's.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Settled::Ascii(s) | Settled::Utf8(s) => s.as_bytes(),
            Settled::Wtf8(b) | Settled::Block(b, _) => b,
        }
    }

    /// Display text: a lone surrogate as U+FFFD, the same length in bytes, so
    /// a JSON index built on it applies to the stored bytes; a block's head.
    pub fn lossy(&self) -> Cow<'_, str> {
        match self {
            Settled::Ascii(s) | Settled::Utf8(s) => Cow::Borrowed(s),
            Settled::Wtf8(b) => wtf8::to_string_lossy(b),
            Settled::Block(b, head) => String::from_utf8_lossy(&b[..*head]),
        }
    }

    /// The stored bytes, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        match self {
            Settled::Ascii(s) | Settled::Utf8(s) => s.into_bytes(),
            Settled::Wtf8(b) | Settled::Block(b, _) => b,
        }
    }

    /// The text for JS, marked UTF-8 when it is known to be (a block's head).
    pub fn into_wtf8_buf(self) -> wtf8::Wtf8Buf {
        match self {
            Settled::Ascii(s) | Settled::Utf8(s) => wtf8::Wtf8Buf::from_string(s),
            Settled::Wtf8(b) => wtf8::Wtf8Buf::from_bytes(b, false),
            Settled::Block(mut b, head) => {
                b.truncate(head);
                wtf8::Wtf8Buf::from_bytes(b, true)
            }
        }
    }
}

const HIGH: std::ops::Range<u16> = 0xD800..0xDC00;
const LOW: std::ops::Range<u16> = 0xDC00..0xE000;

/// The stored form of a JS string's UTF-16 units: `Ascii` or `Utf8` when
/// well-formed, `Wtf8` (lone surrogates kept) otherwise.
pub fn from_utf16(units: &[u16]) -> Settled {
    if let Some(s) = ascii(units) {
        return Settled::Ascii(s);
    }
    let checked = simdutf::validate_utf16_with_errors(units);
    if checked.error != ErrorCode::Success {
        return Settled::Wtf8(to_wtf8(units, checked.count));
    }
    let mut out = Vec::new();
    push_well_formed(&mut out, units);
    debug_assert!(std::str::from_utf8(&out).is_ok());
    let ascii = out.len() == units.len();
    // SAFETY: simdutf converted well-formed UTF-16 (validated above) to UTF-8.
    let s = unsafe { String::from_utf8_unchecked(out) };
    if ascii {
        Settled::Ascii(s)
    } else {
        Settled::Utf8(s)
    }
}

/// Units checked and narrowed together, a block at a time.
const ASCII_BLOCK: usize = 1024;

/// The text of all-ASCII `units`, in one pass that narrows each block once
/// it is known to be ASCII (both vectorised); `None` at the first block that
/// is not, before anything is allocated if that is the first. ASCII is the
/// common case (JSON tool results), and this pass replaces the three of the
/// general path (a third of its time on a 5 MB catalog).
fn ascii(units: &[u16]) -> Option<String> {
    if !is_ascii(&units[..units.len().min(ASCII_BLOCK)]) {
        return None;
    }
    let mut out: Vec<u8> = Vec::with_capacity(units.len());
    if !narrow(units, &mut out.spare_capacity_mut()[..units.len()]) {
        return None;
    }
    // SAFETY: `narrow` checked every unit ASCII and wrote all `len` bytes.
    unsafe {
        out.set_len(units.len());
        Some(String::from_utf8_unchecked(out))
    }
}

/// Whether every unit of `block` is ASCII (vectorised).
fn is_ascii(block: &[u16]) -> bool {
    block.iter().fold(0u16, |acc, &u| acc | u) < 0x80
}

/// Writes `units` as bytes into `dst` (same length) a block at a time,
/// checking each block is ASCII first; `false` at the first one that is not.
fn narrow(units: &[u16], dst: &mut [MaybeUninit<u8>]) -> bool {
    let blocks = units.chunks(ASCII_BLOCK).zip(dst.chunks_mut(ASCII_BLOCK));
    for (block, to) in blocks {
        if !is_ascii(block) {
            return false;
        }
        for (d, &u) in to.iter_mut().zip(block) {
            d.write(u as u8);
        }
    }
    true
}

/// The stored form of a Buffer's bytes: its UTF-8 as is when valid (no copy),
/// else with each invalid sequence replaced by U+FFFD.
pub fn from_utf8_lossy(bytes: Vec<u8>) -> Settled {
    if is_utf8(&bytes) {
        // SAFETY: validated just above.
        return Settled::Utf8(unsafe { String::from_utf8_unchecked(bytes) });
    }
    let mut s = String::from_utf8_lossy(&bytes).into_owned();
    s.shrink_to_fit();
    Settled::Utf8(s)
}

/// `from_utf8_lossy` over borrowed bytes (for hashing only): borrowed when valid.
pub fn utf8_lossy(bytes: &[u8]) -> Cow<'_, str> {
    if is_utf8(bytes) {
        // SAFETY: validated just above.
        Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        String::from_utf8_lossy(bytes)
    }
}

/// Whether `bytes` are valid UTF-8 (SIMD; several times `str::from_utf8` on
/// non-ASCII text).
pub fn is_utf8(bytes: &[u8]) -> bool {
    simdutf::validate_utf8(bytes)
}

/// Appends the UTF-8 of `units`, in exactly the bytes it needs. `units` must
/// be well-formed UTF-16: every caller has validated it (simdutf's
/// `convert_valid_*` trusts its input).
fn push_well_formed(out: &mut Vec<u8>, units: &[u16]) {
    if units.is_empty() {
        return;
    }
    let n = simdutf::utf8_length_from_utf16(units);
    out.reserve_exact(n);
    let at = out.len();
    // SAFETY: `out` has room for `n` more bytes, the exact UTF-8 length of
    // well-formed `units`; simdutf writes at most that many and returns the
    // count, and the slices do not overlap.
    let written = unsafe {
        simdutf::convert_valid_utf16_to_utf8(units.as_ptr(), units.len(), out.as_mut_ptr().add(at))
    };
    assert!(written <= n, "simdutf wrote past the UTF-8 length it measured");
    unsafe { out.set_len(at + written) };
}

/// WTF-8 of `units`, whose first ill-formed unit simdutf found at or near
/// `first_error`. Runs of well-formed units between lone surrogates are
/// converted with SIMD; each lone surrogate is written by `wtf8`'s scalar
/// rule. The result is `wtf8::from_utf16`'s, byte for byte, whatever
/// position simdutf reports: a run is never ended inside a surrogate pair,
/// and a run that is not well-formed after all is encoded by the scalar path.
fn to_wtf8(units: &[u16], first_error: usize) -> Vec<u8> {
    // A lone surrogate takes 3 bytes where simdutf's count gives it 2; the
    // few extra bytes grow the buffer, which is cut to size at the end.
    let mut out = Vec::with_capacity(simdutf::utf8_length_from_utf16(units) + 64);
    push_wtf8(&mut out, units, first_error);
    out.shrink_to_fit();
    out
}

/// Appends the WTF-8 of `units` (see [`to_wtf8`]).
fn push_wtf8(out: &mut Vec<u8>, units: &[u16], first_error: usize) {
    let (mut i, mut err) = (0usize, first_error.min(units.len()));
    loop {
        let mut end = err.max(i);
        // Never end a run between the halves of a pair.
        if end > i && HIGH.contains(&units[end - 1]) {
            end -= 1;
        }
        push_run(out, &units[i..end]);
        if end == units.len() {
            break;
        }
        i = push_one(out, units, end);
        if i == units.len() {
            break;
        }
        let checked = simdutf::validate_utf16_with_errors(&units[i..]);
        if checked.error == ErrorCode::Success {
            push_well_formed(out, &units[i..]);
            break;
        }
        err = i + checked.count;
    }
}

/// Appends a run of units that should be well-formed: with SIMD if it is,
/// else with the scalar WTF-8 encoder.
fn push_run(out: &mut Vec<u8>, run: &[u16]) {
    if run.is_empty() {
        return;
    }
    if simdutf::validate_utf16(run) {
        push_well_formed(out, run);
    } else {
        out.extend_from_slice(&wtf8::from_utf16(run).0);
    }
}

/// Appends the code point at `units[i]` (a pair, a lone surrogate or any
/// other unit) as `wtf8::from_utf16` would; returns the index after it.
fn push_one(out: &mut Vec<u8>, units: &[u16], i: usize) -> usize {
    let u = units[i];
    if HIGH.contains(&u) {
        if let Some(&lo) = units.get(i + 1).filter(|lo| LOW.contains(lo)) {
            let cp = 0x10000 + ((u as u32 - 0xD800) << 10) + (lo as u32 - 0xDC00);
            wtf8::push_code_point(out, cp);
            return i + 2;
        }
    }
    wtf8::push_code_point(out, u as u32);
    i + 1
}

#[cfg(test)]
mod tests;
