//! A hash's fields as the scripts answer them, read into pairs and an entry.

use redis::Value;

use super::super::row::{Pairs, Row};
use super::super::{Lookup, StoreError};
use crate::clock::{expired, now_ms};

/// The entry in a hash's fields (checked by [`row`](super::super::row), its payload decoded),
/// or `Expired` once expired.
pub(super) fn entry_of(namespace: &str, mem_id: &str, fields: Pairs) -> Result<Lookup, StoreError> {
    let row = Row::from_pairs("get", fields)?;
    if expired(row.expires_at(), now_ms()) {
        return Ok(Lookup::Expired);
    }
    row.open("get", namespace, mem_id)
        .map(|e| Lookup::Found(Box::new(e)))
}

/// A hash's fields as a script answers them: name, value, name, value...
pub(super) fn pairs(
    op: &'static str,
    items: impl ExactSizeIterator<Item = Value>,
) -> Result<Pairs, StoreError> {
    let bad = || StoreError::new(op, format!("unexpected answer from the {op} script"));
    if !items.len().is_multiple_of(2) {
        return Err(bad());
    }
    let mut out = Vec::with_capacity(items.len() / 2);
    let mut items = items;
    while let (Some(k), Some(v)) = (items.next(), items.next()) {
        out.push((into_bytes(k).ok_or_else(bad)?, into_bytes(v).ok_or_else(bad)?));
    }
    Ok(out)
}

fn into_bytes(v: Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b),
        other => bytes_of(&other),
    }
}

pub(super) fn bytes_of(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b.clone()),
        Value::SimpleString(s) => Some(s.as_bytes().to_vec()),
        Value::Int(i) => Some(i.to_string().into_bytes()),
        _ => None,
    }
}
