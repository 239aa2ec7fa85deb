//! Building the structural index: one validating walk over the payload (split
//! across two threads for large payloads), recording the big containers.

use super::scan::{self, Kind};
use super::*;

struct Frame {
    start: u32,
    is_obj: bool,
    children: u32,
    /// Scan-cost credit of indexed descendants (their span minus `JUMP_COST`).
    skip: u32,
    last_sample_pos: u32,
    skip_at_sample: u32,
    samples_mark: u32,
    keys_mark: u32,
    kinds: u8,
}

impl Frame {
    #[inline]
    fn child_start(&mut self, p: u32, pending: &mut Vec<[u32; 2]>) {
        let cost = (p - self.last_sample_pos).saturating_sub(self.skip - self.skip_at_sample);
        if cost >= STRIDE {
            pending.push([self.children, p]);
            self.last_sample_pos = p;
            self.skip_at_sample = self.skip;
        }
        self.children += 1;
    }
}

/// Where the validating walk is in the grammar.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// At a value (whitespace not yet skipped).
    Value,
    /// At an object key (whitespace skipped).
    Key,
    /// Just after a complete value.
    After,
}

/// Why a walk stopped.
enum Stop {
    /// The root value is complete and only whitespace follows it.
    Done,
    /// At the checkpoint comma.
    Checkpoint,
    /// At the bracket (this position) that closes the container the walk started inside.
    OuterClose(usize),
}

/// Payloads at least this large are walked by two threads (see `build_inner`).
pub(crate) const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// The validating, index-building walk; resumable so that a payload can be
/// split between two threads.
struct Walker<'b> {
    b: &'b [u8],
    stack: Vec<Frame>,
    /// Samples and key offsets of still-open containers.
    pending: Vec<[u32; 2]>,
    pending_keys: Vec<u32>,
    closed: Vec<Big>,
    samples: Vec<[u32; 2]>,
    hashes: Vec<u16>,
    root_end: u32,
    root_kinds: u8,
    /// Closing the frame at this depth stops the walk (`Stop::OuterClose`);
    /// 0 = never (the walk owns the whole document).
    floor: usize,
}

impl<'b> Walker<'b> {
    fn new(b: &'b [u8], floor: usize) -> Self {
        Walker {
            b,
            stack: Vec::with_capacity(64),
            pending: Vec::new(),
            pending_keys: Vec::new(),
            closed: Vec::new(),
            samples: Vec::new(),
            hashes: Vec::new(),
            root_end: 0,
            root_kinds: 0,
            floor,
        }
    }

    fn open(&mut self, p: usize, is_obj: bool) {
        self.stack.push(Frame {
            start: p as u32,
            is_obj,
            children: 0,
            skip: 0,
            last_sample_pos: p as u32,
            skip_at_sample: 0,
            samples_mark: self.pending.len() as u32,
            keys_mark: self.pending_keys.len() as u32,
            kinds: 0,
        });
    }

    /// Walks from `p` in `state`. `None` = not JSON. Stops early at the comma
    /// at `checkpoint.0` when it separates members (`checkpoint.1`, object)
    /// or elements (array).
    fn run(&mut self, mut p: usize, mut state: State, checkpoint: (usize, bool)) -> Option<Stop> {
        let b = self.b;
        let n = b.len();
        // Whether the innermost open container is an array (its values are children).
        let mut in_array = self.stack.last().is_some_and(|f| !f.is_obj);
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
                                // Empty container: closed right here (never indexed).
                                p += 1;
                                let f = self.stack.pop()?;
                                match self.stack.last_mut() {
                                    Some(parent) => {
                                        parent.skip += f.skip;
                                        in_array = !parent.is_obj;
                                    }
                                    None => self.root_end = p as u32,
                                }
                            }
                        }
                        b'1'..=b'9' => {
                            // Fast path for the common plain integer: digits then a delimiter.
                            let mut q = p + 1;
                            while q < n && b[q].is_ascii_digit() {
                                q += 1;
                            }
                            p = match b.get(q) {
                                Some(b',' | b']' | b'}') => q,
                                _ => scan::valid_scalar_end(b, p)?,
                            };
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
                    if b.get(p) != Some(&b'"') {
                        return None;
                    }
                    let f = self.stack.last_mut()?;
                    f.child_start(p as u32, &mut self.pending);
                    self.pending_keys.push(p as u32);
                    p = scan::ws(b, scan::valid_string_end(b, p)?);
                    if b.get(p) != Some(&b':') {
                        return None;
                    }
                    p += 1;
                    state = State::Value;
                }
                State::After => {
                    p = scan::ws(b, p);
                    let Some(f) = self.stack.last() else {
                        // The root value is complete: only whitespace may follow.
                        return (p == n).then_some(Stop::Done);
                    };
                    let is_obj = f.is_obj;
                    match b.get(p) {
                        Some(b',') => {
                            if p == checkpoint.0 && is_obj == checkpoint.1 {
                                return Some(Stop::Checkpoint);
                            }
                            p = scan::ws(b, p + 1);
                            state = if is_obj { State::Key } else { State::Value };
                        }
                        Some(b'}') if is_obj => {
                            if self.stack.len() == self.floor {
                                return Some(Stop::OuterClose(p));
                            }
                            p += 1;
                            in_array = self.close(p)?;
                        }
                        Some(b']') if !is_obj => {
                            if self.stack.len() == self.floor {
                                return Some(Stop::OuterClose(p));
                            }
                            p += 1;
                            in_array = self.close(p)?;
                        }
                        _ => return None,
                    }
                }
            }
        }
    }

    /// Pops the container that ends just before `end`, indexing it when it is
    /// big. Returns whether the new innermost container is an array.
    #[inline]
    fn close(&mut self, end: usize) -> Option<bool> {
        let f = self.stack.pop()?;
        let end = end as u32;
        let span = end - f.start;
        let own = span.saturating_sub(f.skip);
        let indexed = own >= BIG || (f.children >= MANY_CHILDREN && span >= BIG);
        if indexed {
            let samples_at = self.samples.len() as u32;
            self.samples
                .extend_from_slice(&self.pending[f.samples_mark as usize..]);
            let hashes_at =
                if f.is_obj && f.children >= HASH_MIN_MEMBERS && own / f.children >= HASH_MIN_MEMBER_BYTES {
                    push_hashes(
                        self.b,
                        &self.pending_keys[f.keys_mark as usize..],
                        &mut self.hashes,
                    )
                } else {
                    u32::MAX
                };
            self.closed.push(Big {
                start: f.start,
                end,
                children: f.children,
                samples_at,
                samples_len: self.samples.len() as u32 - samples_at,
                hashes_at,
            });
        }
        self.pending.truncate(f.samples_mark as usize);
        self.pending_keys.truncate(f.keys_mark as usize);
        match self.stack.last_mut() {
            Some(parent) => {
                parent.skip += if indexed { span - JUMP_COST } else { f.skip };
                Some(!parent.is_obj)
            }
            None => {
                self.root_end = end;
                self.root_kinds = f.kinds;
                Some(false)
            }
        }
    }

    /// Takes over the work of a walker that started inside this walker's
    /// innermost container, right after the checkpoint comma, and stopped at
    /// that container's closing bracket.
    fn adopt(&mut self, w: Walker<'_>) -> Option<()> {
        let outer = w.stack.first()?;
        let base = self.stack.last()?.children;
        let (samples_base, hashes_base) = (self.samples.len() as u32, self.hashes.len() as u32);
        self.samples.extend_from_slice(&w.samples);
        self.hashes.extend_from_slice(&w.hashes);
        self.closed.extend(w.closed.iter().map(|x| Big {
            samples_at: x.samples_at + samples_base,
            hashes_at: if x.hashes_at == u32::MAX {
                u32::MAX
            } else {
                x.hashes_at + hashes_base
            },
            ..*x
        }));
        // The container's own samples and keys were still pending over there;
        // child indices continue after this walker's.
        self.pending.extend(w.pending.iter().map(|s| [s[0] + base, s[1]]));
        self.pending_keys.extend_from_slice(&w.pending_keys);
        let top = self.stack.last_mut()?;
        if !w.pending.is_empty() {
            top.last_sample_pos = outer.last_sample_pos;
            top.skip_at_sample = top.skip + outer.skip_at_sample;
        }
        top.children += outer.children;
        top.skip += outer.skip;
        top.kinds |= outer.kinds;
        Some(())
    }
}

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
pub(crate) fn build_with_side<R>(
    b: &[u8],
    parallel_min: usize,
    side: impl FnOnce() -> R,
) -> (Option<JsonIndex>, R) {
    let mut side = Some(side);
    let mut out = None;
    let index = build_inner(b, parallel_min, &mut || {
        if let Some(f) = side.take() {
            out = Some(f());
        }
    });
    if let Some(f) = side.take() {
        out = Some(f());
    }
    (index, out.expect("side ran"))
}

fn build_inner(b: &[u8], parallel_min: usize, side: &mut dyn FnMut()) -> Option<JsonIndex> {
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
            let second = std::thread::Builder::new().spawn_scoped(s, move || {
                let mut w = Walker::new(b, 1);
                w.open(m, is_obj);
                let stop = if is_obj {
                    w.run(scan::ws(b, m + 1), State::Key, nowhere)
                } else {
                    w.run(m + 1, State::Value, nowhere)
                };
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
    let mut index = JsonIndex {
        root_start: start as u32,
        root_end: a.root_end,
        root_kinds: a.root_kinds,
        bigs: a.closed,
        samples: a.samples,
        hashes: a.hashes,
    };
    match b.get(start) {
        Some(b'{' | b'[') => {}
        Some(b'"') => index.root_end = scan::string_end(b, start) as u32,
        _ => index.root_end = scan::scalar_end(b, start) as u32,
    }
    index.bigs.sort_unstable_by_key(|x| x.start);
    index.bigs.shrink_to_fit();
    index.samples.shrink_to_fit();
    index.hashes.shrink_to_fit();
    Some(index)
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
    commas()
        .filter(|&i| after_container(i))
        .find_map(|i| context(i).filter(|c| c.1).map(|c| (i, c.0)))
        .or_else(|| commas().find_map(|i| context(i).map(|c| (i, c.0))))
}

/// Appends one hash per member key; `u32::MAX` (no hashes) when too many keys
/// are escaped for the hashes to narrow a lookup.
fn push_hashes(b: &[u8], keys: &[u32], hashes: &mut Vec<u16>) -> u32 {
    let at = hashes.len();
    let mut escaped = 0usize;
    for &k in keys {
        let k = k as usize;
        let e = scan::string_end(b, k);
        let raw = b.get(k + 1..e.saturating_sub(1).max(k + 1)).unwrap_or(&[]);
        let h = if memchr::memchr(b'\\', raw).is_some() {
            escaped += 1;
            0
        } else {
            scan::key_hash(raw)
        };
        hashes.push(h);
    }
    if escaped * 16 > keys.len() {
        hashes.truncate(at);
        return u32::MAX;
    }
    at as u32
}
