//! One test suite for every store: each case below runs against a store in
//! memory (`sqlite::memory:`), a SQLite file and a Redis server (a real
//! `redis-server` on a free port); `suite!` makes one `#[test]` per case and
//! store. The store's contract (round trips, collisions, expiry, removal,
//! races) and the ledger over it (write-through, reload on a miss, a second
//! ledger on the same data, refused rows, failures, close). What one store
//! does alone is tested beside it (sqlite/tests.rs, redis/tests.rs).

use std::sync::Arc;
use std::time::Duration;

use super::blocking::{d, handle, Blocking};
use super::redis::tests::RedisServer;
use super::row::Col;
use super::sqlite::tests::TempDb;
use super::sqlite::SqliteStore;
use super::Lookup;
use super::{Form, PutOutcome, Store, StoreSpec};
use crate::clock::now_ms;
use crate::ledger::{Ledger, LedgerConfig, LedgerError, Ttl};
use crate::recall::FetchSpec;
use crate::runtime::{block_on, Deadline};
use crate::testing::{full, req};
use crate::text::Payload;

/// A store under test, on data of its own.
trait Backend {
    /// A store on the backend's data: a new connection where the backend
    /// has more than one, else the same store (a second ledger over it sees
    /// the same data either way).
    fn open(&self) -> Arc<dyn Store>;
    /// Edits the stored row of `(ns, id)` behind the store's back.
    fn edit(&self, ns: &str, id: &str, edit: Edit);
    /// Makes every later operation fail (the table dropped, the server stopped).
    fn break_down(&mut self);
    /// Whether the data outlives the store that holds it (not in memory).
    fn lasting(&self) -> bool {
        true
    }
}

enum Edit {
    /// Another call id: the row no longer matches its seal.
    CallId,
    /// Another payload of the same length, under a sound seal.
    Payload,
}

struct Memory(Arc<SqliteStore>);

impl Memory {
    fn new() -> Memory {
        Memory(Arc::new(
            block_on(SqliteStore::open_in_memory(d())).unwrap().unwrap(),
        ))
    }
}

impl Backend for Memory {
    fn open(&self) -> Arc<dyn Store> {
        self.0.clone()
    }

    fn lasting(&self) -> bool {
        false
    }

    fn edit(&self, _: &str, id: &str, edit: Edit) {
        let id = id.to_string();
        self.0.with_writer(move |c| sql_edit(c, &id, edit));
    }

    fn break_down(&mut self) {
        self.0
            .with_writer(|c| c.execute_batch("DROP TABLE entries").unwrap());
    }
}

struct SqliteFile(TempDb);

impl Backend for SqliteFile {
    fn open(&self) -> Arc<dyn Store> {
        let spec = StoreSpec::parse(&format!("sqlite:{}", self.0 .0)).unwrap();
        block_on(spec.open(d())).unwrap().unwrap()
    }

    fn edit(&self, _: &str, id: &str, edit: Edit) {
        sql_edit(&rusqlite::Connection::open(&self.0 .0).unwrap(), id, edit);
    }

    fn break_down(&mut self) {
        let c = rusqlite::Connection::open(&self.0 .0).unwrap();
        c.execute_batch("DROP TABLE entries").unwrap();
    }
}

fn sql_edit(c: &rusqlite::Connection, id: &str, edit: Edit) {
    let _ = match edit {
        Edit::CallId => c.execute(
            &format!(
                "UPDATE entries SET {} = 'other' WHERE mem_id = ?1",
                Col::Call.sqlite()
            ),
            [id],
        ),
        Edit::Payload => c.execute(
            &format!(
                "UPDATE entries SET {} = 0, {} = 3, {} = CAST('owt' AS BLOB) WHERE mem_id = ?1",
                Col::Codec.sqlite(),
                Col::Len.sqlite(),
                Col::Payload.sqlite()
            ),
            [id],
        ),
    }
    .unwrap();
}

struct Redis(RedisServer);

impl Backend for Redis {
    fn open(&self) -> Arc<dyn Store> {
        block_on(StoreSpec::parse(&self.0.url()).unwrap().open(d()))
            .unwrap()
            .unwrap()
    }

    fn edit(&self, ns: &str, id: &str, edit: Edit) {
        let key = format!("symfonic:{{{ns}}}:{id}");
        let mut cmd = ::redis::cmd("HSET");
        cmd.arg(&key);
        match edit {
            Edit::CallId => cmd.arg(Col::Call.redis()).arg("other"),
            Edit::Payload => cmd
                .arg(Col::Codec.redis())
                .arg("0")
                .arg(Col::Len.redis())
                .arg("3")
                .arg(Col::Payload.redis())
                .arg("owt"),
        };
        let mut c = ::redis::Client::open(self.0.url())
            .unwrap()
            .get_connection()
            .unwrap();
        let _: () = cmd.query(&mut c).unwrap();
    }

    fn break_down(&mut self) {
        self.0.stop();
    }
}

macro_rules! suite {
    ($($case:ident),* $(,)?) => {
        mod memory {
            $( #[test] fn $case() { super::$case(&mut super::Memory::new()) } )*
        }
        mod sqlite_file {
            $( #[test] fn $case() {
                super::$case(&mut super::SqliteFile(super::TempDb::new(stringify!($case))))
            } )*
        }
        mod redis {
            $( #[test] fn $case() { super::$case(&mut super::Redis(super::RedisServer::start())) } )*
        }
    };
}

suite!(
    entries_round_trip_between_connections,
    a_different_result_under_a_stored_id_is_a_collision,
    expiry_is_honoured_on_read_and_reset_by_recording_again,
    delete_and_clear_count_live_entries,
    threads_racing_on_one_id_store_one_result,
    a_second_ledger_answers_every_read_with_identical_stubs,
    entries_evicted_from_memory_are_reloaded,
    ids_collide_across_ledgers_sharing_the_store,
    ledger_expiry_applies_in_memory_and_in_the_store,
    delete_and_clear_reach_the_store,
    a_row_that_does_not_match_its_id_is_refused_and_repaired_by_recording_again,
    store_failures_are_errors_and_answers_never_panics,
    many_threads_record_and_read,
    close_waits_for_the_calls_in_flight_then_refuses_every_call,
    blocks_are_held_and_stored_as_bytes,
);

// ---- the store ----------------------------------------------------------

fn put(s: &Arc<dyn Store>, ns: &str, id: &str, content: &[u8], expires_at: Option<u64>) -> PutOutcome {
    s.put_now(&handle(ns, id, "c"), content, false, expires_at)
        .unwrap()
}

fn entries_round_trip_between_connections(b: &mut dyn Backend) {
    let (a, other) = (b.open(), b.open());
    let h = handle("thread-1", "trm_000000000001", "c");
    let big = "row,".repeat(10_000);
    assert_eq!(
        a.put_now(&h, big.as_bytes(), false, None).unwrap(),
        PutOutcome::Inserted
    );
    let lone = b"x\xed\xa0\x80y".to_vec(); // WTF-8 of "x\uD800y"
    let h2 = handle("we{ird}%*", "trm_000000000002", "c");
    assert_eq!(a.put_now(&h2, &lone, true, None).unwrap(), PutOutcome::Inserted);
    let got = other.get_now("thread-1", "trm_000000000001").unwrap().unwrap();
    assert_eq!(
        (got.handle, got.content, got.form, got.expires_at),
        (h, big.into_bytes(), Form::Utf8, None)
    );
    let got = other.get_now("we{ird}%*", "trm_000000000002").unwrap().unwrap();
    assert_eq!((got.handle, got.content, got.form), (h2, lone, Form::Wtf8));
    assert_eq!(other.get_now("other", "trm_000000000001").unwrap(), None);
}

fn a_different_result_under_a_stored_id_is_a_collision(b: &mut dyn Backend) {
    let (a, other) = (b.open(), b.open());
    let same = "same payload ".repeat(100);
    assert_eq!(
        put(&a, "", "trm_00000000000a", same.as_bytes(), None),
        PutOutcome::Inserted
    );
    assert_eq!(
        put(&other, "", "trm_00000000000a", same.as_bytes(), None),
        PutOutcome::Existing
    );
    let longer = "other payload ".repeat(100);
    assert_eq!(
        put(&other, "", "trm_00000000000a", longer.as_bytes(), None),
        PutOutcome::Collision
    );
    let same_len = "same paylOad ".repeat(100);
    assert_eq!(
        put(&other, "", "trm_00000000000a", same_len.as_bytes(), None),
        PutOutcome::Collision
    );
    let other_call = handle("", "trm_00000000000a", "d");
    assert_eq!(
        other.put_now(&other_call, same.as_bytes(), false, None).unwrap(),
        PutOutcome::Collision
    );
    assert_eq!(
        a.get_now("", "trm_00000000000a").unwrap().unwrap().content,
        same.as_bytes()
    );
    // In another namespace the id is free.
    assert_eq!(
        put(&other, "x", "trm_00000000000a", longer.as_bytes(), None),
        PutOutcome::Inserted
    );
}

fn expiry_is_honoured_on_read_and_reset_by_recording_again(b: &mut dyn Backend) {
    let s = b.open();
    let now = now_ms();
    put(&s, "", "trm_0000000000e1", b"gone", Some(now - 1));
    put(&s, "", "trm_0000000000e2", b"kept", Some(now + 60_000));
    put(&s, "", "trm_0000000000e3", b"never", None);
    assert_eq!(s.get_now("", "trm_0000000000e1").unwrap(), None);
    assert_eq!(s.lookup_now("", "trm_0000000000e9").unwrap(), Lookup::Missing);
    put(&s, "", "trm_0000000000e4", b"brief", Some(now + 40));
    std::thread::sleep(Duration::from_millis(80));
    assert_eq!(s.lookup_now("", "trm_0000000000e4").unwrap(), Lookup::Expired);
    let kept = s.get_now("", "trm_0000000000e2").unwrap().unwrap();
    assert_eq!(kept.expires_at, Some(now + 60_000));
    assert_eq!(
        s.get_now("", "trm_0000000000e3").unwrap().unwrap().expires_at,
        None
    );
    // An expired id is free for another result; the same result again takes the new expiry.
    assert_eq!(
        put(&s, "", "trm_0000000000e1", b"new", None),
        PutOutcome::Inserted
    );
    assert_eq!(
        put(&s, "", "trm_0000000000e2", b"kept", None),
        PutOutcome::Existing
    );
    assert_eq!(
        s.get_now("", "trm_0000000000e2").unwrap().unwrap().expires_at,
        None
    );
    s.sweep_now().unwrap();
    assert_eq!(
        s.get_now("", "trm_0000000000e1").unwrap().unwrap().content,
        b"new"
    );
}

fn delete_and_clear_count_live_entries(b: &mut dyn Backend) {
    let s = b.open();
    for (ns, id) in [
        ("a", "trm_000000000001"),
        ("a", "trm_000000000002"),
        ("b", "trm_000000000001"),
        ("a*", "trm_000000000001"),
    ] {
        put(&s, ns, id, b"x", None);
    }
    put(&s, "a", "trm_000000000003", b"x", Some(1));
    assert!(s.delete_now("a", "trm_000000000001").unwrap());
    assert!(!s.delete_now("a", "trm_000000000001").unwrap());
    assert!(
        !s.delete_now("a", "trm_000000000003").unwrap(),
        "expired: not live"
    );
    assert_eq!(s.clear_now(Some("a")).unwrap(), 1, "'a*' is not a pattern");
    assert!(s.get_now("a*", "trm_000000000001").unwrap().is_some());
    assert_eq!(s.clear_now(None).unwrap(), 2);
    assert_eq!(s.get_now("b", "trm_000000000001").unwrap(), None);
}

fn threads_racing_on_one_id_store_one_result(b: &mut dyn Backend) {
    let stores: Vec<_> = (0..8).map(|_| b.open()).collect();
    let workers: Vec<_> = stores
        .into_iter()
        .enumerate()
        .map(|(t, s)| {
            std::thread::spawn(move || {
                put(
                    &s,
                    "race",
                    "trm_0000000000r1",
                    format!("result {}", t % 2).as_bytes(),
                    None,
                )
            })
        })
        .collect();
    let outcomes: Vec<_> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    assert_eq!(outcomes.iter().filter(|o| **o == PutOutcome::Inserted).count(), 1);
    let stored = b
        .open()
        .get_now("race", "trm_0000000000r1")
        .unwrap()
        .unwrap()
        .content;
    for (t, o) in outcomes.iter().enumerate() {
        let same = format!("result {}", t % 2).into_bytes() == stored;
        assert_eq!(*o != PutOutcome::Collision, same, "{t}: {o:?}");
    }
}

// ---- the ledger over it --------------------------------------------------

fn ledger(b: &dyn Backend, max_bytes: usize, ttl_ms: Option<u64>) -> Ledger {
    let config = LedgerConfig {
        max_bytes,
        ..LedgerConfig::default()
    };
    Ledger::with_store(config, Some(b.open()), ttl_ms)
}

fn a_second_ledger_answers_every_read_with_identical_stubs(b: &mut dyn Backend) {
    let rows: Vec<String> = (0..500)
        .map(|i| format!("{{\"id\":{i},\"name\":\"item {i}\"}}"))
        .collect();
    let json = format!("{{\"rows\":[{}]}}", rows.join(","));
    let lone = b"head \xed\xa0\x80 tail".to_vec();
    let a = ledger(b, usize::MAX, None);
    let hj = a.record(req("j", Payload::Utf8(json.clone()))).unwrap();
    let ht = a.record(req("t", Payload::Wtf8(lone.clone()))).unwrap();
    let other = ledger(b, usize::MAX, None);
    assert_eq!(other.stats().entries, 0);
    assert_eq!(other.stub("ns", &hj.mem_id, None).unwrap(), hj.stub);
    assert_eq!(other.handle("ns", &ht.mem_id).unwrap(), ht);
    let path = FetchSpec {
        json_path: Some("rows[-1].name".into()),
        ..full()
    };
    assert_eq!(other.fetch("ns", &hj.mem_id, &path), "\"item 499\"");
    assert_eq!(other.fetch("ns", &hj.mem_id, &full()), json.as_str());
    assert_eq!(
        other.fetch("ns", &ht.mem_id, &full()).as_bytes(),
        &lone[..],
        "lone surrogates survive the store"
    );
    let s = other.stats();
    assert_eq!(
        (s.store_hits, s.store_misses, s.store_errors, s.entries),
        (2, 0, 0, 2)
    );
    assert_eq!(
        other.fetch("other", &hj.mem_id, &path),
        format!("[tool_memory not found: {} in namespace 'other']", hj.mem_id)
    );
    assert_eq!(other.stats().store_misses, 1);
}

fn entries_evicted_from_memory_are_reloaded(b: &mut dyn Backend) {
    let l = ledger(b, 8_000, None);
    let handles: Vec<_> = (0..40)
        .map(|i| {
            l.record(req(&format!("c{i}"), Payload::Utf8(format!("{i} ").repeat(500))))
                .unwrap()
        })
        .collect();
    assert!(l.stats().evictions > 30);
    for (i, h) in handles.iter().enumerate() {
        let part = FetchSpec {
            max_chars: Some(4),
            ..full()
        };
        let got = l.recall("ns", &h.mem_id, &part, 1000);
        assert!(got.as_bytes().starts_with(format!("{i} ").as_bytes()), "{i}");
        assert_eq!(l.stub("ns", &h.mem_id, None).unwrap(), h.stub);
    }
    assert!(l.stats().store_hits >= 30);
    assert!(l.stats().bytes <= 8_000 + 3_000);
    // Forgetting the memory keeps the store's rows.
    l.forget_cached();
    assert_eq!((l.stats().entries, l.stats().bytes), (0, 0));
    assert_eq!(l.fetch("ns", &handles[0].mem_id, &full()), "0 ".repeat(500));
}

fn ids_collide_across_ledgers_sharing_the_store(b: &mut dyn Backend) {
    let (a, other) = (ledger(b, usize::MAX, None), ledger(b, usize::MAX, None));
    a.force_mem_id(Some("trm_aaaaaaaaaaaa".into()));
    other.force_mem_id(Some("trm_aaaaaaaaaaaa".into()));
    let h = a.record(req("c", "one".into())).unwrap();
    assert_eq!(
        other.record(req("c", "one".into())).unwrap(),
        h,
        "the same result is idempotent"
    );
    let err = other.record(req("c", "two".into())).unwrap_err();
    assert!(matches!(err, LedgerError::Collision { .. }), "{err}");
    assert_eq!(
        a.fetch("ns", "trm_aaaaaaaaaaaa", &full()),
        "one",
        "never the wrong payload"
    );
    // Ids are content-bound: the same result gets the same id in any ledger.
    let (c, d) = (ledger(b, usize::MAX, None), ledger(b, usize::MAX, None));
    assert_eq!(
        c.record(req("x", "same".into())).unwrap().mem_id,
        d.record(req("x", "same".into())).unwrap().mem_id
    );
}

fn ledger_expiry_applies_in_memory_and_in_the_store(b: &mut dyn Backend) {
    let l = ledger(b, usize::MAX, Some(40));
    let short = l.record(req("a", "short lived".into())).unwrap();
    let forever = l.record_with(req("b", "forever".into()), Ttl::Never).unwrap();
    let long = l
        .record_with(req("c", "an hour".into()), Ttl::Millis(3_600_000))
        .unwrap();
    assert!(l.handle("ns", &short.mem_id).is_some());
    std::thread::sleep(Duration::from_millis(80));
    assert_eq!(
        l.fetch("ns", &short.mem_id, &full()),
        crate::recall::expired(&short.mem_id)
    );
    assert_eq!(l.fetch("ns", &forever.mem_id, &full()), "forever");
    let again = ledger(b, usize::MAX, None);
    assert!(again.handle("ns", &short.mem_id).is_none());
    assert!(again.handle("ns", &long.mem_id).is_some());
}

fn delete_and_clear_reach_the_store(b: &mut dyn Backend) {
    let a = ledger(b, usize::MAX, None);
    let h1 = a.record(req("1", "one".into())).unwrap();
    let h2 = a.record(req("2", "two".into())).unwrap();
    let other = ledger(b, usize::MAX, None);
    assert!(other.try_delete("ns", &h1.mem_id).unwrap(), "in the store only");
    assert!(a.try_delete("ns", &h1.mem_id).unwrap(), "in a's memory only");
    assert!(!a.try_delete("ns", &h1.mem_id).unwrap());
    assert_eq!(other.try_clear(Some("ns")).unwrap(), 1);
    a.clear(None);
    assert!(a.handle("ns", &h2.mem_id).is_none());
}

fn a_row_that_does_not_match_its_id_is_refused_and_repaired_by_recording_again(b: &mut dyn Backend) {
    let l = ledger(b, usize::MAX, None);
    let h1 = l.record(req("1", "one".into())).unwrap();
    b.edit("ns", &h1.mem_id, Edit::CallId);
    let reader = ledger(b, usize::MAX, None);
    let e = reader.try_handle("ns", &h1.mem_id).unwrap_err();
    assert!(e.message.contains("seal"), "{e}");
    // Another payload under a sound seal: refused by the id.
    let h2 = l.record(req("2", "two".into())).unwrap();
    b.edit("ns", &h2.mem_id, Edit::Payload);
    let e = reader.try_handle("ns", &h2.mem_id).unwrap_err();
    assert!(e.message.contains("does not match its payload"), "{e}");
    // Recording the results again repairs both.
    let c = ledger(b, usize::MAX, None);
    c.record(req("1", "one".into())).unwrap();
    c.record(req("2", "two".into())).unwrap();
    let d = ledger(b, usize::MAX, None);
    assert_eq!(d.fetch("ns", &h1.mem_id, &full()), "one");
    assert_eq!(d.try_handle("ns", &h2.mem_id).unwrap(), Some(h2));
}

fn store_failures_are_errors_and_answers_never_panics(b: &mut dyn Backend) {
    let l = ledger(b, 1, None);
    let h = l.record(req("1", "one".into())).unwrap();
    l.record(req("2", "two".into())).unwrap(); // evicts the first from memory
    b.break_down();
    let err = l.record(req("3", "three".into())).unwrap_err();
    assert!(matches!(&err, LedgerError::Store(e) if e.op == "put"), "{err}");
    // The app's fetch gets the store's words; the model's recall, none of them.
    let answer = l.fetch("ns", &h.mem_id, &full());
    let text = String::from_utf8(answer.as_bytes().to_vec()).unwrap();
    let head = format!(
        "[tool_memory error: store read failed for {}: store get failed: ",
        h.mem_id
    );
    assert!(text.starts_with(&head), "{text}");
    let answer = l
        .recall("ns", &h.mem_id, &full(), 1000)
        .to_string_lossy()
        .into_owned();
    let discreet = ["the store could not be read", "the store did not answer in time"]
        .map(|what| format!("[tool_memory error: {what} for {}; try again later]", h.mem_id));
    assert!(discreet.contains(&answer), "{answer}");
    assert!(l.try_handle("ns", &h.mem_id).is_err());
    assert!(l.handle("ns", &h.mem_id).is_none());
    assert_eq!(l.stats().store_errors, 5);
}

fn many_threads_record_and_read(b: &mut dyn Backend) {
    let l = Arc::new(ledger(b, 4_000, None));
    let workers: Vec<_> = (0..4)
        .map(|t| {
            let l = l.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    let h = l
                        .record(req(
                            &format!("{t}-{i}"),
                            Payload::Utf8(format!("{t}/{i} ").repeat(100)),
                        ))
                        .unwrap();
                    assert!(l.handle("ns", &h.mem_id).is_some());
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(l.stats().store_errors, 0);
    let other = ledger(b, usize::MAX, None);
    assert_eq!(
        other.fetch(
            "ns",
            &crate::ids::mem_id_for("3-24", "3/24 ".repeat(100).as_bytes()),
            &full()
        ),
        "3/24 ".repeat(100)
    );
}

fn close_waits_for_the_calls_in_flight_then_refuses_every_call(b: &mut dyn Backend) {
    use std::future::Future;
    use std::task::Poll;
    let l = Arc::new(ledger(b, usize::MAX, None));
    let h = block_on(async {
        let d = Deadline::after(Duration::from_secs(5));
        let mut rec = Box::pin(l.record_async(
            req("in-flight", Payload::Utf8("x".repeat(100_000))),
            Ttl::Default,
            d,
        ));
        // Its first step counts it in flight; then close starts, beside it.
        std::future::poll_fn(|cx| {
            let _ = rec.as_mut().poll(cx);
            Poll::Ready(())
        })
        .await;
        let closing = {
            let l = l.clone();
            tokio::spawn(async move { l.close().await })
        };
        let h = rec.await;
        closing.await.unwrap().unwrap();
        h
    })
    .unwrap()
    .unwrap();
    assert!(l.is_closing());
    assert!(matches!(
        l.record(req("after", "late".into())),
        Err(LedgerError::Closed)
    ));
    assert!(l.try_handle("ns", &h.mem_id).is_err());
    assert_eq!(l.stats().entries, 0, "freed");
    // The entry reached the store before it closed (in memory, a closed
    // store is gone with its ledger).
    if b.lasting() {
        let other = ledger(b, usize::MAX, None);
        assert_eq!(other.fetch("ns", &h.mem_id, &full()), "x".repeat(100_000));
    }
}

fn blocks_are_held_and_stored_as_bytes(b: &mut dyn Backend) {
    // Not UTF-8, NULs in it: bytes, never text.
    let data: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
    let head = "image 1 of c: png 1×1, 5,000 bytes\n{\"block\":2}";
    let block = || Payload::Block {
        head: head.into(),
        data: Box::new(Payload::Bytes(data.clone())),
    };
    let a = ledger(b, usize::MAX, None);
    let h = a.record(req("c#1", block())).unwrap();
    // The memory holds the bytes (not 4/3 of them as base64), the head and the handle.
    let held = a.stats().bytes;
    assert!((5000..5000 + 2500).contains(&held), "{held}");
    let other = ledger(b, usize::MAX, None);
    let e = other.get("ns", &h.mem_id).unwrap();
    assert_eq!(e.text.block_data().unwrap(), &data[..]);
    assert_eq!(e.text.lossy(), head);
    assert_eq!(other.handle("ns", &h.mem_id).unwrap(), h);
    assert_eq!(other.stats().store_hits, 1);
    // A text read says what it is, whatever it asks.
    let said = format!(
        "[tool_memory: {} is image 1 of c: png 1×1, 5,000 bytes: bytes, not text (5000 bytes)",
        h.mem_id
    );
    assert!(other
        .fetch("ns", &h.mem_id, &full())
        .as_bytes()
        .starts_with(said.as_bytes()));
    let recalled = other.recall("ns", &h.mem_id, &FetchSpec::default(), 100);
    assert!(recalled.as_bytes().starts_with(b"[tool_memory: trm_"));
    // The same block again is the same result; its bytes as text are another.
    assert_eq!(other.record(req("c#1", block())).unwrap(), h);
    assert_ne!(
        other
            .record(req("c#1", Payload::Bytes(data.clone())))
            .unwrap()
            .mem_id,
        h.mem_id
    );
}
