//! TEMPORARY stand-in for `core::json` while it is being written. Not shipped.
pub struct JsonIndex;
impl JsonIndex {
    pub fn heap_bytes(&self) -> usize {
        0
    }
}
#[derive(Debug)]
pub struct JsonDoc {
    pub index: JsonIndex,
    pub schema: String,
    pub shape: String,
}
impl std::fmt::Debug for JsonIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JsonIndex")
    }
}
pub enum Selection<'a> {
    Node(&'a str),
    Many(String),
}
pub fn analyze(bytes: &[u8]) -> Option<JsonDoc> {
    let mut b = bytes.to_vec();
    simd_json::to_tape(&mut b).ok()?;
    Some(JsonDoc { index: JsonIndex, schema: "json: shim".into(), shape: format!("{} chars", bytes.len()) })
}
pub fn select<'a>(_payload: &'a str, _index: &JsonIndex, path: &str) -> Result<Selection<'a>, String> {
    Err(format!("[recall: json_path '{path}' not found]"))
}
