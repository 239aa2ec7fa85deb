//! The Redis store (`redis://` / `rediss://`): one Redis (or Valkey), or one
//! Redis Cluster, that several processes, on several hosts, share.
//!
//! Runtime: the `redis` crate's async clients, driven on the crate's runtime
//! (`crate::runtime`): every operation is a future bounded by its call's
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
//! (`call`, `tool`, `size`, `summary`, `schema`, `preview`, `stub`), the
//! payload (`p`, encoded by [`codec`](super::codec) like the SQLite store's,
//! with `codec`, `len` and `wtf8`, the payload's form), `seal` and `exp` (Unix ms, absent for
//! never); [`row`] writes and checks them. Expiry is Redis's own
//! (`PEXPIREAT`), and `exp` is checked on read too, against this process's
//! clock, as the SQLite store does.
//!
//! Atomicity: `put` is one Lua script on the entry's key and its index:
//! insert if absent, refresh the expiry if the same fields are there, else
//! answer the row as it is. That row is judged here ([`row::judge`]): the
//! same result written otherwise gets its expiry refreshed, another result
//! is a collision, and a row that cannot be read is replaced by the same
//! script, only if it is still exactly as read. Two processes recording one
//! id are serialised by Redis; neither overwrites the other's sound entry.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use redis::Value;

use super::row::{self, Found, Pairs, Row};
use super::{warn_once, Lookup, NewEntry, PutOutcome, Store, StoreError, StoreFuture};
use crate::clock::{expired, now_ms};
use crate::runtime::{cpu, Deadline, Lane};

mod connect;
mod scripts;
mod spec;
pub use connect::CONNECT_TIMEOUT;
use connect::{failure, Conn, Settings};
use fields::{bytes_of, entry_of, pairs};
pub(crate) use keys::encode_namespace;
use scripts::{DELETE_SCRIPT, GET_SCRIPT, PUT_SCRIPT, TOUCH_SCRIPT};
pub use spec::{redact, RedisSpec};
mod clear;
mod fields;
mod keys;

/// The key prefix when the URL names none.
pub const DEFAULT_PREFIX: &str = "symfonic:";
/// How many times `put` runs its script on a row that other processes keep
/// changing under it before it gives up (a repair takes two).
const PUT_ROUNDS: usize = 4;

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
        let entry = Arc::new(entry);
        // The row to replace, as last read, when it could not be read (`None`
        // inside: a key that held no hash).
        let mut replace: Option<Option<Pairs>> = None;
        // Whether the row replaced had only expired (then it is an insert).
        let mut only_expired = false;
        for _ in 0..PUT_ROUNDS {
            let mut inv = PUT_SCRIPT.prepare_invoke();
            inv.key(&key)
                .key(&index)
                .arg(&exp)
                .arg(now_ms())
                .arg(&entry.handle.mem_id);
            match replace.take() {
                None => inv.arg(0),
                Some(None) => inv.arg(-1),
                Some(Some(guard)) => {
                    inv.arg(guard.len() * 2);
                    for (name, value) in guard {
                        inv.arg(name).arg(value);
                    }
                    &mut inv
                }
            };
            for (name, value) in row::redis_fields(&entry) {
                inv.arg(name).arg(value.as_ref());
            }
            let answer: Vec<Value> = self.bounded("put", deadline, inv.invoke_async(&mut c)).await?;
            let mut answer = answer.into_iter();
            match answer.next() {
                Some(Value::Int(0)) => return Ok(PutOutcome::Inserted),
                Some(Value::Int(1)) => return Ok(PutOutcome::Existing),
                Some(Value::Int(2)) => {}
                Some(Value::Int(3)) if only_expired => return Ok(PutOutcome::Inserted),
                Some(Value::Int(3)) => return Ok(PutOutcome::Repaired),
                // Changed since it was read: judge it again.
                Some(Value::Int(4)) => continue,
                Some(Value::Int(5)) => {
                    replace = Some(None);
                    continue;
                }
                _ => {
                    return Err(StoreError::unknown(
                        "put",
                        "unexpected answer from the put script",
                    ))
                }
            }
            let seen = pairs("put", answer)?;
            // Judging decodes the stored payload: CPU work, off the runtime's workers.
            let new = entry.clone();
            let (found, expired_only, seen) = cpu(Lane::Record, deadline, move || {
                let decoded = Row::from_pairs("put", seen.clone());
                // An expired row is free for another result, as no row would be.
                let expired_only = decoded.as_ref().is_ok_and(|r| expired(r.expires_at(), now_ms()));
                let found = match decoded {
                    _ if expired_only => Found::Unreadable("expired".into()),
                    other => row::judge(other, &new),
                };
                (found, expired_only, seen)
            })
            .await
            .ok_or_else(|| StoreError::timeout("put", &self.shown, &deadline, false))?;
            only_expired = expired_only;
            match found {
                Found::Different => return Ok(PutOutcome::Collision),
                Found::Unreadable(_) => replace = Some(Some(seen)),
                Found::Same => {
                    // The same result written otherwise (another codec, another
                    // preview length): kept, its expiry refreshed.
                    let stored = seen.into_iter().find(|(n, _)| n == b"p").map(|(_, v)| v);
                    let mut inv = TOUCH_SCRIPT.prepare_invoke();
                    inv.key(&key)
                        .key(&index)
                        .arg(stored.unwrap_or_default())
                        .arg(&exp)
                        .arg(&entry.handle.mem_id);
                    let done: i64 = self.bounded("put", deadline, inv.invoke_async(&mut c)).await?;
                    if done == 1 {
                        return Ok(PutOutcome::Existing);
                    }
                }
            }
            // Again: to replace the row as read, or because it changed meanwhile
            // (deleted, replaced, repaired by another process).
        }
        // Every round that wrote has returned: nothing was written.
        Err(StoreError::new(
            "put",
            format!("{}: the entry kept changing while it was recorded", self.shown),
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
                    return Ok(Lookup::Expired);
                }
                // What is known, in words for the model: no address, no policy name.
                let s = &self.settings;
                let may_evict = s.evicts_any() || (s.evicts_expiring() && !score.contains("inf"));
                return Ok(Lookup::Evicted(
                    match (s.policy_known, may_evict) {
                        (true, false) => "something other than this ledger deleted it (the store does not evict entries)",
                        (true, true) => "the store evicted it when it was full, or something other than this ledger deleted it",
                        (false, _) => "the store evicted it, or something other than this ledger deleted it",
                    }
                    .to_string(),
                ));
            }
        };
        let fields = pairs("get", flat.into_iter())?;
        // Decoding a payload is CPU work: off the runtime's workers.
        cpu(Lane::Read, deadline, move || {
            entry_of(&namespace, &mem_id, fields)
        })
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
