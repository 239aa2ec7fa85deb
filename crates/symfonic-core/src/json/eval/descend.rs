//! The descendant segment's one pass: every container of a subtree in
//! document order (which is RFC 9535's order: a node before its
//! descendants), each with its children, from one linear scan of the
//! subtree's bytes. Walking children through the index instead would scan
//! each container once per level above it. Iterative: nesting costs a
//! stack entry, not a call.

use super::super::scan;

/// A container's child: `key` is the key's opening quote (`u32::MAX` in arrays).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kid {
    pub key: u32,
    pub value: u32,
}

impl Kid {
    pub(crate) const NO_KEY: u32 = u32::MAX;

    /// Raw (still escaped) key bytes.
    pub(crate) fn key_raw<'b>(&self, b: &'b [u8]) -> &'b [u8] {
        if self.key == Self::NO_KEY {
            return &[];
        }
        let k = self.key as usize;
        let e = scan::string_end(b, k);
        b.get(k + 1..e.saturating_sub(1).max(k + 1)).unwrap_or(&[])
    }
}

/// The containers of a subtree in document order; container `i`'s children
/// are `kids[from[i]..from[i] + len[i]]`.
#[derive(Default)]
pub(crate) struct Subtree {
    /// Bytes scanned.
    pub bytes: usize,
    pub pos: Vec<u32>,
    from: Vec<u32>,
    len: Vec<u32>,
    kids: Vec<Kid>,
}

impl Subtree {
    /// What building it cost, in the evaluator's work units (node visits).
    pub(crate) fn cost(&self) -> u64 {
        (self.pos.len() + self.kids.len() + self.bytes / 64) as u64
    }

    /// The children of the container at byte `pos`, if it is in the subtree.
    pub(crate) fn kids_at(&self, pos: usize) -> Option<&[Kid]> {
        let i = self.pos.binary_search(&(pos as u32)).ok()?;
        Some(self.kids(i))
    }

    pub(crate) fn kids(&self, i: usize) -> &[Kid] {
        let f = self.from[i] as usize;
        &self.kids[f..f + self.len[i] as usize]
    }
}

/// Scans the value at `n` (in validated JSON). A scalar has no containers.
pub(crate) fn subtree(b: &[u8], n: usize) -> Subtree {
    let mut t = Subtree::default();
    if !matches!(b.get(n), Some(b'{' | b'[')) {
        return t;
    }
    // Per open container: its ordinal and where its children start in `pending`.
    let mut stack: Vec<(u32, u32, bool)> = Vec::new();
    let mut pending: Vec<Kid> = Vec::new();
    let mut p = n;
    let mut key = Kid::NO_KEY;
    // At a value's first byte (p), with `key` its key in an object.
    loop {
        if !stack.is_empty() {
            pending.push(Kid { key, value: p as u32 });
        }
        match b.get(p) {
            Some(&c @ (b'{' | b'[')) => {
                let ord = t.pos.len() as u32;
                t.pos.push(p as u32);
                t.from.push(0);
                t.len.push(0);
                stack.push((ord, pending.len() as u32, c == b'{'));
                p = scan::ws(b, p + 1);
                if matches!(b.get(p), Some(b'}' | b']')) {
                    p += 1;
                    close(&mut t, &mut stack, &mut pending);
                    if stack.is_empty() {
                        t.bytes = p - n;
                        return t;
                    }
                } else if c == b'{' {
                    (key, p) = member(b, p);
                    continue;
                } else {
                    key = Kid::NO_KEY;
                    continue;
                }
            }
            Some(b'"') => p = scan::string_end(b, p),
            Some(_) => p = scan::scalar_end(b, p),
            None => return t,
        }
        // After a value: a comma starts the next child, a bracket closes.
        loop {
            p = scan::ws(b, p);
            match b.get(p) {
                Some(b',') => {
                    p = scan::ws(b, p + 1);
                    let Some(&(_, _, is_obj)) = stack.last() else {
                        return t;
                    };
                    if is_obj {
                        (key, p) = member(b, p);
                    } else {
                        key = Kid::NO_KEY;
                    }
                    break;
                }
                Some(b'}' | b']') => {
                    p += 1;
                    close(&mut t, &mut stack, &mut pending);
                    if stack.is_empty() {
                        t.bytes = p - n;
                        return t;
                    }
                }
                _ => return t,
            }
        }
    }
}

/// At a key's quote: the key's position and its value's first byte.
fn member(b: &[u8], k: usize) -> (u32, usize) {
    let mut v = scan::ws(b, scan::string_end(b, k));
    if b.get(v) == Some(&b':') {
        v = scan::ws(b, v + 1);
    }
    (k as u32, v)
}

fn close(t: &mut Subtree, stack: &mut Vec<(u32, u32, bool)>, pending: &mut Vec<Kid>) {
    let Some((ord, start, _)) = stack.pop() else {
        return;
    };
    let start = start as usize;
    t.from[ord as usize] = t.kids.len() as u32;
    t.len[ord as usize] = (pending.len() - start) as u32;
    t.kids.extend_from_slice(&pending[start..]);
    pending.truncate(start);
}
