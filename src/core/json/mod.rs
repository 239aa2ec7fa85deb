//! JSON: validation, the stub's schema/shape, the structural index and json paths.
//! The engine: plain Rust, no napi types, covered by `cargo test`.
//!
//! `analyze` makes one iterative pass over the payload that both validates it
//! and records where its big containers are (`index`); `select` walks a path
//! with that index, scanning only a few hundred bytes per step, and returns
//! slices of the original text. Nothing recurses on the payload's nesting.

mod index;
mod path;
mod scan;
mod schema;
mod select;

pub use index::JsonIndex;

/// Everything the ledger keeps about a JSON payload. Built once at record time.
#[derive(Clone, Debug)]
pub struct JsonDoc {
    pub index: JsonIndex,
    /// The stub's `schema:` hint (at most 300 code points).
    pub schema: String,
    /// The summary's shape tail (`tabular result, …`, `object result, …`, `N chars`).
    pub shape: String,
}

/// What a json path selected.
#[derive(Debug, PartialEq, Eq)]
pub enum Selection<'a> {
    /// One node: its original text, sliced from the payload.
    Node(&'a str),
    /// Wildcards/slices: a JSON array text of the selected nodes' original texts.
    Many(String),
}

/// `None` when `bytes` is not one JSON document. Validity is RFC 8259, what
/// `JSON.parse` accepts (numbers of any magnitude, lone `\uD800` escapes),
/// checked in the same pass that builds the index; whitespace-only is not JSON.
pub fn analyze(bytes: &[u8]) -> Option<JsonDoc> {
    analyze_with(bytes, index::PARALLEL_MIN_BYTES)
}

fn analyze_with(bytes: &[u8], parallel_min: usize) -> Option<JsonDoc> {
    if bytes.len() >= u32::MAX as usize - 64 {
        return None;
    }
    std::str::from_utf8(bytes).ok()?;
    let index = index::build_with(bytes, parallel_min)?;
    let (schema, shape) = schema::describe(bytes, &index);
    Some(JsonDoc { index, schema, shape })
}

/// Resolves a model-supplied path against a payload that `analyze` accepted.
/// `Err` is the complete model-facing message.
pub fn select<'a>(payload: &'a str, index: &JsonIndex, path: &str) -> Result<Selection<'a>, String> {
    select::select(payload, index, path)
}

#[cfg(test)]
mod tests;
