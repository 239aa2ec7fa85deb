//! The structural index: built in one pass over the payload, it records every
//! "big" container (its span, child count, and a child offset every ~512
//! bytes of scanning) so a path walk jumps over big subtrees and lands near
//! element `i`, then scans a few hundred bytes.

use super::scan::{self, Kind};

/// A container is indexed when the bytes a scan of it cannot skip reach this.
const BIG: u32 = 4096;
/// …or when it has this many children and spans at least `BIG` bytes.
const MANY_CHILDREN: u32 = 256;
/// Scanning cost (in bytes) between two sampled child offsets.
const STRIDE: u32 = 512;
/// What a jump over an indexed subtree costs, in scan-byte equivalents.
const JUMP_COST: u32 = 64;
/// Objects get per-member key hashes only when members are this large on
/// average (2 bytes per member must stay a small fraction of the payload).
const HASH_MIN_MEMBER_BYTES: u32 = 32;
const HASH_MIN_MEMBERS: u32 = 64;

/// One indexed container.
#[derive(Clone, Copy, Debug)]
struct Big {
    start: u32,
    /// Exclusive end (just past the closing bracket).
    end: u32,
    children: u32,
    /// Range of this container's entries in `samples`.
    samples_at: u32,
    samples_len: u32,
    /// Start of this object's member hashes in `hashes` (`u32::MAX` = none).
    hashes_at: u32,
}

/// Compact structural index of a JSON payload (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct JsonIndex {
    root_start: u32,
    root_end: u32,
    /// Element kinds seen in a root array (bit set of `Kind::bit`).
    root_kinds: u8,
    bigs: Vec<Big>,
    /// `[child index, byte offset of that child]`; for objects the offset is the key's.
    samples: Vec<[u32; 2]>,
    hashes: Vec<u16>,
}

impl JsonIndex {
    /// Heap memory held by the index, for the ledger's byte accounting.
    pub fn heap_bytes(&self) -> usize {
        self.bigs.capacity() * std::mem::size_of::<Big>()
            + self.samples.capacity() * std::mem::size_of::<[u32; 2]>()
            + self.hashes.capacity() * std::mem::size_of::<u16>()
    }

    pub(crate) fn root(&self) -> usize {
        self.root_start as usize
    }

    pub(crate) fn root_kinds(&self) -> u8 {
        self.root_kinds
    }

    #[inline]
    fn big_at(&self, start: usize) -> Option<&Big> {
        let i = self.bigs.partition_point(|b| (b.start as usize) < start);
        self.bigs.get(i).filter(|b| b.start as usize == start)
    }

    /// End of the value starting at `i` (which must be at its first byte).
    pub(crate) fn value_end(&self, b: &[u8], i: usize) -> usize {
        if i == self.root_start as usize && i < b.len() {
            return (self.root_end as usize).min(b.len());
        }
        match b.get(i) {
            None => b.len(),
            Some(b'"') => scan::string_end(b, i),
            Some(b'{' | b'[') => self.container_end(b, i),
            Some(_) => scan::scalar_end(b, i),
        }
    }

    fn container_end(&self, b: &[u8], i: usize) -> usize {
        if let Some(big) = self.big_at(i) {
            return (big.end as usize).min(b.len());
        }
        // Indexed subtrees inside this container, in start order: a cursor
        // turns each nested-bracket check into one comparison.
        let mut next = self.bigs.partition_point(|x| (x.start as usize) <= i);
        scan::container_end(b, i, |p| {
            while next < self.bigs.len() && (self.bigs[next].start as usize) < p {
                next += 1;
            }
            let big = self.bigs.get(next).filter(|x| x.start as usize == p)?;
            let e = big.end as usize;
            next = self.bigs.partition_point(|x| (x.start as usize) < e);
            Some(e)
        })
    }

    /// Number of children (elements or members) of the container at `c`.
    pub(crate) fn child_count(&self, b: &[u8], c: usize) -> usize {
        if let Some(big) = self.big_at(c) {
            return big.children as usize;
        }
        let mut cur = Children::new(self, b, c, 0, c);
        let mut n = 0;
        while cur.next_child().is_some() {
            n += 1;
        }
        n
    }

    /// Iterator over the children of the container at `c`, starting at child `from`.
    pub(crate) fn children_from<'a>(&'a self, b: &'a [u8], c: usize, from: usize) -> Children<'a> {
        let (mut idx, mut pos) = (0usize, c);
        if let Some(big) = self.big_at(c) {
            if from >= big.children as usize {
                let mut cur = Children::new(self, b, c, idx, pos);
                cur.done = true;
                return cur;
            }
            let at = big.samples_at as usize;
            let s = self.samples.get(at..at + big.samples_len as usize).unwrap_or(&[]);
            let k = s.partition_point(|x| (x[0] as usize) <= from);
            if k > 0 {
                idx = s[k - 1][0] as usize;
                pos = s[k - 1][1] as usize;
            }
        }
        let mut cur = Children::new(self, b, c, idx, pos);
        while cur.idx < from {
            if cur.next_child().is_none() {
                break;
            }
        }
        cur
    }

    /// Value position of `key` in the object at `c` (first occurrence wins).
    pub(crate) fn lookup_key(&self, b: &[u8], c: usize, key: &str) -> Option<usize> {
        if let Some(big) = self.big_at(c) {
            if big.hashes_at != u32::MAX {
                let from = big.hashes_at as usize;
                let hs = self.hashes.get(from..from + big.children as usize).unwrap_or(&[]);
                let h = scan::key_hash(key.as_bytes());
                for (i, &x) in hs.iter().enumerate() {
                    if x == h || x == 0 {
                        let mut cur = self.children_from(b, c, i);
                        if let Some(m) = cur.next_child() {
                            if m.key_eq(b, key) {
                                return Some(m.value);
                            }
                        }
                    }
                }
                return None;
            }
        }
        let mut cur = Children::new(self, b, c, 0, c);
        while let Some(m) = cur.next_child() {
            if m.key_eq(b, key) {
                return Some(m.value);
            }
        }
        None
    }
}

/// One child of a container: for object members `key` is the key's quote position.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Child {
    pub key: Option<usize>,
    pub value: usize,
}

impl Child {
    /// Raw (still escaped) key bytes of an object member.
    pub(crate) fn key_raw<'b>(&self, b: &'b [u8]) -> &'b [u8] {
        match self.key {
            Some(k) => {
                let e = scan::string_end(b, k);
                b.get(k + 1..e.saturating_sub(1).max(k + 1)).unwrap_or(&[])
            }
            None => &[],
        }
    }

    fn key_eq(&self, b: &[u8], key: &str) -> bool {
        self.key.is_some() && scan::key_eq(self.key_raw(b), key)
    }
}

/// Sequential cursor over a container's children.
pub(crate) struct Children<'a> {
    index: &'a JsonIndex,
    b: &'a [u8],
    is_obj: bool,
    /// Index of the child `pos` points at.
    pub idx: usize,
    /// Position of the next child's first byte (key for objects), or of the
    /// container's opening bracket before the first child.
    pos: usize,
    at_open: bool,
    done: bool,
}

impl<'a> Children<'a> {
    fn new(index: &'a JsonIndex, b: &'a [u8], c: usize, idx: usize, pos: usize) -> Self {
        let is_obj = b.get(c) == Some(&b'{');
        let done = !matches!(b.get(c), Some(b'{' | b'['));
        Children {
            index,
            b,
            is_obj,
            idx,
            pos,
            at_open: pos == c,
            done,
        }
    }

    pub(crate) fn next_child(&mut self) -> Option<Child> {
        if self.done {
            return None;
        }
        let b = self.b;
        let mut p = self.pos;
        if self.at_open {
            self.at_open = false;
            p = scan::ws(b, p + 1);
            if matches!(b.get(p), Some(b'}' | b']') | None) {
                self.done = true;
                return None;
            }
        }
        let child = if self.is_obj {
            let k = p;
            let mut v = scan::ws(b, scan::string_end(b, k));
            if b.get(v) == Some(&b':') {
                v = scan::ws(b, v + 1);
            }
            Child {
                key: Some(k),
                value: v,
            }
        } else {
            Child { key: None, value: p }
        };
        if child.value >= b.len() {
            self.done = true;
            return None;
        }
        let e = scan::ws(b, self.index.value_end(b, child.value));
        if b.get(e) == Some(&b',') {
            self.pos = scan::ws(b, e + 1);
        } else {
            self.done = true;
        }
        self.idx += 1;
        Some(child)
    }
}

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
