//! Why a filter passed no child: a member none of them has (checked on
//! every child the filter looked at), a comparison with a literal of another
//! type, a pattern outside I-Regexp, or a filter one level too deep.

use std::collections::BTreeSet;

use super::super::super::eval::{iregexp, Eval};
use super::super::super::path::{CmpOp, Comparable, Expr, FilterQuery, Func, Lit, Segment, Selector};
use super::super::super::scan::Kind;
use super::super::{cut, KEY_CHARS};
use super::closest::near;
use super::words::{article, join_or, list, literal, one_segment, render};
use super::{Ctx, FILTER_LOOK};

impl Ctx<'_> {
    /// A filter that passed no child: a member none of them has, or a
    /// comparison with a literal of another type than every value compared.
    pub(super) fn why_filter(&self, e: &Expr, containers: &[usize]) -> Option<String> {
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
