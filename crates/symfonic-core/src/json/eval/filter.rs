//! Filter expressions (`?…`): comparisons, functions and structural equality,
//! reading the few values they compare straight off the payload.

use std::borrow::Cow;
use std::collections::HashMap;

use super::super::path::{CmpOp, Comparable, Expr, FilterQuery, FnCall, Func, Lit, Selector};
use super::super::scan;
use super::{descend, Eval};

/// A value a filter compares: read from the payload or a literal.
#[derive(Debug)]
enum Val<'v> {
    Nothing,
    Null,
    Bool(bool),
    Num(f64),
    Str(Cow<'v, str>),
    /// An object or array in the payload.
    Node(usize),
}

impl<'a> Eval<'a> {
    /// Whether the filter `e` holds with `@` at `cur`.
    pub(super) fn test(&mut self, e: &Expr, cur: usize) -> bool {
        if !self.spend(1) {
            return false;
        }
        match e {
            Expr::Or(all) => all.iter().any(|x| self.test(x, cur)),
            Expr::And(all) => all.iter().all(|x| self.test(x, cur)),
            Expr::Not(x) => !self.test(x, cur),
            Expr::Exists(q) => {
                if q.is_singular() {
                    self.singular(q, cur).is_some()
                } else {
                    !self.nodes(q, cur).is_empty()
                }
            }
            Expr::Cmp(c) => {
                let (l, op, r) = &**c;
                let a = self.value(l, cur);
                let b = self.value(r, cur);
                match op {
                    CmpOp::Eq => self.eq(&a, &b),
                    CmpOp::Ne => !self.eq(&a, &b),
                    CmpOp::Lt => lt(&a, &b),
                    CmpOp::Le => lt(&a, &b) || self.eq(&a, &b),
                    CmpOp::Gt => lt(&b, &a),
                    CmpOp::Ge => lt(&b, &a) || self.eq(&a, &b),
                }
            }
            Expr::Logical(f) => self.logical(f, cur),
        }
    }

    /// The nodelist of a filter query.
    fn nodes(&mut self, q: &FilterQuery, cur: usize) -> Vec<usize> {
        if !q.absolute {
            return self.run(&q.segs, cur);
        }
        let key = q as *const FilterQuery as usize;
        if let Some(v) = self.absolute.get(&key) {
            return v.clone();
        }
        let v = self.run(&q.segs, self.root);
        self.absolute.insert(key, v.clone());
        v
    }

    /// The node of a singular query, if any.
    pub(crate) fn singular(&self, q: &FilterQuery, cur: usize) -> Option<usize> {
        let mut n = if q.absolute { self.root } else { cur };
        for seg in &q.segs {
            n = match (&seg.sels[0], *self.b.get(n)?) {
                (Selector::Name(k) | Selector::KeyOrIndex(k, _), b'{') => {
                    self.index.lookup_key(self.b, n, k)?
                }
                (Selector::Index(i) | Selector::KeyOrIndex(_, i), b'[') => self.nth(n, *i)?,
                _ => return None,
            };
        }
        Some(n)
    }

    fn value<'q>(&mut self, c: &'q Comparable, cur: usize) -> Val<'q>
    where
        'a: 'q,
    {
        match c {
            Comparable::Lit(l) => match l {
                Lit::Num(x) => Val::Num(*x),
                Lit::Str(s) => Val::Str(Cow::Borrowed(s)),
                Lit::Bool(x) => Val::Bool(*x),
                Lit::Null => Val::Null,
            },
            Comparable::Query(q) => match self.singular(q, cur) {
                Some(n) => val_at(self.b, n),
                None => Val::Nothing,
            },
            Comparable::Func(f) => self.call(f, cur),
        }
    }

    /// A function returning a value: `length`, `count`, `value`.
    fn call<'q>(&mut self, f: &'q FnCall, cur: usize) -> Val<'q>
    where
        'a: 'q,
    {
        match f.func {
            Func::Length => match self.value(&f.args[0], cur) {
                Val::Str(s) => Val::Num(s.chars().count() as f64),
                Val::Node(n) => Val::Num(self.index.child_count(self.b, n) as f64),
                _ => Val::Nothing,
            },
            Func::Count | Func::Value => {
                let Comparable::Query(q) = &f.args[0] else {
                    return Val::Nothing;
                };
                let nodes = self.nodes(q, cur);
                match (f.func, nodes.as_slice()) {
                    (Func::Count, _) => Val::Num(nodes.len() as f64),
                    (_, [n]) => val_at(self.b, *n),
                    _ => Val::Nothing,
                }
            }
            Func::Match | Func::Search => Val::Nothing,
        }
    }

    /// `match` / `search`: false unless both arguments are strings.
    fn logical(&mut self, f: &FnCall, cur: usize) -> bool {
        let text = self.value(&f.args[0], cur);
        let pattern = self.value(&f.args[1], cur);
        let (Val::Str(text), Val::Str(pattern)) = (text, pattern) else {
            return false;
        };
        if !self.spend((text.len() + pattern.len()) as u64 / 16) {
            return false;
        }
        self.patterns.is_match(&pattern, f.func == Func::Match, &text)
    }

    fn eq(&mut self, a: &Val<'_>, b: &Val<'_>) -> bool {
        match (a, b) {
            (Val::Nothing, Val::Nothing) | (Val::Null, Val::Null) => true,
            (Val::Bool(x), Val::Bool(y)) => x == y,
            (Val::Num(x), Val::Num(y)) => x == y,
            (Val::Str(x), Val::Str(y)) => x == y,
            (Val::Node(x), Val::Node(y)) => self.deep_eq(*x, *y),
            _ => false,
        }
    }

    /// Structural equality of two payload containers (objects unordered):
    /// the same text is the same value; otherwise both subtrees are listed
    /// in one linear scan each and compared with an explicit stack.
    fn deep_eq(&mut self, x: usize, y: usize) -> bool {
        let b = self.b;
        let (ex, ey) = (self.index.value_end(b, x), self.index.value_end(b, y));
        if !self.spend(((ex - x) + (ey - y)) as u64 / 64) {
            return false;
        }
        if b.get(x..ex) == b.get(y..ey) {
            return true;
        }
        let (tx, ty) = (descend::subtree(b, x), descend::subtree(b, y));
        if !self.spend(tx.cost() + ty.cost()) {
            return false;
        }
        let mut stack = vec![(x, y)];
        while let Some((x, y)) = stack.pop() {
            match (b.get(x).copied(), b.get(y).copied()) {
                (Some(cx @ (b'[' | b'{')), Some(cy)) if cx == cy => {
                    let (Some(kx), Some(ky)) = (tx.kids_at(x), ty.kids_at(y)) else {
                        return false;
                    };
                    if kx.len() != ky.len() {
                        return false;
                    }
                    if cx == b'[' {
                        stack.extend(
                            kx.iter()
                                .zip(ky)
                                .map(|(p, q)| (p.value as usize, q.value as usize)),
                        );
                        continue;
                    }
                    let keys: HashMap<Cow<'_, str>, usize> = ky
                        .iter()
                        .map(|m| (scan::decode(m.key_raw(b)), m.value as usize))
                        .collect();
                    for m in kx {
                        match keys.get(&scan::decode(m.key_raw(b))) {
                            Some(&v) => stack.push((m.value as usize, v)),
                            None => return false,
                        }
                    }
                }
                (Some(b'{' | b'['), _) | (_, Some(b'{' | b'[')) => return false,
                _ => {
                    let (p, q) = (val_at(b, x), val_at(b, y));
                    if !self.eq(&p, &q) {
                        return false;
                    }
                }
            }
        }
        true
    }
}

/// RFC 9535's `<` (numbers and strings only); strings compare by code
/// point, which is UTF-8's byte order.
fn lt(a: &Val<'_>, b: &Val<'_>) -> bool {
    match (a, b) {
        (Val::Num(x), Val::Num(y)) => x < y,
        (Val::Str(x), Val::Str(y)) => x.as_bytes() < y.as_bytes(),
        _ => false,
    }
}

/// The value at `n` in validated JSON.
fn val_at(b: &[u8], n: usize) -> Val<'_> {
    match b.get(n) {
        Some(b'"') => {
            let e = scan::string_end(b, n);
            Val::Str(scan::decode(
                b.get(n + 1..e.saturating_sub(1).max(n + 1)).unwrap_or(&[]),
            ))
        }
        Some(b't') => Val::Bool(true),
        Some(b'f') => Val::Bool(false),
        Some(b'n') => Val::Null,
        Some(b'{' | b'[') => Val::Node(n),
        Some(_) => {
            let text = &b[n..scan::scalar_end(b, n)];
            match std::str::from_utf8(text).ok().and_then(|t| t.parse().ok()) {
                Some(x) => Val::Num(x),
                None => Val::Nothing,
            }
        }
        None => Val::Nothing,
    }
}
