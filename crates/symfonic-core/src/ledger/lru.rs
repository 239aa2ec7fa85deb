//! The in-memory LRU under the ledger's lock: entries by (namespace, mem id),
//! ordered by last use, evicted past the byte bound. What it removes waits in
//! `dead` until the lock is released (then `Locked` frees it).

use std::collections::{BTreeMap, HashMap};
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, MutexGuard};

use super::{Entry, Key, Stats};

pub(super) struct Slot {
    pub(super) entry: Arc<Entry>,
    pub(super) tick: u64,
}

/// The in-memory LRU.
pub(super) struct Lru {
    pub(super) map: HashMap<Key, Slot>,
    pub(super) order: BTreeMap<u64, Key>,
    pub(super) tick: u64,
    pub(super) stats: Stats,
    /// Entries removed while the lock is held.
    pub(super) dead: Vec<Arc<Entry>>,
}

impl Lru {
    /// The live entry under `key`, made most recently used; an expired one is removed.
    /// Whether it holds the entry under `key` and its time to live has passed.
    pub(super) fn expired(&self, key: &Key, now: u64) -> bool {
        self.map.get(key).is_some_and(|s| s.entry.expired(now))
    }

    pub(super) fn touch(&mut self, key: &Key, now: u64) -> Option<Arc<Entry>> {
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

    /// Removes the entry under `key`; true if there was one.
    pub(super) fn remove(&mut self, key: &Key) -> bool {
        let Some(slot) = self.map.remove(key) else {
            return false;
        };
        self.order.remove(&slot.tick);
        self.stats.bytes -= slot.entry.bytes;
        self.stats.entries -= 1;
        self.dead.push(slot.entry);
        true
    }

    /// Inserts `entry` as the most recently used, unless a live entry holds
    /// the key (then returns it, `entry` is dropped); evicts past `max_bytes`.
    pub(super) fn admit(
        &mut self,
        key: &Key,
        entry: Arc<Entry>,
        max_bytes: usize,
        now: u64,
    ) -> Result<(), Arc<Entry>> {
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
            if self.remove(&oldest) {
                self.stats.evictions += 1;
            }
        }
        Ok(())
    }

    /// Removes the expired entries.
    pub(super) fn sweep(&mut self, now: u64) {
        self.remove_where(|_, slot| slot.entry.expired(now));
    }

    /// Removes every entry whose key and slot `gone` picks; returns how many.
    pub(super) fn remove_where(&mut self, gone: impl Fn(&Key, &Slot) -> bool) -> usize {
        let keys: Vec<Key> = self
            .map
            .iter()
            .filter(|(k, s)| gone(k, s))
            .map(|(k, _)| k.clone())
            .collect();
        for k in &keys {
            self.remove(k);
        }
        keys.len()
    }
}

/// The ledger's lock, held. Once released, the entries removed under it are
/// dropped (never while the lock is held).
pub(super) struct Locked<'a>(pub(super) Option<MutexGuard<'a, Lru>>);

impl Deref for Locked<'_> {
    type Target = Lru;
    fn deref(&self) -> &Lru {
        self.0.as_ref().expect("held until dropped")
    }
}

impl DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut Lru {
        self.0.as_mut().expect("held until dropped")
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        let Some(mut lru) = self.0.take() else { return };
        let dead = std::mem::take(&mut lru.dead);
        drop(lru);
        drop(dead);
    }
}
