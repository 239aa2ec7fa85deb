//! Connecting to Redis: one server through a reconnecting
//! `ConnectionManager`, or a Redis Cluster through the `redis` crate's own
//! cluster client (it follows slots, `MOVED`/`ASK` and failovers; nothing
//! here routes). Which one is found at open: a node answering
//! `cluster_enabled:1` to `INFO cluster` is a cluster, whatever URL named it.
//!
//! Then the server's settings that change what the store may promise are
//! read: `maxmemory` and `maxmemory-policy` (a policy that can evict
//! acknowledged entries is warned once), and the largest value and command
//! it accepts (`proto-max-bulk-len`, `client-query-buffer-limit`), so that a
//! payload above them is refused with that reason instead of a dropped
//! connection.

use std::collections::HashMap;
use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClientBuilder;
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{MultipleNodeRoutingInfo, RoutingInfo, SingleNodeRoutingInfo};
use redis::{Client, Cmd, ErrorKind, RedisError, RedisFuture, Value};

use super::spec::RedisSpec;
use crate::runtime::Deadline;
use crate::store::{warn_once, StoreError};

/// Bound on one connection attempt (within the call's own bound).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// A connection to one server or to a cluster; cheap to clone (clones share it).
#[derive(Clone)]
pub(super) enum Conn {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Single(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

impl Conn {
    pub(super) fn is_cluster(&self) -> bool {
        matches!(self, Conn::Cluster(_))
    }

    /// `cmd` on every primary: one answer per node (`host:port`), or one for a single server.
    pub(super) async fn on_each_primary(&mut self, cmd: Cmd) -> redis::RedisResult<Vec<(String, Value)>> {
        match self {
            Conn::Single(c) => Ok(vec![(String::new(), cmd.query_async(c).await?)]),
            Conn::Cluster(c) => {
                let all = RoutingInfo::MultiNode((MultipleNodeRoutingInfo::AllMasters, None));
                let answer = c.route_command(cmd, all).await?;
                let Value::Map(by_node) = answer else {
                    return Ok(vec![(String::new(), answer)]);
                };
                let mut out = Vec::with_capacity(by_node.len());
                for (node, v) in by_node {
                    let node = match node {
                        Value::BulkString(b) => String::from_utf8_lossy(&b).into_owned(),
                        Value::SimpleString(s) => s,
                        other => format!("{other:?}"),
                    };
                    if let Value::ServerError(e) = v {
                        return Err(RedisError::from(e));
                    }
                    out.push((node, v));
                }
                Ok(out)
            }
        }
    }

    /// `cmd` on the node `node` (`host:port`) of a cluster; on the server itself otherwise.
    pub(super) async fn on_node(&mut self, node: &str, cmd: Cmd) -> redis::RedisResult<Value> {
        match self {
            Conn::Single(c) => cmd.query_async(c).await,
            Conn::Cluster(c) => {
                let (host, port) = node
                    .rsplit_once(':')
                    .and_then(|(h, p)| Some((h.to_string(), p.parse().ok()?)))
                    .ok_or_else(|| {
                        RedisError::from((ErrorKind::Client, "bad node address", node.to_string()))
                    })?;
                c.route_command(
                    cmd,
                    RoutingInfo::SingleNode(SingleNodeRoutingInfo::ByAddress { host, port }),
                )
                .await
            }
        }
    }
}

/// What the server's settings allow, read at open.
#[derive(Debug, Clone, Default)]
pub(super) struct Settings {
    /// `maxmemory-policy` when the server has a `maxmemory` (else it never
    /// evicts); on a cluster, the first evicting one found among the primaries.
    pub policy: Option<String>,
    /// The largest payload (as stored) one command may carry, in bytes.
    pub max_value: Option<u64>,
    /// Whether `policy` was read (false when the server refused `CONFIG`).
    pub policy_known: bool,
}

impl Settings {
    /// Whether the policy evicts any key under memory pressure (`allkeys-*`).
    pub fn evicts_any(&self) -> bool {
        self.policy.as_deref().is_some_and(|p| p.starts_with("allkeys-"))
    }

    /// Whether it evicts keys that have an expiry (`volatile-*`, and `allkeys-*`).
    pub fn evicts_expiring(&self) -> bool {
        self.evicts_any() || self.policy.as_deref().is_some_and(|p| p.starts_with("volatile-"))
    }
}

/// A Redis error as a store error. A refused connection or an error the
/// server answered did nothing; a connection lost mid-request may have.
pub(super) fn failure(op: &'static str, shown: &str, e: RedisError) -> StoreError {
    let certain = e.is_connection_refusal()
        || matches!(
            e.kind(),
            ErrorKind::Server(_)
                | ErrorKind::Extension
                | ErrorKind::AuthenticationFailed
                | ErrorKind::InvalidClientConfig
                | ErrorKind::Client
        );
    if certain {
        StoreError::new(op, format!("{shown}: {e}"))
    } else {
        StoreError::unknown(op, format!("{shown}: {e}"))
    }
}

/// An error while opening, in the user's terms where the client's hide the
/// cause: an answer that is not RESP comes from something other than Redis,
/// and a reset connection from something that is not Redis or refused us.
fn open_failure(shown: &str, e: RedisError) -> StoreError {
    if e.kind() == ErrorKind::Parse {
        return StoreError::new(
            "open",
            format!("{shown}: the server at this address answered, but not in the Redis protocol: check the URL's host and port (Redis listens on 6379 unless configured otherwise)"),
        );
    }
    if e.is_connection_dropped() && !e.is_connection_refusal() {
        return StoreError::new(
            "open",
            format!("{shown}: the server at this address closed the connection: it is not a Redis server, or it refused this client (check the URL's host, port and TLS: rediss:// for a server that wants TLS)"),
        );
    }
    if e.is_connection_refusal() {
        return StoreError::new(
            "open",
            format!("{shown}: {e} (is Redis running at this address?)"),
        );
    }
    StoreError::new("open", format!("{shown}: {e}"))
}

/// Connects to the server or cluster `spec` names and reads its settings, by `deadline`.
pub(super) async fn open(
    spec: &RedisSpec,
    bound: Duration,
    deadline: Deadline,
) -> Result<(Conn, Settings), StoreError> {
    // rustls needs a process-wide crypto provider for `rediss://`; another
    // library may have installed one already, which is as good.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let shown = spec.shown();
    let timed_out = || StoreError::timeout("open", &shown, &deadline, false);
    let fail = |e: RedisError| open_failure(&shown, e);
    let connect_timeout = CONNECT_TIMEOUT.min(bound);
    let mut first: Option<ConnectionManager> = None;
    let mut last_error: Option<RedisError> = None;
    while first.is_none() {
        for url in &spec.urls {
            let client = Client::open(url.as_str()).map_err(fail)?;
            let config = ConnectionManagerConfig::new()
                .set_connection_timeout(Some(connect_timeout))
                .set_response_timeout(Some(bound))
                .set_number_of_retries(1)
                .set_min_delay(Duration::from_millis(50))
                .set_max_delay(Duration::from_millis(500));
            match deadline
                .within(ConnectionManager::new_with_config(client, config))
                .await
            {
                Some(Ok(m)) => {
                    first = Some(m);
                    break;
                }
                Some(Err(e)) if names_a_db(url) && e.to_string().contains("cluster mode") => {
                    return Err(only_db0(url));
                }
                Some(Err(e)) => last_error = Some(e),
                None => return Err(timed_out()),
            }
        }
        // A server that accepts and never answers (stopped, overloaded) times
        // out each attempt: try again until the call's own bound, which says so.
        if !last_error.as_ref().is_some_and(RedisError::is_timeout) {
            break;
        }
    }
    let Some(mut manager) = first else {
        return Err(match last_error {
            Some(e) => fail(e),
            None => StoreError::new("open", format!("{shown}: no URL")),
        });
    };
    let info: String = deadline
        .within(redis::cmd("INFO").arg("cluster").query_async(&mut manager))
        .await
        .ok_or_else(timed_out)?
        .map_err(fail)?;
    let cluster = info.lines().any(|l| l.trim() == "cluster_enabled:1");
    let mut conn = if cluster {
        drop(manager);
        if let Some(db) = spec.urls.iter().find(|u| names_a_db(u)) {
            return Err(only_db0(db));
        }
        let client = ClusterClientBuilder::new(spec.urls.clone())
            .connection_timeout(connect_timeout)
            .response_timeout(bound)
            .retries(3)
            .min_retry_wait(20)
            .max_retry_wait(500)
            .build()
            .map_err(fail)?;
        let c = deadline
            .within(client.get_async_connection())
            .await
            .ok_or_else(timed_out)?
            .map_err(fail)?;
        Conn::Cluster(c)
    } else {
        if spec.urls.len() > 1 {
            return Err(StoreError::new(
                "open",
                format!("{shown}: several URLs name the seed nodes of a Redis Cluster, but this server is not in cluster mode"),
            ));
        }
        Conn::Single(manager)
    };
    let settings = read_settings(&mut conn, &shown, deadline).await?;
    if settings.evicts_any() {
        warn_once(format!(
            "@symfonic/core: Redis {shown} has maxmemory-policy {}: when it reaches maxmemory it evicts keys, acknowledged ledger entries included, before their expiry (a recall then answers that the entry was evicted). Set maxmemory-policy noeviction (or a volatile-* policy with no ttlSeconds) to keep every entry.",
            settings.policy.as_deref().unwrap_or("?")
        ));
    }
    Ok((conn, settings))
}

fn only_db0(url: &str) -> StoreError {
    StoreError::new(
        "open",
        format!("{}: a Redis Cluster has only database 0", super::redact(url)),
    )
}

fn names_a_db(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.split(['?', '#']).next().unwrap_or("");
    match path.split_once('/') {
        Some((_, db)) => !db.is_empty() && db != "0",
        None => false,
    }
}

/// `CONFIG GET name` on every primary: each node's value (absent where refused).
async fn config_get(
    conn: &mut Conn,
    name: &str,
    deadline: Deadline,
) -> Result<Vec<Option<String>>, Option<String>> {
    let answers = deadline
        .within(conn.on_each_primary(redis::cmd("CONFIG").arg("GET").arg(name).clone()))
        .await
        .ok_or(None)?
        .map_err(|e| Some(e.to_string()))?;
    Ok(answers
        .into_iter()
        .map(|(_, v)| {
            let pairs: HashMap<String, String> = redis::from_redis_value(v).ok()?;
            pairs.get(name).cloned()
        })
        .collect())
}

async fn read_settings(conn: &mut Conn, shown: &str, deadline: Deadline) -> Result<Settings, StoreError> {
    let timed_out = || StoreError::timeout("open", shown, &deadline, false);
    let mut settings = Settings::default();
    let maxmemory = match config_get(conn, "maxmemory", deadline).await {
        Ok(v) => v,
        Err(None) => return Err(timed_out()),
        Err(Some(e)) => {
            // Managed servers may refuse CONFIG: say what could not be checked, once.
            warn_once(format!(
                "@symfonic/core: Redis {shown} did not let us read its maxmemory-policy ({e}); make sure it is noeviction (or a volatile-* policy with no ttlSeconds), or acknowledged ledger entries may be evicted"
            ));
            return Ok(settings);
        }
    };
    let policies = config_get(conn, "maxmemory-policy", deadline)
        .await
        .map_err(|e| e.map_or_else(timed_out, |e| StoreError::new("open", format!("{shown}: {e}"))))?;
    for (limit, policy) in maxmemory.iter().zip(&policies) {
        let bounded = limit.as_deref().and_then(|m| m.parse::<u64>().ok()).unwrap_or(0) > 0;
        if let (true, Some(p)) = (bounded, policy) {
            if p != "noeviction"
                && settings
                    .policy
                    .as_deref()
                    .is_none_or(|q| !q.starts_with("allkeys-"))
            {
                settings.policy = Some(p.clone());
            }
        }
    }
    let numbers = |v: Vec<Option<String>>| -> Option<u64> {
        v.into_iter()
            .filter_map(|x| x.and_then(|s| s.parse::<u64>().ok()))
            .min()
    };
    let bulk = config_get(conn, "proto-max-bulk-len", deadline)
        .await
        .ok()
        .and_then(numbers);
    let query = config_get(conn, "client-query-buffer-limit", deadline)
        .await
        .ok()
        .and_then(numbers)
        // The rest of a put's command (handle fields, script) fits in 1 MiB.
        .map(|q| q.saturating_sub(1 << 20));
    settings.policy_known = true;
    settings.max_value = match (bulk, query) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    Ok(settings)
}
