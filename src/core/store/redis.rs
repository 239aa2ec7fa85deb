//! The Redis store (`redis://` / `rediss://`): one Redis (or Valkey), or one
//! Redis Cluster, that several processes, on several hosts, share.
//!
//! Runtime: the `redis` crate's async clients, driven on the crate's runtime
//! (`core::runtime`): every operation is a future bounded by its call's
//! deadline, so a hung server costs each caller its bound and no thread
//! waits for it. A write whose deadline passes, or whose connection drops,
//! after it was sent has an unknown outcome (`Outcome::Unknown`): it may
//! have been applied.
//!
//! Connection (`connect`): opened with the store (a single server through a
//! reconnecting `ConnectionManager`; a cluster, found by asking the node,
//! through the crate's cluster client, which follows slots, `MOVED`/`ASK` and
//! failovers). A dropped connection is re-established on the next command.
//!
//! Layout: one hash per entry, under `{prefix}{<namespace>}:<mem_id>`
//! (`symfonic:{thread-1}:trm_0123456789ab`), and per namespace an index of
//! the ids written (`{prefix}{<namespace>}:index`, see `scripts`). The
//! namespace is the keys' hash tag, so a namespace's keys live on one
//! cluster slot and every script touches keys of one slot, named in `KEYS`.
//! `{`, `}` and `%` in a namespace are percent-encoded so the tag is always
//! the whole namespace, and the empty namespace is `%`. Fields: the handle
//! (`call`, `tool`, `size`, `summary`, `schema`, `preview`, `stub`), the payload (`p`, encoded by [`codec`] like
//! the SQLite store's, with `codec`, `len` and `wtf8`) and `exp` (Unix ms,
//! absent for never). Expiry is Redis's own (`PEXPIREAT`), and `exp` is
//! checked on read too, against this process's clock, as the SQLite store does.
//!
//! Atomicity: `put` is one Lua script on the entry's key (insert if absent,
//! else compare call id, length and stored payload bytes; refresh the expiry
//! if they are the same result, refuse otherwise). Two processes recording one
//! id are serialised by Redis; neither overwrites the other.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use redis::Value;

use super::codec;
use super::{
    expired, now_ms, warn_once, Lookup, NewEntry, PutOutcome, Store, StoreError, StoreFuture, StoredEntry,
};
use crate::core::ledger::Handle;
use crate::core::runtime::{cpu, Deadline};

mod connect;
mod scripts;
mod spec;
pub use connect::CONNECT_TIMEOUT;
use connect::{failure, Conn, Settings};
use scripts::{DELETE, DELETE_SCRIPT, GET_SCRIPT, PUT_SCRIPT, TOUCH_SCRIPT};
pub use spec::{redact, RedisSpec};

/// The key prefix when the URL names none.
pub const DEFAULT_PREFIX: &str = "symfonic:";
/// Keys asked of each `SCAN` step by `clear`.
const SCAN_COUNT: usize = 1000;

/// A namespace as written inside its key's hash tag: `%`, `{` and `}`
/// percent-encoded, so the tag is exactly the namespace. The empty namespace
/// is `%` (no other namespace encodes to it): Redis Cluster ignores an empty
/// tag `{}` and would hash an entry and its index to different slots.
fn encode_namespace(ns: &str) -> String {
    if ns.is_empty() {
        return "%".into();
    }
    let mut out = String::with_capacity(ns.len());
    for c in ns.chars() {
        match c {
            '%' => out.push_str("%25"),
            '{' => out.push_str("%7B"),
            '}' => out.push_str("%7D"),
            c => out.push(c),
        }
    }
    out
}

/// `s` with the glob characters of `SCAN MATCH` escaped.
fn glob_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The index key of the namespace `key` (an entry's key) belongs to.
fn index_of(key: &[u8]) -> Vec<u8> {
    let cut = key.iter().rposition(|&b| b == b':').unwrap_or(key.len());
    let mut out = key[..cut].to_vec();
    out.extend_from_slice(b":index");
    out
}

/// The hash tag of a key (its slot on a cluster): keys with one tag share a slot.
fn tag_of(key: &[u8]) -> &[u8] {
    let open = key.iter().position(|&b| b == b'{');
    let close = open.and_then(|o| key[o + 1..].iter().position(|&b| b == b'}').map(|c| o + 1 + c));
    match (open, close) {
        // `{}` is no tag: the whole key hashes.
        (Some(o), Some(c)) if c > o + 1 => &key[o + 1..c],
        _ => key,
    }
}

pub struct RedisStore {
    inner: Arc<Inner>,
}

struct Inner {
    conn: Conn,
    prefix: String,
    /// The URL with its password hidden, for error messages.
    shown: String,
    settings: Settings,
    closed: AtomicBool,
}

impl RedisStore {
    /// Connects to the server (or cluster) and reads its settings, by
    /// `deadline`, whose bound is also each later call's.
    pub async fn open(spec: RedisSpec, deadline: Deadline) -> Result<RedisStore, StoreError> {
        let (conn, settings) = connect::open(&spec, deadline.bound, deadline).await?;
        Ok(RedisStore {
            inner: Arc::new(Inner {
                conn,
                prefix: spec.prefix.clone(),
                shown: spec.shown(),
                settings,
                closed: AtomicBool::new(false),
            }),
        })
    }

    /// Whether the store talks to a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        self.inner.conn.is_cluster()
    }

    /// Sends `PING`; Ok once the server answers.
    pub async fn ping(&self, deadline: Deadline) -> Result<(), StoreError> {
        let mut c = self.inner.conn()?;
        let pong: String = self
            .inner
            .bounded("ping", deadline, redis::cmd("PING").query_async(&mut c))
            .await?;
        let _ = pong;
        Ok(())
    }
}

impl Inner {
    fn key(&self, namespace: &str, mem_id: &str) -> String {
        format!("{}{{{}}}:{mem_id}", self.prefix, encode_namespace(namespace))
    }

    fn index(&self, namespace: &str) -> String {
        format!("{}{{{}}}:index", self.prefix, encode_namespace(namespace))
    }

    fn conn(&self) -> Result<Conn, StoreError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(StoreError::new(
                "open",
                format!("{}: the store is closed", self.shown),
            ));
        }
        Ok(self.conn.clone())
    }

    /// `f`'s answer, a Redis error as a store error, or a timeout at `deadline`.
    async fn bounded<T>(
        &self,
        op: &'static str,
        deadline: Deadline,
        f: impl std::future::Future<Output = redis::RedisResult<T>>,
    ) -> Result<T, StoreError> {
        match deadline.within(f).await {
            Some(Ok(v)) => Ok(v),
            // The client's own timeout (a backstop at the same bound).
            Some(Err(e)) if e.is_timeout() => Err(StoreError::timeout(op, &self.shown, &deadline, true)),
            Some(Err(e)) => Err(failure(op, &self.shown, e)),
            None => Err(StoreError::timeout(op, &self.shown, &deadline, true)),
        }
    }

    /// Refuses a payload the server would not take in one command.
    fn check_size(&self, stored: usize) -> Result<(), StoreError> {
        match self.settings.max_value {
            Some(max) if stored as u64 > max => Err(StoreError::new(
                "put",
                format!(
                    "{}: the payload is {stored} bytes once compressed, more than the server takes in one command ({max} bytes: its proto-max-bulk-len or client-query-buffer-limit)",
                    self.shown
                ),
            )),
            _ => Ok(()),
        }
    }

    async fn put(self: Arc<Self>, entry: NewEntry, deadline: Deadline) -> Result<PutOutcome, StoreError> {
        let h = &entry.handle;
        self.check_size(entry.stored.len())?;
        if entry.expires_at.is_some() && self.settings.evicts_expiring() && !self.settings.evicts_any() {
            warn_once(format!(
                "@symfonic/core: Redis {} has maxmemory-policy {}: entries recorded with ttlSeconds may be evicted before their expiry when it reaches maxmemory (a recall then answers that the entry was evicted). Set maxmemory-policy noeviction to keep them.",
                self.shown,
                self.settings.policy.as_deref().unwrap_or("?")
            ));
        }
        let key = self.key(&h.namespace, &h.mem_id);
        let index = self.index(&h.namespace);
        let exp = entry.expires_at.map_or(String::new(), |t| t.to_string());
        let mut c = self.conn()?;
        // Two rounds at most: a touch that finds the entry replaced meanwhile records it afresh.
        for _ in 0..2 {
            let mut inv = PUT_SCRIPT.prepare_invoke();
            inv.key(&key)
                .key(&index)
                .arg(&h.tool_call_id)
                .arg(entry.bytes().len().to_string())
                .arg(&entry.stored[..])
                .arg(&exp)
                .arg(now_ms())
                .arg(&h.mem_id);
            let fields: [(&str, Option<String>); 8] = [
                ("tool", Some(h.tool_name.clone())),
                ("size", Some(h.size_chars.to_string())),
                ("summary", Some(h.summary.clone())),
                ("schema", h.schema.clone()),
                ("preview", h.preview.clone()),
                ("stub", Some(h.stub.clone())),
                ("wtf8", Some(if entry.wtf8 { "1" } else { "0" }.to_string())),
                ("codec", Some(entry.codec.to_string())),
            ];
            for (name, value) in fields {
                if let Some(v) = value {
                    inv.arg(name).arg(v);
                }
            }
            let answer: Vec<Value> = self.bounded("put", deadline, inv.invoke_async(&mut c)).await?;
            let status = match answer.first() {
                Some(Value::Int(i)) => *i,
                _ => {
                    return Err(StoreError::unknown(
                        "put",
                        "unexpected answer from the put script",
                    ))
                }
            };
            match status {
                0 => return Ok(PutOutcome::Inserted),
                1 => return Ok(PutOutcome::Existing),
                2 => return Ok(PutOutcome::Collision),
                3 => {}
                other => {
                    return Err(StoreError::unknown(
                        "put",
                        format!("unexpected put status {other}"),
                    ))
                }
            }
            let stored_codec = answer
                .get(1)
                .and_then(bytes_of)
                .and_then(|b| String::from_utf8(b).ok())
                .and_then(|s| s.parse::<i64>().ok())
                .ok_or_else(|| StoreError::new("put", "corrupt entry: field 'codec'"))?;
            let stored = answer
                .get(2)
                .and_then(bytes_of)
                .ok_or_else(|| StoreError::new("put", "corrupt entry: field 'p'"))?;
            // Decoding a payload is CPU work: off the runtime's workers.
            let content = entry.content.clone();
            let (same, stored) = cpu(deadline, move || {
                let raw = codec::decode(stored_codec, &stored, (*content).as_ref().len());
                (raw.map(|r| r == (*content).as_ref()), stored)
            })
            .await
            .ok_or_else(|| StoreError::timeout("put", &self.shown, &deadline, false))?;
            if !same.map_err(|m| StoreError::new("put", m))? {
                return Ok(PutOutcome::Collision);
            }
            let mut inv = TOUCH_SCRIPT.prepare_invoke();
            inv.key(&key).key(&index).arg(stored).arg(&exp).arg(&h.mem_id);
            let done: i64 = self.bounded("put", deadline, inv.invoke_async(&mut c)).await?;
            if done == 1 {
                return Ok(PutOutcome::Existing);
            }
        }
        Err(StoreError::unknown(
            "put",
            "the entry kept changing under this put",
        ))
    }

    async fn get(
        self: Arc<Self>,
        namespace: String,
        mem_id: String,
        deadline: Deadline,
    ) -> Result<Lookup, StoreError> {
        let mut c = self.conn()?;
        let mut inv = GET_SCRIPT.prepare_invoke();
        inv.key(self.key(&namespace, &mem_id))
            .key(self.index(&namespace))
            .arg(&mem_id);
        let answer: Value = self.bounded("get", deadline, inv.invoke_async(&mut c)).await?;
        let flat = match answer {
            Value::Array(items) if !items.is_empty() => items,
            Value::Nil => return Ok(Lookup::Missing),
            Value::Array(_) => return Ok(Lookup::Missing),
            score => {
                // Gone, but indexed: evicted if its expiry had not come.
                let score = bytes_of(&score)
                    .and_then(|b| String::from_utf8(b).ok())
                    .unwrap_or_default();
                let alive = match score.as_str() {
                    "inf" | "+inf" => true,
                    s => s.parse::<f64>().is_ok_and(|t| t > now_ms() as f64),
                };
                if !alive {
                    return Ok(Lookup::Missing);
                }
                return Ok(Lookup::Evicted(format!(
                    "the Redis server {} evicted it before its expiry (maxmemory-policy {})",
                    self.shown,
                    self.settings.policy.as_deref().unwrap_or("unknown")
                )));
            }
        };
        let mut fields: HashMap<String, Vec<u8>> = HashMap::with_capacity(flat.len() / 2);
        let mut it = flat.into_iter();
        while let (Some(k), Some(v)) = (it.next(), it.next()) {
            if let (Some(k), Some(v)) = (
                bytes_of(&k).and_then(|k| String::from_utf8(k).ok()),
                into_bytes(v),
            ) {
                fields.insert(k, v);
            }
        }
        // Decoding a payload is CPU work: off the runtime's workers.
        cpu(deadline, move || entry_of(&namespace, &mem_id, fields))
            .await
            .unwrap_or_else(|| Err(StoreError::timeout("get", "decoding the entry", &deadline, false)))
    }

    async fn delete(
        self: Arc<Self>,
        namespace: String,
        mem_id: String,
        deadline: Deadline,
    ) -> Result<bool, StoreError> {
        let mut c = self.conn()?;
        let mut inv = DELETE_SCRIPT.prepare_invoke();
        inv.key(self.key(&namespace, &mem_id))
            .key(self.index(&namespace))
            .arg(now_ms())
            .arg(&mem_id);
        let n: i64 = self.bounded("delete", deadline, inv.invoke_async(&mut c)).await?;
        Ok(n == 1)
    }

    /// Deletes the entries `keys` (from their indexes too); returns how many were live.
    async fn delete_entries(
        &self,
        c: &mut Conn,
        keys: &[Vec<u8>],
        deadline: Deadline,
    ) -> Result<usize, StoreError> {
        // One pipeline per hash tag: on a cluster a pipeline stays on one slot.
        let mut by_tag: BTreeMap<&[u8], redis::Pipeline> = BTreeMap::new();
        let now = now_ms();
        for k in keys {
            let pipe = by_tag.entry(tag_of(k)).or_insert_with(redis::pipe);
            let id = &k[k.iter().rposition(|&b| b == b':').map_or(0, |i| i + 1)..];
            pipe.cmd("EVAL")
                .arg(DELETE)
                .arg(2)
                .arg(k)
                .arg(index_of(k))
                .arg(now)
                .arg(id);
        }
        let mut live = 0;
        for (_, pipe) in by_tag {
            let deleted: Vec<i64> = self.bounded("clear", deadline, pipe.query_async(c)).await?;
            live += deleted.iter().filter(|&&n| n == 1).count();
        }
        Ok(live)
    }

    /// Removes the entries under one namespace's tag, or under every one, and
    /// their indexes: `SCAN MATCH` on every primary (never `KEYS`).
    async fn clear(
        self: Arc<Self>,
        namespace: Option<String>,
        deadline: Deadline,
    ) -> Result<usize, StoreError> {
        let tag = match &namespace {
            Some(ns) => format!(
                "{}{{{}}}",
                glob_escape(&self.prefix),
                glob_escape(&encode_namespace(ns))
            ),
            None => format!("{}{{*}}", glob_escape(&self.prefix)),
        };
        let mut c = self.conn()?;
        let nodes: Vec<String> = self
            .bounded("clear", deadline, c.on_each_primary(redis::cmd("PING")))
            .await?
            .into_iter()
            .map(|(node, _)| node)
            .collect();
        let mut live = 0usize;
        for (pattern, entries) in [(format!("{tag}:trm_*"), true), (format!("{tag}:index"), false)] {
            for node in &nodes {
                let mut cursor: u64 = 0;
                loop {
                    let mut cmd = redis::cmd("SCAN");
                    cmd.arg(cursor)
                        .arg("MATCH")
                        .arg(&pattern)
                        .arg("COUNT")
                        .arg(SCAN_COUNT);
                    let answer = self.bounded("clear", deadline, c.on_node(node, cmd)).await?;
                    let (next, keys): (u64, Vec<Vec<u8>>) = redis::from_redis_value(answer)
                        .map_err(|e| StoreError::new("clear", format!("{}: {e}", self.shown)))?;
                    if entries && !keys.is_empty() {
                        live += self.delete_entries(&mut c, &keys, deadline).await?;
                    } else {
                        for k in keys {
                            let del = redis::cmd("DEL").arg(k).clone();
                            let _: i64 = self.bounded("clear", deadline, del.query_async(&mut c)).await?;
                        }
                    }
                    cursor = next;
                    if cursor == 0 {
                        break;
                    }
                }
            }
        }
        Ok(live)
    }
}

/// The entry in a hash's fields (its payload decoded), or `Missing` once expired.
fn entry_of(
    namespace: &str,
    mem_id: &str,
    mut fields: HashMap<String, Vec<u8>>,
) -> Result<Lookup, StoreError> {
    let expires_at = match fields.get("exp") {
        Some(_) => Some(to_u64("get", "exp", fields.get("exp"))?),
        None => None,
    };
    if expired(expires_at, now_ms()) {
        return Ok(Lookup::Missing);
    }
    let raw_len = to_u64("get", "len", fields.get("len"))?;
    let raw_len =
        usize::try_from(raw_len).map_err(|_| StoreError::new("get", "corrupt entry: field 'len'"))?;
    let codec_id = to_u64("get", "codec", fields.get("codec"))? as i64;
    let size_chars = to_u64("get", "size", fields.get("size"))? as usize;
    let wtf8 = fields.get("wtf8").map(Vec::as_slice) == Some(b"1");
    let payload = fields
        .remove("p")
        .ok_or_else(|| StoreError::new("get", "corrupt entry: field 'p'"))?;
    let content = codec::decode(codec_id, &payload, raw_len).map_err(|m| StoreError::new("get", m))?;
    let optional = |v: Option<Vec<u8>>, name: &str| v.map(|b| to_string("get", name, Some(b))).transpose();
    Ok(Lookup::Found(Box::new(StoredEntry {
        handle: Handle {
            mem_id: mem_id.to_string(),
            namespace: namespace.to_string(),
            tool_name: to_string("get", "tool", fields.remove("tool"))?,
            tool_call_id: to_string("get", "call", fields.remove("call"))?,
            size_chars,
            summary: to_string("get", "summary", fields.remove("summary"))?,
            schema: optional(fields.remove("schema"), "schema")?,
            preview: optional(fields.remove("preview"), "preview")?,
            stub: to_string("get", "stub", fields.remove("stub"))?,
        },
        content,
        wtf8,
        expires_at,
    })))
}

fn to_u64(op: &'static str, field: &str, v: Option<&Vec<u8>>) -> Result<u64, StoreError> {
    v.and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| StoreError::new(op, format!("corrupt entry: field '{field}'")))
}

fn to_string(op: &'static str, field: &str, v: Option<Vec<u8>>) -> Result<String, StoreError> {
    v.and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| StoreError::new(op, format!("corrupt entry: field '{field}'")))
}

fn into_bytes(v: Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b),
        other => bytes_of(&other),
    }
}

fn bytes_of(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b.clone()),
        Value::SimpleString(s) => Some(s.as_bytes().to_vec()),
        Value::Int(i) => Some(i.to_string().into_bytes()),
        _ => None,
    }
}

impl Store for RedisStore {
    fn put(&self, entry: NewEntry, deadline: Deadline) -> StoreFuture<PutOutcome> {
        Box::pin(self.inner.clone().put(entry, deadline))
    }

    fn get(&self, namespace: &str, mem_id: &str, deadline: Deadline) -> StoreFuture<Lookup> {
        Box::pin(
            self.inner
                .clone()
                .get(namespace.to_string(), mem_id.to_string(), deadline),
        )
    }

    fn delete(&self, namespace: &str, mem_id: &str, deadline: Deadline) -> StoreFuture<bool> {
        Box::pin(
            self.inner
                .clone()
                .delete(namespace.to_string(), mem_id.to_string(), deadline),
        )
    }

    fn clear(&self, namespace: Option<&str>, deadline: Deadline) -> StoreFuture<usize> {
        Box::pin(self.inner.clone().clear(namespace.map(str::to_string), deadline))
    }

    /// Redis expires entries itself (`PEXPIREAT`): nothing to sweep.
    fn sweep(&self, _deadline: Deadline) -> StoreFuture<usize> {
        Box::pin(async { Ok(0) })
    }

    /// Later operations fail; the connection closes once the operations in
    /// flight (which hold clones of it) have ended.
    fn close(&self) -> StoreFuture<()> {
        self.inner.closed.store(true, Ordering::Release);
        Box::pin(async { Ok(()) })
    }
}

#[cfg(test)]
pub(crate) mod tests;
