//! The stub's account of a JSON payload (v2), read off the structural index:
//! the root, or the end of a chain of one-key wrappers with its path; the
//! largest collection below it (a table's columns counted over its rows, a
//! map's key format and its records' fields); and a path a model can copy.
//! Collections are read through a deterministic sample of at most `SAMPLE`
//! elements, so the work is bounded whatever the payload's size.

mod columns;
mod key_format;

use super::index::JsonIndex;
use super::key::{key_label, push_key_label};
use super::scan::{self, Kind};
use crate::outline::{Fact, Outline, PreviewStyle};
use columns::Columns;
use key_format::{key_format, shape_of};

/// Longest schema line, in code points; shorter when a data line follows.
const SCHEMA_CHARS: usize = 300;
const SCHEMA_WITH_DATA_CHARS: usize = 220;
/// Longest data line's content.
const DATA_CHARS: usize = 260;
/// Elements of a collection examined: all of them up to `SAMPLE`, walked;
/// past twice that, `SEEK_SAMPLE` evenly spaced ones, each reached by a seek.
const SAMPLE: usize = 2000;
const SEEK_SAMPLE: usize = 1000;
/// Members of one record examined.
const FIELDS_PER_RECORD: usize = 128;
/// Fields examined across a collection's records, about: wide records get
/// fewer of them examined, never fewer than `MIN_RECORDS`.
const FIELD_BUDGET: usize = 20_000;
const MIN_RECORDS: usize = 64;
/// Distinct columns tracked.
const MAX_COLUMNS: usize = 512;
/// An object with this many keys is a map (its keys are data, not names).
const WIDE: usize = 12;
/// A wider object that is not a map of records still lists its keys up to this many.
const NAMED_KEYS: usize = 32;
/// Longest key shown, in code points.
const KEY_CHARS: usize = 40;
/// Wrappers followed, and levels descended looking for the largest collection.
const CHAIN_DEPTH: usize = 32;
const DESCENT: usize = 6;
/// Members sized when looking for the largest child.
const MEMBERS_SIZED: usize = 256;

/// One step of a path from the root.
#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn path(steps: &[Step]) -> String {
    let mut s = String::from("$");
    for st in steps {
        match st {
            Step::Key(k) => push_key_label(&mut s, k),
            Step::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// The outline of a payload that `index` was built from.
pub(crate) fn outline(b: &[u8], index: &JsonIndex) -> Outline {
    let root = index.root();
    let Some(&c) = b.get(root) else {
        return Outline {
            shape: "JSON".into(),
            schema: "empty".into(),
            preview: PreviewStyle::Json,
            ..Outline::default()
        };
    };
    let mut steps = Vec::new();
    let mut node = root;
    for _ in 0..CHAIN_DEPTH {
        match only_child(b, index, node) {
            Some((step, v)) if is_container(b, v) => {
                steps.push(step);
                node = v;
            }
            _ => break,
        }
    }
    let prefix = if steps.is_empty() {
        String::new()
    } else {
        format!("{}: ", path(&steps))
    };
    let mut top = describe(b, index, node, &steps, SCHEMA_CHARS - prefix.chars().count());
    let below = if top.collection {
        None
    } else {
        focus(b, index, node, &steps)
    };
    if below.is_some() && prefix.chars().count() + top.text.chars().count() > SCHEMA_WITH_DATA_CHARS {
        // The data line says more than the last keys listed: it gets the room.
        top = describe(
            b,
            index,
            node,
            &steps,
            SCHEMA_WITH_DATA_CHARS - prefix.chars().count().min(120),
        );
    }
    let schema = cap(format!("{prefix}{}", top.text), SCHEMA_CHARS);
    let mut facts = Vec::new();
    let mut example = top.example;
    if let Some((fsteps, f)) = below {
        let head = format!("{}: ", path(&fsteps));
        let d = describe(
            b,
            index,
            f,
            &fsteps,
            DATA_CHARS.saturating_sub(head.chars().count()),
        );
        facts.push(Fact {
            label: "data",
            text: cap(format!("{head}{}", d.text), DATA_CHARS),
        });
        example = d.example.or(example);
    }
    let recall = example.map(|p| format!("json_path={}", json_string(&p)));
    Outline {
        shape: format!("JSON {}", Kind::of(c).short()),
        schema,
        facts,
        recall: recall.into_iter().collect(),
        preview: PreviewStyle::Json,
    }
}

/// The child of a container that has exactly one.
fn only_child(b: &[u8], index: &JsonIndex, node: usize) -> Option<(Step, usize)> {
    if !is_container(b, node) || index.child_count(b, node) != 1 {
        return None;
    }
    let c = index.children_from(b, node, 0).next_child()?;
    let step = match c.key {
        Some(_) => Step::Key(scan::decode(c.key_raw(b)).into_owned()),
        None => Step::Index(0),
    };
    Some((step, c.value))
}

fn is_container(b: &[u8], v: usize) -> bool {
    matches!(b.get(v), Some(b'{' | b'['))
}

/// A collection: an array of two or more elements, or a map.
fn is_collection(b: &[u8], index: &JsonIndex, v: usize) -> bool {
    match b.get(v) {
        Some(b'[') => index.child_count(b, v) >= 2,
        Some(b'{') => index.child_count(b, v) >= WIDE,
        _ => false,
    }
}

/// The largest collection below `node`: down through the largest container
/// child, at most `DESCENT` levels.
fn focus(b: &[u8], index: &JsonIndex, node: usize, steps: &[Step]) -> Option<(Vec<Step>, usize)> {
    let mut steps = steps.to_vec();
    let mut n = node;
    for _ in 0..DESCENT {
        let (step, v) = largest_child(b, index, n)?;
        steps.push(step);
        n = v;
        if is_collection(b, index, n) {
            break;
        }
    }
    Some((steps, n))
}

fn largest_child(b: &[u8], index: &JsonIndex, node: usize) -> Option<(Step, usize)> {
    let mut cur = index.children_from(b, node, 0);
    let mut best: Option<(usize, usize, Option<usize>, usize)> = None; // (bytes, value, key, position)
    let mut i = 0;
    while let Some(c) = cur.next_child() {
        if i >= MEMBERS_SIZED {
            break;
        }
        if is_container(b, c.value) {
            let size = index.value_end(b, c.value) - c.value;
            if best.is_none_or(|(s, ..)| size > s) {
                best = Some((size, c.value, c.key, i));
            }
        }
        i += 1;
    }
    let (_, v, key, pos) = best?;
    let step = match key {
        Some(k) => Step::Key(scan::decode(child_key(b, k)).into_owned()),
        None => Step::Index(pos),
    };
    Some((step, v))
}

/// Raw key bytes of the member whose key quote is at `k`.
fn child_key(b: &[u8], k: usize) -> &[u8] {
    let e = scan::string_end(b, k);
    b.get(k + 1..e.saturating_sub(1).max(k + 1)).unwrap_or(&[])
}

struct Described {
    text: String,
    /// A path into this node a model can copy.
    example: Option<String>,
    collection: bool,
}

/// One node in at most `budget` code points (about; `cap` has the last word).
fn describe(b: &[u8], index: &JsonIndex, node: usize, steps: &[Step], budget: usize) -> Described {
    let here = path(steps);
    match b.get(node).map(|&c| Kind::of(c)) {
        Some(Kind::Array) => describe_array(b, index, node, &here, budget),
        Some(Kind::Object) => describe_object(b, index, node, &here, budget),
        Some(k) => Described {
            text: k.short().to_string(),
            example: None,
            collection: false,
        },
        None => Described {
            text: "empty".into(),
            example: None,
            collection: false,
        },
    }
}

fn describe_array(b: &[u8], index: &JsonIndex, node: usize, here: &str, budget: usize) -> Described {
    let n = index.child_count(b, node);
    if n == 0 {
        return Described {
            text: "array[0]".into(),
            example: None,
            collection: false,
        };
    }
    let picked = sample(b, index, node, n);
    let objects: Vec<usize> = picked
        .iter()
        .map(|&(_, v)| v)
        .filter(|&v| b.get(v) == Some(&b'{'))
        .collect();
    let example = Some(format!("{here}[0]"));
    if !objects.is_empty() && objects.len() * 2 >= picked.len() {
        let cols = Columns::of(b, index, &objects);
        let sampled = if cols.records < n {
            format!(" ({} rows sampled)", cols.records)
        } else {
            String::new()
        };
        let head = format!("array[{n}] of records, {} columns{sampled}: ", cols.count());
        let list = cols.render(budget.saturating_sub(head.chars().count()));
        return Described {
            text: format!("{head}{list}"),
            example,
            collection: n >= 2,
        };
    }
    // A root array's element kinds are known from the index, over every element.
    let kinds = if node == index.root() {
        let bits = index.root_kinds();
        (0..8u8)
            .filter(|i| bits & (1 << i) != 0)
            .map(|i| Kind::from_bit(1 << i).short())
            .collect::<Vec<_>>()
            .join(",")
    } else {
        kinds(b, &picked)
    };
    Described {
        text: format!("array[{n}] of {kinds}"),
        example,
        collection: n >= 2,
    }
}

fn describe_object(b: &[u8], index: &JsonIndex, node: usize, here: &str, budget: usize) -> Described {
    let n = index.child_count(b, node);
    if n < WIDE {
        return small_object(b, index, node, n, here, budget);
    }
    let picked = sample(b, index, node, n);
    let keys: Vec<String> = picked
        .iter()
        .filter_map(|&(k, _)| k.map(|k| scan::decode(child_key(b, k)).into_owned()))
        .collect();
    let first_key = keys.first().cloned().unwrap_or_default();
    let mut first_path = here.to_string();
    push_key_label(&mut first_path, &first_key);
    let objects: Vec<usize> = picked
        .iter()
        .map(|&(_, v)| v)
        .filter(|&v| b.get(v) == Some(&b'{'))
        .collect();
    let keyed = key_format(&keys);
    if !objects.is_empty() && objects.len() * 5 >= picked.len() * 4 {
        let cols = Columns::of(b, index, &objects);
        if cols.shared() {
            let sampled = if cols.records < n {
                format!(" ({} sampled)", cols.records)
            } else {
                String::new()
            };
            let head = format!(
                "object{{{n}}} of records{keyed}; {} fields{sampled}: ",
                cols.count()
            );
            let list = cols.render(budget.saturating_sub(head.chars().count()));
            let mut example = first_path;
            if let Some(field) = cols.common() {
                push_key_label(&mut example, field);
            }
            return Described {
                text: format!("{head}{list}"),
                example: Some(example),
                collection: true,
            };
        }
    }
    // Named members (not a map's data keys): listed, and the largest followed.
    if n <= NAMED_KEYS && shape_of(&keys).is_none() {
        return small_object(b, index, node, n, here, budget);
    }
    Described {
        text: format!("object{{{n}}} of {}{keyed}", kinds(b, &picked)),
        example: Some(first_path),
        collection: true,
    }
}

/// `object{3} [a:num,b:array[2],c:object{1}]`, keys listed while they fit.
fn small_object(b: &[u8], index: &JsonIndex, node: usize, n: usize, here: &str, budget: usize) -> Described {
    let mut cur = index.children_from(b, node, 0);
    let head = format!("object{{{n}}} [");
    let mut used = head.chars().count() + 1;
    let mut parts: Vec<String> = Vec::new();
    let mut first = None;
    while let Some(m) = cur.next_child() {
        let key = scan::decode(m.key_raw(b));
        let part = format!(
            "{}:{}",
            key_label(&cut(&key, KEY_CHARS)),
            kind_size(b, index, m.value)
        );
        let left = n - parts.len() - 1;
        let reserve = if left > 0 { 12 } else { 0 };
        if used + part.chars().count() + 1 + reserve > budget {
            break;
        }
        used += part.chars().count() + 1;
        first.get_or_insert_with(|| key.into_owned());
        parts.push(part);
    }
    if parts.len() < n {
        parts.push(format!("+{} more", n - parts.len()));
    }
    let example = first.map(|k| {
        let mut p = here.to_string();
        push_key_label(&mut p, &k);
        p
    });
    Described {
        text: format!("{head}{}]", parts.join(",")),
        example,
        collection: false,
    }
}

/// `(key position, value position)` of the children at evenly spaced
/// indices (all of them up to `SAMPLE`): the same picks in any process.
fn sample(b: &[u8], index: &JsonIndex, node: usize, n: usize) -> Vec<(Option<usize>, usize)> {
    let mut out = Vec::with_capacity(n.min(SAMPLE));
    if n <= SAMPLE * 2 {
        // Walking is cheaper than seeking for a few hundred children.
        let mut cur = index.children_from(b, node, 0);
        let mut i = 0;
        let mut next_pick = 0;
        let mut k = 0;
        while let Some(c) = cur.next_child() {
            if i == next_pick {
                out.push((c.key, c.value));
                k += 1;
                next_pick = k * n / n.min(SAMPLE);
            }
            i += 1;
        }
        return out;
    }
    for k in 0..SEEK_SAMPLE {
        if let Some(c) = index.children_from(b, node, k * n / SEEK_SAMPLE).next_child() {
            out.push((c.key, c.value));
        }
    }
    out
}

/// Element kinds seen in a sample, most common first: `str`, `num,null`.
fn kinds(b: &[u8], picked: &[(Option<usize>, usize)]) -> String {
    let mut counts: Vec<(&'static str, usize)> = Vec::new();
    for &(_, v) in picked {
        let k = b.get(v).map_or("null", |&c| Kind::of(c).short());
        match counts.iter_mut().find(|(n, _)| *n == k) {
            Some((_, c)) => *c += 1,
            None => counts.push((k, 1)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(",")
}

fn kind_size(b: &[u8], index: &JsonIndex, v: usize) -> String {
    match b.get(v).map(|&c| Kind::of(c)) {
        Some(Kind::Array) => format!("array[{}]", index.child_count(b, v)),
        Some(Kind::Object) => format!("object{{{}}}", index.child_count(b, v)),
        Some(k) => k.short().to_string(),
        None => "null".to_string(),
    }
}

/// A path as a JSON string, the way a tool call's argument is written.
fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"$\"".into())
}

/// At most `max` code points of a key, with `...` when cut.
fn cut(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &s[..i]).into(),
        None => s.into(),
    }
}

fn cap(s: String, max: usize) -> String {
    if s.len() <= max || s.chars().nth(max).is_none() {
        return s;
    }
    let mut out: String = s.chars().take(max - 3).collect();
    out.push_str("...");
    out
}
