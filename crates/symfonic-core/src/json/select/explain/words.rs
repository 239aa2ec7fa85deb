//! How an explanation writes what it names: a query's segments as a model
//! would write them back, keys, kinds with their articles, literals, lists.

use super::super::super::key::{push_key_label, quoted};
use super::super::super::path::{Lit, Segment, Selector};
use super::super::super::scan::Kind;
use super::super::{cut, KEY_CHARS, LIST_KEYS};

/// Segments as a model would write them back, after `root` (`$` or `@`).
pub(super) fn render(segs: &[Segment], root: &str) -> String {
    let mut s = root.to_string();
    for seg in segs {
        let dots = if seg.descendant { ".." } else { "" };
        match seg.sels.as_slice() {
            [Selector::Name(k)] | [Selector::KeyOrIndex(k, _)] => {
                let one = one_segment(k);
                match (seg.descendant, one.strip_prefix('.')) {
                    (true, Some(bare)) => {
                        s.push_str("..");
                        s.push_str(bare);
                    }
                    _ => {
                        s.push_str(dots);
                        s.push_str(&one);
                    }
                }
            }
            [Selector::Wild] => {
                s.push_str(if seg.descendant { "..*" } else { ".*" });
            }
            sels => {
                s.push_str(dots);
                s.push('[');
                let parts: Vec<String> = sels.iter().map(selector_text).collect();
                s.push_str(&parts.join(","));
                s.push(']');
            }
        }
    }
    s
}

fn selector_text(sel: &Selector) -> String {
    match sel {
        Selector::Name(k) => format!("'{}'", quoted(k)),
        Selector::KeyOrIndex(k, _) => k.clone(),
        Selector::Index(i) => i.to_string(),
        Selector::Wild => "*".into(),
        Selector::Slice(a, b, c) => slice_text(*a, *b, *c),
        Selector::Filter(_) => "?…".into(),
    }
}

pub(super) fn slice_text(a: Option<i64>, b: Option<i64>, c: i64) -> String {
    let n = |v: Option<i64>| v.map_or(String::new(), |v| v.to_string());
    if c == 1 {
        format!("{}:{}", n(a), n(b))
    } else {
        format!("{}:{}:{c}", n(a), n(b))
    }
}

/// `.key` or `['key']`.
pub(super) fn one_segment(k: &str) -> String {
    let mut s = String::new();
    push_key_label(&mut s, &cut(k, KEY_CHARS));
    s
}

/// The first `LIST_KEYS` keys, `,...` when there are more.
pub(super) fn list(keys: &[String]) -> String {
    let shown: Vec<String> = keys.iter().take(LIST_KEYS).map(|k| cut(k, KEY_CHARS)).collect();
    let more = if keys.len() > LIST_KEYS { ",..." } else { "" };
    format!("{}{more}", shown.join(","))
}

pub(super) fn noun(k: Kind, n: usize) -> &'static str {
    match (k, n == 1) {
        (Kind::Object, true) => "object",
        (Kind::Object, false) => "objects",
        (Kind::Array, true) => "array",
        (Kind::Array, false) => "arrays",
        (Kind::Str, true) => "string",
        (Kind::Str, false) => "strings",
        (Kind::Num, true) => "number",
        (Kind::Num, false) => "numbers",
        (Kind::Bool, true) => "boolean",
        (Kind::Bool, false) => "booleans",
        (Kind::Null, true) => "null",
        (Kind::Null, false) => "nulls",
    }
}

pub(super) fn article(k: Kind) -> String {
    match k {
        Kind::Object => "an object",
        Kind::Array => "an array",
        Kind::Str => "a string",
        Kind::Num => "a number",
        Kind::Bool => "a boolean",
        Kind::Null => "null",
    }
    .to_string()
}

pub(super) fn literal(l: &Lit) -> String {
    match l {
        Lit::Num(x) => format!("a number ({x})"),
        Lit::Str(s) => format!("a string ('{}')", cut(s, 60)),
        Lit::Bool(b) => format!("a boolean ({b})"),
        Lit::Null => "null".into(),
    }
}

pub(super) fn join_and(parts: &[String]) -> String {
    join(parts, "and")
}

pub(super) fn join_or(parts: &[String]) -> String {
    join(parts, "or")
}

pub(super) fn join(parts: &[String], word: &str) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} {word} {last}", rest.join(", ")),
    }
}
