//! The sync forms of the ledger's calls that only the tests use (the
//! binding's sync calls are `fetch` and `record_with`): each waits for the
//! async form with a store, and answers from memory without one.

use std::sync::Arc;

use super::{wait, Entry, Found, Handle, Ledger, LedgerError, Read, RecordRequest, Ttl};
use crate::recall::FetchSpec;
use crate::store::StoreError;
use crate::wtf8::Wtf8Buf;

impl Found {
    fn entry(self) -> Option<Arc<Entry>> {
        match self {
            Found::Entry(e) => Some(e),
            _ => None,
        }
    }
}

impl Ledger {
    /// Looks an entry up for a fetch, counting a hit or a miss; a store error
    /// counts and reads as absent (see [`try_get`](Self::try_get)).
    pub(crate) fn get(&self, namespace: &str, mem_id: &str) -> Option<Arc<Entry>> {
        self.try_get(namespace, mem_id).ok().flatten()
    }

    /// Looks an entry up for a fetch, counting a hit or a miss; a memory miss
    /// reloads from the store.
    pub(crate) fn try_get(&self, namespace: &str, mem_id: &str) -> Result<Option<Arc<Entry>>, StoreError> {
        self.find(namespace, mem_id, true).map(Found::entry)
    }

    /// Looks an entry up without counting a hit or a miss or reordering;
    /// a memory miss reloads from the store (counted as a store hit or miss).
    pub(crate) fn try_peek(&self, namespace: &str, mem_id: &str) -> Result<Option<Arc<Entry>>, StoreError> {
        self.find(namespace, mem_id, false).map(Found::entry)
    }

    /// [`try_peek`](Self::try_peek), a store error reading as absent.
    pub(crate) fn peek(&self, namespace: &str, mem_id: &str) -> Option<Arc<Entry>> {
        self.try_peek(namespace, mem_id).ok().flatten()
    }

    /// `fetch` plus the output cap, in one pass over the entry (a full 5 MB
    /// payload is cut here, not copied out and cut later).
    pub(crate) fn recall(
        &self,
        namespace: &str,
        mem_id: &str,
        spec: &FetchSpec,
        max_output_chars: usize,
    ) -> Wtf8Buf {
        Self::answer(
            self.find(namespace, mem_id, true),
            namespace,
            mem_id,
            spec,
            Read::Recall {
                cap: max_output_chars,
            },
        )
    }

    pub(crate) fn handle(&self, namespace: &str, mem_id: &str) -> Option<Handle> {
        self.try_handle(namespace, mem_id).ok().flatten()
    }

    pub(crate) fn try_handle(&self, namespace: &str, mem_id: &str) -> Result<Option<Handle>, StoreError> {
        Ok(self.try_peek(namespace, mem_id)?.map(|e| e.handle.clone()))
    }

    /// The stub, optionally with a different preview length than the ledger's.
    pub(crate) fn stub(&self, namespace: &str, mem_id: &str, preview_chars: Option<usize>) -> Option<String> {
        self.try_stub(namespace, mem_id, preview_chars).ok().flatten()
    }

    pub(crate) fn try_stub(
        &self,
        namespace: &str,
        mem_id: &str,
        preview_chars: Option<usize>,
    ) -> Result<Option<String>, StoreError> {
        Ok(self
            .try_peek(namespace, mem_id)?
            .map(|e| self.stub_of(&e, preview_chars)))
    }

    /// Records a result; the same (call id, content) again returns the identical handle.
    /// Refuses a namespace over `MAX_NAMESPACE_CHARS` code points and content over
    /// `MAX_CONTENT_BYTES` bytes.
    pub(crate) fn record(&self, req: RecordRequest) -> Result<Handle, LedgerError> {
        self.record_with(req, Ttl::Default)
    }

    pub(crate) fn delete(&self, namespace: &str, mem_id: &str) -> bool {
        self.try_delete(namespace, mem_id).unwrap_or(false)
    }

    /// Removes one entry from memory and the store; true if either held it.
    pub(crate) fn try_delete(&self, namespace: &str, mem_id: &str) -> Result<bool, StoreError> {
        if self.backing.is_none() {
            self.check_open()?;
            return Ok(self.lock().remove(&(namespace.to_string(), mem_id.to_string())));
        }
        wait(self.delete_async(namespace, mem_id, self.deadline()))
    }

    /// Removes every entry, or those of one namespace; returns how many.
    pub(crate) fn clear(&self, namespace: Option<&str>) -> usize {
        self.try_clear(namespace).unwrap_or(0)
    }

    /// [`clear`](Self::clear) in memory and in the store; the count is the
    /// larger of the two (the store holds every live entry the memory does,
    /// unless another process removed some).
    pub(crate) fn try_clear(&self, namespace: Option<&str>) -> Result<usize, StoreError> {
        if self.backing.is_none() {
            self.check_open()?;
            return Ok(self.clear_memory(namespace));
        }
        wait(self.clear_async(namespace, self.deadline()))
    }

    /// Closes the ledger: later calls fail with [`LedgerError::Closed`], the
    /// in-memory entries are freed, and the store (if any) is released once
    /// the calls in flight have ended.
    pub(crate) async fn close(&self) -> Result<(), StoreError> {
        if !self.mark_closed() {
            return Ok(());
        }
        self.shut().await
    }
}
