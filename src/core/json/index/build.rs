//! Building the structural index: one validating walk over the payload
//! (`scalar.rs`, recording into `walker.rs`), split across two threads for
//! large payloads, the second on another CPU (`core::cpu`).

use super::scan;
use super::walker::{State, Stop, Walker};
use super::*;
use crate::core::cpu;
use std::sync::OnceLock;

/// Payloads at least this large are walked by two threads (see `build_inner`).
pub(crate) const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// Validates `b` as one JSON document (RFC 8259, what `JSON.parse` accepts:
/// numbers of any magnitude, any `\uXXXX` escape) and builds its index in the
/// same iterative pass. `None` = not JSON. `b` must be valid UTF-8 (checked
/// by the caller) and shorter than `u32::MAX`.
///
/// Payloads of at least `parallel_min` bytes are split between two threads:
/// a second walker starts after a comma near the middle that looks like an
/// array-element boundary, assuming it is one; the first walker checks that
/// assumption when it gets there and then adopts the second's work, or
/// (assumption wrong, or no thread) simply walks on alone.
///
/// `side` runs on the calling thread as soon as the second
/// walker's thread has been spawned: starting a thread (waking an idle core)
/// can take most of a millisecond, and this hides other work behind it.
/// `side` runs exactly once, whatever the verdict.
///
/// `spare` runs on the second walker's thread once its half is walked (the
/// first walker, which ran `side` too, is then still walking), or, when
/// there was no second walker or it did not get to it, on the calling
/// thread at the end. Its one result is returned.
pub(crate) fn build_with_side<R, S: Send + Sync>(
    b: &[u8],
    parallel_min: usize,
    side: impl FnOnce() -> R,
    spare: &(dyn Fn() -> S + Sync),
) -> (Option<JsonIndex>, R, S) {
    let mut side = Some(side);
    let mut out = None;
    let spared = OnceLock::new();
    let index = build_inner(b, parallel_min, &spared, spare, &mut || {
        if let Some(f) = side.take() {
            out = Some(f());
        }
    });
    if let Some(f) = side.take() {
        out = Some(f());
    }
    let spared = spared.into_inner().unwrap_or_else(spare);
    (index, out.expect("side ran"), spared)
}

fn build_inner<S: Send + Sync>(
    b: &[u8],
    parallel_min: usize,
    spared: &OnceLock<S>,
    spare: &(dyn Fn() -> S + Sync),
    side: &mut dyn FnMut(),
) -> Option<JsonIndex> {
    let start = scan::ws(b, 0);
    let mut a = Walker::new(b, 0);
    let split = if b.len() >= parallel_min {
        split_point(b)
    } else {
        None
    };
    let nowhere = (usize::MAX, false);
    match split {
        None => {
            side();
            a.run(start, State::Value, nowhere)?;
        }
        Some((m, is_obj)) => std::thread::scope(|s| {
            // Two walkers on one CPU take as long as one (see `core::cpu`).
            let second = cpu::spawn_beside(s, move || {
                let mut w = Walker::new(b, 1);
                w.open(m, is_obj);
                let stop = if is_obj {
                    w.run(scan::ws(b, m + 1), State::Key, nowhere)
                } else {
                    w.run(m + 1, State::Value, nowhere)
                };
                let _ = spared.set(spare());
                (w, stop)
            });
            side();
            match a.run(start, State::Value, (m, is_obj))? {
                Stop::Checkpoint => {}
                _ => return Some(()),
            }
            match second.ok().and_then(|h| h.join().ok()) {
                Some((w, Some(Stop::OuterClose(q)))) => {
                    a.adopt(w)?;
                    a.run(q, State::After, nowhere)?;
                }
                // The assumption held, so a failure over there is a real error.
                Some((_, None)) => return None,
                _ => {
                    a.run(m, State::After, nowhere)?;
                }
            }
            Some(())
        })?,
    }
    Some(a.finish(start))
}

/// A comma near the middle of `b` that is probably between two elements of
/// an array (`false`) or two members of an object (`true`), preferring one
/// with containers on both sides (a row boundary such as `},{`), which is
/// likely to sit in the big container rather than inside one row.
fn split_point(b: &[u8]) -> Option<(usize, bool)> {
    let from = b.len() / 2;
    let window = b.get(from..(from + (64 << 10)).min(b.len()))?;
    let is_open = |c: Option<&u8>| matches!(c, Some(b'{' | b'['));
    // What follows the comma says which container it is in: a value that can
    // only be an element, a string followed by `:` (a key) or by `,`/`]`.
    // Also returns whether the next element or member value is a container.
    let context = |i: usize| {
        let j = scan::ws(b, i + 1);
        match b.get(j)? {
            b'{' | b'[' => Some((false, true)),
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => Some((false, false)),
            b'"' => {
                let k = scan::ws(b, scan::string_end(b, j));
                match b.get(k)? {
                    b':' => Some((true, is_open(b.get(scan::ws(b, k + 1))))),
                    b',' | b']' => Some((false, false)),
                    _ => None,
                }
            }
            _ => None,
        }
    };
    let commas = || memchr::memchr_iter(b',', window).map(|k| from + k);
    let after_container =
        |i: usize| matches!(b[..i].iter().rev().find(|c| !scan::is_ws(**c)), Some(b'}' | b']'));
    let guess = commas()
        .filter(|&i| after_container(i))
        .find_map(|i| context(i).filter(|c| c.1).map(|c| (i, c.0)))
        .or_else(|| commas().find_map(|i| context(i).map(|c| (i, c.0))))?;
    // A row boundary may also be one between two small objects inside one
    // row (`"variants":[{…},{…}]`): the second walker would stop at that
    // array's end and leave the rest to the first. Prefer the first comma
    // of the outermost container that the next `REACH` bytes return to.
    let pick = outermost_comma(b, guess.0).filter(|&i| i != guess.0);
    Some(pick.and_then(|i| context(i).map(|c| (i, c.0))).unwrap_or(guess))
}

/// How far past the guessed split `outermost_comma` looks.
const REACH: usize = 16 << 10;

/// The first comma at the lowest bracket depth reached within `REACH` bytes
/// after the comma at `m` (assumed outside strings; a wrong guess only costs
/// the second thread's work).
fn outermost_comma(b: &[u8], m: usize) -> Option<usize> {
    let end = (m + REACH).min(b.len());
    let b = &b[..end];
    let (mut depth, mut min, mut pick) = (0i32, 0i32, Some(m));
    let mut p = m + 1;
    while p < end {
        match b[p] {
            b'"' => {
                p = scan::string_end(b, p);
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth < min {
                    (min, pick) = (depth, None);
                }
            }
            b',' if depth == min && pick.is_none() => pick = Some(p),
            _ => {}
        }
        p += 1;
    }
    pick
}

#[cfg(test)]
mod tests {
    use super::{build_with_side, split_point};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;

    /// Rows shaped like the product feeds: each has small objects in
    /// an array of its own, so most `},{` near the middle are inside a row.
    fn feed(rows: usize) -> String {
        let row = |i: usize| {
            format!(
                "{{\"id\":{i},\"title\":\"widget {i}, [pack]\",\"brand\":{{\"name\":\"Acme\"}},\
                 \"variants\":[{{\"color\":\"red\",\"stock\":{i}}},{{\"color\":\"steel\",\"stock\":1}}],\
                 \"tags\":[\"home\",\"new\"]}}"
            )
        };
        let rows: Vec<String> = (0..rows).map(row).collect();
        format!(
            "{{\"meta\":{{\"count\":{}}},\"rows\":[{}]}}",
            rows.len(),
            rows.join(",")
        )
    }

    #[test]
    fn the_split_lands_between_two_rows() {
        for n in [3_000, 3_001, 20_000] {
            let s = feed(n);
            let (m, is_obj) = split_point(s.as_bytes()).unwrap();
            assert!(!is_obj);
            assert!(s[m..].starts_with(",{\"id\":"), "{}", &s[m - 40..m + 40]);
        }
    }

    #[test]
    fn rows_longer_than_the_reach_keep_the_first_guess() {
        let long = format!(
            "[{}]",
            (0..40)
                .map(|i| format!("{{\"v\":[{{\"a\":{i}}},{{\"b\":\"{}\"}}]}}", "x".repeat(20_000)))
                .collect::<Vec<_>>()
                .join(",")
        );
        let (m, _) = split_point(long.as_bytes()).unwrap();
        assert!(long[..m].ends_with('}'), "{}", &long[m - 20..m + 20]);
    }

    #[test]
    fn spare_runs_once_on_every_path_and_beside_a_split_walk() {
        let big = feed(20_000);
        let broken = big.replacen("\"id\":19990", "\"id\":19990x", 1);
        let cases: [(&str, &str, bool, bool); 5] = [
            ("split", &big, true, true),
            ("small", "{\"a\":[1,2,3]}", true, false),
            ("too small to split", &big, true, false),
            ("not JSON after the split", &broken, false, true),
            ("not JSON at all", "plain text, no JSON", false, false),
        ];
        for (name, doc, json, split) in cases {
            let min = if name == "too small to split" {
                usize::MAX
            } else {
                1 << 16
            };
            let calls = AtomicUsize::new(0);
            let on = Mutex::new(None);
            let sides = AtomicUsize::new(0);
            let (index, side, spared) = build_with_side(
                doc.as_bytes(),
                min,
                || sides.fetch_add(1, Ordering::SeqCst) + 10,
                &|| {
                    *on.lock().unwrap() = Some(std::thread::current().id());
                    calls.fetch_add(1, Ordering::SeqCst) + 20
                },
            );
            assert_eq!(index.is_some(), json, "{name}");
            assert_eq!(
                (side, spared),
                (10, 20),
                "{name}: each ran once, its result returned"
            );
            assert_eq!(calls.load(Ordering::SeqCst), 1, "{name}");
            let here = std::thread::current().id();
            assert_eq!(
                on.lock().unwrap().unwrap() != here,
                split,
                "{name}: on the second walker's thread"
            );
        }
    }
}
