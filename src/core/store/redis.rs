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
//! the payload (`p`, encoded by [`codec`](super::codec) like the SQLite store's,
//! with `codec`, `len` and `wtf8`), `seal` and `exp` (Unix ms, absent for
//! never); [`row`] writes and checks them. Expiry is Redis's own
//! (`PEXPIREAT`), and `exp` is checked on read too, against this process's
//! clock, as the SQLite store does.
//!
//! Atomicity: `put` is one Lua script on the entry's key: insert if absent,
//! refresh the expiry if the same fields are there, else answer the row as
//! it is. That row is judged here ([`row::judge`]): the same result written
//! otherwise gets its expiry refreshed, another result is a collision, and a
//! row that cannot be read is replaced by a second script, only if it is
//! still exactly as read. Two processes recording one id are serialised by
//! Redis; neither overwrites the other's sound entry.

use std::sync::mpsc;
use std::sync::{LazyLock, OnceLock};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Script, Value};

use super::row::{self, Encoded, Found, Pairs, Row};
use super::{expired, now_ms, NewEntry, PutOutcome, Store, StoreError, StoredEntry};

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

// Insert-if-absent-or-identical, or replace a row as read. KEYS[1]: the
// entry. ARGV[1]: exp ('' = never). ARGV[2]: n, then n items: a row as read
// (name, value, ...) to replace if it is still exactly that, or none; n = -1
// replaces a key that is not a hash. Then the entry's fields as name/value pairs.
// Returns {0} inserted; {1} the same fields were there (expiry refreshed);
// {2, name, value, ...}: another row is there, all its fields given, for
// the caller to judge (another result, the same one written otherwise, or
// a row that cannot be read); {3} the row as read was replaced; {4} it had
// changed meanwhile (nothing written); {5} the key holds no hash.
const PUT: &str = r"
local n = tonumber(ARGV[2])
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'hash' and kind ~= 'none' then
  if n ~= -1 then return {5} end
  redis.call('DEL', KEYS[1])
end
if n == -1 then n = 0 end
local cur = redis.call('HGETALL', KEYS[1])
if n > 0 then
  local seen = {}
  for i = 3, 2 + n, 2 do seen[ARGV[i]] = ARGV[i + 1] end
  if #cur ~= n then return {4} end
  for i = 1, #cur, 2 do
    if seen[cur[i]] ~= cur[i + 1] then return {4} end
  end
  redis.call('DEL', KEYS[1])
  cur = {}
end
if #cur > 0 then
  local want, m = {}, 0
  for i = 3 + n, #ARGV, 2 do want[ARGV[i]] = ARGV[i + 1]; m = m + 1 end
  local same = true
  for i = 1, #cur, 2 do
    if cur[i] ~= 'exp' then
      if want[cur[i]] ~= cur[i + 1] then same = false; break end
      m = m - 1
    end
  end
  if not same or m ~= 0 then
    local out = {2}
    for i = 1, #cur do out[i + 1] = cur[i] end
    return out
  end
  if ARGV[1] == '' then
    redis.call('HDEL', KEYS[1], 'exp')
    redis.call('PERSIST', KEYS[1])
  else
    redis.call('HSET', KEYS[1], 'exp', ARGV[1])
    redis.call('PEXPIREAT', KEYS[1], ARGV[1])
  end
  return {1}
end
local f = {}
for i = 3 + n, #ARGV do f[#f + 1] = ARGV[i] end
if ARGV[1] ~= '' then
  f[#f + 1] = 'exp'
  f[#f + 1] = ARGV[1]
end
redis.call('HSET', KEYS[1], unpack(f))
if ARGV[1] ~= '' then redis.call('PEXPIREAT', KEYS[1], ARGV[1]) end
if ARGV[2] ~= '0' then return {3} end
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

fn bytes_of(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::BulkString(b) => Some(b.clone()),
        Value::SimpleString(s) => Some(s.as_bytes().to_vec()),
        Value::Int(i) => Some(i.to_string().into_bytes()),
        _ => None,
    }
}

/// A hash's fields as a script answers them: name, value, name, value...
fn pairs(items: &[Value]) -> Result<Pairs, StoreError> {
    let bad = || StoreError::new("put", "unexpected answer from the put script");
    if !items.len().is_multiple_of(2) {
        return Err(bad());
    }
    items
        .chunks(2)
        .map(|p| Ok((bytes_of(&p[0]).ok_or_else(bad)?, bytes_of(&p[1]).ok_or_else(bad)?)))
        .collect()
}

/// How many times `put` runs its script on a row that other processes keep
/// changing under it before it gives up (a repair takes two).
const PUT_ROUNDS: usize = 4;

impl Store for RedisStore {
    fn put(&self, entry: NewEntry<'_>) -> Result<PutOutcome, StoreError> {
        let h = entry.handle;
        let key = self.key(&h.namespace, &h.mem_id);
        // Compression runs here, on the caller's (pool) thread.
        let row = Encoded::new(entry);
        let exp = entry.expires_at.map_or(String::new(), |t| t.to_string());
        // The row to replace, as last read, when it could not be read (`None`
        // inside: a key that held no hash).
        let mut replace: Option<Option<Pairs>> = None;
        // Whether the row replaced had only expired (then it is an insert).
        let mut only_expired = false;
        for _ in 0..PUT_ROUNDS {
            let mut inv = PUT_SCRIPT.prepare_invoke();
            inv.key(&key).arg(&exp);
            match replace.take() {
                None => inv.arg(0),
                Some(None) => inv.arg(-1),
                Some(Some(guard)) => {
                    inv.arg(guard.len() * 2);
                    for (name, value) in guard {
                        inv.arg(name).arg(value);
                    }
                    &mut inv
                }
            };
            for (name, value) in row.redis_fields() {
                inv.arg(name).arg(value.as_ref());
            }
            let answer: Vec<Value> =
                self.run("put", move |mut c| async move { inv.invoke_async(&mut c).await })?;
            match answer.first() {
                Some(Value::Int(0)) => return Ok(PutOutcome::Inserted),
                Some(Value::Int(1)) => return Ok(PutOutcome::Existing),
                Some(Value::Int(2)) => {}
                Some(Value::Int(3)) if only_expired => return Ok(PutOutcome::Inserted),
                Some(Value::Int(3)) => return Ok(PutOutcome::Repaired),
                // Changed since it was read: judge it again.
                Some(Value::Int(4)) => continue,
                Some(Value::Int(5)) => {
                    replace = Some(None);
                    continue;
                }
                _ => return Err(StoreError::new("put", "unexpected answer from the put script")),
            }
            let seen = pairs(&answer[1..])?;
            let decoded = Row::from_pairs("put", seen.clone());
            // An expired row is free for another result, as no row would be.
            only_expired = decoded.as_ref().is_ok_and(|r| expired(r.expires_at(), now_ms()));
            let found = match decoded {
                _ if only_expired => Found::Unreadable("expired".into()),
                other => row::judge(other, &entry),
            };
            match found {
                Found::Different => return Ok(PutOutcome::Collision),
                Found::Unreadable(_) => replace = Some(Some(seen)),
                Found::Same => {
                    // The same result written otherwise (another codec, another
                    // preview length): kept, its expiry refreshed.
                    let stored = seen.iter().find(|(n, _)| n == b"p").map(|(_, v)| v.clone());
                    let mut inv = TOUCH_SCRIPT.prepare_invoke();
                    inv.key(&key).arg(stored.unwrap_or_default()).arg(&exp);
                    let done: i64 =
                        self.run("put", move |mut c| async move { inv.invoke_async(&mut c).await })?;
                    if done == 1 {
                        return Ok(PutOutcome::Existing);
                    }
                }
            }
            // Again: to replace the row as read, or because it changed meanwhile
            // (deleted, replaced, repaired by another process).
        }
        Err(StoreError::new(
            "put",
            format!("{}: the entry kept changing while it was recorded", self.shown),
        ))
    }

    fn get(&self, namespace: &str, mem_id: &str) -> Result<Option<StoredEntry>, StoreError> {
        let key = self.key(namespace, mem_id);
        let fields: std::collections::HashMap<Vec<u8>, Vec<u8>> = self
            .run("get", move |mut c| async move {
                redis::cmd("HGETALL").arg(key).query_async(&mut c).await
            })?;
        if fields.is_empty() {
            return Ok(None);
        }
        let row = Row::from_pairs("get", fields.into_iter().collect())?;
        if expired(row.expires_at(), now_ms()) {
            return Ok(None);
        }
        row.open("get", namespace, mem_id).map(Some)
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
