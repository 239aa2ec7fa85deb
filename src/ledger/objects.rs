//! The JS-facing shapes of the Ledger API: options, inputs, handles and
//! counters (their `///` docs are the reference, in `binding.d.ts`).

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::{Map, Value};

use crate::text::{Content, JsStr};

/// Options for `new Ledger(options)`.
#[napi(object)]
#[derive(Default)]
pub struct LedgerOptions {
    /// Bound on the bytes of payload (and its indexes) held. Past it, the least
    /// recently used entries are evicted (an entry that alone exceeds it is kept
    /// until the next record). Default 256 MiB. Async records in flight hold
    /// their payloads' copies besides, up to a quarter of it (at least 16 MiB;
    /// a record that would exceed that waits its turn, one always runs).
    pub max_bytes: Option<f64>,
    /// Code points of head preview shown in each stub. Default 200; 0 hides it.
    pub preview_chars: Option<f64>,
    /// A store below the in-memory LRU: `'sqlite:<path>'` (a relative path is
    /// relative to the process's cwd; the file is created if missing),
    /// `'sqlite::memory:'` (a database in this process's memory, private to this
    /// ledger: for tests), or a Redis URL, `'redis://[user:password@]host[:port][/db]'`
    /// (`rediss://` for TLS; `?prefix=app:` sets the key prefix, default
    /// `symfonic:`). A URL naming a node of a Redis Cluster follows the cluster;
    /// an array of URLs names a cluster's seed nodes. Records are written through
    /// (`record` resolves once the store has the entry: the SQLite row committed
    /// and fsynced, the Redis script answered); a memory miss reloads the entry
    /// from the store, so entries survive eviction and restarts and are shared
    /// by every process using the file or the server. The store opens in the
    /// background (the constructor never waits); a store that cannot be opened
    /// rejects calls with `ERR_SYMFONIC_STORE` (the next call tries again), and
    /// `await Ledger.open(options)` rejects with it.
    #[napi(ts_type = "string | string[]")]
    pub store: Option<Either<String, Vec<String>>>,
    /// Bound, in milliseconds, on each call of a ledger with a store, end to
    /// end (waiting its turn among the records in flight, for the store to
    /// open, for a CPU, the store's answer), whatever the payload's size. Past it
    /// the call rejects with `ERR_SYMFONIC_STORE_TIMEOUT` (`fetch` and `recall`
    /// answer `[tool_memory error: ...]`). Default 5000.
    pub timeout_ms: Option<f64>,
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
    /// At most 4,000,000,000 bytes of UTF-8 (a longer Buffer is refused by its
    /// length, before it is read). A string is copied when its record starts
    /// (at the call, or, when the ledger's records in flight weigh a quarter
    /// of `maxBytes` already, once its turn comes); a Buffer is read off the
    /// JS thread as the record runs: it must not be modified, detached or
    /// transferred until the record settles (one resized or detached before
    /// its turn rejects the record with a `TypeError`).
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
    /// One line: tool name, up to three args, and the payload's kind
    /// (`JSON object`, `log, 2000 lines`, `CSV table`, `HTML page`, `text, 12 lines`).
    pub summary: String,
    /// The stub's structure line: `array[1949] of records, 13 columns: ...`,
    /// `$.main.ja: object{2} [...]`, `log: 2000 lines; time ... .. ...; levels ...`,
    /// `CSV: 44 rows x 9 columns, header: ...` (see docs/stub.md).
    pub schema: Either<String, Null>,
    /// The payload's head as the stub shows it (JSON without indentation,
    /// text with whitespace runs as one space), or null when empty.
    pub preview: Either<String, Null>,
    /// The stub (format v2; v1 for an entry recorded as v1) that stands in the
    /// conversation for the payload.
    pub stub: String,
}

/// How to read an archived result. Precedence: `jsonPath`, then `pattern`,
/// then `query`, then `lines`, then `offset`/`maxChars`, then `format`
/// (`lines` also narrows a `pattern` or `query` search; `ignoreCase` applies
/// to both). Answers that are parts of the payload keep its lone surrogates
/// (each one code point, never half of a pair); the stub shows them as U+FFFD.
#[napi(object, object_to_js = false)]
pub struct FetchOptions {
    /// The answer's form: `'summary'` (the stub; also for any unknown value),
    /// `'full'` (the payload), `'count'` (with `pattern` or `query`: the count
    /// of matching lines or matches alone), `'paths'` (with `jsonPath`:
    /// `[path, value]` pairs, each path an RFC 9535 Normalized Path such as
    /// `$['rows'][3]['id']`), or `'raw'` (JSON nodes as written and `lines`
    /// without their `N:` numbers; by default nodes are compact, without
    /// insignificant whitespace and with printable `\uXXXX` escapes decoded).
    #[napi(ts_type = "'summary' | 'full' | 'count' | 'paths' | 'raw'")]
    pub format: Option<String>,
    /// A substring: up to 5 windows of 400 code points either side of its matches,
    /// each behind `(offset N, line L)` (case-insensitive matches when there is no
    /// exact one); when not all show, a first line gives the `offset` to pass for
    /// the rest. Compared exactly: a lone surrogate matches only itself.
    #[napi(ts_type = "string")]
    pub query: Option<JsStr>,
    /// Start of a code-point range; with `pattern` or `query`, where the search
    /// starts; with `jsonPath`, the nodes (or an object's members, an array's
    /// elements) to skip. Negative means 0; past the end answers
    /// `[recall: offset=N is past the end of <id>, which has L chars]`.
    pub offset: Option<f64>,
    /// Length of the range in code points (missing, 0 or negative: to the end);
    /// with `jsonPath`, `pattern` or `query`, a bound on the answer's length.
    pub max_chars: Option<f64>,
    /// A path into a JSON payload: RFC 9535 JSONPath (`$.rows[-1].price`, `$..sku`, `$.items[?@.stock==0].sku`), an RFC 6901 pointer (`#/a/b`), or a lenient form (`rows.0.price`); see docs/jsonpath.md.
    /// Nodes come back compact (see `format`); a list that selects nothing because of a
    /// missing key or a type mismatch says where matching stopped and what is there.
    pub json_path: Option<String>,
    /// A regular expression (Rust `regex` syntax, linear time; at most 1,000
    /// code points): a header counting the matching lines, then each as
    /// `N:line` (`N-line` for context, `--` between groups), like `grep -n`.
    /// A pattern that does not compile answers `[recall: pattern ... does not compile: ...]`.
    pub pattern: Option<String>,
    /// Case-insensitive `pattern` and `query`. Default false.
    pub ignore_case: Option<bool>,
    /// Lines of context before and after each `pattern` match (0 to 50). Default 0.
    pub context: Option<f64>,
    /// A 1-based inclusive line range: `'120-180'`, `'120'`, or `'120-'` (to the
    /// end). Alone, the lines as `N:text` (with format `raw`, the payload's own text);
    /// with `pattern` or `query`, the lines searched.
    pub lines: Option<String>,
    /// The entry's namespace. Default `""`.
    pub namespace: Option<String>,
}

/// Options for `Ledger.stub`.
#[napi(object)]
pub struct StubOptions {
    /// The entry's namespace. Default `""`.
    pub namespace: Option<String>,
    /// Preview length for this stub (e.g. 2000 for a result the model has never seen).
    pub preview_chars: Option<f64>,
}

/// Options for `Ledger.handle`, `Ledger.has` and `Ledger.delete`: where the entry lives.
#[napi(object)]
pub struct EntryOptions {
    /// The entry's namespace. Default `""`.
    pub namespace: Option<String>,
}

/// Options for `Ledger.clear`.
#[napi(object)]
pub struct ClearOptions {
    /// Only this namespace's entries. Absent: every namespace.
    pub namespace: Option<String>,
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
