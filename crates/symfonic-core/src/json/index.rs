//! The structural index: built in one pass over the payload, it records every
//! "big" container (its span, child count, and a child offset every ~512
//! bytes of scanning) so a path walk jumps over big subtrees and lands near
//! element `i`, then scans a few hundred bytes.

use super::scan;

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
/// An indexed object without member hashes this small is still a bounded lookup.
const BOUNDED_MEMBERS: u32 = 64;

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

    /// Whether every key lookup costs a bounded scan: an object that is not
    /// indexed is small, and an indexed one has member hashes or at most
    /// `BOUNDED_MEMBERS` members (each skipped by a jump or a small scan).
    pub(crate) fn key_lookups_bounded(&self, b: &[u8]) -> bool {
        self.bigs.iter().all(|big| {
            big.hashes_at != u32::MAX
                || big.children <= BOUNDED_MEMBERS
                || b.get(big.start as usize) != Some(&b'{')
        })
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

mod build;
mod scalar;
mod walker;
pub(crate) use build::{build_with_side, PARALLEL_MIN_BYTES};
