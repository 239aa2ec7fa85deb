//! The store below the in-memory ledger: it holds each entry's payload bytes
//! and its handle, so that a miss in memory (an evicted entry, or any entry
//! after a restart) reloads, re-indexes and answers. The ledger writes
//! through it: `record` returns only once `put` has returned.
//!
//! A backend is one module behind [`Store`]: [`sqlite`] (one file) and
//! [`redis`] (one server shared by replicas). What every backend shares lives here: the stored record,
//! the expiry clock, the payload codec, the row format and its checks ([`row`]),
//! and the error type.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::core::ledger::Handle;

pub mod codec;
pub mod redis;
pub mod row;
pub mod sqlite;

/// One entry as a store keeps it: the handle fields needed to give back the
/// identical handle and stub, and the payload bytes exactly as recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEntry {
    pub handle: Handle,
    /// UTF-8, or WTF-8 when `wtf8` is true (a JS string with lone surrogates).
    pub content: Vec<u8>,
    pub wtf8: bool,
    /// Unix time in milliseconds after which the entry is gone; `None`: never.
    pub expires_at: Option<u64>,
}

/// An entry to store, borrowed from the ledger's (the payload is not copied).
#[derive(Debug, Clone, Copy)]
pub struct NewEntry<'a> {
    pub handle: &'a Handle,
    pub content: &'a [u8],
    pub wtf8: bool,
    pub expires_at: Option<u64>,
}

/// What a `put` found under the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PutOutcome {
    /// The key was free (or held an expired entry): the entry is now stored.
    Inserted,
    /// The key held the same result (same call id, same bytes); its expiry
    /// was set to the new one.
    Existing,
    /// The key holds a different result: nothing was written.
    Collision,
    /// The key held a row that could not be served (damaged or edited, see
    /// [`row`]): the entry, whose payload is its id's, replaced it.
    Repaired,
}

/// A failed store operation (I/O, a locked or corrupt database, a payload the
/// backend cannot hold). Never a collision: that is [`PutOutcome::Collision`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError {
    /// What was being done: `open`, `put`, `get`, `delete`, `clear`, `sweep`.
    pub op: &'static str,
    pub message: String,
}

impl StoreError {
    pub fn new(op: &'static str, message: impl fmt::Display) -> Self {
        // One line: the message reaches stubs-adjacent answers and logs.
        let message = message
            .to_string()
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        StoreError { op, message }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "store {} failed: {}", self.op, self.message)
    }
}

impl std::error::Error for StoreError {}

/// A store of ledger entries keyed by (namespace, mem id). Implementations
/// are shared across the libuv pool's threads and block: the ledger calls
/// them from `AsyncTask::compute` (or from a sync method).
pub trait Store: Send + Sync {
    /// Stores `entry` unless its key holds a live entry. Atomic across every
    /// process sharing the store: of two different results under one id, one
    /// is stored and the other gets [`PutOutcome::Collision`]. Returns only
    /// once the entry is durable (as the backend defines it).
    fn put(&self, entry: NewEntry<'_>) -> Result<PutOutcome, StoreError>;
    /// The live entry under the key; an expired one is `None`.
    fn get(&self, namespace: &str, mem_id: &str) -> Result<Option<StoredEntry>, StoreError>;
    /// Removes one entry; true if a live one was there.
    fn delete(&self, namespace: &str, mem_id: &str) -> Result<bool, StoreError>;
    /// Removes the entries of one namespace, or every entry; returns how many live ones.
    fn clear(&self, namespace: Option<&str>) -> Result<usize, StoreError>;
    /// Removes expired entries; returns how many.
    fn sweep(&self) -> Result<usize, StoreError>;
}

/// How a store is named in `new Ledger({ store })`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreSpec {
    /// `sqlite:<path>`; a relative path is relative to the process's cwd.
    Sqlite(String),
    /// `redis://…` or `rediss://…` (TLS), with an optional `?prefix=`.
    Redis(redis::RedisSpec),
}

impl StoreSpec {
    /// Parses `sqlite:<path>`, `redis://…` or `rediss://…`. The error says what is accepted.
    pub fn parse(s: &str) -> Result<StoreSpec, String> {
        if s.starts_with("redis://") || s.starts_with("rediss://") {
            return redis::RedisSpec::parse(s).map(StoreSpec::Redis);
        }
        match s.split_once(':') {
            Some(("sqlite", path)) if !path.is_empty() && !path.contains('\0') => {
                if path == ":memory:" || path.starts_with("file:") {
                    return Err(format!(
                        "store '{s}' is not supported; give a file path: 'sqlite:./ledger.db'"
                    ));
                }
                Ok(StoreSpec::Sqlite(path.to_string()))
            }
            _ => Err(format!(
                "store must be 'sqlite:<path>' (e.g. 'sqlite:./ledger.db') or 'redis://host:port/db', got '{}'",
                redis::redact(s)
            )),
        }
    }

    /// Opens the store.
    pub fn open(&self) -> Result<Box<dyn Store>, StoreError> {
        match self {
            StoreSpec::Sqlite(path) => Ok(Box::new(sqlite::SqliteStore::open(path)?)),
            StoreSpec::Redis(spec) => Ok(Box::new(redis::RedisStore::open(spec)?)),
        }
    }
}

/// Now, as Unix time in milliseconds (the expiry clock every process shares).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis().min(u64::MAX as u128) as u64)
}

/// Whether an entry expiring at `expires_at` is gone at `now`.
pub fn expired(expires_at: Option<u64>, now: u64) -> bool {
    expires_at.is_some_and(|t| t <= now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_sqlite_paths_and_redis_urls() {
        assert_eq!(
            StoreSpec::parse("sqlite:./ledger.db"),
            Ok(StoreSpec::Sqlite("./ledger.db".into()))
        );
        assert_eq!(
            StoreSpec::parse("sqlite:/tmp/a:b.db"),
            Ok(StoreSpec::Sqlite("/tmp/a:b.db".into()))
        );
        assert_eq!(
            StoreSpec::parse("redis://:pw@127.0.0.1:6390/2?prefix=app%3A&protocol=resp2"),
            Ok(StoreSpec::Redis(redis::RedisSpec {
                url: "redis://:pw@127.0.0.1:6390/2?protocol=resp2".into(),
                prefix: "app:".into(),
            }))
        );
        assert_eq!(
            StoreSpec::parse("rediss://u:secret@example.com"),
            Ok(StoreSpec::Redis(redis::RedisSpec {
                url: "rediss://u:secret@example.com".into(),
                prefix: redis::DEFAULT_PREFIX.into(),
            }))
        );
        assert_eq!(redis::redact("redis://u:secret@h:1/0"), "redis://u:***@h:1/0");
        assert_eq!(redis::redact("redis://secret@h"), "redis://***@h");
        assert_eq!(redis::redact("redis://h/0?a=b@c"), "redis://h/0?a=b@c");
        for bad in [
            "",
            "sqlite:",
            "redis:localhost",
            "redis://",
            "redis://h/?prefix=a{b}",
            "./ledger.db",
            "sqlite::memory:",
            "sqlite:file:x.db",
        ] {
            assert!(StoreSpec::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn errors_are_one_line() {
        let e = StoreError::new("put", "disk\nfull");
        assert_eq!(e.to_string(), "store put failed: disk full");
    }
}

#[cfg(test)]
mod ledger_tests;
