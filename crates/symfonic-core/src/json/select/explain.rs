//! Why a nodelist query selected nothing, when the reason is a mistake a
//! model can fix: a key that is not there (with the keys that are, and the
//! closest one), a selector on the wrong kind of value (a slice on an object,
//! a name on a string), an index past the end, a filter on a member none of
//! the candidates has or compared with the wrong type. The message says where
//! matching stopped and what is there. A query that is right and matches
//! nothing (a filter no value passes, empty containers) gets `None`: `[]`.

use std::collections::BTreeSet;

use super::super::eval::{descend, iregexp};
use super::super::eval::{slice_bounds, Eval};
use super::super::index::JsonIndex;
use super::super::path::{CmpOp, Comparable, Expr, FilterQuery, Func, Lit, Segment, Selector};
use super::super::scan::{self, Kind};
use super::{cut, describe, echo, KEY_CHARS};

mod closest;
mod words;
use closest::near;
use words::{article, join_and, join_or, list, literal, noun, one_segment, render, slice_text};

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

    /// A filter that passed no child: a member none of them has, or a
    /// comparison with a literal of another type than every value compared.
    fn why_filter(&self, e: &Expr, containers: &[usize]) -> Option<String> {
        if let Some(why) = outside_iregexp(e) {
            return Some(why);
        }
        let mut kids = Vec::new();
        for &c in containers {
            let mut cur = self.index.children_from(self.b, c, 0);
            while kids.len() < FILTER_LOOK {
                let Some(ch) = cur.next_child() else { break };
                kids.push(ch.value);
            }
        }
        if kids.is_empty() {
            return None;
        }
        // Past the bound, every claim names the part it was checked on.
        let of_all = match kids.len() < FILTER_LOOK {
            true => None,
            false => Some(
                containers
                    .iter()
                    .map(|&c| self.index.child_count(self.b, c))
                    .sum::<usize>(),
            )
            .filter(|&all| all > kids.len()),
        };
        let n = kids.len();
        let noun = match (containers.len(), self.kind(containers[0])) {
            (1, Some(Kind::Object)) => ["member", "members"],
            (1, _) => ["element", "elements"],
            _ => ["child", "children"],
        };
        let looked = of_all.map_or(String::new(), |all| {
            format!(" (of the first {n} of {all} looked at)")
        });
        let what_n = |n: usize| {
            format!(
                "the {n} {} of '{}'{looked}",
                noun[usize::from(n != 1)],
                cut(self.prefix, 200)
            )
        };
        let what = what_n(n);
        let ev = Eval::new(self.b, self.index, u64::MAX);
        let mut queries = Vec::new();
        relative_queries(e, &mut queries);
        for q in &queries {
            if !q.is_singular() || kids.iter().any(|&k| ev.singular(q, k).is_some()) {
                continue;
            }
            // The deepest step any child reaches, and the keys there.
            let mut at = kids.clone();
            let mut reached = String::from("@");
            for seg in &q.segs {
                let next: Vec<usize> = at
                    .iter()
                    .filter_map(|&n| {
                        ev.singular(
                            &FilterQuery {
                                absolute: false,
                                segs: vec![seg.clone()],
                            },
                            n,
                        )
                    })
                    .collect();
                if next.is_empty() {
                    let name = match &seg.sels[0] {
                        Selector::Name(k) | Selector::KeyOrIndex(k, _) => Some(k),
                        _ => None,
                    };
                    let objects: Vec<usize> = at
                        .iter()
                        .copied()
                        .filter(|&n| self.kind(n) == Some(Kind::Object))
                        .collect();
                    let keys = self.keys_within(&objects, FILTER_LOOK);
                    let hint = name.and_then(|k| near(k, &keys)).map_or(String::new(), |n| {
                        format!(" (did you mean {reached}{}?)", one_segment(&n))
                    });
                    let have = if keys.is_empty() {
                        String::new()
                    } else {
                        format!("; their keys there: {}", list(&keys))
                    };
                    let deep = self.too_deep(&ev, q, containers);
                    return Some(format!(
                        "none of {what} has {}{hint}{have}{deep}",
                        render(&q.segs, "@")
                    ));
                }
                reached.push_str(&render(std::slice::from_ref(seg), ""));
                at = next;
            }
        }
        // Comparisons of a member with a literal of another type.
        let mut cmps = Vec::new();
        comparisons(e, &mut cmps);
        for (q, lit) in cmps {
            let want = match lit {
                Lit::Num(_) => Kind::Num,
                Lit::Str(_) => Kind::Str,
                Lit::Bool(_) => Kind::Bool,
                Lit::Null => continue,
            };
            // Counted over the children that have the member, not all of them.
            let values: Vec<usize> = kids.iter().filter_map(|&k| ev.singular(q, k)).collect();
            let kinds: BTreeSet<u8> = values
                .iter()
                .filter_map(|&n| self.kind(n))
                .map(|k| k.bit())
                .collect();
            if kinds.is_empty() || kinds.contains(&want.bit()) {
                continue;
            }
            let are: Vec<String> = kinds.iter().map(|&k| article(Kind::from_bit(k))).collect();
            let has = values.len();
            return Some(format!(
                "{} is {} in {} that {} it, and the filter compares it with {}",
                render(&q.segs, "@"),
                join_or(&are),
                what_n(has),
                if has == 1 { "has" } else { "have" },
                literal(lit)
            ));
        }
        None
    }

    /// When the filtered nodes themselves have the member `q` asks of their
    /// children (`status[?@.experimental]`): how to filter their parent.
    fn too_deep(&self, ev: &Eval, q: &FilterQuery, containers: &[usize]) -> String {
        if !containers.iter().any(|&c| ev.singular(q, c).is_some()) {
            return String::new();
        }
        let p = cut(self.prefix, 200);
        let head = format!(
            "; '{p}' itself has {}: a filter tests the children of what it follows",
            render(&q.segs, "@")
        );
        let name = |seg: &Segment| match (seg.descendant, seg.sels.as_slice()) {
            (false, [Selector::Name(k) | Selector::KeyOrIndex(k, _)]) => Some(one_segment(k)),
            _ => None,
        };
        let wild = |seg: &Segment| !seg.descendant && seg.sels == [Selector::Wild];
        // The nodes a model means are those of the last `*` (`$.api.*`):
        // filter its parent by the names after it; with no `*`, put the
        // filter in place of the last name.
        let filter = self
            .last
            .then(|| self.path.trim_end())
            .filter(|p| p.ends_with(']'))
            .and_then(|p| p.rfind("[?").map(|i| p[i + 2..p.len() - 1].trim()));
        let w = self.segs.iter().rposition(wild);
        let names: Option<String> = match w {
            Some(w) => self.segs[w + 1..].iter().map(name).collect(),
            None => self.segs.last().and_then(name).map(|_| String::new()),
        };
        let (Some(f), Some(names)) = (filter, names) else {
            return head;
        };
        let parent = render(&self.segs[..w.unwrap_or(self.segs.len() - 1)], "$");
        let f = if names.is_empty() {
            f.to_string()
        } else {
            requalify(f, &names)
        };
        format!(
            "{head}, so filter {}: {}[?{f}]",
            if w.is_some() { "their parent" } else { "its parent" },
            cut(&parent, 200)
        )
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

/// The relative queries of a filter (`@.a.b`), each once.
fn relative_queries<'e>(e: &'e Expr, out: &mut Vec<&'e FilterQuery>) {
    let mut add = |q: &'e FilterQuery, out: &mut Vec<&'e FilterQuery>| {
        if !q.absolute && !q.segs.is_empty() && !out.contains(&q) {
            out.push(q);
        }
    };
    fn of_comparable<'e>(
        c: &'e Comparable,
        out: &mut Vec<&'e FilterQuery>,
        add: &mut dyn FnMut(&'e FilterQuery, &mut Vec<&'e FilterQuery>),
    ) {
        match c {
            Comparable::Query(q) => add(q, out),
            Comparable::Func(f) => f.args.iter().for_each(|a| of_comparable(a, out, add)),
            Comparable::Lit(_) => {}
        }
    }
    match e {
        Expr::Or(all) | Expr::And(all) => all.iter().for_each(|x| relative_queries(x, out)),
        Expr::Not(x) => relative_queries(x, out),
        Expr::Exists(q) => add(q, out),
        Expr::Cmp(c) => {
            of_comparable(&c.0, out, &mut add);
            of_comparable(&c.2, out, &mut add);
        }
        Expr::Logical(f) => f.args.iter().for_each(|a| of_comparable(a, out, &mut add)),
    }
}

/// Comparisons of a relative singular query with a literal, either way round.
fn comparisons<'e>(e: &'e Expr, out: &mut Vec<(&'e FilterQuery, &'e Lit)>) {
    match e {
        Expr::Or(all) | Expr::And(all) => all.iter().for_each(|x| comparisons(x, out)),
        Expr::Not(x) => comparisons(x, out),
        Expr::Cmp(c) => match (&c.0, c.1, &c.2) {
            (Comparable::Query(q), op, Comparable::Lit(l))
            | (Comparable::Lit(l), op, Comparable::Query(q))
                if !q.absolute && op != CmpOp::Ne =>
            {
                out.push((q, l))
            }
            _ => {}
        },
        _ => {}
    }
}

/// A filter's text with `step` (`.status`) after each `@` outside its strings.
fn requalify(filter: &str, step: &str) -> String {
    let mut out = String::with_capacity(filter.len() + 16);
    let mut quote = None;
    let mut escaped = false;
    for c in filter.chars() {
        out.push(c);
        match quote {
            Some(q) if !escaped && c == q => quote = None,
            Some(_) => escaped = !escaped && c == '\\',
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '@' => out.push_str(step),
            None => {}
        }
    }
    out
}

/// A `match()` or `search()` whose pattern is not an I-Regexp: what it
/// holds instead, and the I-Regexp form.
fn outside_iregexp(e: &Expr) -> Option<String> {
    match e {
        Expr::Or(all) | Expr::And(all) => all.iter().find_map(outside_iregexp),
        Expr::Not(x) => outside_iregexp(x),
        Expr::Logical(f) => match (f.func, f.args.get(1)) {
            (func @ (Func::Match | Func::Search), Some(Comparable::Lit(Lit::Str(p)))) => {
                iregexp::outside(p).map(|why| {
                    format!(
                        "{}() pattern '{}' is not an I-Regexp (RFC 9485, the regular expressions of RFC 9535 filters), so it matches nothing: {why}",
                        if func == Func::Match { "match" } else { "search" },
                        cut(p, KEY_CHARS)
                    )
                })
            }
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests;
