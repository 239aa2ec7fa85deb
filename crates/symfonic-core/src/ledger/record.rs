//! Recording a result: the payload settled, analysed (its JSON index, id
//! and code points at once), admitted under its id, and written through to
//! the store when there is one (`record_async`, on the runtime); the
//! same result again is the same handle.

use std::sync::Arc;

use super::build::build_entry;
use super::{
    Entry, Handle, Key, Ledger, LedgerError, RecordRequest, Shared, Ttl, MAX_CONTENT_BYTES,
    MAX_NAMESPACE_CHARS,
};
use crate::clock::now_ms;
use crate::ids::mem_id_for;
use crate::json::analyze_str_with;
use crate::runtime::{self, cpu_for, Deadline, Lane};
use crate::store::{Bytes, NewEntry, PutOutcome, Store, StoreError};
use crate::text::Text;

/// A result analysed and looked up in memory, ready for the store and the LRU.
struct Prepared {
    key: Key,
    entry: Arc<Entry>,
    /// The memory already held it (the same result: `same_result` passed).
    existing: bool,
    expires_at: Option<u64>,
    now: u64,
    /// The entry encoded for the store, when there is one.
    stored: Option<NewEntry>,
}

impl Ledger {
    /// Records a result with the entry's time to live; the same (call id,
    /// content) again returns the identical handle. Refuses a namespace over
    /// `MAX_NAMESPACE_CHARS` code points and content over `MAX_CONTENT_BYTES`
    /// bytes. With a store,
    /// returns only once the store has the entry, and refuses an id the store
    /// holds for a different result (recorded by any process sharing it).
    /// The content is settled first (transcoded, see [`Payload::settle`]).
    /// With a store, this waits for [`record_async`](Self::record_async).
    pub fn record_with(&self, req: RecordRequest, ttl: Ttl) -> Result<Handle, LedgerError> {
        if self.is_closing() {
            return Err(LedgerError::Closed);
        }
        if self.backing.is_some() {
            let deadline = self.deadline();
            return runtime::block_on(self.record_async(req, ttl, deadline))
                .map_err(|e| LedgerError::Store(StoreError::new("put", e)))?;
        }
        let Some(p) = self.shared.prepare(req, ttl, false, Deadline::none())? else {
            unreachable!("no deadline to pass")
        };
        if self.sweep_due(p.now) {
            self.lock().sweep(p.now);
        }
        self.finish(p)
    }

    /// [`record_with`](Self::record_with) for a ledger with a store: the
    /// analysis on the runtime's blocking pool, then the store's write, all
    /// within `deadline`. A deadline that passes before the write was sent
    /// fails with a certain outcome (nothing stored); after, with an unknown one.
    pub async fn record_async(
        &self,
        req: RecordRequest,
        ttl: Ttl,
        deadline: Deadline,
    ) -> Result<Handle, LedgerError> {
        let Ok(_call) = self.enter() else {
            return Err(LedgerError::Closed);
        };
        let store = self.store(deadline).await.map_err(|e| self.refused(e))?;
        let shared = self.shared.clone();
        let encode = store.is_some();
        let bytes = req.content.len();
        let p = cpu_for(Lane::Record, deadline, bytes, move || {
            shared.prepare(req, ttl, encode, deadline).transpose()
        })
        .await
        .flatten()
        .ok_or_else(|| {
            let e = StoreError::timeout("put", "waiting to analyse the result", &deadline, false);
            LedgerError::Store(self.store_failed(e))
        })??;
        if let Some(store) = &store {
            let entry = p.stored.clone().expect("encoded for the store");
            self.put_through(store, entry, deadline).await?;
        }
        if self.sweep_due(p.now) {
            self.lock().sweep(p.now);
            if let (Some(store), Ok(rt)) = (store, runtime::runtime()) {
                let sweep = store.sweep(self.deadline());
                rt.spawn(sweep);
            }
        }
        self.finish(p)
    }

    /// The memory's part once the store (if any) has the entry.
    fn finish(&self, p: Prepared) -> Result<Handle, LedgerError> {
        if p.existing {
            p.entry.set_expiry(p.expires_at);
            return Ok(p.entry.handle.clone());
        }
        let handle = p.entry.handle.clone();
        let admitted = self
            .lock()
            .admit(&p.key, p.entry.clone(), self.config.max_bytes, p.now);
        // Another thread may have recorded it while we analysed.
        if let Err(existing) = admitted {
            let (call_id, text) = (&p.entry.handle.tool_call_id, p.entry.text.payload());
            let h = same_result(&existing, &p.key, call_id, text)?;
            existing.set_expiry(p.expires_at);
            return Ok(h);
        }
        Ok(handle)
    }

    fn refused(&self, e: StoreError) -> LedgerError {
        if self.is_shut() {
            LedgerError::Closed
        } else {
            LedgerError::Store(self.store_failed(e))
        }
    }

    /// Writes the entry to the store. Write-through holds for a repeated
    /// record too (another process may have deleted the row), and the new
    /// expiry applies.
    async fn put_through(
        &self,
        store: &Arc<dyn Store>,
        entry: NewEntry,
        deadline: Deadline,
    ) -> Result<(), LedgerError> {
        let (mem_id, namespace) = (entry.handle.mem_id.clone(), entry.handle.namespace.clone());
        match store.put(entry, deadline).await {
            Ok(PutOutcome::Inserted | PutOutcome::Existing | PutOutcome::Repaired) => Ok(()),
            Ok(PutOutcome::Collision) => Err(LedgerError::Collision { mem_id, namespace }),
            Err(e) => Err(LedgerError::Store(self.store_failed(e))),
        }
    }
}

impl Shared {
    /// The CPU part of a record: the content settled and analysed (its id,
    /// JSON index and code points at once), then looked up in memory (the
    /// same result is the entry held; a different one a collision) or built
    /// as a new entry; encoded for the store with `encode`. `None` once
    /// `deadline` passed: it stops at the next phase and drops what it made
    /// (its caller has given up), so the slot and the memory go free.
    fn prepare(
        &self,
        mut req: RecordRequest,
        ttl: Ttl,
        encode: bool,
        deadline: Deadline,
    ) -> Result<Option<Prepared>, LedgerError> {
        check_namespace(&req.namespace)?;
        self.gate();
        // Held bytes whose owner is gone: the JS env that made the call has ended.
        let content = std::mem::take(&mut req.content)
            .settle()
            .ok_or(LedgerError::Closed)?;
        check_content_len(content.as_bytes().len())?;
        if deadline.passed() {
            return Ok(None);
        }
        // JSON analysis of WTF-8 runs on its display form (same byte length).
        let view = content.lossy();
        // The id hash and the code-point count run beside the JSON pass, on
        // whichever of its threads is free first.
        let forced = self.forced();
        let (json, mem_id, counted) = analyze_str_with(
            &view,
            &|| {
                let id = forced.clone();
                id.unwrap_or_else(|| mem_id_for(&req.tool_call_id, content.as_bytes()))
            },
            &|| Text::count(&content),
        );
        drop(view);
        if deadline.passed() {
            return Ok(None);
        }
        let now = now_ms();
        let expires_at = self.expiry(ttl, now);
        let key: Key = (req.namespace.clone(), mem_id);
        let existing = self.lock().touch(&key, now);
        let (entry, existing) = match existing {
            Some(existing) => {
                same_result(&existing, &key, &req.tool_call_id, content.as_bytes())?;
                (existing, true)
            }
            None => {
                let entry = build_entry(
                    key.1.clone(),
                    req,
                    Text::from_counted(content, counted),
                    json,
                    self.config.preview_chars,
                );
                entry.set_expiry(expires_at);
                (Arc::new(entry), false)
            }
        };
        if deadline.passed() {
            return Ok(None);
        }
        let stored = encode.then(|| {
            let bytes: Bytes = entry.clone();
            NewEntry::new(entry.handle.clone(), bytes, entry.text.form(), expires_at)
        });
        Ok(Some(Prepared {
            key,
            entry,
            existing,
            expires_at,
            now,
            stored,
        }))
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

pub(super) fn same_result(
    existing: &Entry,
    key: &Key,
    call_id: &str,
    content: &[u8],
) -> Result<Handle, LedgerError> {
    if existing.handle.tool_call_id == call_id && existing.text.payload() == content {
        Ok(existing.handle.clone())
    } else {
        Err(LedgerError::Collision {
            mem_id: key.1.clone(),
            namespace: key.0.clone(),
        })
    }
}
