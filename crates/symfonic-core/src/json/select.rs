//! Resolving a parsed path against the payload with the structural index:
//! a singular query walks one node at a time and, when a step misses, says
//! where it stopped; any other query is a nodelist (`eval.rs`), answered as
//! a JSON array of the nodes' original texts.

use super::eval::Eval;
use super::index::JsonIndex;
use super::path::{self, Selector};
use super::scan::{self, Kind};
use super::Selection;
use crate::display::ECHO_CHARS;

pub(crate) use super::key::push_key_label;

/// Keys listed when an object prefix is described.
const LIST_KEYS: usize = 20;
/// Longest key shown in a message or schema, in code points.
const KEY_CHARS: usize = 60;
/// Work a nodelist query may do: node visits per payload byte, plus a floor.
const STEPS_PER_BYTE: u64 = 16;
const MIN_STEPS: u64 = 1 << 20;
/// An array answer may hold this many bytes per payload byte, plus a floor
/// (`$..*` repeats each node once per ancestor).
const OUT_PER_BYTE: usize = 8;
const MIN_OUT: usize = 1 << 20;

mod compact;
mod explain;
mod locate;

pub(crate) use compact::compact_into;
pub(crate) use locate::{path_of, push_step, Step};

/// What a path resolved to: byte offsets of values in the payload.
#[derive(Debug, PartialEq, Eq)]
pub enum Resolved {
    /// A singular query's one node.
    Node(usize),
    /// Any other query's nodelist, in RFC 9535 order (possibly empty:
    /// a correct query that matches nothing).
    Nodes(Vec<usize>),
}

/// Resolves `path` to nodes; `Err` is the complete model-facing message: an
/// invalid path, a singular path that stops at a missing step, or a nodelist
/// that is empty because of a mistake (`explain`).
pub(crate) fn resolve(payload: &[u8], index: &JsonIndex, path: &str) -> Result<Resolved, String> {
    let query = parsed(payload, index, path)?;
    let b = payload;
    if !query.is_singular() {
        let limit = (b.len() as u64).saturating_mul(STEPS_PER_BYTE) + MIN_STEPS;
        let mut ev = Eval::new(b, index, limit);
        let traced = ev.run_traced(&query.segs, index.root());
        if ev.over {
            return Err(over(path, limit));
        }
        return match traced {
            Ok(set) => Ok(Resolved::Nodes(set)),
            Err((at, before)) => match explain::explain(b, index, path, &query.segs, at, &before) {
                Some(why) => Err(why),
                None => Ok(Resolved::Nodes(Vec::new())),
            },
        };
    }
    singular(b, index, path, &query.segs).map(Resolved::Node)
}

fn over(path: &str, limit: u64) -> String {
    format!(
        "[recall: json_path '{}' stopped: it visits more than {limit} nodes on this payload; narrow it (a name or index before '..', fewer nested filters)]",
        echo(path)
    )
}

/// The parsed query, or the message for an invalid path or an empty payload.
fn parsed(payload: &[u8], index: &JsonIndex, path: &str) -> Result<path::Query, String> {
    let query = path::parse(path).map_err(|e| {
        format!(
            "[recall: invalid json_path '{}': {}]",
            echo(path),
            e.describe(path)
        )
    })?;
    if index.root() >= payload.len() {
        return Err(format!(
            "[recall: json_path '{}' not found: the payload is empty]",
            echo(path)
        ));
    }
    Ok(query)
}

/// The node a singular query names, or where it stopped.
fn singular(b: &[u8], index: &JsonIndex, path: &str, segs: &[path::Segment]) -> Result<usize, String> {
    let mut node = index.root();
    let mut shown = String::new();
    // Every step must resolve, or the model is told where it stopped.
    let mut i = 0;
    while let Some(seg) = segs.get(i) {
        match step(index, b, node, &seg.sels[0]) {
            Some((v, label)) => {
                node = v;
                push_label(&mut shown, label);
                i += 1;
            }
            None => match dotted_key(index, b, node, path, &segs[i..]) {
                Some((v, key, used)) => {
                    node = v;
                    push_key_label(&mut shown, &key);
                    i += used;
                }
                None => return Err(not_found(path, &shown, index, b, node, &seg.sels[0])),
            },
        }
    }
    if node >= b.len() {
        return Err(format!("[recall: json_path '{}' not found]", echo(path)));
    }
    Ok(node)
}

/// The original text a path selects (the raw form of `resolve`'s answer;
/// a nodelist that selects nothing is `[]`, whatever the reason).
pub(crate) fn select<'a>(payload: &'a [u8], index: &JsonIndex, path: &str) -> Result<Selection<'a>, String> {
    let query = parsed(payload, index, path)?;
    let b = payload;
    if !query.is_singular() {
        return many(b, index, path, &query.segs);
    }
    let node = singular(b, index, path, &query.segs)?;
    let end = index.value_end(b, node);
    payload
        .get(node..end)
        .map(Selection::Node)
        .ok_or_else(|| format!("[recall: json_path '{}' not found]", echo(path)))
}

/// A nodelist query's answer: `[node,node,…]`, each node its original text.
fn many<'a>(
    b: &'a [u8],
    index: &JsonIndex,
    path: &str,
    segs: &[path::Segment],
) -> Result<Selection<'a>, String> {
    let limit = (b.len() as u64).saturating_mul(STEPS_PER_BYTE) + MIN_STEPS;
    let mut ev = Eval::new(b, index, limit);
    let set = ev.run(segs, index.root());
    if ev.over {
        return Err(over(path, limit));
    }
    let cap = b.len().saturating_mul(OUT_PER_BYTE) + MIN_OUT;
    let mut out = Vec::with_capacity(2 + set.len() * 8);
    out.push(b'[');
    for (i, &n) in set.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let end = index.value_end(b, n);
        out.extend_from_slice(b.get(n..end).unwrap_or(b"null"));
        if out.len() > cap {
            return Err(format!(
                "[recall: json_path '{}' selects {} nodes, more than {} MB of text; narrow it]",
                echo(path),
                set.len(),
                cap >> 20
            ));
        }
    }
    out.push(b']');
    Ok(Selection::Many(out))
}

/// A key with dots written in dotted form (`$.GPL-3.0-only.name`, read as
/// `.GPL-3` then `.0-only`): where the names of `segs` from the first, joined
/// by `.`, name a member of the object at `node` and the path spells them
/// so, that member, its key and the segments it took. Only tried where the
/// segment-by-segment reading found nothing, so it never changes an answer.
fn dotted_key(
    index: &JsonIndex,
    b: &[u8],
    node: usize,
    path: &str,
    segs: &[path::Segment],
) -> Option<(usize, String, usize)> {
    if b.get(node) != Some(&b'{') {
        return None;
    }
    let mut key = String::new();
    for (n, seg) in segs.iter().enumerate() {
        let (false, [Selector::Name(k) | Selector::KeyOrIndex(k, _)]) = (seg.descendant, seg.sels.as_slice())
        else {
            return None;
        };
        if n > 0 {
            key.push('.');
        }
        key.push_str(k);
        if n > 0 && path.contains(key.as_str()) {
            if let Some(v) = index.lookup_key(b, node, &key) {
                return Some((v, key, n + 1));
            }
        }
    }
    None
}

/// How a resolved step is shown in a prefix.
enum Label<'s> {
    Key(&'s str),
    Index(usize),
}

fn push_label(shown: &mut String, label: Label<'_>) {
    match label {
        Label::Index(i) => {
            shown.push('[');
            shown.push_str(&i.to_string());
            shown.push(']');
        }
        Label::Key(k) => push_key_label(shown, k),
    }
}

/// Resolves one singular step from the node at `n`.
fn step<'s>(index: &JsonIndex, b: &[u8], n: usize, sel: &'s Selector) -> Option<(usize, Label<'s>)> {
    match (b.get(n)?, sel) {
        (b'{', Selector::Name(k) | Selector::KeyOrIndex(k, _)) => {
            index.lookup_key(b, n, k).map(|v| (v, Label::Key(k)))
        }
        (b'[', Selector::Index(i) | Selector::KeyOrIndex(_, i)) => {
            let i = if *i < 0 {
                let len = index.child_count(b, n) as i64;
                usize::try_from(len + *i).ok()?
            } else {
                usize::try_from(*i).ok()?
            };
            let child = index.children_from(b, n, i).next_child()?;
            Some((child.value, Label::Index(i)))
        }
        _ => None,
    }
}

fn not_found(path: &str, shown: &str, index: &JsonIndex, b: &[u8], node: usize, sel: &Selector) -> String {
    // The prefix as an RFC 9535 path: `$`, then `.key`, `['key']` or `[i]` segments.
    let shown = format!("${}", cut(shown, ECHO_CHARS));
    let hint = match (sel, b.get(node)) {
        (Selector::Name(k) | Selector::KeyOrIndex(k, _), Some(b'{')) => explain::near_key(index, b, node, k)
            .map_or(String::new(), |n| {
                format!(" (did you mean '{}'?)", cut(&n, KEY_CHARS))
            }),
        _ => String::new(),
    };
    format!(
        "[recall: json_path '{}' not found: '{}' {}{hint}]",
        echo(path),
        shown,
        describe(index, b, node)
    )
}

/// What is at `node`, for a not-found message.
fn describe(index: &JsonIndex, b: &[u8], node: usize) -> String {
    let Some(&c) = b.get(node) else {
        return "is missing".to_string();
    };
    match Kind::of(c) {
        Kind::Object => {
            let (count, keys) = key_list(index, b, node, LIST_KEYS, KEY_CHARS);
            let noun = if count == 1 { "key" } else { "keys" };
            format!("is an object with {count} {noun} [{keys}]")
        }
        Kind::Array => format!("is an array of length {}", index.child_count(b, node)),
        Kind::Str => "is a string".to_string(),
        Kind::Num => "is a number".to_string(),
        Kind::Bool => "is a boolean".to_string(),
        Kind::Null => "is null".to_string(),
    }
}

/// The path as echoed in messages: at most `ECHO_CHARS` code points.
fn echo(path: &str) -> String {
    cut(path, ECHO_CHARS)
}

/// `(number of keys, "k1,k2,...")`: the first `n` keys of the object at
/// `node`, decoded and cut to `key_chars`, then `,...` when there are more.
pub(crate) fn key_list(
    index: &JsonIndex,
    b: &[u8],
    node: usize,
    n: usize,
    key_chars: usize,
) -> (usize, String) {
    let count = index.child_count(b, node);
    let mut cur = index.children_from(b, node, 0);
    let mut keys = Vec::new();
    while keys.len() < n {
        let Some(m) = cur.next_child() else { break };
        keys.push(cut(&scan::decode(m.key_raw(b)), key_chars));
    }
    let more = if count > keys.len() { ",..." } else { "" };
    (count, format!("{}{more}", keys.join(",")))
}

/// At most `max` code points of `s`, with `...` when cut; control characters
/// (and U+2028/U+2029, line breaks to JS) become spaces, so a key never breaks a line.
pub(crate) fn cut(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .take(max)
        .map(|c| {
            if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
                ' '
            } else {
                c
            }
        })
        .collect();
    if s.chars().nth(max).is_some() {
        out.push_str("...");
    }
    out
}
