//! One entry as a store holds it (a SQLite row, a Redis hash), and the one
//! place where it is encoded for writing and decoded on the way back.
//!
//! What comes back from a store is untrusted input: a damaged file, a
//! hand-edited row, another process's bug or a hostile writer to a shared
//! Redis. Every field is checked before use: integers are decimal and within
//! what a row can hold (a payload length is at most `MAX_CONTENT_BYTES`, and
//! at most what its stored bytes can expand to), codecs are known, text is
//! UTF-8, and nothing is allocated from a stored length before those checks
//! (then only fallibly). A row that fails answers a [`StoreError`] whose
//! message starts `corrupt row`; no content of a row panics or aborts.
//!
//! The payload is bound to the id by the id itself (`mem_id_for`, checked by
//! the ledger when it rebuilds the entry). The handle fields served beside it
//! (stub, summary, schema, preview, tool name, call id, size) are bound by a
//! seal: an XXH3-128 over the row's key (namespace, id) and those fields,
//! written with the row and checked on every read. Like the id, the seal is
//! a fixed, unkeyed hash: it refuses damage, edits and fields copied from
//! another entry; a writer who recomputes it can change what the stub says,
//! as one who finds a second payload for a 48-bit id could change the payload.

use std::borrow::Cow;

use xxhash_rust::xxh3::Xxh3;

use super::codec;
use super::{Form, NewEntry, StoreError, StoredEntry};
use crate::entry::{Handle, MAX_CONTENT_BYTES};
use crate::ids::mem_id_for;

/// A row's fields, in the order the SQLite store selects them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Col {
    Call,
    Tool,
    Size,
    Summary,
    Schema,
    Preview,
    Stub,
    Wtf8,
    Codec,
    Len,
    Exp,
    Payload,
    Seal,
}

impl Col {
    pub const ALL: [Col; 13] = [
        Col::Call,
        Col::Tool,
        Col::Size,
        Col::Summary,
        Col::Schema,
        Col::Preview,
        Col::Stub,
        Col::Wtf8,
        Col::Codec,
        Col::Len,
        Col::Exp,
        Col::Payload,
        Col::Seal,
    ];

    /// The field's place in [`Col::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The field's name in a Redis hash and its column in the SQLite table.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Col::Call => ("call", "tool_call_id"),
            Col::Tool => ("tool", "tool_name"),
            Col::Size => ("size", "size_chars"),
            Col::Summary => ("summary", "summary"),
            Col::Schema => ("schema", "schema"),
            Col::Preview => ("preview", "preview"),
            Col::Stub => ("stub", "stub"),
            Col::Wtf8 => ("wtf8", "wtf8"),
            Col::Codec => ("codec", "codec"),
            Col::Len => ("len", "raw_len"),
            Col::Exp => ("exp", "expires_at"),
            Col::Payload => ("p", "payload"),
            Col::Seal => ("seal", "seal"),
        }
    }

    /// The field's name in a Redis hash.
    pub fn redis(self) -> &'static str {
        self.names().0
    }

    /// The column's name in the SQLite table.
    pub fn sqlite(self) -> &'static str {
        self.names().1
    }
}

/// A Redis hash's fields as (name, value) pairs.
pub type Pairs = Vec<(Vec<u8>, Vec<u8>)>;

/// A field as a store gives it back, before any check: SQLite's dynamic
/// types (an edited column may hold any), or a Redis hash's bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum Field {
    /// NULL, or a field the hash does not have.
    Null,
    Int(i64),
    Real(f64),
    /// TEXT, BLOB, or a Redis value.
    Bytes(Vec<u8>),
}

/// A decoded row: every field well-formed, the payload still as stored.
#[derive(Debug)]
pub struct Row {
    tool_call_id: String,
    tool_name: String,
    size_chars: usize,
    summary: String,
    schema: Option<String>,
    preview: Option<String>,
    stub: String,
    form: Form,
    codec: i64,
    raw_len: usize,
    expires_at: Option<u64>,
    payload: Vec<u8>,
    seal: String,
}

fn corrupt(op: &'static str, col: Col, what: impl std::fmt::Display) -> StoreError {
    StoreError::new(op, format!("corrupt row: field '{}' {what}", col.redis()))
}

/// A non-negative integer: SQLite's INTEGER, or decimal digits (Redis).
fn uint(op: &'static str, col: Col, f: Field, max: u64) -> Result<u64, StoreError> {
    let n = match f {
        Field::Int(i) => u64::try_from(i).map_err(|_| corrupt(op, col, format_args!("is {i}")))?,
        Field::Bytes(b) => {
            let digits = std::str::from_utf8(&b)
                .ok()
                .filter(|s| !s.is_empty() && s.len() <= 20 && s.bytes().all(|c| c.is_ascii_digit()));
            match digits.and_then(|s| s.parse::<u64>().ok()) {
                Some(n) => n,
                None => return Err(corrupt(op, col, "is not a non-negative integer")),
            }
        }
        Field::Null => return Err(corrupt(op, col, "is missing")),
        Field::Real(_) => return Err(corrupt(op, col, "is not an integer")),
    };
    if n > max {
        return Err(corrupt(op, col, format_args!("is {n}, over {max}")));
    }
    Ok(n)
}

fn text(op: &'static str, col: Col, f: Field) -> Result<String, StoreError> {
    optional_text(op, col, f)?.ok_or_else(|| corrupt(op, col, "is missing"))
}

fn optional_text(op: &'static str, col: Col, f: Field) -> Result<Option<String>, StoreError> {
    match f {
        Field::Null => Ok(None),
        Field::Bytes(b) => String::from_utf8(b)
            .map(Some)
            .map_err(|_| corrupt(op, col, "is not UTF-8")),
        Field::Int(_) | Field::Real(_) => Err(corrupt(op, col, "is not text")),
    }
}

impl Row {
    /// Decodes the fields `field` gives for each column, checking each; `op`
    /// names the store operation in errors.
    pub fn decode(op: &'static str, mut field: impl FnMut(Col) -> Field) -> Result<Row, StoreError> {
        let max = MAX_CONTENT_BYTES as u64;
        let payload = match field(Col::Payload) {
            Field::Bytes(b) => b,
            Field::Null => return Err(corrupt(op, Col::Payload, "is missing")),
            _ => return Err(corrupt(op, Col::Payload, "is not bytes")),
        };
        let seal = text(op, Col::Seal, field(Col::Seal))?;
        if seal.len() != 32 || !seal.bytes().all(|c| c.is_ascii_hexdigit()) {
            return Err(corrupt(op, Col::Seal, "is not a seal"));
        }
        let expires_at = match field(Col::Exp) {
            Field::Null => None,
            f => Some(uint(op, Col::Exp, f, u64::MAX)?),
        };
        Ok(Row {
            tool_call_id: text(op, Col::Call, field(Col::Call))?,
            tool_name: text(op, Col::Tool, field(Col::Tool))?,
            size_chars: uint(op, Col::Size, field(Col::Size), max)? as usize,
            summary: text(op, Col::Summary, field(Col::Summary))?,
            schema: optional_text(op, Col::Schema, field(Col::Schema))?,
            preview: optional_text(op, Col::Preview, field(Col::Preview))?,
            stub: text(op, Col::Stub, field(Col::Stub))?,
            form: Form::of_code(uint(op, Col::Wtf8, field(Col::Wtf8), 2)?).expect("at most 2"),
            codec: match field(Col::Codec) {
                Field::Int(c) if c == codec::RAW || c == codec::ZSTD => c,
                Field::Bytes(b) if b == b"0" || b == b"1" => i64::from(b == b"1"),
                Field::Null => return Err(corrupt(op, Col::Codec, "is missing")),
                _ => return Err(corrupt(op, Col::Codec, "is not a known codec")),
            },
            raw_len: uint(op, Col::Len, field(Col::Len), max)? as usize,
            expires_at,
            payload,
            seal,
        })
    }

    /// Decodes a Redis hash given as (field, value) pairs; unknown fields are ignored.
    pub fn from_pairs(op: &'static str, pairs: Pairs) -> Result<Row, StoreError> {
        let mut slots: [Option<Vec<u8>>; 13] = Default::default();
        for (name, value) in pairs {
            if let Some(i) = Col::ALL.iter().position(|c| c.redis().as_bytes() == name) {
                slots[i] = Some(value);
            }
        }
        Row::decode(op, |col| {
            slots[col.index()].take().map_or(Field::Null, Field::Bytes)
        })
    }

    /// Unix ms after which the entry is gone; `None`: never.
    pub fn expires_at(&self) -> Option<u64> {
        self.expires_at
    }

    /// The entry under (`namespace`, `mem_id`): the seal checked against the
    /// key and the fields, then the payload decoded (within its bounds).
    pub fn open(self, op: &'static str, namespace: &str, mem_id: &str) -> Result<StoredEntry, StoreError> {
        let handle = Handle {
            mem_id: mem_id.to_string(),
            namespace: namespace.to_string(),
            tool_name: self.tool_name,
            tool_call_id: self.tool_call_id,
            size_chars: self.size_chars,
            summary: self.summary,
            schema: self.schema,
            preview: self.preview,
            stub: self.stub,
        };
        if seal(&handle, self.form) != self.seal {
            return Err(StoreError::new(
                op,
                "corrupt row: its fields do not match their seal (edited or damaged)",
            ));
        }
        let content = codec::decode(self.codec, self.payload, self.raw_len)
            .map_err(|m| StoreError::new(op, format!("corrupt row: {m}")))?;
        Ok(StoredEntry {
            handle,
            content,
            form: self.form,
            expires_at: self.expires_at,
        })
    }
}

/// The seal of a handle (whose namespace and id are the row's key) and of
/// the payload's form (its `wtf8` field: 0 and 1 as ever, 2 a block), as 32
/// lowercase hex digits. Every field is
/// length-prefixed, so no split of the same bytes into other fields has the
/// same input.
pub fn seal(h: &Handle, form: Form) -> String {
    let mut x = Xxh3::new();
    x.update(b"symfonic.row.v1\0");
    let mut put = |s: Option<&str>| match s {
        None => x.update(&[0]),
        Some(s) => {
            x.update(&[1]);
            x.update(&(s.len() as u64).to_le_bytes());
            x.update(s.as_bytes());
        }
    };
    put(Some(&h.namespace));
    put(Some(&h.mem_id));
    put(Some(&h.tool_call_id));
    put(Some(&h.tool_name));
    put(Some(&h.summary));
    put(h.schema.as_deref());
    put(h.preview.as_deref());
    put(Some(&h.stub));
    x.update(&(h.size_chars as u64).to_le_bytes());
    x.update(&[form.code()]);
    format!("{:032x}", x.digest128())
}

/// The Redis hash's fields of `entry` (without `exp`), as (name, value)
/// pairs; an absent schema or preview is no field.
pub fn redis_fields(entry: &NewEntry) -> Vec<(&'static str, Cow<'_, [u8]>)> {
    fn text(s: &str) -> Cow<'_, [u8]> {
        Cow::Borrowed(s.as_bytes())
    }
    let h = &entry.handle;
    let number = |n: usize| Cow::Owned(n.to_string().into_bytes());
    let flag = |b: bool| Cow::Borrowed(if b { &b"1"[..] } else { &b"0"[..] });
    const FORMS: [&[u8]; 3] = [b"0", b"1", b"2"];
    let mut out = vec![
        (Col::Call.redis(), text(&h.tool_call_id)),
        (Col::Tool.redis(), text(&h.tool_name)),
        (Col::Size.redis(), number(h.size_chars)),
        (Col::Summary.redis(), text(&h.summary)),
        (Col::Stub.redis(), text(&h.stub)),
        (
            Col::Wtf8.redis(),
            Cow::Borrowed(FORMS[usize::from(entry.form.code())]),
        ),
        (Col::Codec.redis(), flag(entry.codec == codec::ZSTD)),
        (Col::Len.redis(), number(entry.bytes().len())),
        (Col::Payload.redis(), Cow::Borrowed(&entry.stored[..])),
        (Col::Seal.redis(), Cow::Borrowed(entry.seal.as_bytes())),
    ];
    if let Some(s) = &h.schema {
        out.push((Col::Schema.redis(), text(s)));
    }
    if let Some(p) = &h.preview {
        out.push((Col::Preview.redis(), text(p)));
    }
    out
}

/// What a record finds under its key, once the row there is read.
#[derive(Debug, PartialEq, Eq)]
pub enum Found {
    /// The same result (call id and payload; the handle may differ, e.g.
    /// another preview length): keep it, refresh its expiry.
    Same,
    /// Another result, sound and bound to the id: a collision, nothing written.
    Different,
    /// A row that cannot be served (the reason given): the new entry, whose
    /// payload is its id's, replaces it.
    Unreadable(String),
}

/// Judges the row `existing` (as decoded) under the key of `new`.
pub fn judge(existing: Result<Row, StoreError>, new: &NewEntry) -> Found {
    let h = &new.handle;
    let stored = match existing.and_then(|r| r.open("put", &h.namespace, &h.mem_id)) {
        Ok(s) => s,
        Err(e) => return Found::Unreadable(e.message),
    };
    if stored.handle.tool_call_id == h.tool_call_id
        && stored.content == new.bytes()
        && stored.form == new.form
    {
        return Found::Same;
    }
    // A row whose payload is not its id's is damage, unless the new entry's
    // is not either (an id forced by a test): then it is a collision as well.
    let bound = |call: &str, content: &[u8]| mem_id_for(call, content) == h.mem_id;
    if bound(&h.tool_call_id, new.bytes()) && !bound(&stored.handle.tool_call_id, &stored.content) {
        return Found::Unreadable("corrupt row: its payload does not match its id".into());
    }
    Found::Different
}

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
