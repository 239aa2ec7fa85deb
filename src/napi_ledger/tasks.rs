//! The libuv-pool tasks of a ledger without a store (record, fetch, recall):
//! CPU work only, each with its sync twin in `Ledger`. A ledger with a store
//! runs its calls on the store runtime instead (see `spawn`).

use std::sync::atomic::AtomicI64;
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use super::objects::ToolResultHandle;
use super::to_handle;
use crate::error::{guard, ledger_error, rejection, JsResult};
use crate::napi_external::sync;
use crate::napi_text::JsText;
use symfonic_core::ledger::{self as core, RecordRequest, Ttl};
use symfonic_core::recall::FetchSpec;
use symfonic_core::wtf8::Wtf8Buf;

/// Records off the JS thread (the payload crossed the boundary once, before);
/// with a store, the row is committed here too, on the libuv pool.
pub struct RecordTask {
    pub(super) inner: Arc<core::Ledger>,
    pub(super) reported: Arc<AtomicI64>,
    pub(super) req: Option<RecordRequest>,
    pub(super) ttl: Ttl,
}

#[napi]
impl Task for RecordTask {
    // The coded error travels as output: `compute`'s own error type has no code.
    type Output = JsResult<core::Handle>;
    type JsValue = ToolResultHandle;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(guard(|| {
            let req = self.req.take().expect("a task computes once");
            self.inner.record_with(req, self.ttl).map_err(ledger_error)
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
        match output.and_then(|h| guard(|| Ok(to_handle(h)))) {
            Ok(h) => {
                sync(&env, &self.inner, &self.reported);
                Ok(h)
            }
            Err(e) => Err(rejection(&env, e)),
        }
    }
}

pub(super) enum Read {
    Fetch(FetchSpec),
    Recall(FetchSpec, usize),
}

/// Fetches (or recalls) off the JS thread; only the answer crosses back. A
/// memory miss reloads from the store here, on the libuv pool.
pub struct FetchTask {
    pub(super) inner: Arc<core::Ledger>,
    pub(super) reported: Arc<AtomicI64>,
    pub(super) namespace: String,
    pub(super) mem_id: String,
    pub(super) read: Read,
}

impl FetchTask {
    pub(super) fn run(&self) -> Wtf8Buf {
        match &self.read {
            Read::Fetch(spec) => self.inner.fetch(&self.namespace, &self.mem_id, spec),
            Read::Recall(spec, max) => self.inner.recall(&self.namespace, &self.mem_id, spec, *max),
        }
    }
}

#[napi]
impl Task for FetchTask {
    type Output = JsResult<Wtf8Buf>;
    type JsValue = JsText;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(guard(|| Ok(self.run())))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
        // A reload from the store may have grown the memory held.
        if self.inner.has_store() {
            sync(&env, &self.inner, &self.reported);
        }
        output.map(JsText).map_err(|e| rejection(&env, e))
    }
}

/// Internal, for tests only: a task whose `compute` panics.
#[doc(hidden)]
pub struct PanicTask;

#[napi]
impl Task for PanicTask {
    type Output = JsResult<()>;
    type JsValue = ();

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(guard(|| panic!("deliberate panic for a test (async)")))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue> {
        output.map_err(|e| rejection(&env, e))
    }
}
