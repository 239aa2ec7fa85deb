//! Transcoding a long string's UTF-16 units in two halves at once, the second
//! half on another CPU (`crate::cpu::spawn_beside`), each written straight into
//! its part of the one output buffer; and joining a long payload's pieces
//! (a streamed string's, a Buffer's) the same way.
//!
//! Why: a payload's stored bytes are a fresh buffer, and writing fresh pages
//! costs more than the conversion itself (each first write to a page is a
//! page fault). Two threads take half the faults each. Measured in Rust on
//! the 2-vCPU VM, median of 30, 5 MB catalogs (`benchmark/catalogs.js`), one
//! thread against two: into fresh memory (a ledger that keeps its records)
//! ASCII 3.7 → 2.4 ms, Latin-1 4.8 → 2.9, CJK 4.7 → 2.8; into reused memory
//! Latin-1 and CJK 1.1 → 0.8 ms, ASCII 0.3 ms either way.
//!
//! Well-formed input only: a half that is not ASCII (for the ASCII pass) or
//! not well-formed UTF-16 (for the UTF-8 pass) makes it give up, and the
//! caller takes the one-thread path, which handles lone surrogates. The
//! halves are cut so that no surrogate pair is split.

use std::mem::MaybeUninit;

use crate::cpu;
use crate::text::Settled;

use super::{is_ascii, narrow, ASCII_BLOCK, CHUNK_UNITS, LOW};

/// Strings of at least this many units are transcoded in two halves.
pub const PARALLEL_MIN_UNITS: usize = 512 << 10;

/// The stored form of well-formed `units`, built by two threads; `None` when
/// a unit is lone (or a thread could not be started): the caller then runs
/// the one-thread path from the start.
pub fn from_utf16(units: &[u16]) -> Option<Settled> {
    let mid = mid(units);
    if is_ascii(&units[..units.len().min(ASCII_BLOCK)]) {
        if let Some(s) = ascii(units, mid) {
            return Some(Settled::Ascii(s));
        }
    }
    let s = utf8(units, mid)?;
    Some(if s.len() == units.len() {
        Settled::Ascii(s)
    } else {
        Settled::Utf8(s)
    })
}

/// The middle, moved past a low surrogate so that a pair stays in one half.
fn mid(units: &[u16]) -> usize {
    let m = units.len() / 2;
    if units.get(m).is_some_and(|u| LOW.contains(u)) {
        m + 1
    } else {
        m
    }
}

/// Runs `second` on a thread beside this one and `first` here; `None` if the
/// thread could not be started or panicked, or either returned `false`.
fn both(first: impl FnOnce() -> bool, second: impl FnOnce() -> bool + Send) -> Option<()> {
    std::thread::scope(|s| {
        let other = cpu::spawn_beside(s, second).ok()?;
        let here = first();
        let there = other.join().ok()?;
        (here && there).then_some(())
    })
}

/// All-ASCII `units` narrowed to bytes, each half by its own thread.
fn ascii(units: &[u16], mid: usize) -> Option<String> {
    let mut out: Vec<u8> = Vec::with_capacity(units.len());
    let (a, b) = units.split_at(mid);
    let (da, db) = out.spare_capacity_mut()[..units.len()].split_at_mut(mid);
    both(|| narrow(a, da), || narrow(b, db))?;
    // SAFETY: both halves checked every unit ASCII and wrote all `len` bytes.
    unsafe {
        out.set_len(units.len());
        Some(String::from_utf8_unchecked(out))
    }
}

/// The UTF-8 of well-formed `units`, each half validated and converted by
/// its own thread into its exact place.
fn utf8(units: &[u16], mid: usize) -> Option<String> {
    let (a, b) = units.split_at(mid);
    // Exact lengths for well-formed halves (a lone unit is caught below,
    // before anything is written).
    let (na, nb) = (
        simdutf::utf8_length_from_utf16(a),
        simdutf::utf8_length_from_utf16(b),
    );
    let mut out: Vec<u8> = Vec::with_capacity(na + nb);
    let (da, db) = out.spare_capacity_mut()[..na + nb].split_at_mut(na);
    both(|| convert(a, da), || convert(b, db))?;
    // SAFETY: both halves were valid UTF-16 and wrote exactly their UTF-8.
    unsafe {
        out.set_len(na + nb);
        Some(String::from_utf8_unchecked(out))
    }
}

/// Validates `units` and converts them into `dst`, exactly their UTF-8
/// length; `false` (nothing written) when they are not well-formed. Converts
/// `CHUNK_UNITS` at a time, yielding the CPU between chunks (as the JSON walk
/// does, see `json::index::scalar`).
fn convert(units: &[u16], dst: &mut [MaybeUninit<u8>]) -> bool {
    if !simdutf::validate_utf16(units) {
        return false;
    }
    let (mut at, mut off) = (0, 0);
    while at < units.len() {
        let mut end = (at + CHUNK_UNITS).min(units.len());
        if units.get(end).is_some_and(|u| LOW.contains(u)) {
            end += 1; // keep the pair whole: the chunk stays well-formed
        }
        let chunk = &units[at..end];
        // SAFETY: `chunk` is valid UTF-16 (the whole was checked above and
        // it ends on a code point), so simdutf writes exactly its UTF-8; the
        // chunks' UTF-8 together is exactly `dst.len()` bytes (measured by
        // the caller), so what remains of `dst` holds this chunk's.
        let written = unsafe {
            simdutf::convert_valid_utf16_to_utf8(chunk.as_ptr(), chunk.len(), dst[off..].as_mut_ptr().cast())
        };
        off += written;
        assert!(
            off <= dst.len(),
            "simdutf wrote past the UTF-8 length it measured"
        );
        at = end;
        if at < units.len() {
            std::thread::yield_now();
        }
    }
    assert_eq!(
        off,
        dst.len(),
        "simdutf wrote other than the UTF-8 length it measured"
    );
    true
}

/// Joins at least this many bytes of pieces in two halves at once.
pub const PARALLEL_JOIN_MIN: usize = 1 << 20;

/// `parts` in one buffer of exactly `bytes` (their total), copied by two
/// threads for a large payload, the second on another CPU, each into its
/// half of the buffer: as with the transcoding, the first writes to the
/// stored bytes' pages cost more than the copy, and two threads take half of
/// them each. Measured in Rust, 5 MB catalogs streamed, median of 31 joins,
/// half of them kept: one thread 2.5–3.1 ms, two 1.7–1.9 ms; in Node,
/// records of the CJK catalog one at a time, the ledger cleared after each,
/// 9.0–9.7 ms against 9.7–10.5 (4 interleaved runs of 21).
pub fn join(parts: &[&[u8]], bytes: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes);
    if bytes >= PARALLEL_JOIN_MIN {
        // The first piece that ends past the middle ends the first half.
        let mut at = 0;
        let k = parts
            .iter()
            .position(|p| {
                at += p.len();
                at >= bytes / 2
            })
            .map_or(parts.len(), |i| i + 1);
        let (first, second) = parts.split_at(k);
        let (a, b) = out.spare_capacity_mut()[..bytes].split_at_mut(at.min(bytes));
        if both(|| put(a, first), || put(b, second)).is_some() {
            // SAFETY: the two halves wrote all `bytes` bytes.
            unsafe { out.set_len(bytes) };
            return out;
        }
    }
    for part in parts {
        out.extend_from_slice(part);
    }
    out
}

/// Copies `parts` one after another into `dst`; whether they filled it exactly.
fn put(dst: &mut [MaybeUninit<u8>], parts: &[&[u8]]) -> bool {
    let mut at = 0;
    for p in parts {
        let Some(d) = dst.get_mut(at..at + p.len()) else {
            return false;
        };
        // SAFETY: `d` and `p` have the same length and do not overlap, and
        // MaybeUninit<u8> has the layout of u8.
        unsafe { std::ptr::copy_nonoverlapping(p.as_ptr(), d.as_mut_ptr().cast::<u8>(), p.len()) };
        at += p.len();
    }
    at == dst.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_joined_whole_in_one_buffer_of_their_size_by_either_path() {
        // Sizes that put the halves' cut at a piece edge and inside a run of
        // tiny and empty pieces, on both sides of the two-thread threshold.
        for total in [
            PARALLEL_JOIN_MIN - 1,
            PARALLEL_JOIN_MIN,
            3 * PARALLEL_JOIN_MIN + 17,
        ] {
            let mut parts = Vec::new();
            let mut at = 0usize;
            let mut k = 0usize;
            while at < total {
                let n = [0, 1, 7, 4096, 65_537, 300_001][k % 6].min(total - at);
                parts.push((at..at + n).map(|i| (i * 31 % 251) as u8).collect::<Vec<u8>>());
                at += n;
                k += 1;
            }
            let want: Vec<u8> = parts.concat();
            let views: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
            let got = join(&views, total);
            assert_eq!(got.len(), total);
            assert_eq!(got.capacity(), total);
            assert!(got == want, "{total} bytes joined in order");
        }
    }
}
