//! The Redis store against a real `redis-server` (a child on a free port of
//! 127.0.0.1, no persistence), never a mock. Without `redis-server` on the
//! PATH these tests fail, saying so.

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::*;
use crate::ledger::{Handle, Ledger, LedgerConfig};
use crate::runtime::{block_on, DEFAULT_TIMEOUT};
use crate::store::blocking::{d, handle, Blocking};
use crate::store::StoreSpec;
use crate::testing::{full, req};
use crate::text::Payload;

/// A `redis-server` child, killed (and waited for) on drop.
pub(crate) struct RedisServer {
    pub(crate) port: u16,
    child: Option<Child>,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl RedisServer {
    pub(crate) fn start() -> RedisServer {
        Self::on(free_port())
    }

    /// Starts a server on `port` and waits until it answers `PING`.
    pub(crate) fn on(port: u16) -> RedisServer {
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--save", "", "--appendonly", "no"])
            .args(["--bind", "127.0.0.1", "--daemonize", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("these tests need redis-server on the PATH (apt-get install redis-server): {e}")
            });
        let server = RedisServer {
            port,
            child: Some(child),
        };
        server.wait_ready();
        server
    }

    fn wait_ready(&self) {
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) {
                use std::io::{Read, Write};
                let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
                let mut buf = [0u8; 16];
                if s.write_all(b"PING\r\n").is_ok()
                    && matches!(s.read(&mut buf), Ok(n) if buf[..n].starts_with(b"+PONG"))
                {
                    return;
                }
            }
            assert!(
                Instant::now() < end,
                "redis-server on port {} did not start",
                self.port
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Kills the server and waits for it to exit.
    pub(crate) fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn try_open(url: &str, deadline: Deadline) -> Result<RedisStore, StoreError> {
    let spec = RedisSpec::parse(url).map_err(|m| StoreError::new("open", m))?;
    block_on(RedisStore::open(spec, deadline)).unwrap()
}

pub(crate) fn open(url: &str) -> RedisStore {
    try_open(url, d()).unwrap()
}

fn put(s: &RedisStore, h: &Handle, content: &[u8], wtf8: bool, expires_at: Option<u64>) -> PutOutcome {
    s.put_now(h, content, wtf8, expires_at).unwrap()
}

/// A raw command on a fresh sync connection, to look at what the store wrote.
fn raw<T: redis::FromRedisValue>(server: &RedisServer, cmd: &mut redis::Cmd) -> T {
    let mut c = redis::Client::open(server.url())
        .unwrap()
        .get_connection()
        .unwrap();
    cmd.query(&mut c).unwrap()
}

// What every store does is tested once for all, in store/suite_tests.rs.

#[test]
fn entries_are_compressed_under_tagged_keys_with_an_index() {
    let server = RedisServer::start();
    let s = open(&server.url());
    let big = "row,".repeat(10_000);
    put(
        &s,
        &handle("thread-1", "trm_000000000001", "c"),
        big.as_bytes(),
        false,
        None,
    );
    put(
        &s,
        &handle("we{ird}%*", "trm_000000000002", "c"),
        b"x\xed\xa0\x80y",
        true,
        None,
    );
    let mut keys: Vec<String> = raw(&server, redis::cmd("KEYS").arg("*trm_*"));
    keys.sort();
    assert_eq!(
        keys,
        [
            "symfonic:{thread-1}:trm_000000000001",
            "symfonic:{we%7Bird%7D%25*}:trm_000000000002"
        ]
    );
    // Each namespace's index: the ids written, scored by expiry (never: inf).
    let score: String = raw(
        &server,
        redis::cmd("ZSCORE")
            .arg("symfonic:{thread-1}:index")
            .arg("trm_000000000001"),
    );
    assert_eq!(score, "inf");
    let stored: usize = raw(&server, redis::cmd("HSTRLEN").arg(&keys[0]).arg("p"));
    assert!(stored < 1000, "compressed: {stored}");
    let ttl: i64 = raw(&server, redis::cmd("PTTL").arg(&keys[0]));
    assert_eq!(ttl, -1, "no expiry");
}

#[test]
fn the_prefix_comes_from_the_url() {
    let server = RedisServer::start();
    let s = open(&format!("{}?prefix=app%3Aone%3A", server.url()));
    put(&s, &handle("", "trm_000000000001", "c"), b"x", false, None);
    let mut keys: Vec<String> = raw(&server, redis::cmd("KEYS").arg("*"));
    keys.sort();
    assert_eq!(keys, ["app:one:{%}:index", "app:one:{%}:trm_000000000001"]);
    // Another prefix is another ledger on the same server.
    let other = open(&format!("{}?prefix=b:", server.url()));
    assert_eq!(other.get_now("", "trm_000000000001").unwrap(), None);
    assert_eq!(other.clear_now(None).unwrap(), 0);
    assert_eq!(s.clear_now(None).unwrap(), 1);
}

#[test]
fn a_row_stored_raw_is_decoded_to_judge_a_collision() {
    let server = RedisServer::start();
    let s = open(&server.url());
    let h = handle("", "trm_00000000000a", "c");
    let big = "same payload ".repeat(100);
    assert_eq!(put(&s, &h, big.as_bytes(), false, None), PutOutcome::Inserted);
    // Stored raw (another codec's bytes) but the same result: decoded and compared.
    let key = "symfonic:{%}:trm_00000000000a";
    let _: () = raw(
        &server,
        redis::cmd("HSET").arg(key).arg("codec").arg(0).arg("p").arg(&big),
    );
    assert_eq!(
        put(&s, &h, big.as_bytes(), false, Some(now_ms() + 60_000)),
        PutOutcome::Existing
    );
    let same_len = "same paylOad ".repeat(100);
    assert_eq!(
        put(&s, &h, same_len.as_bytes(), false, None),
        PutOutcome::Collision
    );
    let ttl: i64 = raw(&server, redis::cmd("PTTL").arg(key));
    assert!(ttl > 50_000, "{ttl}");
}

#[test]
fn expiry_is_redis_expire() {
    let server = RedisServer::start();
    let s = open(&server.url());
    let now = now_ms();
    put(
        &s,
        &handle("", "trm_0000000000e1", "c"),
        b"gone",
        false,
        Some(now + 60),
    );
    put(
        &s,
        &handle("", "trm_0000000000e2", "c"),
        b"kept",
        false,
        Some(now + 60_000),
    );
    let ttl: i64 = raw(&server, redis::cmd("PTTL").arg("symfonic:{%}:trm_0000000000e2"));
    assert!(ttl > 50_000 && ttl <= 60_000, "{ttl}");
    // Redis removes the key itself.
    let end = Instant::now() + Duration::from_secs(2);
    loop {
        let n: i64 = raw(&server, redis::cmd("EXISTS").arg("symfonic:{%}:trm_0000000000e1"));
        if n == 0 {
            break;
        }
        assert!(Instant::now() < end, "Redis did not expire the key");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Recording again without an expiry persists the key.
    let h2 = handle("", "trm_0000000000e2", "c");
    assert_eq!(put(&s, &h2, b"kept", false, None), PutOutcome::Existing);
    let ttl: i64 = raw(&server, redis::cmd("PTTL").arg("symfonic:{%}:trm_0000000000e2"));
    assert_eq!(ttl, -1, "persisted");
    assert_eq!(
        s.sweep_now().unwrap(),
        0,
        "nothing for the sweep: Redis expires keys"
    );
}

#[test]
fn clear_scans_without_keys_and_leaves_other_keys_alone() {
    let server = RedisServer::start();
    let s = open(&server.url());
    for i in 0..2500 {
        put(
            &s,
            &handle("many", &format!("trm_{i:012x}"), "c"),
            b"x",
            false,
            None,
        );
    }
    put(&s, &handle("b", "trm_000000000001", "c"), b"x", false, None);
    let _: () = raw(&server, redis::cmd("SET").arg("unrelated").arg("1"));
    assert_eq!(s.clear_now(Some("many")).unwrap(), 2500);
    assert_eq!(s.clear_now(None).unwrap(), 1);
    let keys: Vec<String> = raw(&server, redis::cmd("KEYS").arg("*"));
    assert_eq!(keys, ["unrelated"]);
}

#[test]
fn a_dead_server_is_an_error_and_the_client_reconnects() {
    let mut server = RedisServer::start();
    let port = server.port;
    let s = open(&server.url());
    let h = handle("", "trm_000000000001", "c");
    assert_eq!(put(&s, &h, b"one", false, None), PutOutcome::Inserted);
    server.stop();
    let t = Instant::now();
    let e = s
        .put_now(&handle("", "trm_000000000002", "c"), b"two", false, None)
        .unwrap_err();
    assert_eq!(e.op, "put");
    assert!(
        e.message.starts_with(&format!("redis://127.0.0.1:{port}/0: ")),
        "{e}"
    );
    assert_eq!(s.get_now("", "trm_000000000001").unwrap_err().op, "get");
    assert_eq!(s.delete_now("", "trm_000000000001").unwrap_err().op, "delete");
    assert_eq!(s.clear_now(None).unwrap_err().op, "clear");
    assert!(t.elapsed() < DEFAULT_TIMEOUT * 2, "{:?}", t.elapsed());
    let _server = RedisServer::on(port);
    let end = Instant::now() + Duration::from_secs(5);
    while block_on(s.ping(d())).unwrap().is_err() {
        assert!(Instant::now() < end, "did not reconnect");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        put(&s, &h, b"one", false, None),
        PutOutcome::Inserted,
        "a fresh server"
    );
    assert!(s.get_now("", "trm_000000000001").unwrap().is_some());
}

#[test]
fn a_server_that_never_answers_times_out() {
    // A listener that accepts and never replies.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let hold = std::thread::spawn(move || {
        let conns: Vec<_> = l.incoming().take(2).collect();
        std::thread::sleep(Duration::from_secs(3));
        drop(conns);
    });
    let t = Instant::now();
    let e = try_open(
        &format!("redis://127.0.0.1:{port}/0"),
        Deadline::after(Duration::from_millis(700)),
    )
    .err()
    .unwrap();
    assert!(t.elapsed() < Duration::from_millis(1500), "{:?}", t.elapsed());
    assert_eq!(e.op, "open");
    assert!(e.timed_out, "{e}");
    drop(hold);
}

#[test]
fn a_port_where_something_else_than_redis_answers_says_so() {
    // An HTTP server, say: it answers, but not in RESP.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let serve = std::thread::spawn(move || {
        use std::io::{Read, Write};
        for mut s in l.incoming().take(2).flatten() {
            let mut buf = [0u8; 512];
            let _ = s.read(&mut buf);
            let _ = s.write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n");
        }
    });
    let e = try_open(&format!("redis://127.0.0.1:{port}/0"), d())
        .err()
        .unwrap();
    assert_eq!(e.op, "open");
    assert_eq!(
        e.message,
        format!("redis://127.0.0.1:{port}/0: the server at this address answered, but not in the Redis protocol: check the URL's host and port (Redis listens on 6379 unless configured otherwise)")
    );
    drop(serve);
}

#[test]
fn tls_urls_are_accepted_and_fail_as_errors_against_a_plain_server() {
    let server = RedisServer::start();
    let e = try_open(&format!("rediss://127.0.0.1:{}/0", server.port), d())
        .err()
        .unwrap();
    assert_eq!(e.op, "open");
    // Certificate checks cannot be turned off.
    let e = try_open(&format!("rediss://127.0.0.1:{}/0#insecure", server.port), d())
        .err()
        .unwrap();
    assert!(!e.message.is_empty());
}

#[test]
fn a_corrupt_entry_is_an_error() {
    let server = RedisServer::start();
    let s = open(&server.url());
    put(&s, &handle("", "trm_000000000001", "c"), b"x", false, None);
    let _: () = raw(
        &server,
        redis::cmd("HDEL").arg("symfonic:{%}:trm_000000000001").arg("len"),
    );
    let e = s.get_now("", "trm_000000000001").unwrap_err();
    assert!(e.message.contains("corrupt row: field 'len' is missing"), "{e}");
    let _: () = raw(
        &server,
        redis::cmd("SET").arg("symfonic:{%}:trm_000000000002").arg("x"),
    );
    assert_eq!(s.get_now("", "trm_000000000002").unwrap_err().op, "get");
    // Recording again repairs both: the hash without its length, the key of another type.
    for id in ["trm_000000000001", "trm_000000000002"] {
        let h = handle("", id, "c");
        assert_eq!(put(&s, &h, b"x", false, None), PutOutcome::Repaired, "{id}");
        assert_eq!(s.get_now("", id).unwrap().unwrap().content, b"x");
    }
    // A row that had only expired (by this process's clock) is an insert.
    let h = handle("", "trm_000000000003", "c");
    put(&s, &h, b"x", false, Some(now_ms() + 60_000));
    let _: () = raw(
        &server,
        redis::cmd("HSET")
            .arg("symfonic:{%}:trm_000000000003")
            .arg("exp")
            .arg(1),
    );
    assert_eq!(put(&s, &h, b"y", false, None), PutOutcome::Inserted);
}

#[test]
fn an_entry_gone_while_its_index_says_alive_reads_as_evicted_an_expired_one_as_expired() {
    let server = RedisServer::start();
    let s = open(&server.url());
    let now = now_ms();
    put(&s, &handle("n", "trm_000000000001", "c"), b"kept", false, None);
    put(
        &s,
        &handle("n", "trm_000000000002", "c"),
        b"soon",
        false,
        Some(now + 60_000),
    );
    put(
        &s,
        &handle("n", "trm_000000000003", "c"),
        b"past",
        false,
        Some(now + 50),
    );
    // What eviction does: the key goes, nothing else is told.
    for id in ["trm_000000000001", "trm_000000000002"] {
        let _: i64 = raw(&server, redis::cmd("DEL").arg(format!("symfonic:{{n}}:{id}")));
    }
    for id in ["trm_000000000001", "trm_000000000002"] {
        match s.lookup_now("n", id).unwrap() {
            Lookup::Evicted(why) => assert!(
                why.contains("something other than this ledger deleted it"),
                "{why}"
            ),
            other => panic!("{id}: {other:?}"),
        }
    }
    std::thread::sleep(Duration::from_millis(80));
    assert_eq!(s.lookup_now("n", "trm_000000000003").unwrap(), Lookup::Expired);
    assert_eq!(
        s.lookup_now("n", "trm_0000000000ff").unwrap(),
        Lookup::Missing,
        "never stored"
    );
    assert_eq!(
        s.lookup_now("m", "trm_000000000001").unwrap(),
        Lookup::Missing,
        "another namespace"
    );
    // delete and clear take ids out of the index: gone on purpose is missing.
    put(&s, &handle("n", "trm_000000000004", "c"), b"x", false, None);
    assert!(s.delete_now("n", "trm_000000000004").unwrap());
    assert_eq!(s.lookup_now("n", "trm_000000000004").unwrap(), Lookup::Missing);
    assert_eq!(s.clear_now(Some("n")).unwrap(), 0);
    assert_eq!(s.lookup_now("n", "trm_000000000001").unwrap(), Lookup::Missing);
    let n: i64 = raw(&server, redis::cmd("EXISTS").arg("symfonic:{n}:index"));
    assert_eq!(n, 0, "clear removes the index too");
    // A put prunes expired members from the index.
    put(
        &s,
        &handle("p", "trm_000000000001", "c"),
        b"x",
        false,
        Some(now_ms() + 10),
    );
    std::thread::sleep(Duration::from_millis(30));
    put(&s, &handle("p", "trm_000000000002", "c"), b"y", false, None);
    let members: Vec<String> = raw(
        &server,
        redis::cmd("ZRANGE").arg("symfonic:{p}:index").arg(0).arg(-1),
    );
    assert_eq!(members, ["trm_000000000002"]);
}

#[test]
fn a_payload_above_the_servers_value_limit_is_refused_before_it_is_sent() {
    let server = RedisServer::start();
    let _: () = raw(
        &server,
        redis::cmd("CONFIG")
            .arg("SET")
            .arg("proto-max-bulk-len")
            .arg("1mb"),
    );
    let s = open(&server.url());
    // Incompressible: 1.5 MB of pseudo-random bytes (the store does not read them as text).
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let noise: Vec<u8> = (0..1_500_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let e = s
        .put_now(&handle("", "trm_000000000001", "c"), &noise, false, None)
        .unwrap_err();
    assert!(e.message.contains("proto-max-bulk-len"), "{e}");
    assert_eq!(e.outcome, crate::store::Outcome::NotDone);
    assert_eq!(
        put(&s, &handle("", "trm_000000000002", "c"), b"small", false, None),
        PutOutcome::Inserted
    );
}

// The ledger over Redis: two ledgers (as two replicas) on one server.

fn ledger(url: &str, max_bytes: usize, ttl_ms: Option<u64>) -> Ledger {
    let store = block_on(StoreSpec::parse(url).unwrap().open(d()))
        .unwrap()
        .unwrap();
    Ledger::with_store(
        LedgerConfig {
            max_bytes,
            ..LedgerConfig::default()
        },
        Some(store),
        ttl_ms,
    )
}

#[test]
fn a_recall_of_an_evicted_entry_says_so() {
    let server = RedisServer::start();
    let a = ledger(&server.url(), usize::MAX, None);
    let h = a.record(req("e", Payload::Utf8("soon evicted".into()))).unwrap();
    let _: i64 = raw(
        &server,
        redis::cmd("DEL").arg(format!("symfonic:{{ns}}:{}", h.mem_id)),
    );
    let b = ledger(&server.url(), usize::MAX, None);
    let answer = b.recall("ns", &h.mem_id, &full(), 1000);
    let text = String::from_utf8(answer.as_bytes().to_vec()).unwrap();
    // The server runs noeviction: another client deleted it, and says so.
    assert_eq!(
        text,
        format!(
            "[tool_memory error: {} is gone from the store before its expiry: something other than this ledger deleted it (the store does not evict entries); it can no longer be recalled]",
            h.mem_id
        )
    );
    assert!(b.try_handle("ns", &h.mem_id).unwrap().is_none());
    assert_eq!(b.stats().store_misses, 2);
    // The memory of the first ledger still has it: a cache above the store.
    assert_eq!(a.fetch("ns", &h.mem_id, &full()), "soon evicted");
}
