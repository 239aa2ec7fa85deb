//! The Ledger's lookups and removals (`handle`, `stub`, `has`, `delete`,
//! `clear`), each a future on the runtime like every async call.

use std::time::Instant;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use super::objects::{ClearOptions, EntryOptions, StubOptions};
use super::{namespace, to_handle, Ledger};
use crate::error::{call_error, guard, Code, JsResult};
use symfonic_core::api::{self, Found};

#[napi]
impl Ledger {
    /// A lookup that does not count as a hit or a miss: from memory, else
    /// from the store (a read, the entry rebuilt and kept in memory); `then`
    /// makes the JS value.
    fn lookup<'env, V, F>(
        &self,
        env: &'env Env,
        method: &str,
        mem_id: String,
        namespace: String,
        then: F,
    ) -> JsResult<Object<'env>>
    where
        V: ToNapiValue + Send + 'static,
        F: FnOnce(&api::Ledger, Found) -> V + Send + 'static,
    {
        let m = method.to_string();
        self.call(env, method, Instant::now(), move |inner, deadline| async move {
            let found = inner.find_async(&namespace, &mem_id, false, deadline).await;
            let found = found.map_err(|e| call_error(&m, &inner, e))?;
            Ok(then(&inner, found))
        })
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
    ) -> Result<Object<'env>, Code> {
        guard(|| {
            self.lookup(
                env,
                "Ledger.handle(memId, options)",
                mem_id,
                namespace(options.and_then(|o| o.namespace)),
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
    ) -> Result<Object<'env>, Code> {
        guard(|| {
            let (ns, preview) = options.map_or((None, None), |o| (o.namespace, o.preview_chars));
            let preview = preview.map(|p| p as usize);
            self.lookup(
                env,
                "Ledger.stub(memId, options)",
                mem_id,
                namespace(ns),
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
    ) -> Result<Object<'env>, Code> {
        guard(|| {
            let ns = namespace(options.and_then(|o| o.namespace));
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
    ) -> Result<Object<'env>, Code> {
        guard(|| {
            let ns = namespace(options.and_then(|o| o.namespace));
            let method = "Ledger.delete(memId, options)";
            self.call(env, method, Instant::now(), move |inner, deadline| async move {
                let removed = inner.delete_async(&ns, &mem_id, deadline).await;
                removed.map_err(|e| call_error(method, &inner, e))
            })
        })
    }

    /// Removes every entry, or only those of `options.namespace` (from the store too);
    /// resolves to how many were removed. A failed store clear rejects with
    /// `ERR_SYMFONIC_STORE` (`ERR_SYMFONIC_STORE_TIMEOUT` past `timeoutMs`).
    #[napi(ts_return_type = "Promise<number>", catch_unwind)]
    pub fn clear<'env>(&self, env: &'env Env, options: Option<ClearOptions>) -> Result<Object<'env>, Code> {
        guard(|| {
            let namespace = options.and_then(|o| o.namespace);
            let method = "Ledger.clear(options)";
            self.call(env, method, Instant::now(), move |inner, deadline| async move {
                let n = inner.clear_async(namespace.as_deref(), deadline).await;
                let n = n.map_err(|e| call_error(method, &inner, e))?;
                Ok(n.min(u32::MAX as usize) as u32)
            })
        })
    }
}
