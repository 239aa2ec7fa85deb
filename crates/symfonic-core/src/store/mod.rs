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
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use crate::entry::Handle;
use crate::runtime::Deadline;
pub use crate::text::Form;

/// What a call on a closed ledger is told, in every answer and error.
pub const CLOSED: &str = "the ledger is closed";

pub mod codec;
pub mod redis;
pub mod row;
pub mod sqlite;

/// One entry as a store keeps it: the handle fields needed to give back the
/// identical handle and stub, and the payload bytes exactly as recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEntry {
    pub handle: Handle,
    /// UTF-8, WTF-8 (a JS string with lone surrogates), or a block's head and bytes, as `form` says.
    pub content: Vec<u8>,
    pub form: Form,
    /// Unix time in milliseconds after which the entry is gone; `None`: never.
    pub expires_at: Option<u64>,
}

/// A payload's bytes, shared with the ledger's entry (never copied to be stored).
pub type Bytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// An entry to store: its handle, its payload (to compare with what a key
/// already holds), the payload as stored (encoded by [`codec`], once,
/// before any store work) and the row's seal ([`row::seal`]).
#[derive(Clone)]
pub struct NewEntry {
    pub handle: Handle,
    pub content: Bytes,
    pub form: Form,
    pub expires_at: Option<u64>,
    /// The codec of `stored`.
    pub codec: i64,
    pub stored: Arc<Vec<u8>>,
    pub seal: String,
}

impl NewEntry {
    /// Encodes the payload and seals the handle (compression: CPU work, done
    /// by the caller's thread).
    pub fn new(handle: Handle, content: Bytes, form: Form, expires_at: Option<u64>) -> NewEntry {
        let (codec, stored) = codec::encode((*content).as_ref());
        NewEntry {
            seal: row::seal(&handle, form),
            handle,
            content,
            form,
            expires_at,
            codec,
            stored: Arc::new(stored),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        (*self.content).as_ref()
    }
}

impl fmt::Debug for NewEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NewEntry")
            .field("handle", &self.handle)
            .field("len", &self.bytes().len())
            .field("stored", &self.stored.len())
            .finish()
    }
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

/// What a `get` found under the key.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    Found(Box<StoredEntry>),
    /// Never stored, removed by `delete`/`clear`, or expired and swept.
    Missing,
    /// Stored, and its time to live has passed.
    Expired,
    /// Stored and acknowledged, not expired, and gone: the server evicted it
    /// (Redis under a `maxmemory-policy` that evicts) or another client
    /// deleted it. Says what is known, in words fit for the model.
    Evicted(String),
}

/// Whether a failed operation may have taken effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It did not (the store refused, or it never started).
    NotDone,
    /// It may have: the request may have reached the store before the answer
    /// was lost (a timeout, a connection dropped mid-request).
    Unknown,
}

/// A failed store operation (I/O, a locked or corrupt database, a payload the
/// backend cannot hold, no answer in time). Never a collision: that is
/// [`PutOutcome::Collision`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError {
    /// What was being done: `open`, `put`, `get`, `delete`, `clear`, `sweep`, `close`.
    pub op: &'static str,
    pub message: String,
    /// The call's bound passed before the store answered.
    pub timed_out: bool,
    pub outcome: Outcome,
}

impl StoreError {
    /// A failure that did not take effect.
    pub fn new(op: &'static str, message: impl fmt::Display) -> Self {
        // One line: the message reaches stubs-adjacent answers and logs.
        let message = message
            .to_string()
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        StoreError {
            op,
            message,
            timed_out: false,
            outcome: Outcome::NotDone,
        }
    }

    /// A call refused because its ledger is closed (its store released).
    pub fn closed() -> Self {
        StoreError::new("open", CLOSED)
    }

    /// A failure that may have taken effect.
    pub fn unknown(op: &'static str, message: impl fmt::Display) -> Self {
        StoreError {
            outcome: Outcome::Unknown,
            ..StoreError::new(op, message)
        }
    }

    /// No answer within the call's bound; `started`: the request may have
    /// reached the store (else it never left the queue, and did nothing).
    pub fn timeout(op: &'static str, what: impl fmt::Display, deadline: &Deadline, started: bool) -> Self {
        StoreError {
            timed_out: true,
            outcome: if started {
                Outcome::Unknown
            } else {
                Outcome::NotDone
            },
            ..StoreError::new(op, format!("{what}: no answer within {} ms", deadline.millis()))
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "store {} failed: {}", self.op, self.message)
    }
}

impl std::error::Error for StoreError {}

/// What a store operation returns: a future that owns what it needs, runs
/// on the runtime (`crate::runtime`), and ends by its deadline.
pub type StoreFuture<T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'static>>;

/// A store of ledger entries keyed by (namespace, mem id). Every operation
/// is a future bounded by its deadline: it never blocks the thread that
/// polls it (blocking work runs on threads of the store's own).
pub trait Store: Send + Sync {
    /// Stores `entry` unless its key holds a live entry. Atomic across every
    /// process sharing the store: of two different results under one id, one
    /// is stored and the other gets [`PutOutcome::Collision`]. Returns only
    /// once the entry is durable (as the backend defines it).
    fn put(&self, entry: NewEntry, deadline: Deadline) -> StoreFuture<PutOutcome>;
    /// The live entry under the key; an expired one is [`Lookup::Missing`].
    fn get(&self, namespace: &str, mem_id: &str, deadline: Deadline) -> StoreFuture<Lookup>;
    /// Removes one entry; true if a live one was there.
    fn delete(&self, namespace: &str, mem_id: &str, deadline: Deadline) -> StoreFuture<bool>;
    /// Removes the entries of one namespace, or every entry; returns how many live ones.
    fn clear(&self, namespace: Option<&str>, deadline: Deadline) -> StoreFuture<usize>;
    /// Removes expired entries; returns how many.
    fn sweep(&self, deadline: Deadline) -> StoreFuture<usize>;
    /// Releases the store (connections, threads) once the operations in
    /// flight have ended; later operations fail.
    fn close(&self) -> StoreFuture<()>;
}

/// How a store is named in `new Ledger({ store })`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreSpec {
    /// `sqlite:<path>`; a relative path is relative to the process's cwd when
    /// the store is named (`parse` makes it absolute: the store's file checks
    /// and its later connections name that file after a chdir).
    Sqlite(String),
    /// `sqlite::memory:`: a database in this process's memory, private to one ledger.
    SqliteMemory,
    /// `redis://…` or `rediss://…` (TLS), with an optional `?prefix=`; or
    /// several, the seed nodes of one Redis Cluster.
    Redis(redis::RedisSpec),
}

impl StoreSpec {
    /// Parses `sqlite:<path>`, `sqlite::memory:`, `redis://…` or `rediss://…`.
    /// The error says what is accepted.
    pub fn parse(s: &str) -> Result<StoreSpec, String> {
        if s.starts_with("redis://") || s.starts_with("rediss://") {
            return redis::RedisSpec::parse(s).map(StoreSpec::Redis);
        }
        match s.split_once(':') {
            Some(("sqlite", ":memory:")) => Ok(StoreSpec::SqliteMemory),
            Some(("sqlite", path)) if !path.is_empty() && !path.contains('\0') => {
                if path.starts_with(':') || path.starts_with("file:") {
                    return Err(format!(
                        "store '{s}' is not supported; give a file path ('sqlite:./ledger.db') or 'sqlite::memory:'"
                    ));
                }
                // The URL form of ORMs (`sqlite://./x.db`, `sqlite:///abs/x.db`)
                // would read as a path from the root.
                if let Some(rest) = path.strip_prefix("//") {
                    return Err(format!(
                        "store '{s}' is a URL; a SQLite store is 'sqlite:' and a file path, without '//': 'sqlite:{rest}'"
                    ));
                }
                // Without a cwd (deleted), left relative: the open says what fails.
                let absolute = std::path::absolute(path).ok();
                let path = absolute.as_deref().and_then(|p| p.to_str()).unwrap_or(path);
                Ok(StoreSpec::Sqlite(path.to_string()))
            }
            _ => Err(format!(
                "store must be 'sqlite:<path>' (e.g. 'sqlite:./ledger.db'), 'sqlite::memory:' or 'redis://host:port/db', got '{}'",
                redis::redact(s)
            )),
        }
    }

    /// The seed nodes of one Redis Cluster: `redis://` / `rediss://` URLs
    /// (a one-element list is a single URL).
    pub fn parse_seeds(urls: &[String]) -> Result<StoreSpec, String> {
        redis::RedisSpec::parse_seeds(urls).map(StoreSpec::Redis)
    }

    /// Opens the store (a SQLite file opened, created if missing and swept;
    /// a Redis server connected and its configuration read), by `deadline`.
    pub async fn open(self, deadline: Deadline) -> Result<Arc<dyn Store>, StoreError> {
        match self {
            StoreSpec::Sqlite(path) => Ok(Arc::new(sqlite::SqliteStore::open(path, deadline).await?)),
            StoreSpec::SqliteMemory => Ok(Arc::new(sqlite::SqliteStore::open_in_memory(deadline).await?)),
            StoreSpec::Redis(spec) => Ok(Arc::new(redis::RedisStore::open(spec, deadline).await?)),
        }
    }
}

/// Configuration gaps a store found (an eviction policy that can drop
/// acknowledged entries, an unreadable server setting), each said once per
/// process: queued here until the binding takes them to the JS logs.
pub fn warn_once(message: String) {
    static SEEN: Mutex<Option<std::collections::HashSet<String>>> = Mutex::new(None);
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if seen.get_or_insert_with(Default::default).insert(message.clone()) {
        WARNINGS.lock().unwrap_or_else(|e| e.into_inner()).push(message);
    }
}

static WARNINGS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The warnings queued by [`warn_once`] since the last call.
pub fn take_warnings() -> Vec<String> {
    std::mem::take(&mut *WARNINGS.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Blocking forms of the store operations, for tests.
#[cfg(test)]
pub(crate) mod blocking {
    use super::*;
    use crate::runtime::{block_on, DEFAULT_TIMEOUT};

    pub(crate) fn d() -> Deadline {
        Deadline::after(DEFAULT_TIMEOUT)
    }

    pub(crate) fn now<T>(f: StoreFuture<T>) -> Result<T, StoreError> {
        block_on(f).unwrap()
    }

    pub(crate) trait Blocking: Store {
        fn put_now(
            &self,
            h: &Handle,
            content: &[u8],
            wtf8: bool,
            expires_at: Option<u64>,
        ) -> Result<PutOutcome, StoreError> {
            let content: Bytes = Arc::new(content.to_vec());
            let form = if wtf8 { Form::Wtf8 } else { Form::Utf8 };
            now(self.put(NewEntry::new(h.clone(), content, form, expires_at), d()))
        }
        fn lookup_now(&self, ns: &str, id: &str) -> Result<Lookup, StoreError> {
            now(self.get(ns, id, d()))
        }
        fn get_now(&self, ns: &str, id: &str) -> Result<Option<StoredEntry>, StoreError> {
            Ok(match self.lookup_now(ns, id)? {
                Lookup::Found(e) => Some(*e),
                Lookup::Missing | Lookup::Expired => None,
                Lookup::Evicted(why) => panic!("evicted: {why}"),
            })
        }
        fn delete_now(&self, ns: &str, id: &str) -> Result<bool, StoreError> {
            now(self.delete(ns, id, d()))
        }
        fn clear_now(&self, ns: Option<&str>) -> Result<usize, StoreError> {
            now(self.clear(ns, d()))
        }
        fn sweep_now(&self) -> Result<usize, StoreError> {
            now(self.sweep(d()))
        }
    }

    impl<T: Store + ?Sized> Blocking for T {}

    /// A small text entry's handle, the same in every store's tests.
    pub(crate) fn handle(ns: &str, id: &str, call: &str) -> Handle {
        Handle {
            mem_id: id.into(),
            namespace: ns.into(),
            tool_name: "t".into(),
            tool_call_id: call.into(),
            size_chars: 3,
            summary: "s".into(),
            schema: Some("text: lines=1".into()),
            preview: None,
            stub: "stub\nline".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_sqlite_paths_and_redis_urls() {
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(
            StoreSpec::parse("sqlite:./ledger.db"),
            Ok(StoreSpec::Sqlite(cwd.join("ledger.db").to_str().unwrap().into()))
        );
        assert_eq!(StoreSpec::parse("sqlite::memory:"), Ok(StoreSpec::SqliteMemory));
        assert_eq!(
            StoreSpec::parse("sqlite:/tmp/a:b.db"),
            Ok(StoreSpec::Sqlite("/tmp/a:b.db".into()))
        );
        assert_eq!(
            StoreSpec::parse("redis://:pw@127.0.0.1:6390/2?prefix=app%3A&protocol=resp2"),
            Ok(StoreSpec::Redis(redis::RedisSpec {
                urls: vec!["redis://:pw@127.0.0.1:6390/2?protocol=resp2".into()],
                prefix: "app:".into(),
            }))
        );
        assert_eq!(
            StoreSpec::parse("rediss://u:secret@example.com"),
            Ok(StoreSpec::Redis(redis::RedisSpec {
                urls: vec!["rediss://u:secret@example.com".into()],
                prefix: redis::DEFAULT_PREFIX.into(),
            }))
        );
        assert_eq!(
            StoreSpec::parse_seeds(&["redis://a:1".into(), "redis://b:2?prefix=x:".into()]),
            Ok(StoreSpec::Redis(redis::RedisSpec {
                urls: vec!["redis://a:1".into(), "redis://b:2".into()],
                prefix: "x:".into(),
            }))
        );
        assert!(StoreSpec::parse_seeds(&[]).is_err());
        assert!(
            StoreSpec::parse_seeds(&["redis://a?prefix=x:".into(), "redis://b?prefix=y:".into()]).is_err()
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
            "sqlite::memory",
            "sqlite:file:x.db",
            "sqlite://./ledger.db",
            "sqlite:///tmp/ledger.db",
        ] {
            assert!(StoreSpec::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            StoreSpec::parse("sqlite:///tmp/x.db").unwrap_err(),
            "store 'sqlite:///tmp/x.db' is a URL; a SQLite store is 'sqlite:' and a file path, without '//': 'sqlite:/tmp/x.db'"
        );
    }

    #[test]
    fn errors_are_one_line() {
        let e = StoreError::new("put", "disk\nfull");
        assert_eq!(e.to_string(), "store put failed: disk full");
    }
}

#[cfg(test)]
mod suite_tests;
