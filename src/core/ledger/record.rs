//! Recording a result: the payload settled, analysed (its JSON index, id
//! and code points at once), admitted under its id, and written through to
//! the store when there is one; the same result again is the same handle.

use std::sync::Arc;

use super::entry::build_entry;
use super::{
    Entry, Handle, Key, Ledger, LedgerError, RecordRequest, Ttl, MAX_CONTENT_BYTES, MAX_NAMESPACE_CHARS,
};
use crate::core::ids::mem_id_for;
use crate::core::json::analyze_str_with;
use crate::core::store::{now_ms, NewEntry, PutOutcome};
use crate::core::text::Text;

impl Ledger {
    /// Records a result; the same (call id, content) again returns the identical handle.
    /// Refuses a namespace over `MAX_NAMESPACE_CHARS` code points and content over
    /// `MAX_CONTENT_BYTES` bytes.
    pub fn record(&self, req: RecordRequest) -> Result<Handle, LedgerError> {
        self.record_with(req, Ttl::Default)
    }

    /// [`record`](Self::record) with the entry's time to live. With a store,
    /// returns only once the store has the entry, and refuses an id the store
    /// holds for a different result (recorded by any process sharing it).
    /// The content is settled first (transcoded, see [`Payload::settle`]):
    /// for an async record this runs on the libuv pool, like the rest.
    pub fn record_with(&self, mut req: RecordRequest, ttl: Ttl) -> Result<Handle, LedgerError> {
        check_namespace(&req.namespace)?;
        let (content, hashed) = std::mem::take(&mut req.content).settle();
        // An id hashed while the string crossed counts for this call id only.
        let hashed = hashed.and_then(|h| h.for_call(&req.tool_call_id));
        check_content_len(content.as_bytes().len())?;
        // JSON analysis of WTF-8 runs on its display form (same byte length).
        let view = content.lossy();
        // The id hash (unless it was hashed as the string crossed) and the
        // code-point count run beside the JSON pass, on whichever of its
        // threads is free first.
        let forced = self.forced();
        let (json, mem_id, counted) = analyze_str_with(
            &view,
            &|| {
                let id = forced.clone().or_else(|| hashed.clone());
                id.unwrap_or_else(|| mem_id_for(&req.tool_call_id, content.as_bytes()))
            },
            &|| Text::count(&content),
        );
        drop(view);
        let now = now_ms();
        let expires_at = self.expiry(ttl, now);
        let key: Key = (req.namespace.clone(), mem_id);
        let existing = self.lock().touch(&key, now);
        if let Some(existing) = existing {
            let handle = same_result(&existing, &key, &req.tool_call_id, content.as_bytes())?;
            // Write-through holds for a repeated record too (another process
            // may have deleted the row), and the new expiry applies.
            self.put_through(&existing, expires_at)?;
            existing.set_expiry(expires_at);
            return Ok(handle);
        }
        let entry = build_entry(
            key.1.clone(),
            req,
            Text::from_counted(content, counted),
            json,
            self.config.preview_chars,
        );
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
            Ok(PutOutcome::Inserted | PutOutcome::Existing | PutOutcome::Repaired) => Ok(()),
            Ok(PutOutcome::Collision) => Err(LedgerError::Collision {
                mem_id: entry.handle.mem_id.clone(),
                namespace: entry.handle.namespace.clone(),
            }),
            Err(e) => Err(LedgerError::Store(self.store_failed(e))),
        }
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
    if existing.handle.tool_call_id == call_id && existing.text.as_bytes() == content {
        Ok(existing.handle.clone())
    } else {
        Err(LedgerError::Collision {
            mem_id: key.1.clone(),
            namespace: key.0.clone(),
        })
    }
}
