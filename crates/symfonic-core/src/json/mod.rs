//! JSON: validation, the stub's schema/shape, the structural index and json paths.
//! The engine: plain Rust, no napi types, covered by `cargo test`.
//!
//! `analyze` makes one iterative pass over the payload that both validates it
//! and records where its big containers are (`index`); `select` walks a path
//! with that index, scanning only a few hundred bytes per step, and returns
//! slices of the original text. Nothing recurses on the payload's nesting.

mod eval;
mod index;
mod key;
pub(crate) mod path;
mod scan;
mod schema;
mod select;

pub use index::JsonIndex;
pub use select::Resolved;

use crate::outline::Outline;

/// Everything the ledger keeps about a JSON payload. Built once at record time.
#[derive(Clone, Debug)]
pub struct JsonDoc {
    pub index: JsonIndex,
    /// What the stub says about the payload (see `schema`).
    pub outline: Outline,
}

/// What a json path selected, as payload bytes: nodes are cut at JSON
/// tokens, so a WTF-8 payload's lone surrogates stay whole in them.
#[derive(Debug, PartialEq, Eq)]
pub enum Selection<'a> {
    /// One node: its original text, sliced from the payload.
    Node(&'a [u8]),
    /// Wildcards/slices: a JSON array text of the selected nodes' original texts.
    Many(Vec<u8>),
}

/// `None` when `bytes` is not one JSON document. Validity is RFC 8259, what
/// `JSON.parse` accepts (numbers of any magnitude, lone `\uD800` escapes),
/// checked in the same pass that builds the index; whitespace-only is not JSON.
pub fn analyze(bytes: &[u8]) -> Option<JsonDoc> {
    analyze_with(bytes, index::PARALLEL_MIN_BYTES)
}

/// `analyze` for text the caller already holds as UTF-8 (no re-validation),
/// running `side` and `spare` beside the walk, each once, on whichever of
/// its threads is free first (see `index::build_with_side`); the ledger
/// hashes the payload in `side` and counts its code points in `spare`.
pub fn analyze_str_with<R: Send + Sync, S: Send + Sync>(
    text: &str,
    side: &(dyn Fn() -> R + Sync),
    spare: &(dyn Fn() -> S + Sync),
) -> (Option<JsonDoc>, R, S) {
    analyze_utf8(text.as_bytes(), index::PARALLEL_MIN_BYTES, side, spare)
}

fn analyze_with(bytes: &[u8], parallel_min: usize) -> Option<JsonDoc> {
    std::str::from_utf8(bytes).ok()?;
    analyze_utf8(bytes, parallel_min, &|| (), &|| ()).0
}

fn analyze_utf8<R: Send + Sync, S: Send + Sync>(
    bytes: &[u8],
    parallel_min: usize,
    side: &(dyn Fn() -> R + Sync),
    spare: &(dyn Fn() -> S + Sync),
) -> (Option<JsonDoc>, R, S) {
    if bytes.len() >= u32::MAX as usize - 64 {
        return (None, side(), spare());
    }
    let (index, r, s) = index::build_with_side(bytes, parallel_min, side, spare);
    let doc = index.map(|index| {
        let outline = schema::outline(bytes, &index);
        JsonDoc { index, outline }
    });
    (doc, r, s)
}

/// Resolves a model-supplied path against a payload that `analyze` accepted
/// (UTF-8, or WTF-8 whose display form it accepted: the same offsets).
/// `Err` is the complete model-facing message.
pub fn select<'a>(payload: &'a [u8], index: &JsonIndex, path: &str) -> Result<Selection<'a>, String> {
    select::select(payload, index, path)
}

/// Resolves a model-supplied path to nodes (byte offsets of values); `Err`
/// is the complete model-facing message, which also says why a nodelist is
/// empty when a mistake emptied it (see `select::explain`).
pub fn resolve(payload: &[u8], index: &JsonIndex, path: &str) -> Result<Resolved, String> {
    select::resolve(payload, index, path)
}

/// Whether `path` costs microseconds on this payload whatever its size: an
/// invalid path (answered by a message), or a singular query whose every
/// step is a bounded scan (an index, or a key of an object that is small or
/// has member hashes).
pub fn bounded_lookup(payload: &[u8], index: &JsonIndex, path: &str) -> bool {
    path::parse(path).map_or(true, |q| q.is_singular() && index.key_lookups_bounded(payload))
}

/// The text of the value at byte `node`, as written in the payload.
pub fn node_text<'a>(payload: &'a [u8], index: &JsonIndex, node: usize) -> &'a [u8] {
    let end = index.value_end(payload, node);
    payload.get(node..end).unwrap_or(b"null")
}

/// Appends the compact form of a JSON text (a node, or a key's literal):
/// no insignificant whitespace, printable `\uXXXX` escapes decoded.
pub fn compact_into(text: &[u8], out: &mut Vec<u8>) {
    select::compact_into(text, out)
}

/// The RFC 9535 Normalized Path of the value at byte `node` (`$['a'][0]`).
pub fn normalized_path(payload: &[u8], index: &JsonIndex, node: usize) -> String {
    select::path_of(payload, index, node)
}

/// One child of a container: its key's literal (quotes included; `None` in
/// an array), its value's position, and the Normalized Path step to it.
pub struct Member<'a> {
    pub key: Option<&'a [u8]>,
    pub value: usize,
}

/// Number of children of the container at `node` (0 for a scalar).
pub fn child_count(payload: &[u8], index: &JsonIndex, node: usize) -> usize {
    match payload.get(node) {
        Some(b'{' | b'[') => index.child_count(payload, node),
        _ => 0,
    }
}

/// The children of the container at `node`, from child `from` on.
pub fn members<'a>(
    payload: &'a [u8],
    index: &'a JsonIndex,
    node: usize,
    from: usize,
) -> impl Iterator<Item = Member<'a>> + 'a {
    let mut cur = index.children_from(payload, node, from);
    std::iter::from_fn(move || {
        let c = cur.next_child()?;
        let key = c
            .key
            .map(|k| &payload[k..scan::string_end(payload, k).min(payload.len())]);
        Some(Member { key, value: c.value })
    })
}

/// The Normalized Path step to a child: `['key']` (decoded from its literal) or `[i]`.
pub fn push_step(path: &mut String, key: Option<&[u8]>, i: usize) {
    let step = match key {
        Some(lit) => {
            select::Step::Key(scan::decode(&lit[1..lit.len().saturating_sub(1).max(1)]).into_owned())
        }
        None => select::Step::Index(i),
    };
    select::push_step(path, &step)
}

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
