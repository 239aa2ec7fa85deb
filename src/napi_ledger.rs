//! napi bindings for the Ledger: argument conversion and the async tasks
//! (each with a sync twin sharing the same work); external-memory reports go
//! through `napi_external`.
//! Programmer-error checks with precise `TypeError`s live in `lib/ledger.js`;
//! the checks here are the backstop for callers of the raw binding.

use std::sync::atomic::AtomicI64;
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::core::ids::mem_id_for as core_mem_id;
use crate::core::ledger::{
    self as core, LedgerConfig, LedgerError, RecordRequest, Ttl, MAX_CONTENT_BYTES as MAX_CONTENT,
};
use crate::core::recall::{cap_output, FetchSpec, MAX_OUTPUT_CHARS as MAX_OUT};
use crate::core::store::StoreSpec;
use crate::core::wtf8::Wtf8Buf;
use crate::error::{guard, ledger_error, napi_error, rejection, store_error, type_error, Code, JsResult};
use crate::napi_external::{release, sync};
use crate::napi_text::{ContentRef, JsStr, JsText};

/// The cap on what `recall` returns, in code points, marker included.
#[napi]
pub const MAX_OUTPUT_CHARS: u32 = MAX_OUT as u32;

/// The default `maxBytes` of a ledger (256 MiB).
#[napi]
pub const DEFAULT_MAX_BYTES: u32 = core::DEFAULT_MAX_BYTES as u32;

/// The most bytes of UTF-8 `record` accepts (4,000,000,000); a Buffer longer
/// than this is refused by its length, before anything is copied.
#[napi]
pub const MAX_CONTENT_BYTES: u32 = MAX_CONTENT as u32;

mod objects;
pub use objects::{FetchOptions, LedgerOptions, LedgerStats, RecordInput, StubOptions, ToolResultHandle};

/// An archive of large tool results, keyed by memory id and namespace, bounded
/// by bytes with least-recently-used eviction. Keeps payloads out of the prompt:
/// the conversation carries a stub; `recall` returns the slice the model needs.
#[napi(custom_finalize)]
pub struct Ledger {
    inner: Arc<core::Ledger>,
    /// Bytes reported to V8 as external memory.
    reported: Arc<AtomicI64>,
}

fn to_handle(h: core::Handle) -> ToolResultHandle {
    ToolResultHandle {
        mem_id: h.mem_id,
        namespace: h.namespace,
        tool_name: h.tool_name,
        tool_call_id: h.tool_call_id,
        // `record` refuses payloads whose size could not fit (MAX_CONTENT_BYTES).
        size_chars: h.size_chars.min(u32::MAX as usize) as u32,
        summary: h.summary,
        schema: nullable(h.schema),
        preview: nullable(h.preview),
        stub: h.stub,
    }
}

/// A size option: a non-negative finite number (floored), else a TypeError.
fn non_negative(env: &Env, name: &str, v: f64) -> JsResult<usize> {
    if v.is_finite() && v >= 0.0 {
        Ok(v as usize)
    } else {
        Err(type_error(
            env,
            &format!("Ledger: {name} must be a non-negative finite number"),
        ))
    }
}

/// A `ttlSeconds`: a positive number of seconds (fractions allowed, rounded
/// up to the millisecond), or `Infinity` for no expiry; else a TypeError.
fn ttl(env: &Env, where_: &str, v: f64) -> JsResult<Ttl> {
    if v == f64::INFINITY {
        Ok(Ttl::Never)
    } else if v.is_finite() && v > 0.0 {
        Ok(Ttl::Millis((v * 1000.0).ceil().min(u64::MAX as f64) as u64))
    } else {
        Err(type_error(
            env,
            &format!("{where_}: ttlSeconds must be a positive number of seconds or Infinity"),
        ))
    }
}

fn nullable(s: Option<String>) -> Either<String, Null> {
    s.map_or(Either::B(Null), Either::A)
}

fn request(input: RecordInput) -> std::result::Result<RecordRequest, LedgerError> {
    Ok(RecordRequest {
        namespace: input.namespace.unwrap_or_default(),
        tool_call_id: input.tool_call_id,
        tool_name: input.tool_name,
        tool_args: input.tool_args,
        content: input.content.payload()?,
    })
}

/// A record's `ttlSeconds`: absent means the ledger's.
fn record_ttl(env: &Env, where_: &str, v: Option<f64>) -> JsResult<Ttl> {
    v.map_or(Ok(Ttl::Default), |t| ttl(env, where_, t))
}

fn fetch_spec(options: Option<FetchOptions>) -> (FetchSpec, String) {
    match options {
        Some(o) => (
            FetchSpec::new(
                o.format.as_deref(),
                o.query.map(|q| q.0),
                o.offset,
                o.max_chars,
                o.json_path,
            ),
            o.namespace.unwrap_or_default(),
        ),
        None => (FetchSpec::default(), String::new()),
    }
}

fn max_output(x: Option<f64>) -> usize {
    match x {
        Some(v) if v.is_finite() && v >= 1.0 => v.floor().min(usize::MAX as f64) as usize,
        Some(v) if v == f64::INFINITY => usize::MAX,
        _ => MAX_OUT,
    }
}

/// Records off the JS thread (the payload crossed the boundary once, before);
/// with a store, the row is committed here too, on the libuv pool.
pub struct RecordTask {
    inner: Arc<core::Ledger>,
    reported: Arc<AtomicI64>,
    req: Option<RecordRequest>,
    ttl: Ttl,
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

enum Read {
    Fetch(FetchSpec),
    Recall(FetchSpec, usize),
}

/// Fetches (or recalls) off the JS thread; only the answer crosses back. A
/// memory miss reloads from the store here, on the libuv pool.
pub struct FetchTask {
    inner: Arc<core::Ledger>,
    reported: Arc<AtomicI64>,
    namespace: String,
    mem_id: String,
    read: Read,
}

impl FetchTask {
    fn run(&self) -> Wtf8Buf {
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

#[napi]
impl Ledger {
    /// Creates an empty ledger, or one over a store (a SQLite file is opened,
    /// created if missing, and swept of expired entries here, on the calling
    /// thread; a Redis store connects on its first command, off this thread).
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, options: Option<LedgerOptions>) -> Result<Self, Code> {
        guard(|| {
            let mut config = LedgerConfig::default();
            let (mut store, mut ttl_ms) = (None, None);
            if let Some(o) = options {
                if let Some(m) = o.max_bytes {
                    config.max_bytes = non_negative(&env, "maxBytes", m)?;
                }
                if let Some(p) = o.preview_chars {
                    config.preview_chars = non_negative(&env, "previewChars", p)?;
                }
                if let Some(t) = o.ttl_seconds {
                    if let Ttl::Millis(ms) = ttl(&env, "Ledger", t)? {
                        ttl_ms = Some(ms);
                    }
                }
                if let Some(spec) = o.store {
                    let spec =
                        StoreSpec::parse(&spec).map_err(|m| type_error(&env, &format!("Ledger: {m}")))?;
                    store = Some(spec.open().map_err(store_error)?);
                }
            }
            Ok(Ledger {
                inner: Arc::new(core::Ledger::with_store(config, store, ttl_ms)),
                reported: Arc::new(AtomicI64::new(0)),
            })
        })
    }

    /// Records a tool result off the JS thread and resolves to its handle. Recording
    /// the same (toolCallId, content) again resolves to the identical handle.
    /// Rejects with `code` `ERR_SYMFONIC_MEM_ID_COLLISION` if a different result
    /// already holds the same id (never serves the wrong payload),
    /// `ERR_SYMFONIC_NAMESPACE_TOO_LONG` for a namespace over 1,024 code points, and
    /// `ERR_SYMFONIC_CONTENT_TOO_LARGE` for content over 4,000,000,000 bytes of UTF-8.
    /// With a store, resolves only once the row is committed, and rejects with
    /// `ERR_SYMFONIC_STORE` if the store fails (the result is then not recorded)
    /// and with `ERR_SYMFONIC_MEM_ID_COLLISION` if the store holds a different
    /// result under the id (recorded by any process sharing it).
    #[napi(ts_return_type = "Promise<ToolResultHandle>", catch_unwind)]
    pub fn record(&self, env: Env, input: RecordInput) -> Result<AsyncTask<RecordTask>, Code> {
        guard(|| {
            let ttl = record_ttl(&env, "Ledger.record", input.ttl_seconds)?;
            Ok(AsyncTask::new(RecordTask {
                inner: self.inner.clone(),
                reported: self.reported.clone(),
                req: Some(request(input).map_err(ledger_error)?),
                ttl,
            }))
        })
    }

    /// `record` on the calling thread (with a store, the commit too); throws
    /// the errors `record` rejects with.
    #[napi(catch_unwind)]
    pub fn record_sync(&self, env: Env, input: RecordInput) -> Result<ToolResultHandle, Code> {
        guard(|| {
            let ttl = record_ttl(&env, "Ledger.recordSync", input.ttl_seconds)?;
            let h = request(input)
                .and_then(|req| self.inner.record_with(req, ttl))
                .map_err(ledger_error)?;
            sync(&env, &self.inner, &self.reported);
            Ok(to_handle(h))
        })
    }

    /// Internal, for tests only: every following record of this ledger gets
    /// `memId` instead of its hash (`null` restores hashing), so that the
    /// collision refusal can be exercised. Not in the typings.
    #[doc(hidden)]
    #[napi(js_name = "__forceMemIdForTest", skip_typescript, catch_unwind)]
    pub fn force_mem_id_for_test(&self, mem_id: Option<String>) -> Result<(), Code> {
        guard(|| {
            self.inner.force_mem_id(mem_id);
            Ok(())
        })
    }

    /// Internal, for tests only: panics, on the calling thread (`async` false) or
    /// on the libuv pool (`async` true, returning a promise), to show that a panic
    /// becomes a JS error rather than an abort. Not in the typings.
    #[doc(hidden)]
    #[napi(js_name = "__panicForTest", skip_typescript, catch_unwind)]
    pub fn panic_for_test(&self, on_pool: bool) -> Result<Either<(), AsyncTask<PanicTask>>, Code> {
        guard(|| {
            if on_pool {
                Ok(Either::B(AsyncTask::new(PanicTask)))
            } else {
                panic!("deliberate panic for a test (sync)")
            }
        })
    }

    /// Reads an archived result (see `FetchOptions` for the precedence). Cheap
    /// answers (a range, the summary, an indexed json path, anything on a
    /// payload up to 64 KiB, a query that the payload's query index confines
    /// to a few blocks) are computed on the calling thread and returned as an
    /// already resolved Promise; scans and copies of large payloads, and store
    /// reads, run on the libuv pool.
    /// Unknown ids, and ids from another namespace, answer `[tool_memory not found: <id>]`;
    /// a failed store read answers `[tool_memory error: store read failed for <id>: ...]`.
    #[napi(ts_return_type = "Promise<string>", catch_unwind)]
    pub fn fetch<'env>(
        &self,
        env: &'env Env,
        mem_id: String,
        options: Option<FetchOptions>,
    ) -> Result<Either<PromiseRaw<'env, JsText>, AsyncTask<FetchTask>>, Code> {
        guard(|| self.quick_or_task(env, self.fetch_task(mem_id, options)))
    }

    /// `fetch` on the calling thread (with a store, a memory miss reads it here).
    #[napi(ts_return_type = "string", catch_unwind)]
    pub fn fetch_sync(
        &self,
        env: Env,
        mem_id: String,
        options: Option<FetchOptions>,
    ) -> Result<JsText, Code> {
        guard(|| {
            let out = JsText(self.fetch_task(mem_id, options).run());
            self.sync_store_memory(&env);
            Ok(out)
        })
    }

    /// Fetch plus the output cap, in one pass: a full multi-megabyte payload is cut
    /// before it crosses to JS. Any keyed option implies full-fetch semantics; an
    /// answer that is a contiguous part of the payload says where to continue.
    #[napi(ts_return_type = "Promise<string>", catch_unwind)]
    pub fn recall<'env>(
        &self,
        env: &'env Env,
        mem_id: String,
        options: Option<FetchOptions>,
        max_output_chars: Option<f64>,
    ) -> Result<Either<PromiseRaw<'env, JsText>, AsyncTask<FetchTask>>, Code> {
        guard(|| {
            let (mut spec, namespace) = fetch_spec(options);
            if spec.keyed() {
                spec.full = true;
            }
            let task = FetchTask {
                inner: self.inner.clone(),
                reported: self.reported.clone(),
                namespace,
                mem_id,
                read: Read::Recall(spec, max_output(max_output_chars)),
            };
            self.quick_or_task(env, task)
        })
    }

    /// The task's answer as a resolved Promise when it is cheap (see
    /// `core::quick`), else the task itself, for the pool.
    fn quick_or_task<'env>(
        &self,
        env: &'env Env,
        task: FetchTask,
    ) -> JsResult<Either<PromiseRaw<'env, JsText>, AsyncTask<FetchTask>>> {
        let (spec, max) = match &task.read {
            Read::Fetch(spec) => (spec, usize::MAX),
            Read::Recall(spec, max) => (spec, *max),
        };
        match self.inner.answer_quick(&task.namespace, &task.mem_id, spec, max) {
            Some(text) => Ok(Either::A(
                PromiseRaw::resolve(env, JsText(text)).map_err(napi_error)?,
            )),
            None => Ok(Either::B(AsyncTask::new(task))),
        }
    }

    fn fetch_task(&self, mem_id: String, options: Option<FetchOptions>) -> FetchTask {
        let (spec, namespace) = fetch_spec(options);
        FetchTask {
            inner: self.inner.clone(),
            reported: self.reported.clone(),
            namespace,
            mem_id,
            read: Read::Fetch(spec),
        }
    }

    /// External memory after a call that may have reloaded an entry from the store.
    fn sync_store_memory(&self, env: &Env) {
        if self.inner.has_store() {
            sync(env, &self.inner, &self.reported);
        }
    }

    /// The handle of an archived result, or null. With a store, a memory miss
    /// reads it (on the calling thread); a failed read throws `ERR_SYMFONIC_STORE`.
    #[napi(catch_unwind)]
    pub fn handle(
        &self,
        env: Env,
        mem_id: String,
        namespace: Option<String>,
    ) -> Result<Option<ToolResultHandle>, Code> {
        guard(|| {
            let h = self
                .inner
                .try_handle(namespace.as_deref().unwrap_or(""), &mem_id)
                .map_err(store_error)?;
            self.sync_store_memory(&env);
            Ok(h.map(to_handle))
        })
    }

    /// The stub of an archived result, or null. `options.previewChars` renders it
    /// with another preview length (deterministically, like the original).
    #[napi(catch_unwind)]
    /// With a store, a memory miss reads it (on the calling thread); a failed
    /// read throws `ERR_SYMFONIC_STORE`.
    pub fn stub(
        &self,
        env: Env,
        mem_id: String,
        namespace: Option<String>,
        options: Option<StubOptions>,
    ) -> Result<Option<String>, Code> {
        guard(|| {
            let preview = options
                .and_then(|o| o.preview_chars)
                .filter(|p| p.is_finite() && *p >= 0.0)
                .map(|p| p as usize);
            let stub = self
                .inner
                .try_stub(namespace.as_deref().unwrap_or(""), &mem_id, preview)
                .map_err(store_error)?;
            self.sync_store_memory(&env);
            Ok(stub)
        })
    }

    /// Removes one entry (from the store too); true if it was there. A failed
    /// store delete throws `ERR_SYMFONIC_STORE`.
    #[napi(catch_unwind)]
    pub fn delete(&self, env: Env, mem_id: String, namespace: Option<String>) -> Result<bool, Code> {
        guard(|| {
            let removed = self
                .inner
                .try_delete(namespace.as_deref().unwrap_or(""), &mem_id)
                .map_err(store_error)?;
            sync(&env, &self.inner, &self.reported);
            Ok(removed)
        })
    }

    /// Removes every entry, or only those of `namespace` (from the store too);
    /// returns how many were removed. A failed store clear throws `ERR_SYMFONIC_STORE`.
    #[napi(catch_unwind)]
    pub fn clear(&self, env: Env, namespace: Option<String>) -> Result<u32, Code> {
        guard(|| {
            let n = self.inner.try_clear(namespace.as_deref()).map_err(store_error)?;
            sync(&env, &self.inner, &self.reported);
            Ok(n as u32)
        })
    }

    /// Entries, bytes held, fetch hits and misses, evictions, store hits, misses and errors.
    #[napi(catch_unwind)]
    pub fn stats(&self) -> Result<LedgerStats, Code> {
        guard(|| {
            let s = self.inner.stats();
            Ok(LedgerStats {
                entries: s.entries as u32,
                bytes: s.bytes as f64,
                hits: s.hits as f64,
                misses: s.misses as f64,
                evictions: s.evictions as f64,
                store_hits: s.store_hits as f64,
                store_misses: s.store_misses as f64,
                store_errors: s.store_errors as f64,
            })
        })
    }
}

impl ObjectFinalize for Ledger {
    fn finalize(self, env: Env) -> Result<()> {
        release(&env, &self.reported);
        // Unless a task still holds the ledger (its thread then drops it), its
        // payloads are freed as removed entries are, off the JS thread; its
        // store, if any, is closed here.
        if Arc::strong_count(&self.inner) == 1 {
            self.inner.forget_in_memory();
        }
        Ok(())
    }
}

/// The memory id `record` would give `(toolCallId, content)`, without recording:
/// `trm_` + 12 lowercase hex, the same in any process on any day.
#[napi(catch_unwind)]
pub fn mem_id_for(
    tool_call_id: String,
    #[napi(ts_arg_type = "string | Buffer")] content: ContentRef,
) -> Result<String, Code> {
    guard(|| Ok(core_mem_id(&tool_call_id, &content.0)))
}

/// Cuts a recall answer to `maxOutputChars` code points, marker included (for
/// answers from ledgers written in JS; the native Ledger cuts in `recall`).
/// `contiguousFrom`: the payload offset the text starts at, when it is a contiguous part.
/// Lone surrogates in `text` are kept (the cut never splits a pair).
#[napi(ts_return_type = "string", catch_unwind)]
pub fn cap_recall_output(
    #[napi(ts_arg_type = "string")] text: JsStr,
    mem_id: String,
    max_output_chars: Option<f64>,
    contiguous_from: Option<f64>,
) -> Result<JsText, Code> {
    guard(|| {
        let from = contiguous_from
            .filter(|x| x.is_finite() && *x >= 0.0)
            .map(|x| x as usize);
        Ok(JsText(cap_output(
            &text.0,
            &mem_id,
            max_output(max_output_chars),
            from,
        )))
    })
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
