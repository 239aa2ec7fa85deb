//! napi bindings for the Ledger: arguments converted, then each async call a
//! future on the core's runtime (`spawn`), settled on the JS thread; the sync
//! twins run the same core code on the calling thread. Argument types and
//! option names were checked by the JS entry (`lib/ledger.js`): this layer
//! converts them as they come.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{closed_error, guard, ledger_error, napi_error, store_error, type_error, Code, JsResult};
use crate::text::JsText;
use symfonic_core::api::{
    self, check_namespace, Deadline, FetchSpec, LedgerConfig, LedgerError, Read, RecordRequest, StoreSpec,
    Ttl, DEFAULT_TIMEOUT, MAX_OUTPUT_CHARS as MAX_OUT,
};

mod blocks;
mod lookups;
mod objects;
mod spawn;
pub use objects::{
    ClearOptions, EntryOptions, FetchOptions, LedgerOptions, LedgerStats, RecordInput, StubOptions,
    ToolResultHandle,
};
pub(crate) use spawn::{rejected, resolved, spawn};

/// An archive of large tool results, keyed by memory id and namespace, bounded
/// by bytes with least-recently-used eviction. Keeps payloads out of the prompt:
/// the conversation carries a stub; `recall` returns the slice the model needs.
#[napi(custom_finalize)]
pub struct Ledger {
    pub(crate) inner: Arc<api::Ledger>,
    /// Bytes reported to V8 as external memory.
    reported: Arc<AtomicI64>,
}

pub(crate) fn to_handle(h: api::Handle) -> ToolResultHandle {
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

/// A `ttlSeconds` as the JS entry checked it: `Infinity`, or positive seconds
/// (rounded up to the millisecond).
fn ttl(v: f64) -> Ttl {
    if v.is_finite() {
        Ttl::Millis((v * 1000.0).ceil() as u64)
    } else {
        Ttl::Never
    }
}

fn nullable(s: Option<String>) -> Either<String, Null> {
    s.map_or(Either::B(Null), Either::A)
}

/// The request, its content copied now (see `Content::payload`); a namespace
/// too long is refused first, before anything is copied.
fn request(input: RecordInput) -> Result<std::result::Result<RecordRequest, LedgerError>> {
    let namespace = namespace(input.namespace);
    if let Err(e) = check_namespace(&namespace) {
        return Ok(Err(e));
    }
    let content = match input.content.payload()? {
        Ok(c) => c,
        Err(e) => return Ok(Err(e)),
    };
    Ok(Ok(RecordRequest {
        namespace,
        tool_call_id: input.tool_call_id,
        tool_name: input.tool_name,
        tool_args: input.tool_args,
        content,
    }))
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
            .with_reads(o.pattern, o.ignore_case, o.context, o.lines),
            namespace(o.namespace),
        ),
        None => (FetchSpec::default(), String::new()),
    }
}

/// A namespace as the JS entry passes it, or the default `""`.
pub(crate) fn namespace(given: Option<String>) -> String {
    given.unwrap_or_default()
}

/// A recall cap as the JS entry passes it (a whole number, at least 1), or the default.
pub(crate) fn max_output(x: Option<f64>) -> usize {
    x.map_or(MAX_OUT, |v| v.min(usize::MAX as f64) as usize)
}

/// A recall with the cap the JS entry passes (a whole number, at least 1), or
/// the default; a cap no answer can reach (`Infinity`) reads as a fetch.
fn recall_read(x: Option<f64>) -> Read {
    match x {
        Some(v) if v >= usize::MAX as f64 => Read::Fetch,
        cap => Read::Recall { cap: max_output(cap) },
    }
}

/// When a call that began at `started` (ms since the epoch) began, on this
/// process's monotonic clock; now when not given.
fn began(started: Option<f64>) -> Instant {
    let now = Instant::now();
    let Some(ms) = started else { return now };
    let epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let ago = epoch.saturating_sub(Duration::from_secs_f64(ms.max(0.0) / 1000.0));
    now.checked_sub(ago).unwrap_or(now)
}

/// Brings the bytes reported to V8 for `inner` (in `reported`) up to what it
/// holds now, so that V8 weighs a ledger by its payloads when it collects.
fn report(env: &Env, inner: &api::Ledger, reported: &AtomicI64) {
    let now = inner.stats().bytes as i64;
    let before = reported.swap(now, Ordering::AcqRel);
    if now != before {
        // A failed hint only makes GC timing worse; never fail the call for it.
        let _ = env.adjust_external_memory(now - before);
    }
}

/// A ledger is gone: what was reported for it is released.
fn release(env: &Env, reported: &AtomicI64) {
    let held = reported.swap(0, Ordering::AcqRel);
    if held != 0 {
        let _ = env.adjust_external_memory(-held);
    }
}

fn store_spec(env: &Env, store: Either<String, Vec<String>>) -> JsResult<StoreSpec> {
    let parsed = match store {
        Either::A(s) => StoreSpec::parse(&s),
        Either::B(seeds) => StoreSpec::parse_seeds(&seeds),
    };
    // The one wording of a store spec's shape (the JS entry names the call).
    parsed.map_err(|m| type_error(env, &m))
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
            let o = options.unwrap_or_default();
            let config = LedgerConfig {
                max_bytes: o.max_bytes.map_or(api::DEFAULT_MAX_BYTES, |m| m as usize),
                preview_chars: o.preview_chars.map_or(api::DEFAULT_PREVIEW_CHARS, |p| p as usize),
            };
            let ttl_ms = match o.ttl_seconds.map(ttl) {
                Some(Ttl::Millis(ms)) => Some(ms),
                _ => None,
            };
            let bound = o.timeout_ms.map_or(DEFAULT_TIMEOUT, |t| {
                Duration::from_micros((t * 1000.0).ceil() as u64)
            });
            let inner = match o.store {
                Some(s) => api::Ledger::over(config, store_spec(&env, s)?, ttl_ms, bound),
                None => api::Ledger::with_store(config, None, ttl_ms),
            };
            Ok(Ledger {
                inner: Arc::new(inner),
                reported: Arc::new(AtomicI64::new(0)),
            })
        })
    }

    /// `work(ledger, deadline)` on the runtime, for a call that began at
    /// `start`: a promise of its value, settled once the memory it may have
    /// grown is reported to V8. Rejects with `ERR_SYMFONIC_CLOSED` once the
    /// ledger is closed.
    fn call<'env, T, F, Fut>(
        &self,
        env: &'env Env,
        method: &str,
        start: Instant,
        work: F,
    ) -> JsResult<Object<'env>>
    where
        F: FnOnce(Arc<api::Ledger>, Deadline) -> Fut,
        Fut: std::future::Future<Output = JsResult<T>> + Send + 'static,
        T: ToNapiValue + Send + 'static,
    {
        // Admitted now, on the JS thread: a `close` called before the task
        // is first polled waits for it instead of refusing it.
        let Some(admitted) = self.inner.admit() else {
            return rejected(env, closed_error(method));
        };
        let (inner, reported) = (self.inner.clone(), self.reported.clone());
        let work = work(inner.clone(), inner.deadline_since(start));
        let work = async move {
            let _admitted = admitted;
            work.await
        };
        spawn(env, work, move |env, v| {
            report(env, &inner, &reported);
            Ok(v)
        })
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
    /// `startedAt` (internal, from the JS entry): when the call began, in ms
    /// since the epoch, so that its bound counts the time it waited to start.
    #[napi(ts_return_type = "Promise<ToolResultHandle>", catch_unwind)]
    pub fn record<'env>(
        &self,
        env: &'env Env,
        input: RecordInput,
        started_at: Option<f64>,
    ) -> Result<Object<'env>, Code> {
        guard(|| {
            let start = began(started_at);
            let ttl = input.ttl_seconds.map_or(Ttl::Default, ttl);
            // Refused at the call (the JS entry makes it a rejection), before
            // any turn of the event loop: it never waits behind other work.
            let method = "Ledger.record(input)";
            let req = request(input)
                .map_err(napi_error)?
                .map_err(|e| ledger_error(method, e))?;
            self.call(env, method, start, move |inner, deadline| async move {
                let h = inner.record_async(req, ttl, deadline).await;
                h.map(to_handle).map_err(|e| ledger_error(method, e))
            })
        })
    }

    /// `record` on the calling thread. Without a store, or with `sqlite::memory:`;
    /// a ledger over a file or a server throws a `TypeError` (use `record`).
    /// Throws the errors `record` rejects with.
    #[napi(catch_unwind)]
    pub fn record_sync(&self, env: Env, input: RecordInput) -> Result<ToolResultHandle, Code> {
        guard(|| {
            let method = "Ledger.recordSync(input)";
            if self.inner.is_closing() {
                return Err(closed_error(method));
            }
            let ttl = input.ttl_seconds.map_or(Ttl::Default, ttl);
            let h = request(input)
                .map_err(napi_error)?
                .and_then(|req| self.inner.record_with(req, ttl))
                .map_err(|e| ledger_error(method, e))?;
            report(&env, &self.inner, &self.reported);
            Ok(to_handle(h))
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
    pub fn close<'env>(&self, env: &'env Env) -> Result<Object<'env>, Code> {
        guard(|| {
            // Later calls are refused from now on, on the JS thread.
            let first = self.inner.mark_closed();
            let (inner, reported) = (self.inner.clone(), self.reported.clone());
            spawn(
                env,
                async move {
                    if first {
                        inner.shut().await.map_err(store_error)?;
                    }
                    Ok(())
                },
                move |env, ()| {
                    release(env, &reported);
                    Ok(())
                },
            )
        })
    }

    /// Reads an archived result (see `FetchOptions` for the precedence), off
    /// the JS thread; with a store, a memory miss reads the store, bounded by
    /// `timeoutMs`.
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
    ) -> Result<Object<'env>, Code> {
        guard(|| {
            let (spec, namespace) = fetch_spec(options);
            self.read(
                env,
                "Ledger.fetch(memId, options)",
                namespace,
                mem_id,
                spec,
                Read::Fetch,
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
            if self.inner.is_closing() {
                return Err(closed_error("Ledger.fetchSync(memId, options)"));
            }
            let (spec, namespace) = fetch_spec(options);
            let out = JsText(self.inner.fetch(&namespace, &mem_id, &spec));
            // A reload from the store may have grown the memory held.
            report(&env, &self.inner, &self.reported);
            Ok(out)
        })
    }

    /// Fetch plus the output cap, in one pass: a full multi-megabyte payload is cut
    /// before it crosses to JS. A keyed option answers its slice whatever the
    /// format (`FetchOptions`' precedence); an answer that is a contiguous part
    /// of the payload says where to continue.
    #[napi(ts_return_type = "Promise<string>", catch_unwind)]
    pub fn recall<'env>(
        &self,
        env: &'env Env,
        mem_id: String,
        options: Option<FetchOptions>,
        max_output_chars: Option<f64>,
    ) -> Result<Object<'env>, Code> {
        guard(|| {
            let (spec, namespace) = fetch_spec(options);
            self.read(
                env,
                "recall(ledger, memId, options)",
                namespace,
                mem_id,
                spec,
                recall_read(max_output_chars),
            )
        })
    }

    /// A fetch or a recall: answered on the calling
    /// thread when that is cheap (`read_now`), else on the runtime, a memory
    /// hit held from now on.
    fn read<'env>(
        &self,
        env: &'env Env,
        method: &str,
        namespace: String,
        mem_id: String,
        spec: FetchSpec,
        read: Read,
    ) -> JsResult<Object<'env>> {
        if self.inner.is_closing() {
            return rejected(env, closed_error(method));
        }
        let hit = match self.inner.read_now(&namespace, &mem_id, &spec, read) {
            Ok(text) => return resolved(env, JsText(text)),
            Err(hit) => hit,
        };
        let m = method.to_string();
        self.call(env, method, Instant::now(), move |inner, deadline| async move {
            let text = match hit {
                Some(e) => {
                    let found = Ok(api::Found::Entry(e));
                    inner
                        .answer_async(found, namespace, mem_id, spec, read, deadline)
                        .await
                }
                None => inner.read_async(namespace, mem_id, spec, read, deadline).await,
            };
            text.map(JsText).map_err(|e| ledger_error(&m, e))
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
        // Unless a call still holds the ledger (it then drops it), its
        // payloads are freed on the runtime, not on the JS thread; its store,
        // if any, is closed where the last holder drops it.
        if Arc::strong_count(&self.inner) == 1 {
            let inner = self.inner.clone();
            match api::runtime() {
                Ok(rt) => drop(rt.spawn_blocking(move || inner.forget_cached())),
                Err(_) => inner.forget_cached(),
            }
        }
        Ok(())
    }
}
