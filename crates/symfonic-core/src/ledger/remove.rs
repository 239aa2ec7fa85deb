//! Removing entries: expired ones (`sweep`), one (`delete`), a namespace's or
//! all of them (`clear`), from memory and from the store below.

use super::{wait, Ledger};
use crate::clock::now_ms;
use crate::runtime::Deadline;
use crate::store::StoreError;

impl Ledger {
    /// Removes expired entries from memory and the store now; returns how many the store removed.
    pub fn sweep(&self) -> Result<usize, StoreError> {
        self.lock().sweep(now_ms());
        if self.backing.is_none() {
            return Ok(0);
        }
        wait(self.sweep_async(self.deadline()))
    }

    pub async fn sweep_async(&self, deadline: Deadline) -> Result<usize, StoreError> {
        let _call = self.enter()?;
        self.lock().sweep(now_ms());
        match self.store(deadline).await? {
            Some(store) => store.sweep(deadline).await.map_err(|e| self.store_failed(e)),
            None => Ok(0),
        }
    }

    pub fn delete(&self, namespace: &str, mem_id: &str) -> bool {
        self.try_delete(namespace, mem_id).unwrap_or(false)
    }

    /// Removes one entry from memory and the store; true if either held it.
    pub fn try_delete(&self, namespace: &str, mem_id: &str) -> Result<bool, StoreError> {
        if self.backing.is_none() {
            self.check_open()?;
            return Ok(self.lock().remove(&(namespace.to_string(), mem_id.to_string())));
        }
        wait(self.delete_async(namespace, mem_id, self.deadline()))
    }

    pub async fn delete_async(
        &self,
        namespace: &str,
        mem_id: &str,
        deadline: Deadline,
    ) -> Result<bool, StoreError> {
        let _call = self.enter()?;
        let store = self.store(deadline).await?;
        let in_memory = self.lock().remove(&(namespace.to_string(), mem_id.to_string()));
        let stored = match store {
            Some(store) => store
                .delete(namespace, mem_id, deadline)
                .await
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
        if self.backing.is_none() {
            self.check_open()?;
            return Ok(self.clear_memory(namespace));
        }
        wait(self.clear_async(namespace, self.deadline()))
    }

    fn clear_memory(&self, namespace: Option<&str>) -> usize {
        self.lock()
            .remove_where(|(ns, _), _| namespace.is_none_or(|n| n == ns))
    }

    pub async fn clear_async(
        &self,
        namespace: Option<&str>,
        deadline: Deadline,
    ) -> Result<usize, StoreError> {
        let _call = self.enter()?;
        let store = self.store(deadline).await?;
        let in_memory = self.clear_memory(namespace);
        let stored = match store {
            Some(store) => store
                .clear(namespace, deadline)
                .await
                .map_err(|e| self.store_failed(e))?,
            None => 0,
        };
        Ok(in_memory.max(stored))
    }
}
