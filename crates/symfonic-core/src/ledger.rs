//! The ledger: archived tool results keyed by (namespace, mem id), bounded by
//! payload bytes with least-recently-used eviction. The lock is held only to
//! look up or insert an `Arc<Entry>`; analysis and slicing run outside it, so
//! concurrent calls do not serialise.
//!
//! Every call has an async form (`*_async`), run on the runtime
//! (`crate::runtime`); with a store below (`backing`), it is bounded end to
//! end by the store's timeout. The sync forms (`fetch`, `record_with`; the
//! tests' others in `testing`) run on the calling thread, and with a store
//! wait for the async ones (for a store in memory). A read is a fetch or a
//! recall ([`Read`]).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::Notify;

use crate::clock::now_ms;
use crate::runtime::{self, Deadline};
use crate::store::{Outcome, Store, StoreError, StoreSpec};
use crate::text::Payload;

/// Default bound on payload bytes held: 256 MiB.
pub const DEFAULT_MAX_BYTES: usize = 256 * 1024 * 1024;
/// Default preview length in code points.
pub const DEFAULT_PREVIEW_CHARS: usize = 200;
/// Longest namespace `record` accepts, in code points. Namespaces are set by the
/// app (a thread id, a tenant path), so a longer one is a programmer error.
pub const MAX_NAMESPACE_CHARS: usize = 1024;
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
    /// The store below the ledger failed; its outcome says whether the
    /// entry may be stored all the same.
    Store(StoreError),
    /// `close()` was called.
    Closed,
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
            LedgerError::Store(e) if e.outcome == Outcome::Unknown => write!(
                f,
                "{e}; the outcome is unknown: the result may have been stored (recording it again is safe: its id is bound to its content)"
            ),
            LedgerError::Store(e) => write!(f, "{e}; the result was not recorded"),
            LedgerError::Closed => f.write_str(crate::store::CLOSED),
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

mod backing;
mod build;
mod lru;
mod read;
mod record;
mod remove;
pub use crate::entry::{Entry, Handle, MAX_CONTENT_BYTES};
use backing::Backing;
use build::rebuild_entry;
use lru::{Locked, Lru};
pub use read::{Found, Read};
pub use record::{check_content_len, check_namespace};

/// The ledger. Cheap to share behind an `Arc`; its state is shared by the
/// async calls in flight (each holds a clone of it).
pub struct Ledger {
    shared: Arc<Shared>,
}

/// What a ledger holds.
pub struct Shared {
    config: LedgerConfig,
    lru: Mutex<Lru>,
    /// The store below the LRU (write-through), if any.
    backing: Option<Backing>,
    /// Default time to live of an entry, in milliseconds.
    ttl_ms: Option<u64>,
    /// When the last sweep ran (Unix ms).
    last_sweep: AtomicU64,
    /// Test hook: the id every record gets instead of its hash (see `force_mem_id`).
    #[cfg(any(test, feature = "test-hooks"))]
    forced_id: Mutex<Option<String>>,
    /// Test hook: records' analysis waits while this is held (see `hold_records`).
    #[cfg(any(test, feature = "test-hooks"))]
    gate: (Mutex<bool>, std::sync::Condvar),
    /// `close` was called: new calls are refused where they start (the JS
    /// boundary, the sync API).
    closing: AtomicBool,
    /// The calls admitted before `close` have ended: the core refuses too.
    shut: AtomicBool,
    /// Calls admitted at the JS boundary and not yet ended ([`Admitted`]).
    admitted: AtomicUsize,
    /// Async calls in flight: `close` waits for them before releasing the store.
    in_flight: AtomicUsize,
    idle: Notify,
}

/// A call admitted where it started, before `close`: it runs to its end
/// (within its own bound) even if `close` comes while it waits to be polled,
/// and `close` waits for it. Held by the task for the whole call.
pub struct Admitted(Arc<Shared>);

impl Drop for Admitted {
    fn drop(&mut self) {
        if self.0.admitted.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

/// An async call in flight (see [`Shared::enter`]).
struct InFlight<'a>(&'a Shared);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl Deref for Ledger {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.shared
    }
}

impl Ledger {
    pub fn new(config: LedgerConfig) -> Self {
        Ledger::with_backing(config, None, None)
    }

    /// A ledger over an open `store` (write-through; misses reload from it),
    /// whose entries live `ttl_ms` milliseconds unless a record says otherwise.
    pub fn with_store(config: LedgerConfig, store: Option<Arc<dyn Store>>, ttl_ms: Option<u64>) -> Self {
        Ledger::with_backing(config, store.map(Backing::open), ttl_ms)
    }

    /// A ledger over the store `spec` names, which starts opening now, in the
    /// background (on the runtime: nothing here waits for it). Calls
    /// wait for the open within their own bound; a failed open is retried by
    /// the next call. See [`opened`](Self::opened).
    pub fn over(config: LedgerConfig, spec: StoreSpec, ttl_ms: Option<u64>, timeout: Duration) -> Self {
        let backing = Backing::opening(spec, timeout);
        Ledger::with_backing(config, Some(backing), ttl_ms)
    }

    fn with_backing(config: LedgerConfig, backing: Option<Backing>, ttl_ms: Option<u64>) -> Self {
        Ledger {
            shared: Arc::new(Shared {
                config,
                lru: Mutex::new(Lru {
                    map: HashMap::new(),
                    order: BTreeMap::new(),
                    tick: 0,
                    stats: Stats::default(),
                    dead: Vec::new(),
                }),
                backing,
                ttl_ms,
                last_sweep: AtomicU64::new(now_ms()),
                #[cfg(any(test, feature = "test-hooks"))]
                forced_id: Mutex::new(None),
                #[cfg(any(test, feature = "test-hooks"))]
                gate: (Mutex::new(false), std::sync::Condvar::new()),
                closing: AtomicBool::new(false),
                shut: AtomicBool::new(false),
                admitted: AtomicUsize::new(0),
                in_flight: AtomicUsize::new(0),
                idle: Notify::new(),
            }),
        }
    }

    /// Test hook (cargo feature `test-hooks`): gives every following record
    /// the id `mem_id` (`None` restores hashing), which is how the collision
    /// refusal is reached without finding two payloads whose 48-bit ids collide.
    #[cfg(any(test, feature = "test-hooks"))]
    pub fn force_mem_id(&self, mem_id: Option<String>) {
        *self.forced_id.lock().unwrap_or_else(|e| e.into_inner()) = mem_id;
    }

    /// Test hook (cargo feature `test-hooks`): while `held`, every record's
    /// analysis waits at its start, holding its slot of the record lane, so
    /// that a test can show what does not wait behind it.
    #[cfg(any(test, feature = "test-hooks"))]
    pub fn hold_records(&self, held: bool) {
        *self.gate.0.lock().unwrap_or_else(|e| e.into_inner()) = held;
        self.gate.1.notify_all();
    }

    /// Once the store is open (at once without one, or with one already
    /// open); the open's error if it fails or does not end within the bound.
    pub async fn opened(&self) -> Result<(), StoreError> {
        match &self.backing {
            Some(b) => b.get(self.deadline()).await.map(|_| ()),
            None => Ok(()),
        }
    }

    /// Closing, once [`mark_closed`](Shared::mark_closed) returned true: later
    /// calls fail with [`LedgerError::Closed`], the in-memory entries are freed,
    /// and the store (if any) is released once the calls in flight have ended.
    pub async fn shut(&self) -> Result<(), StoreError> {
        // The calls admitted before it end first (each within its own bound),
        // then the core refuses, then what is still in flight ends.
        self.until_zero(&self.admitted).await;
        self.shut.store(true, Ordering::SeqCst);
        self.until_zero(&self.in_flight).await;
        self.forget_cached();
        match &self.backing {
            Some(b) => b.close().await,
            None => Ok(()),
        }
    }
}

impl Ledger {
    /// Admits a call at the JS boundary, or `None` once `close` was called.
    pub fn admit(&self) -> Option<Admitted> {
        self.admitted.fetch_add(1, Ordering::SeqCst);
        let call = Admitted(self.shared.clone());
        (!self.is_closing()).then_some(call)
    }
}

impl Shared {
    async fn until_zero(&self, count: &AtomicUsize) {
        loop {
            let idle = self.idle.notified();
            if count.load(Ordering::SeqCst) == 0 {
                return;
            }
            idle.await;
        }
    }

    /// The part of `close` that waits on nothing: later calls are refused.
    /// False if it was closed already.
    pub fn mark_closed(&self) -> bool {
        !self.closing.swap(true, Ordering::SeqCst)
    }

    /// Whether `close` was called: new calls are refused where they start.
    pub fn is_closing(&self) -> bool {
        self.closing.load(Ordering::SeqCst)
    }

    /// Whether the core refuses calls: `close` was called and the calls
    /// admitted before it have ended.
    pub fn is_shut(&self) -> bool {
        self.shut.load(Ordering::SeqCst)
    }

    /// Counts an async call in flight, unless the ledger is closed.
    fn enter(&self) -> Result<InFlight<'_>, StoreError> {
        // SeqCst here and in `close`: each side writes one flag and reads the
        // other's, so at least one of them sees the other's write.
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        let guard = InFlight(self);
        self.check_open()?;
        Ok(guard)
    }

    fn check_open(&self) -> Result<(), StoreError> {
        if self.is_shut() {
            Err(StoreError::closed())
        } else {
            Ok(())
        }
    }

    /// A new deadline: the ledger's bound from now (none without a store).
    pub(crate) fn deadline(&self) -> Deadline {
        self.deadline_since(std::time::Instant::now())
    }

    /// The deadline of a call that started at `start`.
    pub fn deadline_since(&self, start: std::time::Instant) -> Deadline {
        match &self.backing {
            Some(b) => Deadline::since(start, b.timeout()),
            None => Deadline::none(),
        }
    }

    fn lock(&self) -> Locked<'_> {
        // A panic while holding the lock cannot leave the maps half-updated in
        // a way that matters more than losing the ledger, so recover the guard.
        Locked(Some(self.lru.lock().unwrap_or_else(|e| e.into_inner())))
    }

    /// Waits while a test holds records (never in a release build).
    fn gate(&self) {
        #[cfg(any(test, feature = "test-hooks"))]
        {
            let mut held = self.gate.0.lock().unwrap_or_else(|e| e.into_inner());
            while *held {
                held = self.gate.1.wait(held).unwrap_or_else(|e| e.into_inner());
            }
        }
    }

    /// The id a test forced on every record, if any (never in a release build).
    fn forced(&self) -> Option<String> {
        #[cfg(any(test, feature = "test-hooks"))]
        return self.forced_id.lock().unwrap_or_else(|e| e.into_inner()).clone();
        #[cfg(not(any(test, feature = "test-hooks")))]
        None
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

    /// The store, opened (waiting for its open within `deadline`).
    async fn store(&self, deadline: Deadline) -> Result<Option<Arc<dyn Store>>, StoreError> {
        self.check_open()?;
        match &self.backing {
            Some(b) => b.get(deadline).await.map(Some),
            None => Ok(None),
        }
    }

    /// Whether a sweep is due (at most every `SWEEP_EVERY_MS`); claims it if so.
    fn sweep_due(&self, now: u64) -> bool {
        let last = self.last_sweep.load(Ordering::Relaxed);
        now >= last.saturating_add(SWEEP_EVERY_MS)
            && self
                .last_sweep
                .compare_exchange(last, now, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
    }

    pub fn stats(&self) -> Stats {
        self.lock().stats
    }

    /// Drops every entry the LRU holds, leaving the store's rows alone: for a
    /// ledger going away (its store is released where the ledger is dropped).
    pub fn forget_cached(&self) {
        self.lock().remove_where(|_, _| true);
    }
}

/// Runs a store ledger's async call to its end on this thread (the sync API).
fn wait<T>(f: impl std::future::Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
    runtime::block_on(f).map_err(|e| StoreError::new("open", e))?
}

#[cfg(test)]
mod block_tests;
#[cfg(test)]
mod read_now_tests;
#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
