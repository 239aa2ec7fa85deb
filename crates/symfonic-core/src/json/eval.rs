//! Nodelists: RFC 9535's segments, selectors and filters evaluated over the
//! payload with the structural index. Nodes are byte offsets of values, so
//! answers stay slices of the original text. Filters read the few values
//! they compare straight off the payload (a key lookup, then one scalar);
//! containers are compared member by member without being parsed.
//! Work is metered: a query that would visit far more nodes than the payload
//! holds (nested descendants, `$..*..*`) stops with `over` set.

use std::collections::HashMap;

use super::index::JsonIndex;
use super::path::{Segment, Selector};
use super::scan;
use descend::Kid;
use iregexp::Patterns;

pub(super) mod descend;
mod filter;
pub(super) mod iregexp;

/// Slices with a larger step seek each element instead of walking them all.
const SEEK_STEP: u64 = 8;

pub(crate) struct Eval<'a> {
    b: &'a [u8],
    index: &'a JsonIndex,
    root: usize,
    steps: u64,
    limit: u64,
    /// Set when the work bound was reached; the nodelist is then incomplete.
    pub over: bool,
    patterns: Patterns,
    /// Nodelists of `$…` queries inside filters, computed once per query.
    absolute: HashMap<usize, Vec<usize>>,
}

impl<'a> Eval<'a> {
    /// `limit` bounds the work in node visits (and a pattern's bytes).
    pub(crate) fn new(b: &'a [u8], index: &'a JsonIndex, limit: u64) -> Self {
        Eval {
            b,
            index,
            root: index.root(),
            steps: 0,
            limit,
            over: false,
            patterns: Patterns::default(),
            absolute: HashMap::new(),
        }
    }

    fn spend(&mut self, n: u64) -> bool {
        self.steps += n;
        if self.steps > self.limit {
            self.over = true;
        }
        !self.over
    }

    /// The nodelist `segs` select from the node at `start`.
    pub(crate) fn run(&mut self, segs: &[Segment], start: usize) -> Vec<usize> {
        let mut set = vec![start];
        for seg in segs {
            let mut next = Vec::new();
            for &n in &set {
                self.segment(seg, n, &mut next);
                if self.over {
                    return Vec::new();
                }
            }
            set = next;
            if set.is_empty() {
                break;
            }
        }
        set
    }

    /// [`run`](Self::run), and when the nodelist comes out empty, the segment
    /// that emptied it and the nodes it applied to (to say why, see `explain`).
    pub(crate) fn run_traced(
        &mut self,
        segs: &[Segment],
        start: usize,
    ) -> Result<Vec<usize>, (usize, Vec<usize>)> {
        let mut set = vec![start];
        for (i, seg) in segs.iter().enumerate() {
            let mut next = Vec::new();
            for &n in &set {
                self.segment(seg, n, &mut next);
                if self.over {
                    return Ok(Vec::new());
                }
            }
            if next.is_empty() {
                return Err((i, set));
            }
            set = next;
        }
        Ok(set)
    }

    fn segment(&mut self, seg: &Segment, n: usize, out: &mut Vec<usize>) {
        if !seg.descendant {
            for sel in &seg.sels {
                self.select(sel, n, out);
            }
            return;
        }
        let t = descend::subtree(self.b, n);
        if !self.spend(t.cost()) {
            return;
        }
        for (i, &pos) in t.pos.iter().enumerate() {
            for sel in &seg.sels {
                self.select_kids(sel, pos as usize, t.kids(i), out);
            }
            if self.over {
                return;
            }
        }
    }

    /// One selector on the node at `n`, through the index.
    fn select(&mut self, sel: &Selector, n: usize, out: &mut Vec<usize>) {
        let (b, index) = (self.b, self.index);
        let c = b.get(n).copied();
        match (sel, c) {
            (Selector::Name(k) | Selector::KeyOrIndex(k, _), Some(b'{')) => {
                out.extend(index.lookup_key(b, n, k));
            }
            (Selector::Index(i) | Selector::KeyOrIndex(_, i), Some(b'[')) => {
                out.extend(self.nth(n, *i));
            }
            (Selector::Wild, Some(b'{' | b'[')) => {
                let mut cur = index.children_from(b, n, 0);
                while let Some(c) = cur.next_child() {
                    out.push(c.value);
                }
                self.spend(cur.idx as u64);
            }
            (Selector::Slice(start, stop, step), Some(b'[')) => {
                let len = index.child_count(b, n) as i64;
                self.slice(n, slice_bounds(len, *start, *stop, *step), out);
            }
            (Selector::Filter(e), Some(b'{' | b'[')) => {
                let mut cur = index.children_from(b, n, 0);
                while let Some(c) = cur.next_child() {
                    if self.test(e, c.value) {
                        out.push(c.value);
                    }
                    if self.over {
                        return;
                    }
                }
            }
            _ => {}
        }
    }

    /// One selector on a container whose children the descendant scan listed.
    fn select_kids(&mut self, sel: &Selector, n: usize, kids: &[Kid], out: &mut Vec<usize>) {
        let b = self.b;
        let is_obj = b.get(n) == Some(&b'{');
        let value = |k: &Kid| k.value as usize;
        match sel {
            Selector::Name(k) | Selector::KeyOrIndex(k, _) if is_obj => {
                out.extend(kids.iter().find(|m| scan::key_eq(m.key_raw(b), k)).map(value));
            }
            Selector::Index(i) | Selector::KeyOrIndex(_, i) if !is_obj => {
                let len = kids.len() as i64;
                let i = if *i < 0 { len + *i } else { *i };
                out.extend(usize::try_from(i).ok().and_then(|i| kids.get(i)).map(value));
            }
            Selector::Wild => out.extend(kids.iter().map(value)),
            Selector::Slice(start, stop, step) if !is_obj => {
                if let Some((from, count, step)) = slice_bounds(kids.len() as i64, *start, *stop, *step) {
                    self.spend(count as u64);
                    out.extend((0..count).map(|k| value(&kids[(from + k * step) as usize])));
                }
            }
            Selector::Filter(e) => {
                for k in kids {
                    if self.test(e, value(k)) {
                        out.push(value(k));
                    }
                    if self.over {
                        return;
                    }
                }
            }
            _ => {}
        }
    }

    /// Element `i` of the array at `n` (negative counts from the end).
    fn nth(&self, n: usize, i: i64) -> Option<usize> {
        let i = if i < 0 {
            let len = self.index.child_count(self.b, n) as i64;
            usize::try_from(len + i).ok()?
        } else {
            usize::try_from(i).ok()?
        };
        self.index
            .children_from(self.b, n, i)
            .next_child()
            .map(|c| c.value)
    }

    /// The elements a slice picks from the array at `n`, in slice order.
    fn slice(&mut self, n: usize, bounds: Option<(i64, i64, i64)>, out: &mut Vec<usize>) {
        let Some((from, count, step)) = bounds else { return };
        if !self.spend(count as u64) {
            return;
        }
        let (b, index) = (self.b, self.index);
        let picks = (0..count).map(|k| from + k * step);
        if step.unsigned_abs() > SEEK_STEP {
            // Sparse picks: seek each through the index instead of walking every element.
            for i in picks {
                out.extend(
                    index
                        .children_from(b, n, i as usize)
                        .next_child()
                        .map(|c| c.value),
                );
            }
            return;
        }
        let (first, last) = if step > 0 {
            (from, from + (count - 1) * step)
        } else {
            (from + (count - 1) * step, from)
        };
        let mut cur = index.children_from(b, n, first as usize);
        let mut values = Vec::with_capacity((last - first + 1) as usize);
        for _ in first..=last {
            match cur.next_child() {
                Some(c) => values.push(c.value),
                None => break,
            }
        }
        out.extend(picks.filter_map(|i| values.get((i - first) as usize).copied()));
    }
}

/// RFC 9535's slice over an array of `len`: `(first index, count, step)`,
/// or `None` when it selects nothing (a zero step selects nothing).
pub(crate) fn slice_bounds(
    len: i64,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
) -> Option<(i64, i64, i64)> {
    if step == 0 {
        return None;
    }
    let norm = |v: i64| if v < 0 { v.saturating_add(len) } else { v };
    let (from, to) = if step > 0 {
        (
            norm(start.unwrap_or(0)).clamp(0, len),
            norm(stop.unwrap_or(len)).clamp(0, len),
        )
    } else {
        (
            start.map_or(len - 1, |v| norm(v).clamp(-1, len - 1)),
            stop.map_or(-1, |v| norm(v).clamp(-1, len - 1)),
        )
    };
    let count = if step > 0 {
        ((to - from).max(0) as u64).div_ceil(step as u64) as i64
    } else {
        let stride = step.checked_neg().unwrap_or(i64::MAX);
        ((from - to).max(0) as u64).div_ceil(stride as u64) as i64
    };
    (count > 0).then_some((from, count, step))
}
