//! The ledger: archived tool results keyed by (namespace, mem id), bounded by
//! payload bytes with least-recently-used eviction. The lock is held only to
//! look up or insert an `Arc<Entry>`; analysis and slicing run outside it, so
//! concurrent async fetches on the libuv pool do not serialise.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Map, Value};

use crate::core::json::JsonDoc;
use crate::core::outline::Outline;
use crate::core::quick::QUICK_BYTES;
use crate::core::search::Blocks;
use crate::core::store::{expired, now_ms, Store, StoreError};
use crate::core::text::{Payload, Text};

/// Default bound on payload bytes held: 256 MiB.
pub const DEFAULT_MAX_BYTES: usize = 256 * 1024 * 1024;
/// Default preview length in code points.
pub const DEFAULT_PREVIEW_CHARS: usize = 200;
/// Longest namespace `record` accepts, in code points. Namespaces are set by the
/// app (a thread id, a tenant path), so a longer one is a programmer error.
pub const MAX_NAMESPACE_CHARS: usize = 1024;
/// Largest payload `record` accepts: 4,000,000,000 bytes of UTF-8. Below it, sizes
/// in code points fit a `u32` (JS handles report them exactly) and the JSON
/// index's `u32` offsets address the whole payload, so nothing saturates or
/// silently degrades to text.
pub const MAX_CONTENT_BYTES: usize = 4_000_000_000;
// The JSON pass treats payloads this close to u32::MAX as text; the limit stays below.
const _: () = assert!(MAX_CONTENT_BYTES < u32::MAX as usize - 64);

#[derive(Debug, Clone, Copy)]
pub struct LedgerConfig {
    pub max_bytes: usize,
    pub preview_chars: usize,
}

impl Default for LedgerConfig {
    fn default() -> Self {
        LedgerConfig {
            max_bytes: DEFAULT_MAX_BYTES,
            preview_chars: DEFAULT_PREVIEW_CHARS,
        }
    }
}

/// What a caller gets back for a recorded result.
#[derive(Debug, Clone, PartialEq)]
pub struct Handle {
    pub mem_id: String,
    pub namespace: String,
    pub tool_name: String,
    pub tool_call_id: String,
    pub size_chars: usize,
    pub summary: String,
    pub schema: Option<String>,
    pub preview: Option<String>,
    pub stub: String,
}

/// One archived result.
#[derive(Debug)]
pub struct Entry {
    pub handle: Handle,
    pub text: Text,
    pub json: Option<JsonDoc>,
    /// What the stub says about the payload (v2), kept to re-render it.
    pub outline: Outline,
    /// Bytes this entry holds (payload, indexes, handle strings).
    pub bytes: usize,
    /// Unix time in milliseconds after which the entry is gone; 0: never.
    expires_at: AtomicU64,
    /// The query index, built on the first query of a large payload (its
    /// bytes are counted in `bytes` from the start).
    blocks: OnceLock<Blocks>,
}

impl Entry {
    /// Unix time in milliseconds after which the entry is gone; `None`: never.
    pub fn expires_at(&self) -> Option<u64> {
        Some(self.expires_at.load(Ordering::Relaxed)).filter(|&t| t != 0)
    }

    fn set_expiry(&self, expires_at: Option<u64>) {
        // 0 means never; an expiry at the epoch itself is 1 ms later.
        self.expires_at
            .store(expires_at.map_or(0, |t| t.max(1)), Ordering::Relaxed);
    }

    fn expired(&self, now: u64) -> bool {
        expired(self.expires_at(), now)
    }

    /// The query index of a payload larger than `quick::QUICK_BYTES`, built
    /// here on first use (a smaller payload is scanned whole, at once).
    pub fn blocks(&self) -> Option<&Blocks> {
        let b = self.text.as_bytes();
        has_query_index(b.len()).then(|| self.blocks.get_or_init(|| Blocks::build(b)))
    }

    /// The query index if it has been built.
    pub fn built_blocks(&self) -> Option<&Blocks> {
        self.blocks.get()
    }
}

/// Whether a payload of `len` bytes gets a query index (smaller ones are
/// scanned whole, at once).
fn has_query_index(len: usize) -> bool {
    len > QUICK_BYTES
}

/// A result to record. `content` is the payload, already owned, possibly not
/// yet transcoded (a JS string's UTF-16 units, a Buffer's bytes): it is
/// stored and hashed as UTF-8, or as WTF-8 for a JS string with lone
/// surrogates (losslessly).
pub struct RecordRequest {
    pub namespace: String,
    pub tool_call_id: String,
    pub tool_name: String,
    pub tool_args: Option<Map<String, Value>>,
    pub content: Payload,
}

#[derive(Debug, Clone, PartialEq)]
pub enum LedgerError {
    /// Two different payloads hashed to one id in one namespace.
    Collision { mem_id: String, namespace: String },
    /// A namespace longer than `MAX_NAMESPACE_CHARS` code points.
    NamespaceTooLong { chars: usize },
    /// A payload larger than `MAX_CONTENT_BYTES` bytes.
    ContentTooLarge { bytes: usize },
    /// The store below the ledger failed (the entry was not recorded).
    Store(StoreError),
}

impl fmt::Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LedgerError::Collision { mem_id, namespace } => write!(
                f,
                "memory id collision: {mem_id} in namespace '{namespace}' already holds a different result; refusing to record (a stub must never lead to someone else's data)"
            ),
            LedgerError::NamespaceTooLong { chars } => write!(
                f,
                "namespace is {chars} code points long; at most {MAX_NAMESPACE_CHARS} are allowed"
            ),
            LedgerError::ContentTooLarge { bytes } => write!(
                f,
                "content is {bytes} bytes of UTF-8; at most {MAX_CONTENT_BYTES} bytes can be recorded"
            ),
            LedgerError::Store(e) => write!(f, "{e}; the result was not recorded"),
        }
    }
}

impl std::error::Error for LedgerError {}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stats {
    pub entries: usize,
    pub bytes: usize,
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
    /// Memory misses the store answered (0 without a store).
    pub store_hits: u64,
    /// Memory misses the store did not have either.
    pub store_misses: u64,
    /// Store operations that failed (the caller saw each one as an error or an error answer).
    pub store_errors: u64,
}

/// How long a recorded entry lives.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Ttl {
    /// The ledger's `ttl` (see [`Ledger::with_store`]); never, when it has none.
    #[default]
    Default,
    /// Never expires, whatever the ledger's default.
    Never,
    /// Expires this many milliseconds after the record.
    Millis(u64),
}

/// How often, at most, a record sweeps expired entries (memory and store).
pub const SWEEP_EVERY_MS: u64 = 60_000;

type Key = (String, String);

mod entry;
mod lru;
mod read;
mod record;
use entry::rebuild_entry;
use lru::{Locked, Lru};
pub use record::{check_content_len, check_namespace};

/// The ledger. Cheap to share behind an `Arc`.
pub struct Ledger {
    config: LedgerConfig,
    lru: Mutex<Lru>,
    /// The store below the LRU (write-through), if any.
    backing: Option<Box<dyn Store>>,
    /// Default time to live of an entry, in milliseconds.
    ttl_ms: Option<u64>,
    /// When the last sweep ran (Unix ms).
    last_sweep: AtomicU64,
    /// Test hook: the id every record gets instead of its hash (see `force_mem_id`).
    forced_id: Mutex<Option<String>>,
}

impl Ledger {
    pub fn new(config: LedgerConfig) -> Self {
        Ledger::with_store(config, None, None)
    }

    /// A ledger over `store` (write-through; misses reload from it), whose
    /// entries live `ttl_ms` milliseconds unless a record says otherwise.
    pub fn with_store(config: LedgerConfig, store: Option<Box<dyn Store>>, ttl_ms: Option<u64>) -> Self {
        Ledger {
            config,
            lru: Mutex::new(Lru {
                map: HashMap::new(),
                order: BTreeMap::new(),
                tick: 0,
                stats: Stats::default(),
                dead: Vec::new(),
            }),
            backing: store,
            ttl_ms,
            last_sweep: AtomicU64::new(now_ms()),
            forced_id: Mutex::new(None),
        }
    }

    /// Internal, for tests only: gives every following record the id `mem_id`
    /// (`None` restores hashing), which is how the collision refusal is reached
    /// without finding two payloads whose 48-bit ids collide.
    #[doc(hidden)]
    pub fn force_mem_id(&self, mem_id: Option<String>) {
        *self.forced_id.lock().unwrap_or_else(|e| e.into_inner()) = mem_id;
    }

    pub fn config(&self) -> LedgerConfig {
        self.config
    }

    /// Whether a store is below the LRU.
    pub fn has_store(&self) -> bool {
        self.backing.is_some()
    }

    fn lock(&self) -> Locked<'_> {
        // A panic while holding the lock cannot leave the maps half-updated in
        // a way that matters more than losing the ledger, so recover the guard.
        Locked(Some(self.lru.lock().unwrap_or_else(|e| e.into_inner())))
    }

    fn forced(&self) -> Option<String> {
        self.forced_id.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn expiry(&self, ttl: Ttl, now: u64) -> Option<u64> {
        let ms = match ttl {
            Ttl::Default => self.ttl_ms?,
            Ttl::Never => return None,
            Ttl::Millis(ms) => ms,
        };
        Some(now.saturating_add(ms))
    }

    /// Counts a failed store operation and passes the error on.
    fn store_failed(&self, e: StoreError) -> StoreError {
        self.lock().stats.store_errors += 1;
        e
    }

    /// Sweeps expired entries from memory and the store, at most every `SWEEP_EVERY_MS`.
    fn maybe_sweep(&self, now: u64) {
        let last = self.last_sweep.load(Ordering::Relaxed);
        if now < last.saturating_add(SWEEP_EVERY_MS)
            || self
                .last_sweep
                .compare_exchange(last, now, Ordering::AcqRel, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        let _ = self.sweep();
    }

    /// Removes expired entries from memory and the store now; returns how many the store removed.
    pub fn sweep(&self) -> Result<usize, StoreError> {
        self.lock().sweep(now_ms());
        match &self.backing {
            Some(store) => store.sweep().map_err(|e| self.store_failed(e)),
            None => Ok(0),
        }
    }

    /// Looks an entry up for a fetch, counting a hit or a miss; a store error
    /// counts and reads as absent (see [`try_get`](Self::try_get)).
    pub fn get(&self, namespace: &str, mem_id: &str) -> Option<Arc<Entry>> {
        self.try_get(namespace, mem_id).ok().flatten()
    }

    /// Looks an entry up for a fetch, counting a hit or a miss; a memory miss
    /// reloads from the store.
    pub fn try_get(&self, namespace: &str, mem_id: &str) -> Result<Option<Arc<Entry>>, StoreError> {
        let key: Key = (namespace.to_string(), mem_id.to_string());
        {
            let mut lru = self.lock();
            let found = lru.touch(&key, now_ms());
            if found.is_some() {
                lru.stats.hits += 1;
                return Ok(found);
            }
            lru.stats.misses += 1;
        }
        self.load(key)
    }

    /// Reloads an entry the memory does not hold from the store, re-indexes
    /// it and puts it in memory.
    fn load(&self, key: Key) -> Result<Option<Arc<Entry>>, StoreError> {
        let Some(store) = &self.backing else {
            return Ok(None);
        };
        let stored = match store.get(&key.0, &key.1) {
            Ok(Some(s)) => s,
            Ok(None) => {
                self.lock().stats.store_misses += 1;
                return Ok(None);
            }
            Err(e) => return Err(self.store_failed(e)),
        };
        let entry = match rebuild_entry(stored, self.forced().is_none()) {
            Ok(e) => Arc::new(e),
            Err(e) => return Err(self.store_failed(e)),
        };
        let mut lru = self.lock();
        lru.stats.store_hits += 1;
        Ok(Some(
            match lru.admit(&key, entry.clone(), self.config.max_bytes, now_ms()) {
                Ok(()) => entry,
                Err(existing) => existing,
            },
        ))
    }

    /// Looks an entry up without counting a hit or a miss or reordering;
    /// a memory miss reloads from the store (counted as a store hit or miss).
    pub fn try_peek(&self, namespace: &str, mem_id: &str) -> Result<Option<Arc<Entry>>, StoreError> {
        let key: Key = (namespace.to_string(), mem_id.to_string());
        {
            let lru = self.lock();
            if let Some(s) = lru.map.get(&key) {
                if !s.entry.expired(now_ms()) {
                    return Ok(Some(s.entry.clone()));
                }
            }
        }
        self.load(key)
    }

    /// [`try_peek`](Self::try_peek), a store error reading as absent.
    pub fn peek(&self, namespace: &str, mem_id: &str) -> Option<Arc<Entry>> {
        self.try_peek(namespace, mem_id).ok().flatten()
    }

    pub fn delete(&self, namespace: &str, mem_id: &str) -> bool {
        self.try_delete(namespace, mem_id).unwrap_or(false)
    }

    /// Removes one entry from memory and the store; true if either held it.
    pub fn try_delete(&self, namespace: &str, mem_id: &str) -> Result<bool, StoreError> {
        let in_memory = self.lock().remove(&(namespace.to_string(), mem_id.to_string()));
        let stored = match &self.backing {
            Some(store) => store
                .delete(namespace, mem_id)
                .map_err(|e| self.store_failed(e))?,
            None => false,
        };
        Ok(in_memory || stored)
    }

    /// Removes every entry, or those of one namespace; returns how many.
    pub fn clear(&self, namespace: Option<&str>) -> usize {
        self.try_clear(namespace).unwrap_or(0)
    }

    /// [`clear`](Self::clear) in memory and in the store; the count is the
    /// larger of the two (the store holds every live entry the memory does,
    /// unless another process removed some).
    pub fn try_clear(&self, namespace: Option<&str>) -> Result<usize, StoreError> {
        let in_memory = self
            .lock()
            .remove_where(|(ns, _), _| namespace.is_none_or(|n| n == ns));
        let stored = match &self.backing {
            Some(store) => store.clear(namespace).map_err(|e| self.store_failed(e))?,
            None => 0,
        };
        Ok(in_memory.max(stored))
    }

    pub fn stats(&self) -> Stats {
        self.lock().stats
    }

    /// Drops every in-memory entry, leaving the store's rows alone: for a
    /// ledger going away, so that its payloads are freed the way removed
    /// entries are (off the calling thread when large), and the rest of it
    /// (a store's connection) where it is dropped.
    pub fn forget_in_memory(&self) {
        self.lock().remove_where(|_, _| true);
    }
}

#[cfg(test)]
mod tests;
