//! napi bindings for the Ledger: argument conversion, and where each call
//! runs. Without a store: cheap answers on the JS thread, the rest as libuv
//! tasks (`tasks`), each with a sync twin sharing the same work. With a
//! store: every call that may reach it is a future on the store runtime
//! (`spawn`), bounded by the ledger's `timeoutMs`; its sync twins refuse a
//! store on a file or a server (they would block the JS thread on it).
//! External-memory reports go through `napi_external`.
//! Programmer-error checks with precise `TypeError`s live in `lib/ledger.js`;
//! the checks here are the backstop for callers of the raw binding.

use std::sync::atomic::AtomicI64;
use std::sync::Arc;
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{closed_error, guard, ledger_error, napi_error, store_error, type_error, Code, JsResult};
use crate::napi_external::{release, sync};
use crate::napi_text::{ContentRef, JsStr, JsText};
use symfonic_core::ids::mem_id_for as core_mem_id;
use symfonic_core::ledger::{
    self as core, LedgerConfig, LedgerError, RecordRequest, Ttl, MAX_CONTENT_BYTES as MAX_CONTENT,
};
use symfonic_core::recall::{cap_output, FetchSpec, MAX_OUTPUT_CHARS as MAX_OUT};
use symfonic_core::runtime::{Deadline, DEFAULT_TIMEOUT};
use symfonic_core::store::StoreSpec;

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

mod lookups;
mod objects;
mod spawn;
mod tasks;
pub use objects::{
    row_seal_for_test, ClearOptions, EntryOptions, FetchOptions, LedgerOptions, LedgerStats, RecordInput,
    StubOptions, ToolResultHandle,
};
use spawn::{rejected, spawn};
use tasks::Read;
pub use tasks::{FetchTask, PanicTask, RecordTask};

/// An archive of large tool results, keyed by memory id and namespace, bounded
/// by bytes with least-recently-used eviction. Keeps payloads out of the prompt:
/// the conversation carries a stub; `recall` returns the slice the model needs.
#[napi(custom_finalize)]
pub struct Ledger {
    inner: Arc<core::Ledger>,
    /// Bytes reported to V8 as external memory.
    reported: Arc<AtomicI64>,
}

pub(crate) fn to_handle(h: core::Handle) -> ToolResultHandle {
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
            &format!("new Ledger(options): {name} must be a non-negative finite number"),
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
            )
            .with_reads(o.pattern, o.ignore_case, o.context, o.lines)
            .with_forms(o.count_only, o.raw, o.paths),
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

/// A `timeoutMs`: a positive finite number of milliseconds, else a TypeError.
fn timeout(env: &Env, v: f64) -> JsResult<Duration> {
    if v.is_finite() && v > 0.0 && v <= 86_400_000.0 {
        Ok(Duration::from_micros((v * 1000.0).ceil() as u64))
    } else {
        Err(type_error(
            env,
            "Ledger: timeoutMs must be a positive number of milliseconds (at most a day)",
        ))
    }
}

/// A promise: already resolved (answered without the store), or settled by the store runtime.
type Now<'env, V> = Either<PromiseRaw<'env, V>, Object<'env>>;

fn resolved<V: ToNapiValue + FromNapiValue, W>(env: &Env, v: V) -> JsResult<Either<PromiseRaw<'_, V>, W>> {
    PromiseRaw::resolve(env, v).map(Either::A).map_err(napi_error)
}

fn store_spec(env: &Env, store: Either<String, Vec<String>>) -> JsResult<StoreSpec> {
    let parsed = match store {
        Either::A(s) => StoreSpec::parse(&s),
        Either::B(seeds) => StoreSpec::parse_seeds(&seeds),
    };
    parsed.map_err(|m| type_error(env, &format!("new Ledger(options): {m}")))
}

#[napi]
impl Ledger {
    /// Creates an empty ledger, or one over a store. The store starts opening
    /// at once, off the JS thread (a SQLite file opened, created if missing and
    /// swept of expired entries; a Redis server connected and its settings
    /// read): the constructor never waits for it, each call waits for the open
    /// within its bound, and `await Ledger.open(options)` resolves once it is open.
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, options: Option<LedgerOptions>) -> Result<Self, Code> {
        guard(|| {
            let mut config = LedgerConfig::default();
            let (mut spec, mut ttl_ms, mut bound) = (None, None, DEFAULT_TIMEOUT);
            if let Some(o) = options {
                if let Some(m) = o.max_bytes {
                    config.max_bytes = non_negative(&env, "maxBytes", m)?;
                }
                if let Some(p) = o.preview_chars {
                    config.preview_chars = non_negative(&env, "previewChars", p)?;
                }
                if let Some(t) = o.timeout_ms {
                    bound = timeout(&env, t)?;
                }
                if let Some(t) = o.ttl_seconds {
                    if let Ttl::Millis(ms) = ttl(&env, "new Ledger(options)", t)? {
                        ttl_ms = Some(ms);
                    }
                }
                if let Some(s) = o.store {
                    spec = Some(store_spec(&env, s)?);
                }
            }
            let inner = match spec {
                Some(spec) => core::Ledger::over(config, spec, ttl_ms, bound),
                None => core::Ledger::with_store(config, None, ttl_ms),
            };
            Ok(Ledger {
                inner: Arc::new(inner),
                reported: Arc::new(AtomicI64::new(0)),
            })
        })
    }

    /// `work(ledger, deadline)` on the store runtime: a promise of its value,
    /// settled once the external memory it may have grown is reported.
    fn on_store<'env, T, F, Fut>(&self, env: &'env Env, work: F) -> JsResult<Object<'env>>
    where
        F: FnOnce(Arc<core::Ledger>, Deadline) -> Fut,
        Fut: std::future::Future<Output = JsResult<T>> + Send + 'static,
        T: ToNapiValue + Send + 'static,
    {
        let (inner, reported) = (self.inner.clone(), self.reported.clone());
        // Admitted now, on the JS thread: a `close` called before the task
        // is first polled waits for it instead of refusing it.
        let admitted = inner.admit();
        let work = work(inner.clone(), inner.deadline());
        let work = async move {
            let _admitted = admitted;
            work.await
        };
        spawn(env, work, move |env, v| {
            sync(env, &inner, &reported);
            Ok(v)
        })
    }

    /// A sync twin on a ledger whose store waits on a file or a server: refused.
    fn sync_allowed(&self, env: &Env, method: &str, instead: &str) -> JsResult<()> {
        if self.inner.is_closed() {
            return Err(closed_error(method));
        }
        if !self.inner.store_in_memory() {
            return Err(type_error(
                env,
                &format!(
                    "{method}: this ledger's store is a file or a server, and a sync call would block the JS thread on it; use {instead}"
                ),
            ));
        }
        Ok(())
    }

    /// Records a tool result off the JS thread and resolves to its handle. Recording
    /// the same (toolCallId, content) again resolves to the identical handle.
    /// Rejects with `code` `ERR_SYMFONIC_MEM_ID_COLLISION` if a different result
    /// already holds the same id (never serves the wrong payload),
    /// `ERR_SYMFONIC_NAMESPACE_TOO_LONG` for a namespace over 1,024 code points, and
    /// `ERR_SYMFONIC_CONTENT_TOO_LARGE` for content over 4,000,000,000 bytes of UTF-8.
    /// With a store, resolves only once the store has the entry, and rejects with
    /// `ERR_SYMFONIC_MEM_ID_COLLISION` if the store holds a different result under
    /// the id (recorded by any process sharing it), `ERR_SYMFONIC_STORE` if the
    /// store failed (the message says whether the result was not recorded or the
    /// outcome is unknown), and `ERR_SYMFONIC_STORE_TIMEOUT` if it did not answer
    /// within `timeoutMs` (the outcome is then unknown unless the message says the
    /// result was not recorded; recording it again is always safe).
    /// `ERR_SYMFONIC_CLOSED` once the ledger is closed.
    #[napi(ts_return_type = "Promise<ToolResultHandle>", catch_unwind)]
    pub fn record<'env>(
        &self,
        env: &'env Env,
        input: RecordInput,
    ) -> Result<Either<AsyncTask<RecordTask>, Object<'env>>, Code> {
        guard(|| {
            let ttl = record_ttl(env, "Ledger.record(input)", input.ttl_seconds)?;
            if self.inner.is_closed() {
                return rejected(env, closed_error("Ledger.record(input)")).map(Either::B);
            }
            // Refused at the call, before any turn of the event loop (the JS
            // entry makes it a rejection): it never waits behind other work.
            let req = request(input).map_err(ledger_error)?;
            if !self.inner.has_store() {
                return Ok(Either::A(AsyncTask::new(RecordTask {
                    inner: self.inner.clone(),
                    reported: self.reported.clone(),
                    req: Some(req),
                    ttl,
                })));
            }
            self.on_store(env, move |inner, deadline| async move {
                let h = inner.record_async(req, ttl, deadline).await;
                h.map(to_handle).map_err(ledger_error)
            })
            .map(Either::B)
        })
    }

    /// `record` on the calling thread. Without a store, or with `sqlite::memory:`;
    /// a ledger over a file or a server throws a `TypeError` (use `record`).
    /// Throws the errors `record` rejects with.
    #[napi(catch_unwind)]
    pub fn record_sync(&self, env: Env, input: RecordInput) -> Result<ToolResultHandle, Code> {
        guard(|| {
            let ttl = record_ttl(&env, "Ledger.recordSync(input)", input.ttl_seconds)?;
            self.sync_allowed(&env, "Ledger.recordSync(input)", "await ledger.record(input)")?;
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

    /// Internal: resolves once the store is open (at once without one); rejects
    /// with the open's error. `Ledger.open(options)` waits for it. Not in the typings.
    #[doc(hidden)]
    #[napi(js_name = "__opened", skip_typescript, catch_unwind)]
    pub fn opened<'env>(&self, env: &'env Env) -> Result<Object<'env>, Code> {
        guard(|| {
            let inner = self.inner.clone();
            spawn(
                env,
                async move { inner.opened().await.map_err(store_error) },
                |_, ()| Ok(()),
            )
        })
    }

    /// Closes the ledger: its entries are freed, its store released (its
    /// connection closed, its threads ended) once the calls in flight have
    /// ended, and every later call rejects (or throws) with `code`
    /// `ERR_SYMFONIC_CLOSED`. Closing again resolves at once. Also
    /// `[Symbol.asyncDispose]`, for `await using`.
    #[napi(ts_return_type = "Promise<void>", catch_unwind)]
    pub fn close<'env>(&self, env: &'env Env) -> Result<Now<'env, ()>, Code> {
        guard(|| {
            if !self.inner.has_store() {
                self.inner.close_now();
                release(env, &self.reported);
                return resolved(env, ());
            }
            let inner = self.inner.clone();
            let reported = self.reported.clone();
            spawn(
                env,
                async move { inner.close().await.map_err(store_error) },
                move |env, ()| {
                    release(env, &reported);
                    Ok(())
                },
            )
            .map(Either::B)
        })
    }

    /// Reads an archived result (see `FetchOptions` for the precedence). Cheap
    /// answers (a range, the summary, an indexed json path, anything on a
    /// payload up to 64 KiB, a query that the payload's query index confines
    /// to a few blocks) are computed on the calling thread and returned as an
    /// already resolved Promise; scans and copies of large payloads run on the
    /// libuv pool, and with a store, a memory miss reads it on the store's own
    /// runtime, bounded by `timeoutMs`.
    /// Unknown ids, and ids from another namespace, answer
    /// `[tool_memory not found: <id> in namespace '<ns>']` (`in the default namespace` for `""`);
    /// a failed or timed-out store read answers
    /// `[tool_memory error: store read failed for <id>: ...]` (`recall` answers
    /// without the store's address and error text: `the store could not be read
    /// for <id>`), and an entry gone from the store before its expiry
    /// `[tool_memory error: <id> is gone from the store before its expiry: ...]`.
    /// Rejects with `ERR_SYMFONIC_CLOSED` once the ledger is closed.
    #[napi(ts_return_type = "Promise<string>", catch_unwind)]
    pub fn fetch<'env>(
        &self,
        env: &'env Env,
        mem_id: String,
        options: Option<FetchOptions>,
    ) -> Result<Either3<PromiseRaw<'env, JsText>, AsyncTask<FetchTask>, Object<'env>>, Code> {
        guard(|| {
            self.read(
                env,
                self.fetch_task(mem_id, options),
                "Ledger.fetch(memId, options)",
            )
        })
    }

    /// `fetch` on the calling thread. Without a store, or with `sqlite::memory:`;
    /// a ledger over a file or a server throws a `TypeError` (use `fetch`).
    #[napi(ts_return_type = "string", catch_unwind)]
    pub fn fetch_sync(
        &self,
        env: Env,
        mem_id: String,
        options: Option<FetchOptions>,
    ) -> Result<JsText, Code> {
        guard(|| {
            self.sync_allowed(
                &env,
                "Ledger.fetchSync(memId, options)",
                "await ledger.fetch(memId, options)",
            )?;
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
    ) -> Result<Either3<PromiseRaw<'env, JsText>, AsyncTask<FetchTask>, Object<'env>>, Code> {
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
            self.read(env, task, "recall(ledger, memId, options)")
        })
    }

    /// The task's answer as a resolved Promise when it is cheap (see
    /// `core::quick`); else the task itself, for the pool (no store), or the
    /// read on the store runtime.
    fn read<'env>(
        &self,
        env: &'env Env,
        task: FetchTask,
        method: &str,
    ) -> JsResult<Either3<PromiseRaw<'env, JsText>, AsyncTask<FetchTask>, Object<'env>>> {
        if self.inner.is_closed() {
            return rejected(env, closed_error(method)).map(Either3::C);
        }
        let (spec, max) = match &task.read {
            Read::Fetch(spec) => (spec, usize::MAX),
            Read::Recall(spec, max) => (spec, *max),
        };
        if let Some(text) = self.inner.answer_quick(&task.namespace, &task.mem_id, spec, max) {
            return Ok(Either3::A(
                PromiseRaw::resolve(env, JsText(text)).map_err(napi_error)?,
            ));
        }
        if !self.inner.has_store() {
            return Ok(Either3::B(AsyncTask::new(task)));
        }
        let FetchTask {
            namespace,
            mem_id,
            read,
            ..
        } = task;
        let (spec, max) = match read {
            Read::Fetch(spec) => (spec, usize::MAX),
            Read::Recall(spec, max) => (spec, max),
        };
        let method = method.to_string();
        self.on_store(env, move |inner, deadline| async move {
            let text = inner.read_async(namespace, mem_id, spec, max, deadline).await;
            text.map(JsText).map_err(|_| closed_error(&method))
        })
        .map(Either3::C)
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
        // Unless a call still holds the ledger (its thread then drops it), its
        // payloads are freed as removed entries are, off the JS thread; its
        // store, if any, is closed where the last holder drops it.
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
