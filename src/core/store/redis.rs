//! The Redis store (`redis://` / `rediss://`): one Redis (or Valkey) that
//! several processes, on several hosts, share.
//!
//! Runtime: the `redis` crate's async client, driven on one process-wide
//! tokio runtime that this module owns ([`runtime`]: one worker thread, built
//! on first use, never dropped). The trait is synchronous and is called from
//! the libuv pool (`AsyncTask::compute`) or from a sync method, so each call
//! spawns its command onto that runtime and waits on a channel for the answer:
//! the calling thread never needs to be (or not be) inside a tokio context,
//! and the network I/O itself always runs on the runtime's worker. The core
//! stays free of napi (and `cargo test` runs it as is), and the runtime that
//! the `ConnectionManager`'s reconnect tasks are spawned on outlives every
//! ledger and every napi env.
//!
//! Connection: a lazy `ConnectionManager` (opening a ledger does no I/O; the
//! first command connects). A dropped connection is re-established by the
//! manager on the next command that finds it broken; the command that found
//! it fails, as does every command while the server is unreachable. Each
//! command is bounded by [`COMMAND_TIMEOUT`] (connection attempts by
//! [`CONNECT_TIMEOUT`]), so a dead or hung server is an error, not a hang.
//!
//! Layout: one hash per entry, under `{prefix}{<namespace>}:<mem_id>`
//! (`symfonic:{thread-1}:trm_0123456789ab`). The namespace is the key's hash
//! tag, so a namespace's keys live on one Redis Cluster slot and every script
//! touches one key, named in `KEYS`. `{`, `}` and `%` in a namespace are
//! percent-encoded so the tag is always the whole namespace. Fields: the
//! handle (`call`, `tool`, `size`, `summary`, `schema`, `preview`, `stub`),
//! the payload (`p`, encoded by [`codec`] like the SQLite store's, with `codec`,
//! `len` and `wtf8`) and `exp` (Unix ms, absent for never). Expiry is Redis's
//! own (`PEXPIREAT`), and `exp` is checked on read too, against this
//! process's clock, as the SQLite store does.
//!
//! Atomicity: `put` is one Lua script on the entry's key (insert if absent,
//! else compare call id, length and stored payload bytes; refresh the expiry
//! if they are the same result, refuse otherwise). Two processes recording one
//! id are serialised by Redis; neither overwrites the other.

use std::sync::mpsc;
use std::sync::{LazyLock, OnceLock};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Script, Value};

use super::codec;
use super::{expired, now_ms, NewEntry, PutOutcome, Store, StoreError, StoredEntry};
use crate::core::ledger::Handle;

/// Bound on one command, connecting included.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(5);
/// Bound on one connection attempt.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// The key prefix when the URL names none.
pub const DEFAULT_PREFIX: &str = "symfonic:";
/// Keys asked of each `SCAN` step by `clear`.
const SCAN_COUNT: usize = 1000;

/// The process-wide runtime every Redis store runs its commands on.
fn runtime() -> Result<&'static tokio::runtime::Runtime, StoreError> {
    static RT: OnceLock<Result<tokio::runtime::Runtime, String>> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("symfonic-redis")
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map_err(|e| StoreError::new("open", format!("could not start the Redis runtime: {e}")))
}

/// `redis://…` / `rediss://…` as given to `new Ledger({ store })`, with this
/// package's own query parameter (`prefix`) taken out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedisSpec {
    /// The URL handed to the `redis` crate (without `prefix=`).
    pub url: String,
    /// Prepended to every key (default [`DEFAULT_PREFIX`]).
    pub prefix: String,
}

fn percent_decode(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = b
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| format!("bad percent-encoding in '{s}'"))?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| format!("'{s}' is not UTF-8 once decoded"))
}

impl RedisSpec {
    /// Parses `redis://[user:password@]host[:port][/db][?prefix=…]` (and
    /// `rediss://` for TLS). The URL is checked by the `redis` crate here;
    /// nothing connects.
    pub fn parse(s: &str) -> Result<RedisSpec, String> {
        if !(s.starts_with("redis://") || s.starts_with("rediss://")) {
            return Err(format!("a Redis store is 'redis://host:port/db', got '{s}'"));
        }
        let (base, query) = match s.split_once('?') {
            Some((b, q)) => (b, Some(q)),
            None => (s, None),
        };
        let (base, fragment) = match base.split_once('#') {
            Some((b, f)) => (b, Some(f)),
            None => (base, None),
        };
        let mut prefix = DEFAULT_PREFIX.to_string();
        let mut kept = Vec::new();
        for pair in query.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("prefix", v)) => prefix = percent_decode(v)?,
                _ => kept.push(pair),
            }
        }
        if prefix.contains(['{', '}']) || prefix.chars().any(char::is_control) {
            return Err(format!(
                "store prefix '{prefix}' may not contain '{{', '}}' or control characters (they would break the keys' hash tags)"
            ));
        }
        let mut url = base.to_string();
        if !kept.is_empty() {
            url.push('?');
            url.push_str(&kept.join("&"));
        }
        if let Some(f) = fragment {
            url.push('#');
            url.push_str(f);
        }
        Client::open(url.as_str()).map_err(|e| format!("store '{}': {e}", redact(s)))?;
        Ok(RedisSpec { url, prefix })
    }
}

/// The URL with its password (if any) replaced by `***`, for messages.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let auth_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..auth_end].rfind('@') {
        Some(at) => {
            let userinfo = &rest[..at];
            let user = userinfo.split_once(':').map_or(userinfo, |(u, _)| u);
            let hidden = if userinfo.contains(':') {
                format!("{user}:***")
            } else {
                "***".into()
            };
            format!("{scheme}://{hidden}{}", &rest[at..])
        }
        None => url.to_string(),
    }
}

/// A namespace as written inside its key's hash tag: `%`, `{` and `}`
/// percent-encoded, so the tag is exactly the namespace.
fn encode_namespace(ns: &str) -> String {
    let mut out = String::with_capacity(ns.len());
    for c in ns.chars() {
        match c {
            '%' => out.push_str("%25"),
            '{' => out.push_str("%7B"),
            '}' => out.push_str("%7D"),
            c => out.push(c),
        }
    }
    out
}

/// `s` with the glob characters of `SCAN MATCH` escaped.
fn glob_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

// Insert-if-absent-or-same. KEYS[1]: the entry. ARGV: call, len, payload,
// exp ('' = never), then the other fields as name/value pairs.
// Returns {0} inserted, {1} existing (expiry refreshed), {2} collision,
// {3, codec, payload}: same call id and length but other stored bytes (another
// codec version); the caller decodes and compares.
const PUT: &str = r"
local cur = redis.call('HMGET', KEYS[1], 'call', 'len', 'p', 'codec')
if cur[1] then
  if cur[1] ~= ARGV[1] or cur[2] ~= ARGV[2] then return {2} end
  if cur[3] ~= ARGV[3] then return {3, cur[4], cur[3]} end
  if ARGV[4] == '' then
    redis.call('HDEL', KEYS[1], 'exp')
    redis.call('PERSIST', KEYS[1])
  else
    redis.call('HSET', KEYS[1], 'exp', ARGV[4])
    redis.call('PEXPIREAT', KEYS[1], ARGV[4])
  end
  return {1}
end
local f = {'call', ARGV[1], 'len', ARGV[2], 'p', ARGV[3]}
for i = 5, #ARGV do f[#f + 1] = ARGV[i] end
if ARGV[4] ~= '' then
  f[#f + 1] = 'exp'
  f[#f + 1] = ARGV[4]
end
redis.call('HSET', KEYS[1], unpack(f))
if ARGV[4] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[4]) end
return {0}
";

// Refreshes the expiry of an entry if it still holds these payload bytes.
// KEYS[1]: the entry. ARGV: stored payload, exp ('' = never). Returns 1 if done.
const TOUCH: &str = r"
if redis.call('HGET', KEYS[1], 'p') ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], 'exp')
  redis.call('PERSIST', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'exp', ARGV[2])
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
end
return 1
";

// Deletes an entry. KEYS[1]: the entry. ARGV[1]: now (Unix ms).
// Returns 1 if a live entry was deleted.
const DELETE: &str = r"
local exp = redis.call('HGET', KEYS[1], 'exp')
local n = redis.call('DEL', KEYS[1])
if n == 0 then return 0 end
if exp and tonumber(exp) <= tonumber(ARGV[1]) then return 0 end
return 1
";

pub struct RedisStore {
    manager: ConnectionManager,
    prefix: String,
    /// The URL with its password hidden, for error messages.
    shown: String,
}

static PUT_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(PUT));
static TOUCH_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(TOUCH));
static DELETE_SCRIPT: LazyLock<Script> = LazyLock::new(|| Script::new(DELETE));

impl RedisStore {
    /// Sets the store up; nothing connects until the first command (which
    /// runs on the runtime, never on the caller's thread).
    pub fn open(spec: &RedisSpec) -> Result<RedisStore, StoreError> {
        let open = |e: redis::RedisError| StoreError::new("open", e);
        // rustls needs a process-wide crypto provider for `rediss://`; another
        // library may have installed one already, which is as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = Client::open(spec.url.as_str()).map_err(open)?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(COMMAND_TIMEOUT))
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(50))
            .set_max_delay(Duration::from_millis(500));
        let rt = runtime()?;
        // The manager finds its runtime from the current context.
        let manager = {
            let _in = rt.enter();
            ConnectionManager::new_lazy_with_config(client, config).map_err(open)?
        };
        Ok(RedisStore {
            manager,
            prefix: spec.prefix.clone(),
            shown: redact(&spec.url),
        })
    }

    fn key(&self, namespace: &str, mem_id: &str) -> String {
        format!("{}{{{}}}:{mem_id}", self.prefix, encode_namespace(namespace))
    }

    /// Runs `f` on the runtime with a clone of the connection, bounded by
    /// [`COMMAND_TIMEOUT`], and waits for it here.
    fn run<T, F, Fut>(&self, op: &'static str, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(ConnectionManager) -> Fut,
        Fut: std::future::Future<Output = redis::RedisResult<T>> + Send + 'static,
    {
        let rt = runtime().map_err(|e| StoreError::new(op, e.message))?;
        let fut = f(self.manager.clone());
        let (tx, rx) = mpsc::sync_channel(1);
        rt.spawn(async move {
            let out = tokio::time::timeout(COMMAND_TIMEOUT, fut).await;
            let _ = tx.send(out);
        });
        let shown = &self.shown;
        // The task always sends within COMMAND_TIMEOUT; the margin only
        // guards against a runtime that stopped.
        match rx.recv_timeout(COMMAND_TIMEOUT + Duration::from_secs(1)) {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(e))) => Err(StoreError::new(op, format!("{shown}: {e}"))),
            Ok(Err(_)) | Err(_) => Err(StoreError::new(
                op,
                format!("{shown}: no answer within {} ms", COMMAND_TIMEOUT.as_millis()),
            )),
        }
    }

    /// Sends `PING`; Ok once the server answers.
    pub fn ping(&self) -> Result<(), StoreError> {
        self.run("ping", |mut c| async move {
            let _: String = redis::cmd("PING").query_async(&mut c).await?;
            Ok(())
        })
    }
}

fn to_u64(op: &'static str, field: &str, v: Option<&Vec<u8>>) -> Result<u64, StoreError> {
    v.and_then(|b| std::str::from_utf8(b).ok())
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| StoreError::new(op, format!("corrupt entry: field '{field}'")))
}

fn to_string(op: &'static str, field: &str, v: Option<Vec<u8>>) -> Result<String, StoreError> {
    v.and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| StoreError::new(op, format!("corrupt entry: field '{field}'")))
}

fn bytes_of(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b.clone()),
        Value::SimpleString(s) => Some(s.as_bytes().to_vec()),
        Value::Int(i) => Some(i.to_string().into_bytes()),
        _ => None,
    }
}

impl Store for RedisStore {
    fn put(&self, entry: NewEntry<'_>) -> Result<PutOutcome, StoreError> {
        let h = entry.handle;
        let key = self.key(&h.namespace, &h.mem_id);
        // Compression runs here, on the caller's (pool) thread.
        let (codec_id, payload) = codec::encode(entry.content);
        let exp = entry.expires_at.map_or(String::new(), |t| t.to_string());
        let mut inv = PUT_SCRIPT.prepare_invoke();
        inv.key(&key)
            .arg(&h.tool_call_id)
            .arg(entry.content.len().to_string())
            .arg(&payload)
            .arg(&exp);
        let fields: [(&str, Option<String>); 8] = [
            ("tool", Some(h.tool_name.clone())),
            ("size", Some(h.size_chars.to_string())),
            ("summary", Some(h.summary.clone())),
            ("schema", h.schema.clone()),
            ("preview", h.preview.clone()),
            ("stub", Some(h.stub.clone())),
            ("wtf8", Some(if entry.wtf8 { "1" } else { "0" }.to_string())),
            ("codec", Some(codec_id.to_string())),
        ];
        for (name, value) in fields {
            if let Some(v) = value {
                inv.arg(name).arg(v);
            }
        }
        let answer: Vec<Value> =
            self.run("put", move |mut c| async move { inv.invoke_async(&mut c).await })?;
        let status = match answer.first() {
            Some(Value::Int(i)) => *i,
            _ => return Err(StoreError::new("put", "unexpected answer from the put script")),
        };
        match status {
            0 => Ok(PutOutcome::Inserted),
            1 => Ok(PutOutcome::Existing),
            2 => Ok(PutOutcome::Collision),
            3 => {
                let stored_codec = answer
                    .get(1)
                    .and_then(bytes_of)
                    .and_then(|b| String::from_utf8(b).ok())
                    .and_then(|s| s.parse::<i64>().ok())
                    .ok_or_else(|| StoreError::new("put", "corrupt entry: field 'codec'"))?;
                let stored = answer
                    .get(2)
                    .and_then(bytes_of)
                    .ok_or_else(|| StoreError::new("put", "corrupt entry: field 'p'"))?;
                let raw = codec::decode(stored_codec, &stored, entry.content.len())
                    .map_err(|m| StoreError::new("put", m))?;
                if raw != entry.content {
                    return Ok(PutOutcome::Collision);
                }
                let mut inv = TOUCH_SCRIPT.prepare_invoke();
                inv.key(&key).arg(stored).arg(exp);
                let done: i64 =
                    self.run("put", move |mut c| async move { inv.invoke_async(&mut c).await })?;
                // 0: it was deleted or replaced meanwhile; record it afresh.
                if done == 1 {
                    Ok(PutOutcome::Existing)
                } else {
                    self.put(entry)
                }
            }
            other => Err(StoreError::new("put", format!("unexpected put status {other}"))),
        }
    }

    fn get(&self, namespace: &str, mem_id: &str) -> Result<Option<StoredEntry>, StoreError> {
        let key = self.key(namespace, mem_id);
        let mut fields: std::collections::HashMap<String, Vec<u8>> = self
            .run("get", move |mut c| async move {
                redis::cmd("HGETALL").arg(key).query_async(&mut c).await
            })?;
        if fields.is_empty() {
            return Ok(None);
        }
        let expires_at = match fields.get("exp") {
            Some(_) => Some(to_u64("get", "exp", fields.get("exp"))?),
            None => None,
        };
        if expired(expires_at, now_ms()) {
            return Ok(None);
        }
        let raw_len = to_u64("get", "len", fields.get("len"))?;
        let raw_len =
            usize::try_from(raw_len).map_err(|_| StoreError::new("get", "corrupt entry: field 'len'"))?;
        let codec_id = to_u64("get", "codec", fields.get("codec"))? as i64;
        let size_chars = to_u64("get", "size", fields.get("size"))? as usize;
        let wtf8 = fields.get("wtf8").map(Vec::as_slice) == Some(b"1");
        let payload = fields
            .remove("p")
            .ok_or_else(|| StoreError::new("get", "corrupt entry: field 'p'"))?;
        let content = codec::decode(codec_id, &payload, raw_len).map_err(|m| StoreError::new("get", m))?;
        let optional =
            |v: Option<Vec<u8>>, name: &str| v.map(|b| to_string("get", name, Some(b))).transpose();
        Ok(Some(StoredEntry {
            handle: Handle {
                mem_id: mem_id.to_string(),
                namespace: namespace.to_string(),
                tool_name: to_string("get", "tool", fields.remove("tool"))?,
                tool_call_id: to_string("get", "call", fields.remove("call"))?,
                size_chars,
                summary: to_string("get", "summary", fields.remove("summary"))?,
                schema: optional(fields.remove("schema"), "schema")?,
                preview: optional(fields.remove("preview"), "preview")?,
                stub: to_string("get", "stub", fields.remove("stub"))?,
            },
            content,
            wtf8,
            expires_at,
        }))
    }

    fn delete(&self, namespace: &str, mem_id: &str) -> Result<bool, StoreError> {
        let mut inv = DELETE_SCRIPT.prepare_invoke();
        inv.key(self.key(namespace, mem_id)).arg(now_ms());
        let n: i64 = self.run(
            "delete",
            move |mut c| async move { inv.invoke_async(&mut c).await },
        )?;
        Ok(n == 1)
    }

    fn clear(&self, namespace: Option<&str>) -> Result<usize, StoreError> {
        let pattern = match namespace {
            Some(ns) => format!(
                "{}{{{}}}:trm_*",
                glob_escape(&self.prefix),
                glob_escape(&encode_namespace(ns))
            ),
            None => format!("{}{{*}}:trm_*", glob_escape(&self.prefix)),
        };
        let mut cursor: u64 = 0;
        let mut live = 0usize;
        loop {
            let pat = pattern.clone();
            let (next, keys): (u64, Vec<Vec<u8>>) = self.run("clear", move |mut c| async move {
                redis::cmd("SCAN")
                    .arg(cursor)
                    .arg("MATCH")
                    .arg(pat)
                    .arg("COUNT")
                    .arg(SCAN_COUNT)
                    .query_async(&mut c)
                    .await
            })?;
            if !keys.is_empty() {
                let mut pipe = redis::pipe();
                let now = now_ms();
                for k in &keys {
                    // One key per script call: each call stays on its key's slot.
                    pipe.cmd("EVAL").arg(DELETE).arg(1).arg(k).arg(now);
                }
                let deleted: Vec<i64> =
                    self.run(
                        "clear",
                        move |mut c| async move { pipe.query_async(&mut c).await },
                    )?;
                live += deleted.iter().filter(|&&n| n == 1).count();
            }
            cursor = next;
            if cursor == 0 {
                return Ok(live);
            }
        }
    }

    /// Redis expires entries itself (`PEXPIREAT`): nothing to sweep.
    fn sweep(&self) -> Result<usize, StoreError> {
        Ok(0)
    }
}

#[cfg(test)]
pub(crate) mod tests;
