//! JSON: validation and shape (simd-json), the structural index and json paths.
//! The engine: plain Rust, no napi types, covered by `cargo test`.

mod index;
mod path;
mod scan;
mod schema;
mod select;
mod validate;

pub use index::JsonIndex;

/// Everything the ledger keeps about a JSON payload. Built once at record time.
#[derive(Debug)]
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

/// Payloads at least this large are validated on a second thread while the
/// index is built on this one.
const PARALLEL_MIN_BYTES: usize = 256 << 10;

/// `None` when `bytes` is not a JSON document (simd-json decides validity;
/// empty/whitespace-only = not JSON).
pub fn analyze(bytes: &[u8]) -> Option<JsonDoc> {
    if bytes.len() >= u32::MAX as usize - 64 {
        return None;
    }
    let (ok, index) = if bytes.len() >= PARALLEL_MIN_BYTES {
        std::thread::scope(|s| {
            match std::thread::Builder::new()
                .name("symfonic-json".into())
                .spawn_scoped(s, || validate::is_json(bytes))
            {
                Ok(h) => {
                    let index = index::build(bytes);
                    (h.join().unwrap_or(false), Some(index))
                }
                Err(_) => (validate::is_json(bytes), None),
            }
        })
    } else {
        (validate::is_json(bytes), None)
    };
    if !ok {
        return None;
    }
    let index = index.unwrap_or_else(|| index::build(bytes));
    let (schema, shape) = schema::describe(bytes, &index);
    Some(JsonDoc {
        index,
        schema,
        shape,
    })
}

/// Resolves a model-supplied path against a payload that `analyze` accepted.
/// `Err` is the complete model-facing message.
pub fn select<'a>(
    payload: &'a str,
    index: &JsonIndex,
    path: &str,
) -> Result<Selection<'a>, String> {
    select::select(payload, index, path)
}

#[cfg(test)]
mod tests;
