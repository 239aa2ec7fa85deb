//! Reading the ledger: fetch and recall answers (on the calling thread when
//! they are cheap, see `core::quick`), handles and stubs.

use super::entry::restub;
use super::{Handle, Key, Ledger};
use crate::core::recall::{self, FetchSpec};
use crate::core::store::{now_ms, StoreError};
use crate::core::wtf8::Wtf8Buf;

impl Ledger {
    /// The answer of [`fetch`](Self::fetch) (`max_output` `usize::MAX`) or
    /// [`recall`](Self::recall), if it is cheap enough for the calling thread
    /// (see `core::quick`); `None` leaves it to another thread, uncounted. A
    /// memory miss with a store below is not cheap (it reads the store); one
    /// without a store is "not found", counted as a miss.
    pub fn answer_quick(
        &self,
        namespace: &str,
        mem_id: &str,
        spec: &FetchSpec,
        max_output: usize,
    ) -> Option<Wtf8Buf> {
        let key: Key = (namespace.to_string(), mem_id.to_string());
        let now = now_ms();
        let mut lru = self.lock();
        let live = lru
            .map
            .get(&key)
            .map(|s| s.entry.clone())
            .filter(|e| !e.expired(now));
        let Some(entry) = live else {
            if self.backing.is_some() {
                return None;
            }
            lru.touch(&key, now); // drops an expired entry, as `try_get` does
            lru.stats.misses += 1;
            drop(lru);
            let miss = recall::not_found(mem_id, namespace).into();
            return Some(if max_output == usize::MAX {
                miss
            } else {
                recall::cap_output(&miss, mem_id, max_output, None)
            });
        };
        drop(lru);
        // Answered outside the lock, then counted and made most recent.
        let answer = crate::core::quick::quick_answer(&entry, spec, max_output)?;
        let answer = if max_output == usize::MAX {
            answer.into_buf()
        } else {
            recall::cap_answer(&entry, answer, max_output)
        };
        let mut lru = self.lock();
        lru.touch(&key, now);
        lru.stats.hits += 1;
        drop(lru);
        Some(answer)
    }

    /// `fetch` as the JS API exposes it: a string answer, never an error.
    pub fn fetch(&self, namespace: &str, mem_id: &str, spec: &FetchSpec) -> Wtf8Buf {
        match self.try_get(namespace, mem_id) {
            Ok(Some(e)) => recall::fetch_entry(&e, spec, usize::MAX).into_buf(),
            Ok(None) => recall::not_found(mem_id, namespace).into(),
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
                return recall::cap_answer(
                    &e,
                    recall::fetch_entry(&e, spec, max_output_chars),
                    max_output_chars,
                )
            }
            Ok(None) => recall::not_found(mem_id, namespace),
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
            Some(n) if n != self.config.preview_chars => restub(&e, n, self.config.preview_chars),
            _ => e.handle.stub.clone(),
        }))
    }
}
