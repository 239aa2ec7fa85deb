//! The statements each operation runs on its connection: put, get, delete,
//! clear and sweep, and a selected row read into a [`Row`] whatever its columns hold.

use std::sync::LazyLock;

use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::super::row::{self, Col, Field, Found, Row};
use super::super::{Lookup, NewEntry, PutOutcome, StoreError};
use super::err;
use crate::clock::{expired, now_ms};
use crate::runtime::Deadline;

/// A row's fields, in `row::Col::ALL`'s order.
static SELECT: LazyLock<String> = LazyLock::new(|| {
    let cols: Vec<&str> = Col::ALL.iter().map(|c| c.sqlite()).collect();
    format!(
        "SELECT {} FROM entries WHERE namespace = ?1 AND mem_id = ?2",
        cols.join(", ")
    )
});

/// A selected row (`SELECT`'s columns) as `row` decodes it, whatever types
/// its columns hold.
fn stored_row(op: &'static str, r: &rusqlite::Row<'_>) -> rusqlite::Result<Result<Row, StoreError>> {
    let mut fields = Vec::with_capacity(Col::ALL.len());
    for i in 0..Col::ALL.len() {
        fields.push(match r.get_ref(i)? {
            ValueRef::Null => Field::Null,
            ValueRef::Integer(n) => Field::Int(n),
            ValueRef::Real(x) => Field::Real(x),
            ValueRef::Text(b) | ValueRef::Blob(b) => Field::Bytes(b.to_vec()),
        });
    }
    Ok(Row::decode(op, |col| {
        std::mem::replace(&mut fields[col.index()], Field::Null)
    }))
}

fn to_i64(op: &'static str, x: u64) -> Result<i64, StoreError> {
    i64::try_from(x).map_err(|_| StoreError::new(op, format!("{x} does not fit an INTEGER")))
}

/// Puts `entry` in one `BEGIN IMMEDIATE` transaction (see [`Store::put`]).
pub(super) fn put_row(
    c: &mut Connection,
    shown: &str,
    entry: &NewEntry,
    deadline: Deadline,
) -> Result<PutOutcome, StoreError> {
    let put = err("put", shown, deadline);
    let h = &entry.handle;
    let content = entry.bytes();
    let expires_at = entry.expires_at.map(|t| to_i64("put", t)).transpose()?;
    let tx = c
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(&put)?;
    let existing = tx
        .query_row(&SELECT, params![h.namespace, h.mem_id], |r| stored_row("put", r))
        .optional()
        .map_err(&put)?;
    let now = now_ms();
    let mut outcome = PutOutcome::Inserted;
    if let Some(found) = existing {
        // An expired row is free for another result, as no row would be.
        if !found.as_ref().is_ok_and(|r| expired(r.expires_at(), now)) {
            match row::judge(found, entry) {
                Found::Same => {
                    tx.execute(
                        "UPDATE entries SET expires_at = ?3 WHERE namespace = ?1 AND mem_id = ?2",
                        params![h.namespace, h.mem_id, expires_at],
                    )
                    .map_err(&put)?;
                    tx.commit().map_err(&put)?;
                    return Ok(PutOutcome::Existing);
                }
                // The transaction rolls back on drop.
                Found::Different => return Ok(PutOutcome::Collision),
                Found::Unreadable(_) => outcome = PutOutcome::Repaired,
            }
        }
    }
    tx.execute(
        "INSERT OR REPLACE INTO entries (namespace, mem_id, tool_call_id, tool_name, size_chars,
           summary, schema, preview, stub, wtf8, codec, raw_len, created_at, expires_at, payload, seal)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        params![
            h.namespace,
            h.mem_id,
            h.tool_call_id,
            h.tool_name,
            h.size_chars as i64,
            h.summary,
            h.schema,
            h.preview,
            h.stub,
            i64::from(entry.form.code()),
            entry.codec,
            content.len() as i64,
            to_i64("put", now)?,
            expires_at,
            &entry.stored[..],
            entry.seal,
        ],
    )
    .map_err(&put)?;
    tx.commit().map_err(&put)?;
    Ok(outcome)
}

/// The live row under the key, its payload decoded.
pub(super) fn get_row(
    c: &mut Connection,
    shown: &str,
    namespace: &str,
    mem_id: &str,
    deadline: Deadline,
) -> Result<Lookup, StoreError> {
    let row = c
        .prepare_cached(&SELECT)
        .and_then(|mut s| {
            s.query_row(params![namespace, mem_id], |r| stored_row("get", r))
                .optional()
        })
        .map_err(err("get", shown, deadline))?;
    let Some(row) = row.transpose()? else {
        return Ok(Lookup::Missing);
    };
    if expired(row.expires_at(), now_ms()) {
        return Ok(Lookup::Expired);
    }
    row.open("get", namespace, mem_id)
        .map(|e| Lookup::Found(Box::new(e)))
}

pub(super) fn delete_row(
    c: &mut Connection,
    shown: &str,
    namespace: &str,
    mem_id: &str,
    deadline: Deadline,
) -> Result<bool, StoreError> {
    let del = err("delete", shown, deadline);
    let now = to_i64("delete", now_ms())?;
    let tx = c
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(&del)?;
    let live = tx
        .execute(
            "DELETE FROM entries WHERE namespace = ?1 AND mem_id = ?2
               AND (expires_at IS NULL OR expires_at > ?3)",
            params![namespace, mem_id, now],
        )
        .map_err(&del)?;
    tx.execute(
        "DELETE FROM entries WHERE namespace = ?1 AND mem_id = ?2",
        params![namespace, mem_id],
    )
    .map_err(&del)?;
    tx.commit().map_err(&del)?;
    Ok(live > 0)
}

pub(super) fn clear_rows(
    c: &mut Connection,
    shown: &str,
    namespace: Option<&str>,
    deadline: Deadline,
) -> Result<usize, StoreError> {
    let clear = err("clear", shown, deadline);
    let now = to_i64("clear", now_ms())?;
    let tx = c
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(&clear)?;
    let live = tx
        .execute(
            "DELETE FROM entries WHERE (?1 IS NULL OR namespace = ?1)
               AND (expires_at IS NULL OR expires_at > ?2)",
            params![namespace, now],
        )
        .map_err(&clear)?;
    tx.execute(
        "DELETE FROM entries WHERE ?1 IS NULL OR namespace = ?1",
        params![namespace],
    )
    .map_err(&clear)?;
    tx.commit().map_err(&clear)?;
    Ok(live)
}

pub(super) fn sweep_rows(c: &mut Connection, shown: &str, deadline: Deadline) -> Result<usize, StoreError> {
    let now = to_i64("sweep", now_ms())?;
    c.execute(
        "DELETE FROM entries WHERE expires_at IS NOT NULL AND expires_at <= ?1",
        params![now],
    )
    .map_err(err("sweep", shown, deadline))
}
