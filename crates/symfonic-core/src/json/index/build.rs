//! Building the structural index: one validating walk over the payload
//! (`scalar.rs`, recording into `walker.rs`), split across two threads for
//! large payloads.

use super::scan;
use super::walker::{State, Stop, Walker};
use super::*;
use std::sync::atomic::{AtomicBool, Ordering};
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
/// `side` and `spare` are two jobs that need the payload but not its index
/// (the ledger hashes it for its id and counts its code points). Each runs
/// exactly once, taken by whichever walker is done with its half first, the
/// other taking the other if it is still waiting (see [`Jobs`]); with one
/// walker, on the calling thread once it is done. Their results are
/// returned.
pub(crate) fn build_with_side<R: Send + Sync, S: Send + Sync>(
    b: &[u8],
    parallel_min: usize,
    side: &(dyn Fn() -> R + Sync),
    spare: &(dyn Fn() -> S + Sync),
) -> (Option<JsonIndex>, R, S) {
    let jobs = Jobs::new(side, spare);
    let index = build_inner(b, parallel_min, &jobs);
    let (r, s) = jobs.finish();
    (index, r, s)
}

/// The two jobs beside a split walk (the id hash and the code-point count),
/// each taken by whichever walker is free first, so neither CPU sits idle
/// while the other hashes (measurements: benchmark/HISTORY.md).
struct Jobs<'a, R, S> {
    side: &'a (dyn Fn() -> R + Sync),
    spare: &'a (dyn Fn() -> S + Sync),
    /// Whether `side` (0) and `spare` (1) have been taken by a thread.
    taken: [AtomicBool; 2],
    side_out: OnceLock<R>,
    spare_out: OnceLock<S>,
}

impl<'a, R, S> Jobs<'a, R, S> {
    fn new(side: &'a (dyn Fn() -> R + Sync), spare: &'a (dyn Fn() -> S + Sync)) -> Self {
        Jobs {
            side,
            spare,
            taken: [AtomicBool::new(false), AtomicBool::new(false)],
            side_out: OnceLock::new(),
            spare_out: OnceLock::new(),
        }
    }

    /// Runs the jobs no thread has taken yet, the hash (the longer) first.
    fn help(&self) {
        if !self.taken[0].swap(true, Ordering::AcqRel) {
            let _ = self.side_out.set((self.side)());
        }
        if !self.taken[1].swap(true, Ordering::AcqRel) {
            let _ = self.spare_out.set((self.spare)());
        }
    }

    /// Both results, once the walk's threads have ended: a job no thread
    /// took, or one whose thread panicked before its result, runs here.
    fn finish(self) -> (R, S) {
        self.help();
        let r = self.side_out.into_inner().unwrap_or_else(self.side);
        let s = self.spare_out.into_inner().unwrap_or_else(self.spare);
        (r, s)
    }
}

fn build_inner<R: Send + Sync, S: Send + Sync>(
    b: &[u8],
    parallel_min: usize,
    jobs: &Jobs<'_, R, S>,
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
            a.run(start, State::Value, nowhere)?;
        }
        Some((m, is_obj)) => std::thread::scope(|s| {
            let second = std::thread::Builder::new().spawn_scoped(s, move || {
                let mut w = Walker::new(b, 1);
                w.open(m, is_obj);
                let stop = if is_obj {
                    w.run(scan::ws(b, m + 1), State::Key, nowhere)
                } else {
                    w.run(m + 1, State::Value, nowhere)
                };
                jobs.help();
                (w, stop)
            });
            match a.run(start, State::Value, (m, is_obj))? {
                Stop::Checkpoint => {}
                _ => return Some(()),
            }
            jobs.help();
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
    use super::{build_with_side, split_point, Jobs};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

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
    fn each_job_runs_once_and_a_split_walk_gives_them_to_both_threads() {
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
            let runs = Mutex::new(Vec::new());
            let spare_started = AtomicBool::new(false);
            let side = || {
                runs.lock().unwrap().push(std::thread::current().id());
                if split {
                    // Held until the other job has started: on one thread, never.
                    let until = Instant::now() + Duration::from_secs(10);
                    while !spare_started.load(Ordering::SeqCst) && Instant::now() < until {
                        std::thread::yield_now();
                    }
                }
                10
            };
            let spare = || {
                spare_started.store(true, Ordering::SeqCst);
                runs.lock().unwrap().push(std::thread::current().id());
                20
            };
            let (index, side, spared) = build_with_side(doc.as_bytes(), min, &side, &spare);
            assert_eq!(index.is_some(), json, "{name}");
            assert_eq!((side, spared), (10, 20), "{name}: each ran, its result returned");
            let runs = runs.into_inner().unwrap();
            assert_eq!(runs.len(), 2, "{name}: each ran once");
            let here = std::thread::current().id();
            if split {
                assert_ne!(
                    runs[0], runs[1],
                    "{name}: the second job went to the other walker while the first ran"
                );
                assert!(runs.contains(&here), "{name}: one on the calling thread");
            } else {
                assert_eq!(runs, [here, here], "{name}: both on the calling thread");
            }
        }
    }

    /// Waits (bounded) until `flag` is set.
    fn wait_for(flag: &AtomicBool) {
        let until = Instant::now() + Duration::from_secs(10);
        while !flag.load(Ordering::SeqCst) && Instant::now() < until {
            std::thread::yield_now();
        }
    }

    #[test]
    fn the_thread_free_first_takes_the_hash_and_the_next_the_count() {
        let (side_started, spare_started) = (AtomicBool::new(false), AtomicBool::new(false));
        let on = Mutex::new(Vec::new());
        let side = || {
            side_started.store(true, Ordering::SeqCst);
            on.lock().unwrap().push(("side", std::thread::current().id()));
            wait_for(&spare_started);
            10
        };
        let spare = || {
            spare_started.store(true, Ordering::SeqCst);
            on.lock().unwrap().push(("spare", std::thread::current().id()));
            20
        };
        let jobs = Jobs::new(&side, &spare);
        let other = std::thread::scope(|s| {
            let h = s.spawn(|| {
                jobs.help();
                std::thread::current().id()
            });
            wait_for(&side_started);
            jobs.help();
            h.join().unwrap()
        });
        assert_eq!(jobs.finish(), (10, 20));
        let here = std::thread::current().id();
        assert_eq!(
            on.into_inner().unwrap(),
            [("side", other), ("spare", here)],
            "each once: the hash where help came first, the count on the next thread"
        );
    }

    #[test]
    fn jobs_no_thread_took_run_at_the_finish() {
        let runs = Mutex::new(0);
        let side = || {
            *runs.lock().unwrap() += 1;
            "id"
        };
        let spare = || {
            *runs.lock().unwrap() += 10;
            7
        };
        assert_eq!(Jobs::new(&side, &spare).finish(), ("id", 7));
        assert_eq!(*runs.lock().unwrap(), 11);
    }
}
