//! The Ledger's block entries (`lib/block-record.js`): an image's or a
//! document's bytes recorded and read back as bytes, never as text. Internal
//! methods: the JS entry's `recordBlocks` and `fetchBlock` are the API.

use std::time::Instant;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use super::objects::{EntryOptions, RecordInput};
use super::{began, namespace, request, to_handle, ttl, Ledger};
use crate::error::{call_error, guard, ledger_error, napi_error, Code};
use symfonic_core::api::{Found, Payload, Ttl};

#[napi]
impl Ledger {
    /// Internal, for `lib/block-record.js`: `record` of a block whose bytes
    /// are `input.content` (a Buffer), held as bytes after `head`. Not in the typings.
    #[doc(hidden)]
    #[napi(js_name = "__recordBlock", skip_typescript, catch_unwind)]
    pub fn record_block<'env>(
        &self,
        env: &'env Env,
        input: RecordInput,
        head: String,
        started_at: Option<f64>,
    ) -> Result<Object<'env>, Code> {
        guard(|| {
            let start = began(started_at);
            let ttl = input.ttl_seconds.map_or(Ttl::Default, ttl);
            let method = "Ledger.recordBlocks(input)";
            let mut req = request(input)
                .map_err(napi_error)?
                .map_err(|e| ledger_error(method, e))?;
            let data = Box::new(std::mem::take(&mut req.content));
            req.content = Payload::Block { head, data };
            self.call(env, method, start, move |inner, deadline| async move {
                let h = inner.record_async(req, ttl, deadline).await;
                h.map(to_handle).map_err(|e| ledger_error(method, e))
            })
        })
    }

    /// Internal, for `lib/block-record.js`: the payload of the block entry
    /// under `memId` (its UTF-8 head, a NUL, its bytes; a read: it counts as
    /// a hit or a miss), `false` for a text entry, null when there is none.
    /// Not in the typings.
    #[doc(hidden)]
    #[napi(js_name = "__block", skip_typescript, catch_unwind)]
    pub fn block<'env>(
        &self,
        env: &'env Env,
        mem_id: String,
        options: Option<EntryOptions>,
    ) -> Result<Object<'env>, Code> {
        guard(|| {
            let ns = namespace(options.and_then(|o| o.namespace));
            let method = "Ledger.fetchBlock(memId, options)";
            self.call(env, method, Instant::now(), move |inner, deadline| async move {
                let found = inner.find_async(&ns, &mem_id, true, deadline).await;
                let found = found.map_err(|e| call_error(method, &inner, e))?;
                let Found::Entry(e) = found else {
                    return Ok(None);
                };
                Ok(Some(match e.text.block_data() {
                    Some(_) => Either::<Buffer, bool>::A(e.text.payload().to_vec().into()),
                    None => Either::B(false),
                }))
            })
        })
    }
}
