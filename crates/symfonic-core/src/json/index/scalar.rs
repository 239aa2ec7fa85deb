//! The grammar of the validating walk: RFC 8259, exactly what `JSON.parse`
//! accepts (numbers of any magnitude, any `\uXXXX` escape, any depth), one
//! byte at a time, or sixteen or eight at a time inside strings
//! (`scan.rs`). It calls the walker's `open`/`child_start`/`close` as it
//! meets containers.
//!
//! Byte by byte is faster here than simd-json's SIMD structural scan plus a
//! walk over its offsets (benchmark/README.md, "JSON index build"): on dense
//! JSON the walk's bookkeeping, not finding tokens, is the cost.

use super::super::scan::{self, Kind};
use super::walker::{State, Stop, Walker};

/// The walk yields its CPU at the first comma or close this many bytes past
/// the last yield, so on a small machine the event loop's thread does not
/// wait a scheduler tick behind a long walk; commas count too, since a flat
/// document closes only at its end (measurements: benchmark/HISTORY.md).
const YIELD_EVERY_BYTES: usize = 128 << 10;

impl Walker<'_> {
    /// Walks from `p` in `state`. `None` = not JSON. Stops early at the comma
    /// at `checkpoint.0` when it separates members (`checkpoint.1`, object)
    /// or elements (array).
    pub(super) fn run(&mut self, mut p: usize, mut state: State, checkpoint: (usize, bool)) -> Option<Stop> {
        let b = self.b;
        let n = b.len();
        // Whether the innermost open container is an array (its values are children).
        let mut in_array = self.stack.last().is_some_and(|f| !f.is_obj);
        let mut next_yield = p + YIELD_EVERY_BYTES;
        loop {
            match state {
                State::Value => {
                    p = scan::ws(b, p);
                    let c = *b.get(p)?;
                    if in_array {
                        let f = self.stack.last_mut()?;
                        f.child_start(p as u32, &mut self.pending);
                        f.kinds |= Kind::of(c).bit();
                    }
                    match c {
                        b'"' => {
                            p = scan::valid_string_end(b, p)?;
                            state = State::After;
                        }
                        b'{' | b'[' => {
                            let is_obj = c == b'{';
                            self.open(p, is_obj);
                            in_array = !is_obj;
                            p = scan::ws(b, p + 1);
                            state = match b.get(p) {
                                Some(b'}') if is_obj => State::After,
                                Some(b']') if !is_obj => State::After,
                                _ if is_obj => State::Key,
                                _ => State::Value,
                            };
                            if state == State::After {
                                p += 1;
                                in_array = self.close_empty(p)?;
                            }
                        }
                        b'1'..=b'9' => {
                            p = number_end(b, p)?;
                            state = State::After;
                        }
                        b'-' | b'0' | b't' | b'f' | b'n' => {
                            p = scan::valid_scalar_end(b, p)?;
                            state = State::After;
                        }
                        _ => return None,
                    }
                }
                State::Key => {
                    // The members of one object, for as long as their values
                    // are not containers (most members): each goes from its
                    // key to the next without a trip through the states. A
                    // container value, the object's end or the checkpoint
                    // comma leaves to the states.
                    let f = self.stack.last_mut()?;
                    loop {
                        if b.get(p) != Some(&b'"') {
                            return None;
                        }
                        f.child_start(p as u32, &mut self.pending);
                        self.pending_keys.push(p as u32);
                        p = at(b, scan::valid_string_end(b, p)?, b':')?;
                        p = scan::ws(b, p + 1);
                        p = match b.get(p) {
                            Some(b'"') => scan::valid_string_end(b, p)?,
                            Some(b'1'..=b'9') => number_end(b, p)?,
                            Some(b'-' | b'0' | b't' | b'f' | b'n') => scan::valid_scalar_end(b, p)?,
                            _ => {
                                state = State::Value;
                                break;
                            }
                        };
                        match at(b, p, b',') {
                            Some(q) if q != checkpoint.0 || !checkpoint.1 => {
                                pace(q, &mut next_yield);
                                p = key_start(b, q + 1);
                            }
                            _ => {
                                state = State::After;
                                break;
                            }
                        }
                    }
                }
                State::After => {
                    let Some(f) = self.stack.last() else {
                        // The root value is complete: only whitespace may follow.
                        return (scan::ws(b, p) == n).then_some(Stop::Done);
                    };
                    let is_obj = f.is_obj;
                    // Whitespace is an arm of the match rather than a skip
                    // before it: compact JSON pays no compare for it.
                    match b.get(p) {
                        Some(b',') => {
                            if p == checkpoint.0 && is_obj == checkpoint.1 {
                                return Some(Stop::Checkpoint);
                            }
                            pace(p, &mut next_yield);
                            // A value skips its own leading whitespace; a key's is skipped here.
                            (p, state) = if is_obj {
                                (key_start(b, p + 1), State::Key)
                            } else {
                                (p + 1, State::Value)
                            };
                        }
                        Some(b' ' | b'\t' | b'\n' | b'\r') => p = scan::ws(b, p),
                        Some(b'}' | b']') if (b[p] == b'}') == is_obj => {
                            if self.stack.len() == self.floor {
                                return Some(Stop::OuterClose(p));
                            }
                            p += 1;
                            in_array = self.close(p)?;
                            pace(p, &mut next_yield);
                        }
                        _ => return None,
                    }
                }
            }
        }
    }
}

/// The position of `c` at `p` or after whitespace, if it is there. Compact
/// JSON has the byte where the grammar expects it, and one compare settles
/// that where `ws` and then the compare would take two.
#[inline(always)]
fn at(b: &[u8], p: usize, c: u8) -> Option<usize> {
    if b.get(p) == Some(&c) {
        return Some(p);
    }
    let q = scan::ws(b, p);
    (b.get(q) == Some(&c)).then_some(q)
}

/// Where a key after a comma starts: `p` when its quote is there (compact
/// JSON), else past the whitespace (the key's loop checks the quote).
#[inline(always)]
fn key_start(b: &[u8], p: usize) -> usize {
    if b.get(p) == Some(&b'"') {
        p
    } else {
        scan::ws(b, p)
    }
}

/// Yields the CPU when the walk is `YIELD_EVERY_BYTES` past its last yield;
/// called at every comma and close, so that flat containers (a 5 MB array of
/// strings, a dict of numbers) yield as often as rows of nested objects do.
#[inline(always)]
fn pace(p: usize, next_yield: &mut usize) {
    if p >= *next_yield {
        *next_yield = p + YIELD_EVERY_BYTES;
        #[cfg(test)]
        YIELDS.with(|y| y.set(y.get() + 1));
        std::thread::yield_now();
    }
}

#[cfg(test)]
thread_local! {
    /// How many times this thread's walks have yielded.
    pub(super) static YIELDS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The end of the number at `p` (a digit 1-9): a plain integer or decimal
/// (digits, optionally a `.` and digits, then `,`, `]` or `}`) by a fast
/// path, any other (an exponent, whitespace after it, a malformed number) by
/// the full grammar. Prices and ratings (`"price":42.01`) are most of the
/// numbers of a catalog, and the full grammar is a call of several dozen
/// instructions (measurements: benchmark/HISTORY.md).
#[inline(always)]
fn number_end(b: &[u8], p: usize) -> Option<usize> {
    let digits_from = |mut q: usize| {
        while q < b.len() && b[q].is_ascii_digit() {
            q += 1;
        }
        q
    };
    let mut q = digits_from(p + 1);
    if b.get(q) == Some(&b'.') {
        let fraction = digits_from(q + 1);
        if fraction == q + 1 {
            return None;
        }
        q = fraction;
    }
    match b.get(q) {
        Some(b',' | b']' | b'}') => Some(q),
        _ => scan::valid_scalar_end(b, p),
    }
}

#[cfg(test)]
mod tests {
    use super::super::walker::{State, Walker};
    use super::{YIELDS, YIELD_EVERY_BYTES};

    /// How often a one-thread walk of `doc` yields.
    fn yields(doc: &str) -> usize {
        let before = YIELDS.with(|y| y.get());
        let mut w = Walker::new(doc.as_bytes(), 0);
        assert!(w.run(0, State::Value, (usize::MAX, false)).is_some(), "JSON");
        YIELDS.with(|y| y.get()) - before
    }

    /// `n` items between two brackets, comma-separated.
    fn joined(open: char, n: usize, item: impl Fn(usize) -> String, close: char) -> String {
        let items: Vec<String> = (0..n).map(item).collect();
        format!("{open}{}{close}", items.join(","))
    }

    #[test]
    fn flat_arrays_and_objects_yield_as_often_as_rows() {
        let n = 40_000;
        let strings = joined('[', n, |i| format!("\"item number {i:06}\""), ']');
        let numbers = joined('{', n, |i| format!("\"k{i:06}\":{}", i * 7919), '}');
        let rows = joined('[', n, |i| format!("{{\"id\":{i},\"t\":\"row {i:06}\"}}"), ']');
        for (name, doc) in [
            ("array of strings", &strings),
            ("dict of numbers", &numbers),
            ("rows", &rows),
        ] {
            let expected = doc.len() / YIELD_EVERY_BYTES;
            assert!(expected >= 3, "{name}: {} bytes is too small to tell", doc.len());
            let got = yields(doc);
            assert!(
                got == expected || got + 1 == expected,
                "{name}: {got} yields over {} bytes, expected {expected}",
                doc.len()
            );
        }
    }
}
