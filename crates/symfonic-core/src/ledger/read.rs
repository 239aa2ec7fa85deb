//! Reading the ledger: fetch and recall answers, handles and stubs. A memory
//! miss with a store below reads the store (`find_async`, on the runtime) and
//! rebuilds the entry from its row; the sync forms wait for it.

use std::sync::Arc;

use super::build::restub;
use super::{rebuild_entry, wait, Entry, Key, Ledger, LedgerError};
use crate::clock::now_ms;
use crate::recall::{self, FetchSpec};
use crate::runtime::{cpu_for, Deadline, Lane};
use crate::store::{Lookup, StoreError};
use crate::wtf8::Wtf8Buf;

/// What a lookup found.
#[derive(Debug, Clone)]
pub enum Found {
    Entry(Arc<Entry>),
    /// Neither the memory nor the store holds it (never recorded here, deleted).
    Missing,
    /// Its time to live has passed.
    Expired,
    /// The store had it and its server evicted it: why.
    Evicted(String),
}

/// What a read answers: a fetch (the whole answer, a store failure told as
/// one) or a recall (cut to `cap` code points, the store told unavailable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read {
    Fetch,
    Recall { cap: usize },
}

impl Read {
    /// The output budget the recall functions take: none for a fetch.
    fn budget(self) -> usize {
        match self {
            Read::Fetch => usize::MAX,
            Read::Recall { cap } => cap,
        }
    }

    /// An entry's answer, cut to the cap for a recall.
    fn finish(self, e: &Entry, a: recall::Answer<'_>) -> Wtf8Buf {
        match self {
            Read::Fetch => a.into_buf(),
            Read::Recall { cap } => recall::cap_answer(e, a, cap),
        }
    }

    /// A message (a miss, a failure), cut to the cap for a recall.
    fn finish_message(self, text: Wtf8Buf, mem_id: &str) -> Wtf8Buf {
        match self {
            Read::Fetch => text,
            Read::Recall { cap } => recall::cap_output(&text, mem_id, cap, None),
        }
    }
}

impl Ledger {
    /// The entry under the key, from memory or (a miss) from the store,
    /// counting a hit or a miss when `count` (a fetch), else neither (a peek).
    pub async fn find_async(
        &self,
        namespace: &str,
        mem_id: &str,
        count: bool,
        deadline: Deadline,
    ) -> Result<Found, StoreError> {
        let _call = self.enter()?;
        let missing = match self.find_in_memory(namespace, mem_id, count) {
            Ok(e) => return Ok(Found::Entry(e)),
            Err(missing) => missing,
        };
        let Some(store) = self.store(deadline).await? else {
            return Ok(missing);
        };
        let stored = match store.get(namespace, mem_id, deadline).await {
            Ok(Lookup::Found(s)) => *s,
            Ok(Lookup::Missing) => {
                self.lock().stats.store_misses += 1;
                return Ok(missing);
            }
            Ok(Lookup::Expired) => {
                self.lock().stats.store_misses += 1;
                return Ok(Found::Expired);
            }
            Ok(Lookup::Evicted(why)) => {
                self.lock().stats.store_misses += 1;
                return Ok(Found::Evicted(why));
            }
            Err(e) => return Err(self.store_failed(e)),
        };
        let verify = self.forced().is_none();
        // Re-validating and re-indexing a payload is CPU work: off the runtime's workers.
        let bytes = stored.content.len();
        let rebuilt = cpu_for(Lane::Read, deadline, bytes, move || rebuild_entry(stored, verify))
            .await
            .unwrap_or_else(|| {
                Err(StoreError::timeout(
                    "get",
                    "waiting to re-index the entry",
                    &deadline,
                    false,
                ))
            });
        let entry = match rebuilt {
            Ok(e) => Arc::new(e),
            Err(e) => return Err(self.store_failed(e)),
        };
        let key: Key = (namespace.to_string(), mem_id.to_string());
        let mut lru = self.lock();
        lru.stats.store_hits += 1;
        Ok(Found::Entry(
            match lru.admit(&key, entry.clone(), self.config.max_bytes, now_ms()) {
                Ok(()) => entry,
                Err(existing) => existing,
            },
        ))
    }

    /// The lookup in memory both forms share: the live entry (made most
    /// recently used when `count`), else what the miss reads as without a
    /// store; a hit or a miss counted when `count` (a fetch), else neither (a peek).
    fn find_in_memory(&self, namespace: &str, mem_id: &str, count: bool) -> Result<Arc<Entry>, Found> {
        let key: Key = (namespace.to_string(), mem_id.to_string());
        let mut lru = self.lock();
        let now = now_ms();
        let missing = if lru.expired(&key, now) {
            Found::Expired
        } else {
            Found::Missing
        };
        let found = if count {
            lru.touch(&key, now)
        } else {
            lru.map
                .get(&key)
                .map(|s| s.entry.clone())
                .filter(|e| !e.expired(now))
        };
        if count {
            match found {
                Some(_) => lru.stats.hits += 1,
                None => lru.stats.misses += 1,
            }
        }
        found.ok_or(missing)
    }

    /// [`find_async`](Self::find_async) for the sync API: memory only without a
    /// store, else waiting for the store.
    pub(super) fn find(&self, namespace: &str, mem_id: &str, count: bool) -> Result<Found, StoreError> {
        if self.backing.is_some() {
            return wait(self.find_async(namespace, mem_id, count, self.deadline()));
        }
        self.check_open()?;
        Ok(self
            .find_in_memory(namespace, mem_id, count)
            .map_or_else(|missing| missing, Found::Entry))
    }

    /// The answer to a read from what a lookup found: never an error.
    pub(super) fn answer(
        found: Result<Found, StoreError>,
        namespace: &str,
        mem_id: &str,
        spec: &FetchSpec,
        read: Read,
    ) -> Wtf8Buf {
        let miss = match found {
            Ok(Found::Entry(e)) => return read.finish(&e, recall::fetch_entry(&e, spec, read.budget())),
            Ok(Found::Missing) => recall::not_found(mem_id, namespace),
            Ok(Found::Expired) => recall::expired(mem_id),
            Ok(Found::Evicted(why)) => recall::evicted(mem_id, &why),
            Err(e) if read == Read::Fetch => recall::store_failed(mem_id, &e),
            Err(e) => recall::store_unavailable(mem_id, &e),
        };
        read.finish_message(miss.into(), mem_id)
    }

    /// `fetch` as the JS API exposes it: a string answer, never an error.
    pub fn fetch(&self, namespace: &str, mem_id: &str, spec: &FetchSpec) -> Wtf8Buf {
        Self::answer(
            self.find(namespace, mem_id, true),
            namespace,
            mem_id,
            spec,
            Read::Fetch,
        )
    }

    /// A read answered on the
    /// calling thread when that is cheap: a memory hit whose answer is quick
    /// (`recall::quick_answer`), or a miss of a ledger without a store.
    /// Otherwise `Err(Some(entry))`, a memory hit to answer on the read lane
    /// ([`answer_async`](Self::answer_async)), or `Err(None)`, a lookup for
    /// the runtime ([`read_async`](Self::read_async)). A hit is made most
    /// recently used and counted here, at the call, so the records that come
    /// after it cannot evict it before its answer (the `Arc` holds it).
    pub fn read_now(
        &self,
        namespace: &str,
        mem_id: &str,
        spec: &FetchSpec,
        read: Read,
    ) -> Result<Wtf8Buf, Option<Arc<Entry>>> {
        if self.is_shut() {
            return Err(None);
        }
        let key: Key = (namespace.to_string(), mem_id.to_string());
        let now = now_ms();
        let mut lru = self.lock();
        let held = lru.map.get(&key).map(|s| s.entry.clone());
        let found = match held {
            Some(e) if !e.expired(now) => {
                lru.touch(&key, now);
                lru.stats.hits += 1;
                drop(lru);
                return match recall::quick_answer(&e, spec, read.budget()) {
                    Some(a) => Ok(read.finish(&e, a)),
                    None => Err(Some(e)),
                };
            }
            // The store may hold it (or hold it expired): the runtime asks.
            _ if self.backing.is_some() => return Err(None),
            Some(_) => Found::Expired,
            None => Found::Missing,
        };
        // An expired entry is dropped, as a lookup drops it.
        lru.touch(&key, now);
        lru.stats.misses += 1;
        drop(lru);
        Ok(Self::answer(Ok(found), namespace, mem_id, spec, read))
    }

    /// A read on the runtime: the
    /// lookup (and a store read on a miss), then the answer on the read
    /// lane, all within `deadline`. Only a closed ledger is an error.
    pub async fn read_async(
        self: Arc<Self>,
        namespace: String,
        mem_id: String,
        spec: FetchSpec,
        read: Read,
        deadline: Deadline,
    ) -> Result<Wtf8Buf, LedgerError> {
        if self.is_shut() {
            return Err(LedgerError::Closed);
        }
        let found = self.find_async(&namespace, &mem_id, true, deadline).await;
        self.answer_async(found, namespace, mem_id, spec, read, deadline)
            .await
    }

    /// The answer to a read from what its lookup found (an entry is answered
    /// on the read lane, never behind records' analysis), within `deadline`.
    pub async fn answer_async(
        self: Arc<Self>,
        found: Result<Found, StoreError>,
        namespace: String,
        mem_id: String,
        spec: FetchSpec,
        read: Read,
        deadline: Deadline,
    ) -> Result<Wtf8Buf, LedgerError> {
        if self.is_shut() {
            return Err(LedgerError::Closed);
        }
        let bytes = match &found {
            Ok(Found::Entry(e)) => {
                // A bounded answer (an entry just read back from the store) needs no hop.
                if let Some(a) = recall::quick_answer(e, &spec, read.budget()) {
                    return Ok(read.finish(e, a));
                }
                e.text.as_bytes().len()
            }
            _ => return Ok(Self::answer(found, &namespace, &mem_id, &spec, read)),
        };
        let (ns, id) = (namespace.clone(), mem_id.clone());
        let answer = cpu_for(Lane::Read, deadline, bytes, move || {
            Self::answer(found, &ns, &id, &spec, read)
        })
        .await;
        Ok(answer.unwrap_or_else(|| {
            let late = StoreError::timeout("get", "answering", &deadline, false);
            read.finish_message(recall::store_failed(&mem_id, &late).into(), &mem_id)
        }))
    }

    /// The entry's stub, rendered anew for another preview length.
    pub fn stub_of(&self, e: &Entry, preview_chars: Option<usize>) -> String {
        match preview_chars {
            Some(n) if n != self.config.preview_chars => restub(e, n, self.config.preview_chars),
            _ => e.handle.stub.clone(),
        }
    }
}
