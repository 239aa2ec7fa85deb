//! Why a nodelist query selected nothing, when the reason is a mistake a
//! model can fix: a key that is not there (with the keys that are, and the
//! closest one), a selector on the wrong kind of value (a slice on an object,
//! a name on a string), an index past the end, a filter on a member none of
//! the candidates has or compared with the wrong type. The message says where
//! matching stopped and what is there. A query that is right and matches
//! nothing (a filter no value passes, empty containers) gets `None`: `[]`.
//! Filters are explained in `filter`.

use std::collections::BTreeSet;

use super::super::eval::descend;
use super::super::eval::slice_bounds;
use super::super::index::JsonIndex;
use super::super::path::{Segment, Selector};
use super::super::scan::{self, Kind};
use super::{cut, describe, echo, KEY_CHARS};

mod closest;
mod filter;
mod words;
use closest::near;
use words::{join_and, list, noun, one_segment, render, slice_text};

/// Nodes (and keys) looked at, at most, to describe what is there.
const LOOK: usize = 10_000;
/// Children a filter's explanation looks at, at most: the filter itself
/// visited every one, and a claim that none has a member must hold for all.
const FILTER_LOOK: usize = 1_000_000;

/// Why `segs[at]`, applied to the nodes `before` (what `segs[..at]` selected),
/// selected nothing; `None` when nothing is wrong with the query.
pub(crate) fn explain(
    b: &[u8],
    index: &JsonIndex,
    path: &str,
    segs: &[Segment],
    at: usize,
    before: &[usize],
) -> Option<String> {
    let seg = &segs[at];
    let prefix = render(&segs[..at], "$");
    let ctx = Ctx {
        b,
        index,
        prefix: &prefix,
        before: &before[..before.len().min(LOOK)],
        all: before,
        total: before.len(),
        path,
        segs: &segs[..at],
        last: at + 1 == segs.len(),
    };
    let whys: Vec<String> = seg
        .sels
        .iter()
        .filter_map(|sel| match seg.descendant {
            true => ctx.why_descendant(sel),
            false => ctx.why(sel),
        })
        .collect();
    if whys.is_empty() {
        return None;
    }
    Some(format!(
        "[recall: json_path '{}' selects nothing: {}]",
        echo(path),
        whys.join("; ")
    ))
}

struct Ctx<'a> {
    b: &'a [u8],
    index: &'a JsonIndex,
    prefix: &'a str,
    /// The nodes looked at (the first `LOOK` of `total`).
    before: &'a [usize],
    /// All the nodes, for claims that must hold for each.
    all: &'a [usize],
    total: usize,
    /// The query as sent, and its segments before the one explained
    /// (`last` when that one ends it).
    path: &'a str,
    segs: &'a [Segment],
    last: bool,
}

impl Ctx<'_> {
    fn kind(&self, n: usize) -> Option<Kind> {
        self.b.get(n).map(|&c| Kind::of(c))
    }

    fn of_kind(&self, k: Kind) -> Vec<usize> {
        self.before
            .iter()
            .copied()
            .filter(|&n| self.kind(n) == Some(k))
            .collect()
    }

    fn containers(&self) -> Vec<usize> {
        self.before
            .iter()
            .copied()
            .filter(|&n| matches!(self.kind(n), Some(Kind::Object | Kind::Array)))
            .collect()
    }

    /// `'$.a' is an object with 3 keys [x,y,z]` or `'$.a[*]' selects 120 objects`.
    fn subject(&self) -> String {
        let p = cut(self.prefix, 200);
        if self.total == 1 {
            return format!("'{p}' {}", describe(self.index, self.b, self.before[0]));
        }
        let mut counts: Vec<(Kind, usize)> = Vec::new();
        for &n in self.before {
            if let Some(k) = self.kind(n) {
                match counts.iter_mut().find(|(x, _)| *x == k) {
                    Some((_, c)) => *c += 1,
                    None => counts.push((k, 1)),
                }
            }
        }
        let scale = |c: usize| {
            if self.total > self.before.len() {
                format!("{c}+")
            } else {
                c.to_string()
            }
        };
        let parts: Vec<String> = counts
            .iter()
            .map(|&(k, c)| format!("{} {}", scale(c), noun(k, c)))
            .collect();
        format!("'{p}' selects {}", join_and(&parts))
    }

    fn why(&self, sel: &Selector) -> Option<String> {
        let subject = self.subject();
        match sel {
            Selector::Name(k) | Selector::KeyOrIndex(k, _) => {
                let objects = self.of_kind(Kind::Object);
                if objects.is_empty() {
                    return Some(format!(
                        "{subject}, and {} names a member of an object",
                        one_segment(k)
                    ));
                }
                let keys = self.keys_of(&objects);
                let hint =
                    near(k, &keys).map_or(String::new(), |n| format!(" (did you mean {}?)", one_segment(&n)));
                if self.total == 1 {
                    return Some(format!("{subject}: none is '{}'{hint}", cut(k, KEY_CHARS)));
                }
                Some(format!(
                    "{subject}, and none has the key '{}'{hint}; their keys: {}",
                    cut(k, KEY_CHARS),
                    list(&keys)
                ))
            }
            Selector::Index(i) => {
                let arrays = self.of_kind(Kind::Array);
                if arrays.is_empty() {
                    let member = if self.of_kind(Kind::Object).is_empty() {
                        ""
                    } else {
                        " (a member of an object is ['key'])"
                    };
                    return Some(format!("{subject}, and [{i}] is an element of an array{member}"));
                }
                let longest = arrays
                    .iter()
                    .map(|&a| self.index.child_count(self.b, a))
                    .max()
                    .unwrap_or(0);
                if self.total == 1 {
                    Some(format!("{subject}, so [{i}] is past its end"))
                } else {
                    Some(format!(
                        "{subject}, the longest of length {longest}, so [{i}] is past their end"
                    ))
                }
            }
            Selector::Wild => {
                if !self.containers().is_empty() {
                    return None; // empty objects and arrays: nothing to select
                }
                Some(format!(
                    "{subject}, and * selects the members of objects and the elements of arrays"
                ))
            }
            Selector::Slice(start, stop, step) => {
                let arrays = self.of_kind(Kind::Array);
                let shown = slice_text(*start, *stop, *step);
                if arrays.is_empty() {
                    let fix = if self.of_kind(Kind::Object).is_empty() {
                        ""
                    } else {
                        " (an object's values are .*, with format='paths' for their keys)"
                    };
                    return Some(format!(
                        "{subject}, and [{shown}] selects elements of arrays{fix}"
                    ));
                }
                let lens: Vec<i64> = arrays
                    .iter()
                    .map(|&a| self.index.child_count(self.b, a) as i64)
                    .collect();
                let past = *step > 0 && start.is_some_and(|s| s >= 0 && lens.iter().all(|&l| l <= s));
                let longest = lens.iter().max().copied().unwrap_or(0);
                match past {
                    true if self.total == 1 => Some(format!("{subject}, so [{shown}] starts past its end")),
                    true => Some(format!(
                        "{subject}, the longest of length {longest}, so [{shown}] starts past their end"
                    )),
                    // Unreachable bounds: `[5:2]`, a zero step.
                    false
                        if lens
                            .iter()
                            .all(|&l| slice_bounds(l, *start, *stop, *step).is_none() && l > 0) =>
                    {
                        Some(format!(
                            "[{shown}] selects no index of an array of length {longest}"
                        ))
                    }
                    false => None,
                }
            }
            Selector::Filter(e) => {
                if self.containers().is_empty() {
                    return Some(format!(
                        "{subject}, and a filter selects among the members of objects and the elements of arrays"
                    ));
                }
                let containers: Vec<usize> = self
                    .all
                    .iter()
                    .copied()
                    .filter(|&n| matches!(self.kind(n), Some(Kind::Object | Kind::Array)))
                    .collect();
                self.why_filter(e, &containers)
            }
        }
    }

    /// `..name` found no member of that name anywhere below.
    fn why_descendant(&self, sel: &Selector) -> Option<String> {
        let (Selector::Name(k) | Selector::KeyOrIndex(k, _)) = sel else {
            return None;
        };
        let mut keys = BTreeSet::new();
        for &n in self.before {
            let t = descend::subtree(self.b, n);
            for i in 0..t.pos.len() {
                for kid in t.kids(i) {
                    if keys.len() >= LOOK {
                        break;
                    }
                    if kid.key != descend::Kid::NO_KEY {
                        keys.insert(scan::decode(kid.key_raw(self.b)).into_owned());
                    }
                }
            }
        }
        let keys: Vec<String> = keys.into_iter().collect();
        let hint = near(k, &keys).map_or(String::new(), |n| {
            format!(" (did you mean ..{}?)", one_segment(&n).trim_start_matches('.'))
        });
        Some(format!(
            "no member of '{}' or below is named '{}'{hint}",
            cut(self.prefix, 200),
            cut(k, KEY_CHARS)
        ))
    }

    /// Distinct keys of the objects `objs`, in first-seen order.
    fn keys_of(&self, objs: &[usize]) -> Vec<String> {
        self.keys_within(objs, LOOK)
    }

    /// [`Self::keys_of`], looking at `look` members at most.
    fn keys_within(&self, objs: &[usize], look: usize) -> Vec<String> {
        let mut seen = BTreeSet::new();
        let mut keys = Vec::new();
        let mut looked = 0;
        for &o in objs {
            let mut cur = self.index.children_from(self.b, o, 0);
            while let Some(m) = cur.next_child() {
                looked += 1;
                if looked > look {
                    return keys;
                }
                let k = scan::decode(m.key_raw(self.b)).into_owned();
                if seen.insert(k.clone()) {
                    keys.push(k);
                }
            }
        }
        keys
    }
}

/// The key of the object at `node` closest to the mistyped `key`, if any is close.
pub(crate) fn near_key(index: &JsonIndex, b: &[u8], node: usize, key: &str) -> Option<String> {
    let ctx = Ctx {
        b,
        index,
        prefix: "",
        before: &[node],
        all: &[node],
        total: 1,
        path: "",
        segs: &[],
        last: false,
    };
    near(key, &ctx.keys_of(&[node]))
}

#[cfg(test)]
mod tests;
