//! What the validating walk records as the grammar (`scalar.rs`) meets
//! them: the open containers, their sampled children and key offsets, the
//! big ones once they close, and the merge of a second walker's work.

use super::super::scan;
use super::*;

pub(super) struct Frame {
    start: u32,
    pub(super) is_obj: bool,
    children: u32,
    /// Scan-cost credit of indexed descendants (their span minus `JUMP_COST`).
    skip: u32,
    last_sample_pos: u32,
    skip_at_sample: u32,
    samples_mark: u32,
    keys_mark: u32,
    pub(super) kinds: u8,
}

impl Frame {
    /// Records a child (array element or object key) starting at `p`,
    /// sampling its offset when the scan cost since the last sample reached `STRIDE`.
    #[inline]
    pub(super) fn child_start(&mut self, p: u32, pending: &mut Vec<[u32; 2]>) {
        let cost = (p - self.last_sample_pos).saturating_sub(self.skip - self.skip_at_sample);
        if cost >= STRIDE {
            pending.push([self.children, p]);
            self.last_sample_pos = p;
            self.skip_at_sample = self.skip;
        }
        self.children += 1;
    }
}

/// Where a validating walk is in the grammar, at an entry point.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    /// At a value (whitespace not yet skipped).
    Value,
    /// At an object key (whitespace skipped).
    Key,
    /// Just after a complete value.
    After,
}

/// Why a walk stopped.
pub(super) enum Stop {
    /// The root value is complete and only whitespace follows it.
    Done,
    /// At the checkpoint comma.
    Checkpoint,
    /// At the bracket (this position) that closes the container the walk started inside.
    OuterClose(usize),
}

/// The index-building state of one walk; resumable so that a payload can be
/// split between two threads.
pub(super) struct Walker<'b> {
    pub(super) b: &'b [u8],
    pub(super) stack: Vec<Frame>,
    /// Samples and key offsets of still-open containers.
    pub(super) pending: Vec<[u32; 2]>,
    pub(super) pending_keys: Vec<u32>,
    closed: Vec<Big>,
    samples: Vec<[u32; 2]>,
    hashes: Vec<u16>,
    pub(super) root_end: u32,
    root_kinds: u8,
    /// Closing the frame at this depth stops the walk (`Stop::OuterClose`);
    /// 0 = never (the walk owns the whole document).
    pub(super) floor: usize,
}

impl<'b> Walker<'b> {
    pub(super) fn new(b: &'b [u8], floor: usize) -> Self {
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

    #[inline]
    pub(super) fn open(&mut self, p: usize, is_obj: bool) {
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

    /// Pops a container that closed right after opening (`end` is just past
    /// its bracket): never indexed. Returns whether the new innermost
    /// container is an array.
    #[inline]
    pub(super) fn close_empty(&mut self, end: usize) -> Option<bool> {
        let f = self.stack.pop()?;
        match self.stack.last_mut() {
            Some(parent) => {
                parent.skip += f.skip;
                Some(!parent.is_obj)
            }
            None => {
                self.root_end = end as u32;
                Some(false)
            }
        }
    }

    /// Pops the container that ends just before `end`, indexing it when it is
    /// big. Returns whether the new innermost container is an array.
    #[inline]
    pub(super) fn close(&mut self, end: usize) -> Option<bool> {
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
    pub(super) fn adopt(&mut self, w: Walker<'_>) -> Option<()> {
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

    /// The finished index of a walk that owned the whole document (root at `start`).
    pub(super) fn finish(self, start: usize) -> JsonIndex {
        let b = self.b;
        let mut index = JsonIndex {
            root_start: start as u32,
            root_end: self.root_end,
            root_kinds: self.root_kinds,
            bigs: self.closed,
            samples: self.samples,
            hashes: self.hashes,
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
        index
    }
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
