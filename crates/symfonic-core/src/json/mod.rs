//! JSON: validation, the stub's schema/shape, the structural index and json paths.
//! The engine: plain Rust, no napi types, covered by `cargo test`.
//!
//! `analyze` makes one iterative pass over the payload that both validates it
//! and records where its big containers are (`index`); `select` walks a path
//! with that index, scanning only a few hundred bytes per step, and returns
//! slices of the original text. Nothing recurses on the payload's nesting.

mod descend;
mod eval;
mod index;
mod iregexp;
mod key;
pub(crate) mod path;
mod scan;
mod schema;
mod select;

pub use index::JsonIndex;

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

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
