//! Removing entries: one (`delete`), a namespace's or all of them (`clear`),
//! from memory and from the store below.

use super::Ledger;
use crate::runtime::Deadline;
use crate::store::StoreError;

impl Ledger {
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

    pub(super) fn clear_memory(&self, namespace: Option<&str>) -> usize {
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
