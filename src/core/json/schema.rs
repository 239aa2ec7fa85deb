//! The stub's `schema:` hint and the summary's shape tail, read off the index.

use super::index::JsonIndex;
use super::scan::{self, Kind};
use super::select::{cut, key_list, push_key_label};

/// Longest schema line, in code points.
const SCHEMA_CHARS: usize = 300;
/// Top-level keys listed with kind and size.
const SCHEMA_KEYS: usize = 8;
/// Columns (keys of row 0) listed for a table.
const TABLE_COLS: usize = 5;
/// Keys listed in the summary's shape.
const SHAPE_KEYS: usize = 5;
/// Longest key shown, in code points.
const KEY_CHARS: usize = 40;
/// Members examined when looking for the largest table (bounds analyze time
/// on dict-shaped payloads with many thousands of keys).
const TABLE_SEARCH_TOP: usize = 256;
const TABLE_SEARCH_NESTED: usize = 64;

/// `(schema, shape)` for a payload that `index` was built from.
pub(crate) fn describe(b: &[u8], index: &JsonIndex) -> (String, String) {
    let root = index.root();
    let Some(&c) = b.get(root) else {
        return ("value: empty".to_string(), "0 chars".to_string());
    };
    let chars = || format!("{} chars", code_points(b));
    match Kind::of(c) {
        Kind::Array => {
            let len = index.child_count(b, root);
            let first = index.children_from(b, root, 0).next_child();
            if let Some(row0) = first.filter(|f| b.get(f.value) == Some(&b'{')) {
                let (cols, keys) = columns(b, index, row0.value);
                let schema = format!("table: rows={len} cols={cols} [{keys}]");
                (cap(schema), format!("tabular result, {len} rows / {cols} cols"))
            } else if len == 0 {
                ("array: len=0, empty".to_string(), chars())
            } else {
                let kinds = index.root_kinds();
                let of = if kinds.count_ones() == 1 {
                    Kind::from_bit(kinds).short()
                } else {
                    "mixed"
                };
                (format!("array: len={len} of {of}"), chars())
            }
        }
        Kind::Object => (cap(object_schema(b, index, root)), object_shape(b, index, root)),
        k => (format!("value: {}", k.short()), chars()),
    }
}

fn object_schema(b: &[u8], index: &JsonIndex, root: usize) -> String {
    let count = index.child_count(b, root);
    let mut parts = Vec::new();
    // (rows, label, array position) of the largest array of objects so far.
    let mut best: Option<(usize, String, usize)> = None;
    let consider = |label: &dyn Fn() -> String, v: usize, best: &mut Option<(usize, String, usize)>| {
        if b.get(v) != Some(&b'[') {
            return;
        }
        let first = index.children_from(b, v, 0).next_child();
        if first.is_some_and(|f| b.get(f.value) == Some(&b'{')) {
            let rows = index.child_count(b, v);
            if best.as_ref().is_none_or(|(r, _, _)| rows > *r) {
                *best = Some((rows, label(), v));
            }
        }
    };
    let mut cur = index.children_from(b, root, 0);
    let mut seen = 0;
    while let Some(m) = cur.next_child() {
        if seen >= TABLE_SEARCH_TOP && parts.len() >= SCHEMA_KEYS {
            break;
        }
        seen += 1;
        let key = scan::decode(m.key_raw(b));
        if parts.len() < SCHEMA_KEYS {
            parts.push(format!(
                "{}:{}",
                cut(&key, KEY_CHARS),
                kind_size(b, index, m.value)
            ));
        }
        if seen > TABLE_SEARCH_TOP {
            continue;
        }
        consider(&|| label_of(&[&key]), m.value, &mut best);
        if b.get(m.value) == Some(&b'{') {
            let mut inner = index.children_from(b, m.value, 0);
            let mut n = 0;
            while let Some(im) = inner.next_child() {
                if n >= TABLE_SEARCH_NESTED {
                    break;
                }
                n += 1;
                if b.get(im.value) == Some(&b'[') {
                    let ik = scan::decode(im.key_raw(b));
                    consider(&|| label_of(&[&key, &ik]), im.value, &mut best);
                }
            }
        }
    }
    let more = if count > parts.len() { ",..." } else { "" };
    let mut s = format!("object: keys={count} [{}{more}]", parts.join(","));
    if let Some((rows, label, v)) = best {
        let first = index.children_from(b, v, 0).next_child();
        if let Some(row0) = first {
            let (cols, keys) = columns(b, index, row0.value);
            s.push_str(&format!("; table {label}: rows={rows} cols={cols} [{keys}]"));
        }
    }
    s
}

fn object_shape(b: &[u8], index: &JsonIndex, root: usize) -> String {
    let (_, keys) = key_list(index, b, root, SHAPE_KEYS, KEY_CHARS);
    format!("object result, top-level keys [{keys}]")
}

/// `(number of keys, "k1,k2,k3,k4,k5,...")` of the object at `row`.
fn columns(b: &[u8], index: &JsonIndex, row: usize) -> (usize, String) {
    key_list(index, b, row, TABLE_COLS, KEY_CHARS)
}

fn kind_size(b: &[u8], index: &JsonIndex, v: usize) -> String {
    match b.get(v).map(|&c| Kind::of(c)) {
        Some(Kind::Array) => format!("array[{}]", index.child_count(b, v)),
        Some(Kind::Object) => format!("object{{{}}}", index.child_count(b, v)),
        Some(k) => k.short().to_string(),
        None => "null".to_string(),
    }
}

fn label_of(keys: &[&str]) -> String {
    let mut s = String::new();
    for k in keys {
        push_key_label(&mut s, k);
    }
    cut(&s, KEY_CHARS * 2)
}

fn cap(s: String) -> String {
    if s.len() <= SCHEMA_CHARS || s.chars().nth(SCHEMA_CHARS).is_none() {
        return s;
    }
    let mut out: String = s.chars().take(SCHEMA_CHARS - 3).collect();
    out.push_str("...");
    out
}

/// Unicode code points in UTF-8 text: bytes that are not continuation bytes.
pub(crate) fn code_points(b: &[u8]) -> usize {
    // Per-chunk u8 counters let the compiler vectorise the comparison.
    b.chunks(255)
        .map(|chunk| chunk.iter().fold(0u8, |n, &c| n + u8::from((c as i8) >= -0x40)) as usize)
        .sum()
}
