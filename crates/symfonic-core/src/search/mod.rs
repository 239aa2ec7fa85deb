//! Substring search over a payload: non-overlapping matches, each search
//! resuming after the previous match (as Python's `str.find` loop does).
//!
//! A needle usually holds a byte the payload rarely has (`=` in a log, a
//! digit in prose). A few small samples of the payload tell which; that byte
//! is then found with the C library's `memchr` (glibc's uses AVX-512 where
//! the CPU has it: twice the memchr crate's speed here, and what V8's
//! `indexOf` runs on) and each hit is verified. When hits turn out to be
//! frequent, the scan switches for the rest of the payload to
//! `memchr::memmem` (exact) or aho-corasick (ASCII case-insensitive), which
//! do not degrade on common bytes. No lowercased copy of the payload is made;
//! splitting one scan across threads was measured slower on two cores.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use memchr::memmem;

mod blocks;
pub mod grep;
pub mod lines;
pub use blocks::{scanned, Blocks, Region, BLOCK};

/// Where matches start (byte offsets, the first `keep` at or after the
/// search's `from`) and how many there are: in all, and before `from`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Matches {
    pub first: Vec<usize>,
    pub total: usize,
    pub before: usize,
}

/// Samples of this many bytes, spread evenly over the payload, rank bytes.
const SAMPLES: usize = 32;
const SAMPLE_BYTES: usize = 128;

/// Occurrences of each byte value in the samples (the whole payload when it is small).
fn sample_counts(hay: &[u8]) -> [u32; 256] {
    let mut c = [0u32; 256];
    if hay.len() <= SAMPLES * SAMPLE_BYTES {
        hay.iter().for_each(|&b| c[b as usize] += 1);
    } else {
        let step = (hay.len() - SAMPLE_BYTES) / (SAMPLES - 1);
        for k in 0..SAMPLES {
            hay[k * step..k * step + SAMPLE_BYTES]
                .iter()
                .for_each(|&b| c[b as usize] += 1);
        }
    }
    c
}

/// The next position of `b` in `hay`: the C library's `memchr` on glibc.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[inline]
fn find_byte(hay: &[u8], b: u8) -> Option<usize> {
    // SAFETY: the pointer and length describe `hay`; memchr reads only within
    // them and returns null or a pointer into them.
    let p = unsafe { libc::memchr(hay.as_ptr().cast(), b as i32, hay.len()) };
    (!p.is_null()).then(|| p as usize - hay.as_ptr() as usize)
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
#[inline]
fn find_byte(hay: &[u8], b: u8) -> Option<usize> {
    memchr::memchr(b, hay)
}

/// A byte of the needle (at `offset`) to look for first, and how to look.
struct Anchor {
    offset: usize,
    /// The byte, and its other ASCII case when the search ignores case.
    bytes: (u8, Option<u8>),
}

impl Anchor {
    /// The needle byte that the samples never show, if there is one (an
    /// uncased byte first when ignoring case: one `memchr` instead of two).
    fn pick(hay: &[u8], needle: &[u8], caseless: bool) -> Option<Anchor> {
        let counts = sample_counts(hay);
        let other = |b: u8| (caseless && b.is_ascii_alphabetic()).then_some(b ^ 0x20);
        let absent = |b: u8| counts[b as usize] == 0 && other(b).is_none_or(|o| counts[o as usize] == 0);
        let (offset, &b) = needle
            .iter()
            .enumerate()
            .filter(|&(_, &b)| absent(b))
            .min_by_key(|&(_, &b)| other(b).is_some())?;
        Some(Anchor {
            offset,
            bytes: (b, other(b)),
        })
    }

    #[inline]
    fn find(&self, hay: &[u8]) -> Option<usize> {
        match self.bytes {
            (b, None) => find_byte(hay, b),
            (a, Some(b)) => memchr::memchr2(a, b, hay),
        }
    }
}

/// Calls `f` with each match start until it returns false: anchor hits while
/// they stay rare, then `rest` from where the anchor scan gave up.
fn scan(
    hay: &[u8],
    needle: &[u8],
    caseless: bool,
    mut f: impl FnMut(usize) -> bool,
    rest: impl FnOnce(&[u8], &mut dyn FnMut(usize) -> bool),
) {
    let n = needle.len();
    let eq = |w: &[u8]| {
        if caseless {
            w.eq_ignore_ascii_case(needle)
        } else {
            w == needle
        }
    };
    let mut pos = 0;
    if let Some(anchor) = Anchor::pick(hay, needle, caseless) {
        let mut misses = 0usize;
        loop {
            if pos + n > hay.len() {
                return;
            }
            let Some(p) = anchor.find(&hay[pos + anchor.offset..hay.len() - (n - 1 - anchor.offset)]) else {
                return;
            };
            let at = pos + p;
            if eq(&hay[at..at + n]) {
                if !f(at) {
                    return;
                }
                pos = at + n;
            } else {
                pos = at + 1;
                misses += 1;
                // More than one false hit per 256 bytes: the byte is common after all.
                if misses > 64 + pos / 256 {
                    break;
                }
            }
        }
    }
    rest(&hay[pos..], &mut |at| f(pos + at));
}

/// Exact matches of `needle`.
pub fn exact(hay: &[u8], needle: &[u8], keep: usize) -> Matches {
    exact_from(hay, needle, keep, 0)
}

/// [`exact`], keeping the first matches that start at or after byte `from`.
pub fn exact_from(hay: &[u8], needle: &[u8], keep: usize, from: usize) -> Matches {
    run(hay, needle, keep, from, |hay, f| {
        scan(hay, needle, false, f, |rest, f| {
            memmem::Finder::new(needle).each(rest, f)
        })
    })
}

/// Matches of an ASCII `needle`, ignoring ASCII case.
pub fn ascii_caseless(hay: &[u8], needle: &[u8], keep: usize) -> Matches {
    ascii_caseless_from(hay, needle, keep, 0)
}

/// [`ascii_caseless`], keeping the first matches at or after byte `from`.
pub fn ascii_caseless_from(hay: &[u8], needle: &[u8], keep: usize, from: usize) -> Matches {
    run(hay, needle, keep, from, |hay, f| {
        scan(hay, needle, true, f, |rest, f| caseless(needle).each(rest, f))
    })
}

/// [`exact`] (or, with `caseless`, [`ascii_caseless`]) where matches can
/// only start inside `regions` (see [`Blocks::regions`]): only those are read.
pub fn within(hay: &[u8], needle: &[u8], caseless_ascii: bool, keep: usize, regions: &[Region]) -> Matches {
    within_from(hay, needle, caseless_ascii, keep, regions, 0)
}

/// [`within`], keeping the first matches at or after byte `from`.
pub fn within_from(
    hay: &[u8],
    needle: &[u8],
    caseless_ascii: bool,
    keep: usize,
    regions: &[Region],
    from: usize,
) -> Matches {
    let finder: Box<dyn Finder> = if caseless_ascii {
        Box::new(caseless(needle))
    } else {
        Box::new(memmem::Finder::new(needle))
    };
    run(hay, needle, keep, from, |hay, f| {
        for r in regions {
            let mut go = true;
            finder.each(&hay[r.start..r.end.min(hay.len())], &mut |at| {
                if r.start + at < r.starts_before {
                    go = f(r.start + at);
                }
                go
            });
            if !go {
                return;
            }
        }
    })
}

fn caseless(needle: &[u8]) -> AhoCorasick {
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostFirst)
        .build([needle])
        .expect("one literal pattern always builds")
}

/// A whole-haystack matcher: calls `f` with each match start until it says stop.
trait Finder {
    fn each(&self, hay: &[u8], f: &mut dyn FnMut(usize) -> bool);
}

impl Finder for memmem::Finder<'_> {
    fn each(&self, hay: &[u8], f: &mut dyn FnMut(usize) -> bool) {
        for at in self.find_iter(hay) {
            if !f(at) {
                break;
            }
        }
    }
}

impl Finder for AhoCorasick {
    fn each(&self, hay: &[u8], f: &mut dyn FnMut(usize) -> bool) {
        for m in self.find_iter(hay) {
            if !f(m.start()) {
                break;
            }
        }
    }
}

fn run(
    hay: &[u8],
    needle: &[u8],
    keep: usize,
    from: usize,
    search: impl FnOnce(&[u8], &mut dyn FnMut(usize) -> bool),
) -> Matches {
    let mut m = Matches {
        first: Vec::with_capacity(keep.min(64)),
        total: 0,
        before: 0,
    };
    if needle.is_empty() || hay.len() < needle.len() {
        return m;
    }
    search(hay, &mut |at| {
        if at < from {
            m.before += 1;
        } else if m.first.len() < keep {
            m.first.push(at);
        }
        m.total += 1;
        true
    });
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::xorshift;

    /// The sequential definition the fast paths must equal.
    fn naive(hay: &[u8], needle: &[u8], caseless: bool, keep: usize) -> Matches {
        let eq = |a: &[u8]| {
            if caseless {
                a.eq_ignore_ascii_case(needle)
            } else {
                a == needle
            }
        };
        let mut m = Matches::default();
        let mut i = 0;
        while !needle.is_empty() && i + needle.len() <= hay.len() {
            if eq(&hay[i..i + needle.len()]) {
                if m.first.len() < keep {
                    m.first.push(i);
                }
                m.total += 1;
                i += needle.len();
            } else {
                i += 1;
            }
        }
        m
    }

    #[test]
    fn small_inputs_match_the_sequential_definition() {
        for (hay, needle) in [
            ("aaaa", "aa"),
            ("abcabcab", "cab"),
            ("xAbAB ab", "ab"),
            ("", "a"),
            ("abc", ""),
        ] {
            assert_eq!(
                exact(hay.as_bytes(), needle.as_bytes(), 5),
                naive(hay.as_bytes(), needle.as_bytes(), false, 5)
            );
            assert_eq!(
                ascii_caseless(hay.as_bytes(), needle.as_bytes(), 5),
                naive(hay.as_bytes(), needle.as_bytes(), true, 5)
            );
        }
    }

    #[test]
    fn self_overlapping_needles_resume_after_each_match() {
        let hay = "aAaAaxaaa".repeat(1000);
        for needle in [&b"aa"[..], b"aaa", b"xa", b"ax"] {
            assert_eq!(
                exact(hay.as_bytes(), needle, 5),
                naive(hay.as_bytes(), needle, false, 5),
                "{needle:?}"
            );
            assert_eq!(
                ascii_caseless(hay.as_bytes(), needle, 5),
                naive(hay.as_bytes(), needle, true, 5),
                "{needle:?}"
            );
        }
    }

    /// The anchor scan, its switch to the fallback, and both searches agree
    /// with the definition: payloads where the needle's rarest byte is
    /// absent from the samples but common between them (the switch), rare
    /// (no switch), and matches on both sides of the switch and at the ends.
    #[test]
    fn anchor_scan_and_its_fallback_match_the_definition() {
        let mut rnd = xorshift(0x9E37_79B9_7F4A_7C15);
        for round in 0..60 {
            let len = 1 + rnd(60_000) as usize;
            let mut hay: Vec<u8> = (0..len).map(|_| b"abcab "[rnd(6) as usize]).collect();
            let needle: &[u8] = [&b"x=Ab"[..], b"=", b"ab=", b"QX", b"cab=Q"][round % 5];
            // Plant needles (in varied case) and stray anchor bytes, the strays
            // dense in one region so that the scan gives up there.
            for _ in 0..rnd(20) {
                let at = rnd(len as u64) as usize;
                for (k, &c) in needle.iter().enumerate() {
                    if at + k < len {
                        hay[at + k] = if rnd(2) == 0 { c.to_ascii_lowercase() } else { c };
                    }
                }
            }
            let dense = rnd(len as u64) as usize;
            for k in 0..rnd(4000) as usize {
                if dense + 3 * k < len && !(dense + 3 * k).is_multiple_of(128) {
                    hay[dense + 3 * k] = b'=';
                }
            }
            if rnd(3) == 0 {
                let tail = len.saturating_sub(needle.len());
                hay[tail..].copy_from_slice(&needle[..len - tail]);
            }
            for keep in [0, 5] {
                assert_eq!(
                    exact(&hay, needle, keep),
                    naive(&hay, needle, false, keep),
                    "round {round}"
                );
                assert_eq!(
                    ascii_caseless(&hay, needle, keep),
                    naive(&hay, needle, true, keep),
                    "round {round}"
                );
            }
        }
    }

    /// Searching only the blocks the index allows finds exactly what a whole
    /// scan finds: needles planted across block edges, in either case, at
    /// the very end, and needles whose bytes are everywhere.
    #[test]
    fn block_regions_find_what_a_whole_scan_finds() {
        let mut rnd = xorshift(0x2545_F491_4F6C_DD1D);
        for round in 0..40 {
            let len = BLOCK * (1 + rnd(12) as usize) + rnd(BLOCK as u64) as usize;
            let mut hay: Vec<u8> = (0..len).map(|_| b"abcdefgh \n"[rnd(10) as usize]).collect();
            let needle: &[u8] = [&b"E1234=x"[..], b"a", b"Zq", b"bad cafe", b"=="][round % 5];
            let plant = |at: usize, hay: &mut Vec<u8>, upper: bool| {
                for (k, &c) in needle.iter().enumerate() {
                    if at + k < hay.len() {
                        hay[at + k] = if upper { c.to_ascii_uppercase() } else { c };
                    }
                }
            };
            for k in 1..len / BLOCK {
                if rnd(2) == 0 {
                    // Straddling the edge between blocks k-1 and k.
                    let at = k * BLOCK - 1 - rnd(needle.len() as u64) as usize;
                    plant(at, &mut hay, rnd(2) == 0);
                }
            }
            if rnd(2) == 0 {
                plant(len - needle.len(), &mut hay, false);
            }
            let blocks = Blocks::build(&hay);
            for caseless in [false, true] {
                let regions = blocks.regions(hay.len(), needle, caseless).expect("short needle");
                assert!(scanned(&regions) <= hay.len() + BLOCK);
                let whole = if caseless {
                    ascii_caseless(&hay, needle, 5)
                } else {
                    exact(&hay, needle, 5)
                };
                assert_eq!(
                    within(&hay, needle, caseless, 5, &regions),
                    whole,
                    "round {round}"
                );
                assert_eq!(whole, naive(&hay, needle, caseless, 5), "round {round}");
            }
        }
        // A needle no block holds reads nothing.
        let hay = "abc ".repeat(50_000);
        let blocks = Blocks::build(hay.as_bytes());
        assert_eq!(blocks.regions(hay.len(), b"E1234", false), Some(vec![]));
        assert_eq!(blocks.regions(hay.len(), &vec![b'a'; BLOCK + 1], false), None);
    }

    #[test]
    fn many_matches_are_counted_and_only_the_first_kept() {
        let hay = "ab ".repeat(1_000_000);
        let m = exact(hay.as_bytes(), b"ab", 5);
        assert_eq!(m.total, 1_000_000);
        assert_eq!(m.first, vec![0, 3, 6, 9, 12]);
    }
}
