//! The Ledger's lookups and removals (`handle`, `stub`, `has`, `delete`,
//! `clear`): Promises answered at once from memory (or without a store),
//! else on the store runtime.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use super::objects::{ClearOptions, EntryOptions, StubOptions, ToolResultHandle};
use super::spawn::rejected;
use super::{resolved, to_handle, Ledger, Now};
use crate::error::{closed_error, guard, store_error, Code, JsResult};
use crate::napi_external::sync;
use symfonic_core::ledger::{self as core, Found};

#[napi]
impl Ledger {
    /// A lookup that does not count as a hit or a miss: answered at once from
    /// memory (or without a store), else on the store runtime (a read, the
    /// entry rebuilt and kept in memory); `then` makes the JS value.
    fn lookup<'env, V, F>(
        &self,
        env: &'env Env,
        method: &str,
        mem_id: String,
        namespace: String,
        then: F,
    ) -> JsResult<Now<'env, V>>
    where
        V: ToNapiValue + FromNapiValue + Send + 'static,
        F: FnOnce(&core::Ledger, Found) -> V + Send + 'static,
    {
        if self.inner.is_closed() {
            return rejected(env, closed_error(method)).map(Either::B);
        }
        let here = self.inner.in_memory(&namespace, &mem_id);
        if here.is_some() || !self.inner.has_store() {
            let found = here.map_or(Found::Missing, Found::Entry);
            return resolved(env, then(&self.inner, found));
        }
        let method = method.to_string();
        self.on_store(env, move |inner, deadline| async move {
            let found = inner.find_async(&namespace, &mem_id, false, deadline).await;
            let found = found.map_err(|e| {
                if inner.is_shut() {
                    closed_error(&method)
                } else {
                    store_error(e)
                }
            })?;
            Ok(then(&inner, found))
        })
        .map(Either::B)
    }

    /// The handle of an archived result in `options.namespace` (default `""`), or null. With a store, a memory miss
    /// reads it (off the JS thread); a failed read rejects with
    /// `ERR_SYMFONIC_STORE` (`ERR_SYMFONIC_STORE_TIMEOUT` past `timeoutMs`).
    #[napi(ts_return_type = "Promise<ToolResultHandle | null>", catch_unwind)]
    pub fn handle<'env>(
        &self,
        env: &'env Env,
        mem_id: String,
        options: Option<EntryOptions>,
    ) -> Result<Now<'env, Option<ToolResultHandle>>, Code> {
        guard(|| {
            self.lookup(
                env,
                "Ledger.handle(memId, options)",
                mem_id,
                options.and_then(|o| o.namespace).unwrap_or_default(),
                |_, f| match f {
                    Found::Entry(e) => Some(to_handle(e.handle.clone())),
                    _ => None,
                },
            )
        })
    }

    /// The stub of an archived result in `options.namespace` (default `""`), or
    /// null. `options.previewChars` renders it
    /// with another preview length (deterministically, like the original). With a
    /// store, a memory miss reads it (off the JS thread); a failed read rejects
    /// with `ERR_SYMFONIC_STORE` (`ERR_SYMFONIC_STORE_TIMEOUT` past `timeoutMs`).
    #[napi(ts_return_type = "Promise<string | null>", catch_unwind)]
    pub fn stub<'env>(
        &self,
        env: &'env Env,
        mem_id: String,
        options: Option<StubOptions>,
    ) -> Result<Now<'env, Option<String>>, Code> {
        guard(|| {
            let (namespace, preview) = options.map_or((None, None), |o| (o.namespace, o.preview_chars));
            let preview = preview.filter(|p| p.is_finite() && *p >= 0.0).map(|p| p as usize);
            self.lookup(
                env,
                "Ledger.stub(memId, options)",
                mem_id,
                namespace.unwrap_or_default(),
                move |l, f| match f {
                    Found::Entry(e) => Some(l.stub_of(&e, preview)),
                    _ => None,
                },
            )
        })
    }

    /// Whether the ledger holds a live entry under `memId` in
    /// `options.namespace` (default `""`): in memory, or in the store (then
    /// read and kept in memory). Counts no hit or miss. A failed store read
    /// rejects with `ERR_SYMFONIC_STORE` (`ERR_SYMFONIC_STORE_TIMEOUT` past `timeoutMs`).
    #[napi(ts_return_type = "Promise<boolean>", catch_unwind)]
    pub fn has<'env>(
        &self,
        env: &'env Env,
        mem_id: String,
        options: Option<EntryOptions>,
    ) -> Result<Now<'env, bool>, Code> {
        guard(|| {
            let ns = options.and_then(|o| o.namespace).unwrap_or_default();
            self.lookup(env, "Ledger.has(memId, options)", mem_id, ns, |_, f| {
                matches!(f, Found::Entry(_))
            })
        })
    }

    /// Removes one entry (from the store too); resolves to whether it was there.
    /// A failed store delete rejects with `ERR_SYMFONIC_STORE`
    /// (`ERR_SYMFONIC_STORE_TIMEOUT` past `timeoutMs`: it may have been deleted).
    #[napi(ts_return_type = "Promise<boolean>", catch_unwind)]
    pub fn delete<'env>(
        &self,
        env: &'env Env,
        mem_id: String,
        options: Option<EntryOptions>,
    ) -> Result<Now<'env, bool>, Code> {
        guard(|| {
            if self.inner.is_closed() {
                return rejected(env, closed_error("Ledger.delete(memId, options)")).map(Either::B);
            }
            let ns = options.and_then(|o| o.namespace).unwrap_or_default();
            if !self.inner.has_store() {
                let removed = self.inner.try_delete(&ns, &mem_id).map_err(store_error)?;
                sync(env, &self.inner, &self.reported);
                return resolved(env, removed);
            }
            self.on_store(env, move |inner, deadline| async move {
                inner
                    .delete_async(&ns, &mem_id, deadline)
                    .await
                    .map_err(store_error)
            })
            .map(Either::B)
        })
    }

    /// Removes every entry, or only those of `options.namespace` (from the store too);
    /// resolves to how many were removed. A failed store clear rejects with
    /// `ERR_SYMFONIC_STORE` (`ERR_SYMFONIC_STORE_TIMEOUT` past `timeoutMs`).
    /// Without a store the entries are gone when `clear` returns.
    #[napi(ts_return_type = "Promise<number>", catch_unwind)]
    pub fn clear<'env>(&self, env: &'env Env, options: Option<ClearOptions>) -> Result<Now<'env, u32>, Code> {
        guard(|| {
            if self.inner.is_closed() {
                return rejected(env, closed_error("Ledger.clear(options)")).map(Either::B);
            }
            let namespace = options.and_then(|o| o.namespace);
            if !self.inner.has_store() {
                // Done now, so that a clear not awaited has cleared all the same.
                let n = self.inner.try_clear(namespace.as_deref()).map_err(store_error)?;
                sync(env, &self.inner, &self.reported);
                return resolved(env, n.min(u32::MAX as usize) as u32);
            }
            self.on_store(env, move |inner, deadline| async move {
                let n = inner.clear_async(namespace.as_deref(), deadline).await;
                n.map(|n| n.min(u32::MAX as usize) as u32).map_err(store_error)
            })
            .map(Either::B)
        })
    }
}
