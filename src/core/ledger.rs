//! The ledger: archived tool results keyed by (namespace, mem id), bounded by
//! payload bytes with least-recently-used eviction. The lock is held only to
//! look up or insert an `Arc<Entry>`; analysis and slicing run outside it, so
//! concurrent async fetches on the libuv pool do not serialise.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value};

use crate::core::ids::mem_id_for;
use crate::core::json::{analyze_str_with, JsonDoc};
use crate::core::recall::{self, FetchSpec};
use crate::core::store::{expired, now_ms, NewEntry, PutOutcome, Store, StoreError, StoredEntry};
use crate::core::stub::{self, StubParts};
use crate::core::text::{Payload, Text};
use crate::core::wtf8::{self, Wtf8Buf};

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
    /// Bytes this entry holds (payload, indexes, handle strings).
    pub bytes: usize,
    /// Unix time in milliseconds after which the entry is gone; 0: never.
    expires_at: AtomicU64,
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
}

/// A result to record. `content` is the payload, already owned: UTF-8, or
/// WTF-8 for a JS string with lone surrogates (stored and hashed losslessly).
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

struct Slot {
    entry: Arc<Entry>,
    tick: u64,
}

/// The in-memory LRU.
struct Lru {
    map: HashMap<Key, Slot>,
    order: BTreeMap<u64, Key>,
    tick: u64,
    stats: Stats,
}

impl Lru {
    /// The live entry under `key`, made most recently used; an expired one is removed.
    fn touch(&mut self, key: &Key, now: u64) -> Option<Arc<Entry>> {
        if self.map.get(key)?.entry.expired(now) {
            self.remove(key);
            return None;
        }
        self.tick += 1;
        let tick = self.tick;
        let slot = self.map.get_mut(key)?;
        self.order.remove(&slot.tick);
        slot.tick = tick;
        self.order.insert(tick, key.clone());
        Some(slot.entry.clone())
    }

    fn remove(&mut self, key: &Key) -> Option<Arc<Entry>> {
        let slot = self.map.remove(key)?;
        self.order.remove(&slot.tick);
        self.stats.bytes -= slot.entry.bytes;
        self.stats.entries -= 1;
        Some(slot.entry)
    }

    /// Inserts `entry` as the most recently used, unless a live entry holds
    /// the key (then returns it, `entry` is dropped); evicts past `max_bytes`.
    fn admit(&mut self, key: &Key, entry: Arc<Entry>, max_bytes: usize, now: u64) -> Result<(), Arc<Entry>> {
        if let Some(existing) = self.touch(key, now) {
            return Err(existing);
        }
        self.tick += 1;
        let tick = self.tick;
        self.stats.bytes += entry.bytes;
        self.stats.entries += 1;
        self.order.insert(tick, key.clone());
        self.map.insert(key.clone(), Slot { entry, tick });
        // Evict least recently used entries past the bound; the newest entry
        // stays even if it alone exceeds it (dropping it would lose the result).
        while self.stats.bytes > max_bytes && self.map.len() > 1 {
            let (_, oldest) = self.order.pop_first().expect("order tracks every entry");
            if &oldest == key {
                self.order.insert(tick, oldest);
                continue;
            }
            if let Some(slot) = self.map.remove(&oldest) {
                self.stats.bytes -= slot.entry.bytes;
                self.stats.entries -= 1;
                self.stats.evictions += 1;
            }
        }
        Ok(())
    }

    /// Removes the expired entries.
    fn sweep(&mut self, now: u64) {
        let gone: Vec<Key> = self
            .map
            .iter()
            .filter(|(_, s)| s.entry.expired(now))
            .map(|(k, _)| k.clone())
            .collect();
        for k in &gone {
            self.remove(k);
        }
    }
}

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

    fn lock(&self) -> MutexGuard<'_, Lru> {
        // A panic while holding the lock cannot leave the maps half-updated in
        // a way that matters more than losing the ledger, so recover the guard.
        self.lru.lock().unwrap_or_else(|e| e.into_inner())
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

    /// Records a result; the same (call id, content) again returns the identical handle.
    /// Refuses a namespace over `MAX_NAMESPACE_CHARS` code points and content over
    /// `MAX_CONTENT_BYTES` bytes.
    pub fn record(&self, req: RecordRequest) -> Result<Handle, LedgerError> {
        self.record_with(req, Ttl::Default)
    }

    /// [`record`](Self::record) with the entry's time to live. With a store,
    /// returns only once the store has the entry, and refuses an id the store
    /// holds for a different result (recorded by any process sharing it).
    pub fn record_with(&self, req: RecordRequest, ttl: Ttl) -> Result<Handle, LedgerError> {
        check_namespace(&req.namespace)?;
        check_content_len(req.content.as_bytes().len())?;
        // JSON analysis of WTF-8 runs on its display form: the same length,
        // so the index it builds applies to the stored bytes.
        let view: Cow<'_, str> = match &req.content {
            Payload::Ascii(s) | Payload::Utf8(s) => Cow::Borrowed(s),
            Payload::Wtf8(b) => wtf8::to_string_lossy(b),
        };
        // The id hash runs while the JSON pass's second thread starts up.
        let forced = self.forced();
        let (json, mem_id) = analyze_str_with(&view, || {
            forced.unwrap_or_else(|| mem_id_for(&req.tool_call_id, req.content.as_bytes()))
        });
        drop(view);
        let now = now_ms();
        let expires_at = self.expiry(ttl, now);
        let key: Key = (req.namespace.clone(), mem_id);
        let existing = self.lock().touch(&key, now);
        if let Some(existing) = existing {
            let handle = same_result(&existing, &key, &req.tool_call_id, req.content.as_bytes())?;
            // Write-through holds for a repeated record too (another process
            // may have deleted the row), and the new expiry applies.
            self.put_through(&existing, expires_at)?;
            existing.set_expiry(expires_at);
            return Ok(handle);
        }
        let entry = build_entry(key.1.clone(), req, json, self.config.preview_chars);
        entry.set_expiry(expires_at);
        let entry = Arc::new(entry);
        self.put_through(&entry, expires_at)?;
        let handle = entry.handle.clone();
        let admitted = self.lock().admit(&key, entry.clone(), self.config.max_bytes, now);
        // Another thread may have recorded it while we analysed.
        if let Err(existing) = admitted {
            let (call_id, text) = (&entry.handle.tool_call_id, entry.text.as_bytes());
            let h = same_result(&existing, &key, call_id, text)?;
            existing.set_expiry(expires_at);
            return Ok(h);
        }
        self.maybe_sweep(now);
        Ok(handle)
    }

    /// Writes `entry` to the store, if there is one.
    fn put_through(&self, entry: &Entry, expires_at: Option<u64>) -> Result<(), LedgerError> {
        let Some(store) = &self.backing else { return Ok(()) };
        let put = store.put(NewEntry {
            handle: &entry.handle,
            content: entry.text.as_bytes(),
            wtf8: !entry.text.is_utf8(),
            expires_at,
        });
        match put {
            Ok(PutOutcome::Inserted | PutOutcome::Existing) => Ok(()),
            Ok(PutOutcome::Collision) => Err(LedgerError::Collision {
                mem_id: entry.handle.mem_id.clone(),
                namespace: entry.handle.namespace.clone(),
            }),
            Err(e) => Err(LedgerError::Store(self.store_failed(e))),
        }
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

    /// `fetch` as the JS API exposes it: a string answer, never an error.
    pub fn fetch(&self, namespace: &str, mem_id: &str, spec: &FetchSpec) -> Wtf8Buf {
        match self.try_get(namespace, mem_id) {
            Ok(Some(e)) => recall::fetch_entry(&e, spec).into_buf(),
            Ok(None) => recall::not_found(mem_id).into(),
            Err(e) => recall::store_failed(mem_id, &e).into(),
        }
    }

    /// `fetch` plus the output cap, in one pass over the entry (a full 5 MB
    /// payload is cut here, not copied out and cut later).
    pub fn recall(
        &self,
        namespace: &str,
        mem_id: &str,
        spec: &FetchSpec,
        max_output_chars: usize,
    ) -> Wtf8Buf {
        let miss = match self.try_get(namespace, mem_id) {
            Ok(Some(e)) => {
                return recall::cap_answer(recall::fetch_entry(&e, spec), mem_id, max_output_chars)
            }
            Ok(None) => recall::not_found(mem_id),
            Err(e) => recall::store_failed(mem_id, &e),
        };
        recall::cap_output(&miss.into(), mem_id, max_output_chars, None)
    }

    pub fn handle(&self, namespace: &str, mem_id: &str) -> Option<Handle> {
        self.try_handle(namespace, mem_id).ok().flatten()
    }

    pub fn try_handle(&self, namespace: &str, mem_id: &str) -> Result<Option<Handle>, StoreError> {
        Ok(self.try_peek(namespace, mem_id)?.map(|e| e.handle.clone()))
    }

    /// The stub, optionally with a different preview length than the ledger's.
    pub fn stub(&self, namespace: &str, mem_id: &str, preview_chars: Option<usize>) -> Option<String> {
        self.try_stub(namespace, mem_id, preview_chars).ok().flatten()
    }

    pub fn try_stub(
        &self,
        namespace: &str,
        mem_id: &str,
        preview_chars: Option<usize>,
    ) -> Result<Option<String>, StoreError> {
        let Some(e) = self.try_peek(namespace, mem_id)? else {
            return Ok(None);
        };
        Ok(Some(match preview_chars {
            Some(n) if n != self.config.preview_chars => restub(&e, n),
            _ => e.handle.stub.clone(),
        }))
    }

    pub fn delete(&self, namespace: &str, mem_id: &str) -> bool {
        self.try_delete(namespace, mem_id).unwrap_or(false)
    }

    /// Removes one entry from memory and the store; true if either held it.
    pub fn try_delete(&self, namespace: &str, mem_id: &str) -> Result<bool, StoreError> {
        let in_memory = self
            .lock()
            .remove(&(namespace.to_string(), mem_id.to_string()))
            .is_some();
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
        let in_memory = {
            let mut lru = self.lock();
            let keys: Vec<Key> = lru
                .map
                .keys()
                .filter(|(ns, _)| namespace.is_none_or(|n| n == ns))
                .cloned()
                .collect();
            for k in &keys {
                lru.remove(k);
            }
            keys.len()
        };
        let stored = match &self.backing {
            Some(store) => store.clear(namespace).map_err(|e| self.store_failed(e))?,
            None => 0,
        };
        Ok(in_memory.max(stored))
    }

    pub fn stats(&self) -> Stats {
        self.lock().stats
    }
}

/// Refuses a namespace longer than `MAX_NAMESPACE_CHARS` code points.
pub fn check_namespace(namespace: &str) -> Result<(), LedgerError> {
    // Byte length bounds the code points from above: most namespaces skip the count.
    if namespace.len() <= MAX_NAMESPACE_CHARS || namespace.chars().nth(MAX_NAMESPACE_CHARS).is_none() {
        return Ok(());
    }
    Err(LedgerError::NamespaceTooLong {
        chars: namespace.chars().count(),
    })
}

/// Refuses a payload of more than `MAX_CONTENT_BYTES` bytes (a length check, so
/// the limit is testable without allocating it).
pub fn check_content_len(bytes: usize) -> Result<(), LedgerError> {
    if bytes <= MAX_CONTENT_BYTES {
        Ok(())
    } else {
        Err(LedgerError::ContentTooLarge { bytes })
    }
}

fn same_result(existing: &Entry, key: &Key, call_id: &str, content: &[u8]) -> Result<Handle, LedgerError> {
    if existing.handle.tool_call_id == call_id && existing.text.as_bytes() == content {
        Ok(existing.handle.clone())
    } else {
        Err(LedgerError::Collision {
            mem_id: key.1.clone(),
            namespace: key.0.clone(),
        })
    }
}

fn build_entry(mem_id: String, req: RecordRequest, json: Option<JsonDoc>, preview_chars: usize) -> Entry {
    let RecordRequest {
        namespace,
        tool_call_id,
        tool_name,
        tool_args,
        content,
    } = req;
    let tool_args = tool_args.as_ref();
    let text = Text::from_payload(content);
    // The stub is display text: a lone surrogate shows there as U+FFFD, so
    // every handle string is well-formed (the payload itself keeps it).
    let shown = text.lossy();
    let (schema, shape) = match &json {
        Some(doc) => (doc.schema.clone(), doc.shape.clone()),
        None => (stub::text_schema(&shown), stub::text_shape(&shown)),
    };
    let summary = stub::summary(&tool_name, tool_args, &shape);
    let preview = stub::preview(&shown, preview_chars);
    drop(shown);
    let stub = stub::render(&StubParts {
        tool_name: &tool_name,
        tool_call_id: &tool_call_id,
        mem_id: &mem_id,
        size_chars: text.char_len(),
        schema: Some(&schema),
        summary: &summary,
        preview: Some(&preview),
    });
    let handle = Handle {
        size_chars: text.char_len(),
        schema: Some(schema).filter(|s| !s.is_empty()),
        preview: Some(preview).filter(|s| !s.is_empty()),
        mem_id,
        namespace,
        tool_name,
        tool_call_id,
        summary,
        stub,
    };
    assemble(handle, text, json, None)
}

fn assemble(handle: Handle, text: Text, json: Option<JsonDoc>, expires_at: Option<u64>) -> Entry {
    let bytes = text.heap_bytes()
        + json
            .as_ref()
            .map_or(0, |d| d.index.heap_bytes() + d.schema.len() + d.shape.len())
        + handle_bytes(&handle)
        + std::mem::size_of::<Entry>();
    let e = Entry {
        handle,
        text,
        json,
        bytes,
        expires_at: AtomicU64::new(0),
    };
    e.set_expiry(expires_at);
    e
}

/// An entry from its stored form: the handle as stored (so the stub is the
/// original, byte for byte), the payload re-indexed. With `verify`, the id
/// must be the payload's own (`mem_id_for`), so a tampered or misplaced row
/// is refused rather than served.
fn rebuild_entry(stored: StoredEntry, verify: bool) -> Result<Entry, StoreError> {
    let StoredEntry {
        handle,
        content,
        wtf8,
        expires_at,
    } = stored;
    if verify && mem_id_for(&handle.tool_call_id, &content) != handle.mem_id {
        return Err(StoreError::new(
            "get",
            format!("corrupt row: {} does not match its payload", handle.mem_id),
        ));
    }
    let payload = if wtf8 {
        Payload::Wtf8(content)
    } else {
        Payload::Utf8(
            String::from_utf8(content)
                .map_err(|_| StoreError::new("get", "corrupt row: payload is not UTF-8"))?,
        )
    };
    let view: Cow<'_, str> = match &payload {
        Payload::Ascii(s) | Payload::Utf8(s) => Cow::Borrowed(s),
        Payload::Wtf8(b) => wtf8::to_string_lossy(b),
    };
    let (json, ()) = analyze_str_with(&view, || ());
    drop(view);
    Ok(assemble(handle, Text::from_payload(payload), json, expires_at))
}

fn handle_bytes(h: &Handle) -> usize {
    h.mem_id.len()
        + h.namespace.len()
        + h.tool_name.len()
        + h.tool_call_id.len()
        + h.summary.len()
        + h.schema.as_ref().map_or(0, String::len)
        + h.preview.as_ref().map_or(0, String::len)
        + h.stub.len()
}

fn restub(e: &Entry, preview_chars: usize) -> String {
    let h = &e.handle;
    let preview = stub::preview(&e.text.lossy(), preview_chars);
    stub::render(&StubParts {
        tool_name: &h.tool_name,
        tool_call_id: &h.tool_call_id,
        mem_id: &h.mem_id,
        size_chars: h.size_chars,
        schema: h.schema.as_deref(),
        summary: &h.summary,
        preview: Some(&preview),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(ns: &str, call: &str, content: &str) -> RecordRequest {
        RecordRequest {
            namespace: ns.into(),
            tool_call_id: call.into(),
            tool_name: "t".into(),
            tool_args: None,
            content: content.into(),
        }
    }

    #[test]
    fn record_is_idempotent_and_namespaced() {
        let l = Ledger::new(LedgerConfig::default());
        let a = l.record(req("", "c", "body")).unwrap();
        let b = l.record(req("", "c", "body")).unwrap();
        assert_eq!(a, b);
        assert_eq!(l.stats().entries, 1);
        let other = l.record(req("ns", "c", "body")).unwrap();
        assert_eq!(other.mem_id, a.mem_id);
        assert_eq!(l.stats().entries, 2);
        assert_eq!(
            l.fetch(
                "ns",
                &a.mem_id,
                &FetchSpec {
                    full: true,
                    ..Default::default()
                }
            ),
            "body"
        );
        assert_eq!(
            l.fetch("zz", &a.mem_id, &FetchSpec::default()),
            format!("[tool_memory not found: {}]", a.mem_id)
        );
    }

    #[test]
    fn a_colliding_id_with_other_content_is_refused() {
        let e = build_entry("trm_aaaaaaaaaaaa".into(), req("", "c", "one"), None, 200);
        let key: Key = ("".into(), "trm_aaaaaaaaaaaa".into());
        assert!(same_result(&e, &key, "c", b"one").is_ok());
        let err = same_result(&e, &key, "c", b"two").unwrap_err();
        assert_eq!(
            err,
            LedgerError::Collision {
                mem_id: "trm_aaaaaaaaaaaa".into(),
                namespace: "".into()
            }
        );
        assert!(err.to_string().contains("refusing to record"));
        assert!(same_result(&e, &key, "d", b"one").is_err());
    }

    #[test]
    fn record_refuses_a_forced_collision_and_keeps_the_first_result() {
        let l = Ledger::new(LedgerConfig::default());
        l.force_mem_id(Some("trm_aaaaaaaaaaaa".into()));
        let a = l.record(req("ns", "c", "one")).unwrap();
        assert_eq!(a.mem_id, "trm_aaaaaaaaaaaa");
        assert_eq!(l.record(req("ns", "c", "one")).unwrap(), a);
        let err = l.record(req("ns", "c", "two")).unwrap_err();
        assert!(matches!(err, LedgerError::Collision { .. }));
        l.force_mem_id(None);
        assert_ne!(l.record(req("ns", "c", "two")).unwrap().mem_id, a.mem_id);
        assert_eq!(l.handle("ns", "trm_aaaaaaaaaaaa").unwrap(), a);
    }

    #[test]
    fn long_namespaces_are_refused_at_the_cap() {
        let l = Ledger::new(LedgerConfig::default());
        let at_cap = "é".repeat(MAX_NAMESPACE_CHARS);
        assert!(l.record(req(&at_cap, "c", "x")).is_ok());
        let over = format!("{at_cap}a");
        let err = l.record(req(&over, "c", "x")).unwrap_err();
        assert_eq!(err, LedgerError::NamespaceTooLong { chars: 1025 });
        assert!(err.to_string().contains("at most 1024"), "{err}");
        assert_eq!(l.stats().entries, 1);
    }

    #[test]
    fn content_past_the_size_limit_is_refused() {
        assert_eq!(check_content_len(0), Ok(()));
        assert_eq!(check_content_len(MAX_CONTENT_BYTES), Ok(()));
        // Past 4 GiB sizes no longer fit a u32 and the JSON index's offsets.
        for bytes in [
            MAX_CONTENT_BYTES + 1,
            u32::MAX as usize,
            u32::MAX as usize + 1,
            usize::MAX,
        ] {
            let err = check_content_len(bytes).unwrap_err();
            assert_eq!(err, LedgerError::ContentTooLarge { bytes });
            assert!(err.to_string().contains("at most 4000000000 bytes"), "{err}");
        }
        // Anything accepted has a size in code points that a u32 holds.
        assert!(u32::try_from(MAX_CONTENT_BYTES).is_ok());
    }

    #[test]
    fn stub_fields_cannot_add_lines() {
        let l = Ledger::new(LedgerConfig::default());
        let mut r = req("", "call\nx", "line one\u{2028}still one\tend\nline two");
        r.tool_name = format!("x\nsummary: injected{}", "n".repeat(10_000));
        r.tool_args = Some(
            serde_json::json!({"k\ney": "v\u{85}", "n": {"a\u{2029}": "\u{7f}"}})
                .as_object()
                .unwrap()
                .clone(),
        );
        let h = l.record(r).unwrap();
        let lines: Vec<&str> = h.stub.split('\n').collect();
        assert_eq!(lines.len(), 7, "{}", h.stub);
        assert!(lines.iter().all(|x| !x
            .chars()
            .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}')));
        assert!(
            lines[1].starts_with("tool=x\\nsummary: injectednnn"),
            "{}",
            lines[1]
        );
        assert!(lines[1].ends_with("... call_id=call\\nx"), "{}", lines[1]);
        assert!(lines[1].chars().count() < 128 + 64 + 20);
        assert!(!h.stub.contains("\nsummary: injected"));
        assert_eq!(
            h.tool_name.chars().count(),
            10_019,
            "the handle keeps the name whole"
        );
        assert!(h.summary.contains("k\\ney='v\\u{85}'"), "{}", h.summary);
        assert!(h.summary.contains("\\u{2029}"), "{}", h.summary);
        assert!(h.summary.contains("\\u{7f}"), "{}", h.summary);
        assert!(
            h.summary.contains("first line: line one\\u{2028}still one\\tend"),
            "{}",
            h.summary
        );
        assert_eq!(
            h.preview.as_deref(),
            Some("line one\\u{2028}still one\\tend line two")
        );
    }

    #[test]
    fn eviction_is_least_recently_used_and_keeps_the_newest() {
        // Entries hold their payload plus ~1 KB of handle and stub.
        let l = Ledger::new(LedgerConfig {
            max_bytes: 25_000,
            preview_chars: 10,
        });
        let a = l.record(req("", "a", &"a".repeat(10_000))).unwrap();
        let b = l.record(req("", "b", &"b".repeat(10_000))).unwrap();
        assert!(l.get("", &a.mem_id).is_some()); // touch a
        let c = l.record(req("", "c", &"c".repeat(10_000))).unwrap();
        assert!(l.peek("", &b.mem_id).is_none());
        assert!(l.peek("", &a.mem_id).is_some());
        assert!(l.peek("", &c.mem_id).is_some());
        assert_eq!(l.stats().evictions, 1);
        // One entry larger than the bound evicts the rest but is itself kept.
        let d = l.record(req("", "d", &"d".repeat(30_000))).unwrap();
        assert_eq!(l.stats().entries, 1);
        assert!(l.peek("", &d.mem_id).is_some());
        assert_eq!(l.stats().evictions, 3);
    }

    #[test]
    fn clear_and_delete_keep_byte_accounting_exact() {
        let l = Ledger::new(LedgerConfig::default());
        let a = l.record(req("x", "a", "one")).unwrap();
        l.record(req("y", "b", "two")).unwrap();
        assert!(l.delete("x", &a.mem_id));
        assert!(!l.delete("x", &a.mem_id));
        assert_eq!(l.clear(Some("x")), 0);
        assert_eq!(l.clear(None), 1);
        assert_eq!(l.stats().bytes, 0);
        assert_eq!(l.stats().entries, 0);
    }

    #[test]
    fn recall_fits_every_answer_in_the_cap() {
        let l = Ledger::new(LedgerConfig::default());
        let h = l.record(req("", "c", "0123456789")).unwrap();
        let full = FetchSpec {
            full: true,
            ..Default::default()
        };
        assert_eq!(l.recall("", &h.mem_id, &full, 4), "0123");
        assert_eq!(l.recall("", "trm_000000000000", &full, 1), "[");
        assert_eq!(
            l.recall("", "trm_000000000000", &full, 1000),
            "[tool_memory not found: trm_000000000000]"
        );
    }

    #[test]
    fn stub_with_a_longer_preview_is_deterministic() {
        let l = Ledger::new(LedgerConfig {
            max_bytes: DEFAULT_MAX_BYTES,
            preview_chars: 5,
        });
        let h = l.record(req("", "c", &"word ".repeat(100))).unwrap();
        assert_eq!(l.stub("", &h.mem_id, None).unwrap(), h.stub);
        let long = l.stub("", &h.mem_id, Some(50)).unwrap();
        assert!(long.contains(&format!("preview: {}", "word ".repeat(10).trim())));
        assert_eq!(l.stub("", &h.mem_id, Some(50)).unwrap(), long);
    }
}
