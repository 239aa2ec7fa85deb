//! Resolving a parsed path against the payload with the structural index.

use super::index::JsonIndex;
use super::path::{self, Seg};
use super::scan::{self, Kind};
use super::Selection;

pub(crate) use super::key::push_key_label;

/// Slices with a larger step seek each element instead of walking them all.
const SEEK_STEP: u64 = 8;
/// Longest path echoed back in a message, in code points.
const ECHO_CHARS: usize = 200;
/// Keys listed when an object prefix is described.
const LIST_KEYS: usize = 20;
/// Longest key shown in a message or schema, in code points.
const KEY_CHARS: usize = 60;

pub(crate) fn select<'a>(payload: &'a [u8], index: &JsonIndex, path: &str) -> Result<Selection<'a>, String> {
    let segs =
        path::parse(path).map_err(|why| format!("[recall: invalid json_path '{}': {why}]", echo(path)))?;
    let b = payload;
    let root = index.root();
    if root >= b.len() {
        return Err(format!(
            "[recall: json_path '{}' not found: the payload is empty]",
            echo(path)
        ));
    }
    let mut node = root;
    let mut shown = String::new();
    let mut k = 0;
    // Single-node phase: every step must resolve, or the model is told where it stopped.
    while k < segs.len() && !segs[k].branches() {
        match step(index, b, node, &segs[k]) {
            Some((v, label)) => {
                node = v;
                push_label(&mut shown, label);
            }
            None => return Err(not_found(path, &shown, index, b, node)),
        }
        k += 1;
    }
    if k == segs.len() {
        let end = index.value_end(b, node);
        return payload
            .get(node..end)
            .map(Selection::Node)
            .ok_or_else(|| format!("[recall: json_path '{}' not found]", echo(path)));
    }
    // The first branching step applies to a single node: a scalar (or a slice
    // of an object) there is an error worth reporting, later ones are skipped.
    let first_kind = Kind::of(b.get(node).copied().unwrap_or(b'n'));
    let applicable = match &segs[k] {
        Seg::Wild => matches!(first_kind, Kind::Object | Kind::Array),
        _ => first_kind == Kind::Array,
    };
    if !applicable {
        return Err(not_found(path, &shown, index, b, node));
    }
    let mut set = vec![node];
    for seg in &segs[k..] {
        let mut next = Vec::new();
        for &n in &set {
            expand(index, b, n, seg, &mut next);
        }
        set = next;
        if set.is_empty() {
            break;
        }
    }
    let mut out = Vec::with_capacity(2 + set.len() * 8);
    out.push(b'[');
    for (i, &n) in set.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let end = index.value_end(b, n);
        out.extend_from_slice(payload.get(n..end).unwrap_or(b"null"));
    }
    out.push(b']');
    Ok(Selection::Many(out))
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

/// Resolves one non-branching step from the node at `n`.
fn step<'s>(index: &JsonIndex, b: &[u8], n: usize, seg: &'s Seg) -> Option<(usize, Label<'s>)> {
    match (b.get(n)?, seg) {
        (b'{', Seg::Key(k) | Seg::KeyOrIndex(k, _)) => index.lookup_key(b, n, k).map(|v| (v, Label::Key(k))),
        (b'[', Seg::KeyOrIndex(_, i)) => {
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

/// Appends to `out` what `seg` selects from the node at `n` (nothing when it does not apply).
fn expand(index: &JsonIndex, b: &[u8], n: usize, seg: &Seg, out: &mut Vec<usize>) {
    match seg {
        Seg::Wild => {
            if matches!(b.get(n), Some(b'{' | b'[')) {
                let mut cur = index.children_from(b, n, 0);
                while let Some(c) = cur.next_child() {
                    out.push(c.value);
                }
            }
        }
        Seg::Slice(start, stop, step) => {
            if b.get(n) != Some(&b'[') {
                return;
            }
            let len = index.child_count(b, n) as i64;
            let (lo, hi, step) = (*start, *stop, *step);
            // Python's bounds: the range of indices [from, to) walked by `step`.
            let (from, to) = if step > 0 {
                (
                    clamp_bound(lo.unwrap_or(0), len, 0, len),
                    clamp_bound(hi.unwrap_or(len), len, 0, len),
                )
            } else {
                (
                    lo.map_or(len - 1, |v| clamp_bound(v, len, -1, len - 1)),
                    hi.map_or(-1, |v| clamp_bound(v, len, -1, len - 1)),
                )
            };
            let count = if step > 0 {
                ((to - from).max(0) as u64).div_ceil(step as u64) as i64
            } else {
                let stride = step.checked_neg().unwrap_or(i64::MAX);
                ((from - to).max(0) as u64).div_ceil(stride as u64) as i64
            };
            if count == 0 {
                return;
            }
            let picks = (0..count).map(|k| from + k * step);
            if step.unsigned_abs() > SEEK_STEP {
                // Sparse picks: seek each through the index instead of walking every element.
                for i in picks {
                    if let Some(c) = index.children_from(b, n, i as usize).next_child() {
                        out.push(c.value);
                    }
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
            for i in picks {
                if let Some(&v) = values.get((i - first) as usize) {
                    out.push(v);
                }
            }
        }
        other => {
            if let Some((v, _)) = step(index, b, n, other) {
                out.push(v);
            }
        }
    }
}

/// Python's slice-bound normalisation: negatives count from the end, then clamp.
fn clamp_bound(v: i64, len: i64, lo: i64, hi: i64) -> i64 {
    let v = if v < 0 { v.saturating_add(len) } else { v };
    v.clamp(lo, hi)
}

fn not_found(path: &str, shown: &str, index: &JsonIndex, b: &[u8], node: usize) -> String {
    // The prefix as an RFC 9535 path: `$`, then `.key`, `['key']` or `[i]` segments.
    let shown = format!("${}", cut(shown, ECHO_CHARS));
    format!(
        "[recall: json_path '{}' not found: '{}' {}]",
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
