//! napi bindings for the Ledger: argument conversion, the async tasks (each
//! with a sync twin sharing the same work), and V8 external-memory reporting.
//! Programmer-error checks with precise `TypeError`s live in `lib/ledger.js`;
//! the checks here are the backstop for callers of the raw binding.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::{Map, Value};

use crate::core::ids::mem_id_for as core_mem_id;
use crate::core::ledger::{self as core, LedgerConfig, RecordRequest, Ttl};
use crate::core::recall::{cap_output, FetchSpec, MAX_OUTPUT_CHARS as MAX_OUT};
use crate::core::store::StoreSpec;
use crate::core::text::Payload;
use crate::core::wtf8::{self, Wtf8Buf};
use crate::error::{guard, ledger_error, rejection, store_error, type_error, Code, JsResult};

/// The cap on what `recall` returns, in code points, marker included.
#[napi]
pub const MAX_OUTPUT_CHARS: u32 = MAX_OUT as u32;

/// Options for `new Ledger(options)`.
#[napi(object)]
pub struct LedgerOptions {
    /// Bound on the bytes of payload (and its indexes) held. Past it, the least
    /// recently used entries are evicted (an entry that alone exceeds it is kept
    /// until the next record). Default 256 MiB.
    pub max_bytes: Option<f64>,
    /// Code points of head preview shown in each stub. Default 200; 0 hides it.
    pub preview_chars: Option<f64>,
    /// A store below the in-memory LRU: `'sqlite:<path>'` (a relative path is
    /// relative to the process's cwd; the file is created if missing) or a
    /// Redis URL, `'redis://[user:password@]host[:port][/db]'` (`rediss://` for
    /// TLS; `?prefix=app:` sets the key prefix, default `symfonic:`). Records
    /// are written through (`record` resolves once the store has the entry: the
    /// SQLite row committed and fsynced, the Redis script answered); a memory
    /// miss reloads the entry from the store, so entries survive eviction and
    /// restarts and are shared by every process using the file or the server.
    /// A SQLite file that cannot be opened throws `ERR_SYMFONIC_STORE`; a Redis
    /// store connects on first use (the constructor does no network I/O), and
    /// an unreachable server rejects `record` with `ERR_SYMFONIC_STORE`.
    pub store: Option<String>,
    /// Seconds an entry lives after its record (fractions allowed; `Infinity`:
    /// forever, the default). Expired entries answer as not found, in memory
    /// and in the store, and are swept on open and at most once a minute on record.
    pub ttl_seconds: Option<f64>,
}

/// A tool result to record.
#[napi(object, object_to_js = false)]
pub struct RecordInput {
    /// The tool call id the result answers. With the content, it determines the memory id.
    pub tool_call_id: String,
    /// The tool's name, shown in the stub and summary on one line (control
    /// characters escaped) and cut to 128 code points there.
    pub tool_name: String,
    /// The tool's arguments; the first three appear in the summary line (names cut
    /// to 64 code points, values to 40, control characters escaped).
    #[napi(ts_type = "Record<string, unknown>")]
    pub tool_args: Option<Map<String, Value>>,
    /// The result: a string (kept exactly, lone surrogates included), or a Buffer
    /// of UTF-8 (read without a JS string in between; invalid sequences become U+FFFD).
    /// At most 4,000,000,000 bytes of UTF-8.
    #[napi(ts_type = "string | Buffer")]
    pub content: Content,
    /// Scope of the entry, e.g. a conversation's thread id. Default `""`. At most
    /// 1,024 code points (set by the app, so a longer one is refused).
    pub namespace: Option<String>,
    /// Seconds this entry lives, overriding the ledger's `ttlSeconds`
    /// (`Infinity`: forever). Recording the same result again sets its expiry anew.
    pub ttl_seconds: Option<f64>,
}

/// What the ledger keeps about a recorded result. Sizes count Unicode code points.
#[napi(object)]
pub struct ToolResultHandle {
    /// `trm_` + 12 lowercase hex; a pure function of (toolCallId, content).
    pub mem_id: String,
    /// The namespace the entry lives in (`""` by default).
    pub namespace: String,
    /// The tool that produced the result (in full; the stub may shorten it).
    pub tool_name: String,
    /// The tool call the result answers (in full; the stub may shorten it).
    pub tool_call_id: String,
    /// Length of the payload in code points (exact: payloads are at most 4,000,000,000 bytes).
    pub size_chars: u32,
    /// One line: tool name, up to three args, and the payload's shape.
    pub summary: String,
    /// The structural index line (`table: ...`, `object: ...`, `array: ...`, `text: lines=N`).
    pub schema: Either<String, Null>,
    /// The payload's head, newlines flattened, or null when empty.
    pub preview: Either<String, Null>,
    /// The v1 stub that stands in the conversation for the payload.
    pub stub: String,
}

/// How to read an archived result. Precedence: `jsonPath`, then `query`, then
/// `offset`/`maxChars`, then `format`. Answers that are parts of the payload
/// keep its lone surrogates (each one code point, never half of a pair); the
/// stub shows them as U+FFFD.
#[napi(object, object_to_js = false)]
pub struct FetchOptions {
    /// `'summary'` (the stub; also for any unknown value) or `'full'` (the payload).
    #[napi(ts_type = "'summary' | 'full'")]
    pub format: Option<String>,
    /// A substring: up to 5 windows of 400 code points either side of its matches
    /// (case-insensitive matches when there is no exact one). Compared exactly:
    /// a lone surrogate matches only itself.
    #[napi(ts_type = "string")]
    pub query: Option<JsStr>,
    /// Start of a code-point range; negative means 0, past the end gives `""`.
    pub offset: Option<f64>,
    /// Length of the range in code points; missing, 0 or negative means to the end.
    pub max_chars: Option<f64>,
    /// A path into a JSON payload: `rows.0.price`, `rows[-1]`, `["a.b"]`, `$.x[*].id`, `rows[0:3]`.
    pub json_path: Option<String>,
    /// The entry's namespace. Default `""`.
    pub namespace: Option<String>,
}

/// Options for `Ledger.stub`.
#[napi(object)]
pub struct StubOptions {
    /// Preview length for this stub (e.g. 2000 for a result the model has never seen).
    pub preview_chars: Option<f64>,
}

/// Counters of a ledger.
#[napi(object)]
pub struct LedgerStats {
    /// Entries held.
    pub entries: u32,
    /// Bytes held: payloads, their indexes and handles.
    pub bytes: f64,
    /// Fetches that found their entry.
    pub hits: f64,
    /// Fetches that did not.
    pub misses: f64,
    /// Entries evicted to stay within `maxBytes`.
    pub evictions: f64,
    /// Memory misses (fetch, recall, handle, stub) answered by the store. 0 without a store.
    pub store_hits: f64,
    /// Memory misses the store did not have either (or had expired).
    pub store_misses: f64,
    /// Store operations that failed; each one was a rejected `record`, a thrown
    /// error or a `[tool_memory error: ...]` answer.
    pub store_errors: f64,
}

/// An archive of large tool results, keyed by memory id and namespace, bounded
/// by bytes with least-recently-used eviction. Keeps payloads out of the prompt:
/// the conversation carries a stub; `recall` returns the slice the model needs.
#[napi(custom_finalize)]
pub struct Ledger {
    inner: Arc<core::Ledger>,
    /// Bytes reported to V8 as external memory.
    reported: Arc<AtomicI64>,
}

fn sync_external(env: &Env, inner: &core::Ledger, reported: &AtomicI64) {
    let now = inner.stats().bytes as i64;
    let before = reported.swap(now, Ordering::AcqRel);
    if now != before {
        // A failed hint only makes GC timing worse; never fail the call for it.
        let _ = env.adjust_external_memory(now - before);
    }
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

/// A payload crossing into Rust: the one copy it ever makes. A Buffer's bytes
/// are copied, never passed through a JS string; a JS string is converted by
/// V8 straight into an exactly sized buffer. (Reserving the 3-byte worst case
/// to save V8's length pass was measured slower: a 15 MB reservation is a
/// fresh mapping whose pages all fault on first write.)
pub struct Content(Payload);

impl TypeName for Content {
    fn type_name() -> &'static str {
        "string | Buffer"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

/// A Buffer's bytes, borrowed for the duration of the call.
unsafe fn buffer_bytes<'a>(env: sys::napi_env, value: sys::napi_value) -> Result<Option<&'a [u8]>> {
    let mut is_buffer = false;
    check_status!(unsafe { sys::napi_is_buffer(env, value, &mut is_buffer) })?;
    if !is_buffer {
        return Ok(None);
    }
    let mut data = std::ptr::null_mut();
    let mut len = 0usize;
    check_status!(unsafe { sys::napi_get_buffer_info(env, value, &mut data, &mut len) })?;
    Ok(Some(if len == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(data.cast(), len) }
    }))
}

/// `String::from_utf8_lossy`, with `from_utf8`'s ASCII fast path first (the
/// lossy scan alone is several times slower on valid multi-megabyte input).
fn utf8_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

fn not_content() -> Error {
    Error::new(
        Status::InvalidArg,
        "content must be a string or a Buffer".to_string(),
    )
}

impl FromNapiValue for Content {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        if let Some(bytes) = unsafe { buffer_bytes(env, value)? } {
            return Ok(Content(Payload::Utf8(utf8_lossy(bytes).into_owned())));
        }
        unsafe { js_string(env, value) }.map(Content)
    }
}

/// A JS string, losslessly, in as few passes as V8 allows: its UTF-8 length
/// is one pass; when that equals its UTF-16 length the string is ASCII, and
/// the Latin-1 copy (a plain narrowing copy in V8) is already its UTF-8.
/// Otherwise V8 writes UTF-8, with each lone surrogate as U+FFFD; so only a
/// string whose UTF-8 holds U+FFFD can have one, and only such a string is
/// read again, as UTF-16 units, and kept as WTF-8 if it does (see `core::wtf8`).
unsafe fn js_string(env: sys::napi_env, value: sys::napi_value) -> Result<Payload> {
    let mut kind = 0;
    check_status!(unsafe { sys::napi_typeof(env, value, &mut kind) })?;
    if kind != sys::ValueType::napi_string {
        return Err(not_content());
    }
    let (mut units, mut bytes, mut written) = (0usize, 0usize, 0usize);
    check_status!(unsafe {
        sys::napi_get_value_string_utf16(env, value, std::ptr::null_mut(), 0, &mut units)
    })?;
    check_status!(unsafe {
        sys::napi_get_value_string_utf8(env, value, std::ptr::null_mut(), 0, &mut bytes)
    })?;
    let mut buf: Vec<u8> = Vec::with_capacity(bytes + 1);
    let out = buf.as_mut_ptr().cast();
    // Every non-ASCII UTF-16 unit takes more than one UTF-8 byte (a lone
    // surrogate becomes the 3-byte U+FFFD), so equal lengths mean ASCII.
    let ascii = bytes == units;
    if ascii {
        check_status!(unsafe {
            sys::napi_get_value_string_latin1(env, value, out, bytes + 1, &mut written)
        })?;
    } else {
        check_status!(unsafe { sys::napi_get_value_string_utf8(env, value, out, bytes + 1, &mut written) })?;
    }
    // SAFETY: V8 wrote `written` <= bytes bytes.
    unsafe { buf.set_len(written) };
    if ascii {
        debug_assert!(buf.is_ascii());
        // SAFETY: ASCII bytes (see above) are UTF-8.
        return Ok(Payload::Ascii(unsafe { String::from_utf8_unchecked(buf) }));
    }
    if memchr::memmem::find(&buf, "\u{FFFD}".as_bytes()).is_some() {
        let mut wide: Vec<u16> = Vec::with_capacity(units + 1);
        check_status!(unsafe {
            sys::napi_get_value_string_utf16(env, value, wide.as_mut_ptr(), units + 1, &mut written)
        })?;
        // SAFETY: V8 wrote `written` <= units units.
        unsafe { wide.set_len(written) };
        let (wtf8, lone) = wtf8::from_utf16(&wide);
        if lone {
            return Ok(Payload::Wtf8(wtf8));
        }
    }
    // Checking is cheap insurance on this (already slower) path and keeps `String` honest.
    Ok(match String::from_utf8(buf) {
        Ok(s) => Payload::Utf8(s),
        Err(e) => Payload::Utf8(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    })
}

/// Content for hashing only: a Buffer is read in place, not copied. The borrow
/// is only used inside the call that received it, while the JS value is alive.
pub struct ContentRef(std::borrow::Cow<'static, [u8]>);

impl TypeName for ContentRef {
    fn type_name() -> &'static str {
        "string | Buffer"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl FromNapiValue for ContentRef {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        if let Some(bytes) = unsafe { buffer_bytes(env, value)? } {
            // Invalid UTF-8 hashes as the text `record` would store (U+FFFD for bad bytes).
            return Ok(ContentRef(match utf8_lossy(bytes) {
                std::borrow::Cow::Borrowed(_) => std::borrow::Cow::Borrowed(bytes),
                std::borrow::Cow::Owned(s) => std::borrow::Cow::Owned(s.into_bytes()),
            }));
        }
        let bytes = match unsafe { js_string(env, value)? } {
            Payload::Ascii(s) | Payload::Utf8(s) => s.into_bytes(),
            Payload::Wtf8(b) => b,
        };
        Ok(ContentRef(std::borrow::Cow::Owned(bytes)))
    }
}

/// A JS string argument read losslessly (lone surrogates kept, as WTF-8).
pub struct JsStr(Wtf8Buf);

impl TypeName for JsStr {
    fn type_name() -> &'static str {
        "string"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ValidateNapiValue for JsStr {}

impl FromNapiValue for JsStr {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        Ok(JsStr(match unsafe { js_string(env, value)? } {
            Payload::Ascii(s) | Payload::Utf8(s) => Wtf8Buf::from_string(s),
            Payload::Wtf8(b) => Wtf8Buf::from_bytes(b, false),
        }))
    }
}

/// A string answer for JS: well-formed text crosses as UTF-8 (V8's fast
/// decoder); text with lone surrogates as UTF-16 units, so they come back as
/// the same lone units that were recorded.
pub struct JsText(Wtf8Buf);

impl TypeName for JsText {
    fn type_name() -> &'static str {
        "string"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ToNapiValue for JsText {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let mut out = std::ptr::null_mut();
        let b = val.0.as_bytes();
        if val.0.is_utf8() {
            check_status!(unsafe {
                sys::napi_create_string_utf8(env, b.as_ptr().cast(), b.len() as isize, &mut out)
            })?;
        } else {
            let units = val.0.to_utf16();
            check_status!(unsafe {
                sys::napi_create_string_utf16(env, units.as_ptr(), units.len() as isize, &mut out)
            })?;
        }
        Ok(out)
    }
}

fn request(input: RecordInput) -> RecordRequest {
    RecordRequest {
        namespace: input.namespace.unwrap_or_default(),
        tool_call_id: input.tool_call_id,
        tool_name: input.tool_name,
        tool_args: input.tool_args,
        content: input.content.0,
    }
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
                sync_external(&env, &self.inner, &self.reported);
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
            sync_external(&env, &self.inner, &self.reported);
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
                req: Some(request(input)),
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
            let h = self
                .inner
                .record_with(request(input), ttl)
                .map_err(ledger_error)?;
            sync_external(&env, &self.inner, &self.reported);
            Ok(to_handle(h))
        })
    }

    /// Internal, for tests only: every following record of this ledger gets
    /// `memId` instead of its hash (`null` restores hashing), so that the
    /// collision refusal can be exercised.
    #[doc(hidden)]
    #[napi(js_name = "__forceMemIdForTest", catch_unwind)]
    pub fn force_mem_id_for_test(&self, mem_id: Option<String>) -> Result<(), Code> {
        guard(|| {
            self.inner.force_mem_id(mem_id);
            Ok(())
        })
    }

    /// Internal, for tests only: panics, on the calling thread (`async` false) or
    /// on the libuv pool (`async` true, returning a promise), to show that a panic
    /// becomes a JS error rather than an abort.
    #[doc(hidden)]
    #[napi(
        js_name = "__panicForTest",
        ts_args_type = "async: boolean",
        ts_return_type = "void | Promise<void>",
        catch_unwind
    )]
    pub fn panic_for_test(&self, on_pool: bool) -> Result<Either<(), AsyncTask<PanicTask>>, Code> {
        guard(|| {
            if on_pool {
                Ok(Either::B(AsyncTask::new(PanicTask)))
            } else {
                panic!("deliberate panic for a test (sync)")
            }
        })
    }

    /// Reads an archived result (see `FetchOptions` for the precedence) off the JS thread.
    /// Unknown ids, and ids from another namespace, answer `[tool_memory not found: <id>]`;
    /// a failed store read answers `[tool_memory error: store read failed for <id>: ...]`.
    #[napi(ts_return_type = "Promise<string>", catch_unwind)]
    pub fn fetch(&self, mem_id: String, options: Option<FetchOptions>) -> Result<AsyncTask<FetchTask>, Code> {
        guard(|| Ok(AsyncTask::new(self.fetch_task(mem_id, options))))
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
    pub fn recall(
        &self,
        mem_id: String,
        options: Option<FetchOptions>,
        max_output_chars: Option<f64>,
    ) -> Result<AsyncTask<FetchTask>, Code> {
        guard(|| {
            let (mut spec, namespace) = fetch_spec(options);
            if spec.keyed() {
                spec.full = true;
            }
            Ok(AsyncTask::new(FetchTask {
                inner: self.inner.clone(),
                reported: self.reported.clone(),
                namespace,
                mem_id,
                read: Read::Recall(spec, max_output(max_output_chars)),
            }))
        })
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
            sync_external(env, &self.inner, &self.reported);
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
            sync_external(&env, &self.inner, &self.reported);
            Ok(removed)
        })
    }

    /// Removes every entry, or only those of `namespace` (from the store too);
    /// returns how many were removed. A failed store clear throws `ERR_SYMFONIC_STORE`.
    #[napi(catch_unwind)]
    pub fn clear(&self, env: Env, namespace: Option<String>) -> Result<u32, Code> {
        guard(|| {
            let n = self.inner.try_clear(namespace.as_deref()).map_err(store_error)?;
            sync_external(&env, &self.inner, &self.reported);
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
        let held = self.reported.swap(0, Ordering::AcqRel);
        if held != 0 {
            let _ = env.adjust_external_memory(-held);
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
