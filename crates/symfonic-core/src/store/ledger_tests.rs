//! The ledger over a real SQLite store (temp files): write-through, reload
//! on a miss, ids and collisions across ledgers sharing a file, expiry, and
//! store errors as errors the caller sees.

use super::blocking::d;
use super::sqlite::tests::{open, TempDb};
use super::StoreSpec;
use crate::ledger::{Ledger, LedgerConfig, LedgerError, RecordRequest, Ttl};
use crate::recall::FetchSpec;
use crate::runtime::block_on;
use crate::text::Payload;

fn ledger(db: &TempDb, max_bytes: usize, ttl_ms: Option<u64>) -> Ledger {
    let spec = StoreSpec::parse(&format!("sqlite:{}", db.0)).unwrap();
    let store = block_on(spec.open(d())).unwrap().unwrap();
    Ledger::with_store(
        LedgerConfig {
            max_bytes,
            ..LedgerConfig::default()
        },
        Some(store),
        ttl_ms,
    )
}

fn req(call: &str, content: Payload) -> RecordRequest {
    RecordRequest {
        namespace: "ns".into(),
        tool_call_id: call.into(),
        tool_name: "catalog".into(),
        tool_args: serde_json::json!({"page": 1}).as_object().cloned(),
        content,
    }
}

fn spec(f: impl FnOnce(&mut FetchSpec)) -> FetchSpec {
    let mut s = FetchSpec {
        full: true,
        ..FetchSpec::default()
    };
    f(&mut s);
    s
}

#[test]
fn a_new_ledger_on_the_same_file_answers_every_read_with_identical_stubs() {
    let db = TempDb::new("restart");
    let json = format!(
        "{{\"rows\":[{}]}}",
        (0..500)
            .map(|i| format!("{{\"id\":{i},\"name\":\"item {i}\"}}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let lone = b"head \xed\xa0\x80 tail".to_vec();
    let a = ledger(&db, usize::MAX, None);
    let hj = a.record(req("j", Payload::Utf8(json.clone()))).unwrap();
    let ht = a.record(req("t", Payload::Wtf8(lone.clone()))).unwrap();
    drop(a);
    let b = ledger(&db, usize::MAX, None);
    assert_eq!(b.stats().entries, 0);
    assert_eq!(b.stub("ns", &hj.mem_id, None).unwrap(), hj.stub);
    assert_eq!(b.handle("ns", &ht.mem_id).unwrap(), ht);
    let path = spec(|s| s.json_path = Some("rows[-1].name".into()));
    assert_eq!(b.fetch("ns", &hj.mem_id, &path), "\"item 499\"");
    assert_eq!(
        b.fetch(
            "ns",
            &hj.mem_id,
            &FetchSpec {
                full: true,
                ..FetchSpec::default()
            }
        ),
        json.as_str()
    );
    let full = b.fetch("ns", &ht.mem_id, &spec(|_| ()));
    assert_eq!(full.as_bytes(), &lone[..], "lone surrogates survive the store");
    let s = b.stats();
    assert_eq!(
        (s.store_hits, s.store_misses, s.store_errors, s.entries),
        (2, 0, 0, 2)
    );
    assert_eq!(
        b.fetch("other", &hj.mem_id, &path),
        format!("[tool_memory not found: {} in namespace 'other']", hj.mem_id)
    );
    assert_eq!(b.stats().store_misses, 1);
}

#[test]
fn entries_evicted_from_memory_are_reloaded() {
    let db = TempDb::new("evict");
    let l = ledger(&db, 8_000, None);
    let handles: Vec<_> = (0..40)
        .map(|i| {
            l.record(req(&format!("c{i}"), Payload::Utf8(format!("{i} ").repeat(500))))
                .unwrap()
        })
        .collect();
    assert!(l.stats().evictions > 30);
    for (i, h) in handles.iter().enumerate() {
        let got = l.recall("ns", &h.mem_id, &spec(|s| s.max_chars = Some(4)), 1000);
        assert!(got.as_bytes().starts_with(format!("{i} ").as_bytes()), "{i}");
        assert_eq!(l.stub("ns", &h.mem_id, None).unwrap(), h.stub);
    }
    assert!(l.stats().store_hits >= 30);
    assert!(l.stats().bytes <= 8_000 + 3_000);
}

#[test]
fn ids_collide_across_ledgers_sharing_a_file() {
    let db = TempDb::new("collide");
    let (a, b) = (ledger(&db, usize::MAX, None), ledger(&db, usize::MAX, None));
    a.force_mem_id(Some("trm_aaaaaaaaaaaa".into()));
    b.force_mem_id(Some("trm_aaaaaaaaaaaa".into()));
    let h = a.record(req("c", "one".into())).unwrap();
    assert_eq!(
        b.record(req("c", "one".into())).unwrap(),
        h,
        "the same result is idempotent"
    );
    let err = b.record(req("c", "two".into())).unwrap_err();
    assert!(matches!(err, LedgerError::Collision { .. }), "{err}");
    b.clear(None);
    // Ids are content-bound: the same result gets the same id in any ledger.
    let (c, d) = (ledger(&db, usize::MAX, None), ledger(&db, usize::MAX, None));
    assert_eq!(
        c.record(req("x", "same".into())).unwrap().mem_id,
        d.record(req("x", "same".into())).unwrap().mem_id
    );
}

#[test]
fn expiry_applies_in_memory_and_in_the_store() {
    let db = TempDb::new("expiry");
    let l = ledger(&db, usize::MAX, Some(40));
    let short = l.record(req("a", "short lived".into())).unwrap();
    let forever = l.record_with(req("b", "forever".into()), Ttl::Never).unwrap();
    let long = l
        .record_with(req("c", "an hour".into()), Ttl::Millis(3_600_000))
        .unwrap();
    assert!(l.handle("ns", &short.mem_id).is_some());
    std::thread::sleep(std::time::Duration::from_millis(80));
    let full = spec(|_| ());
    assert_eq!(
        l.fetch("ns", &short.mem_id, &full),
        format!("[tool_memory not found: {} in namespace 'ns']", short.mem_id)
    );
    assert_eq!(l.fetch("ns", &forever.mem_id, &full), "forever");
    let again = ledger(&db, usize::MAX, None);
    assert!(again.handle("ns", &short.mem_id).is_none());
    assert!(again.handle("ns", &long.mem_id).is_some());
    assert_eq!(l.sweep().unwrap(), 0, "opening `again` swept it");
}

#[test]
fn delete_and_clear_reach_the_store() {
    let db = TempDb::new("delete");
    let a = ledger(&db, usize::MAX, None);
    let h1 = a.record(req("1", "one".into())).unwrap();
    let h2 = a.record(req("2", "two".into())).unwrap();
    let b = ledger(&db, usize::MAX, None);
    assert!(b.try_delete("ns", &h1.mem_id).unwrap(), "in the store only");
    assert!(a.try_delete("ns", &h1.mem_id).unwrap(), "in a's memory only");
    assert!(!a.try_delete("ns", &h1.mem_id).unwrap());
    assert_eq!(b.try_clear(Some("ns")).unwrap(), 1);
    a.clear(None);
    assert!(a.handle("ns", &h2.mem_id).is_none());
}

#[test]
fn store_failures_are_errors_and_answers_never_panics() {
    let db = TempDb::new("fail");
    let l = ledger(&db, 1, None);
    let h = l.record(req("1", "one".into())).unwrap();
    l.record(req("2", "two".into())).unwrap(); // evicts the first from memory
    rusqlite::Connection::open(&db.0)
        .unwrap()
        .execute_batch("DROP TABLE entries")
        .unwrap();
    let err = l.record(req("3", "three".into())).unwrap_err();
    assert!(matches!(&err, LedgerError::Store(e) if e.op == "put"), "{err}");
    assert!(err.to_string().contains("not recorded"), "{err}");
    // The app's fetch gets the store's words; the model's recall, none of them.
    let answer = l.fetch("ns", &h.mem_id, &spec(|_| ()));
    let text = String::from_utf8(answer.as_bytes().to_vec()).unwrap();
    assert!(
        text.starts_with(&format!(
            "[tool_memory error: store read failed for {}: store get failed: ",
            h.mem_id
        )),
        "{text}"
    );
    let answer = l.recall("ns", &h.mem_id, &spec(|_| ()), 1000);
    assert_eq!(
        answer,
        format!(
            "[tool_memory error: the store could not be read for {}; try again later]",
            h.mem_id
        )
    );
    assert!(l.try_handle("ns", &h.mem_id).is_err());
    assert!(l.handle("ns", &h.mem_id).is_none());
    assert_eq!(l.stats().store_errors, 5);
}

#[test]
fn a_row_that_does_not_match_its_id_is_refused() {
    let db = TempDb::new("tamper");
    let l = ledger(&db, usize::MAX, None);
    let h = l.record(req("1", "one".into())).unwrap();
    rusqlite::Connection::open(&db.0)
        .unwrap()
        .execute_batch("UPDATE entries SET tool_call_id = 'other'")
        .unwrap();
    let b = ledger(&db, usize::MAX, None);
    let e = b.try_handle("ns", &h.mem_id).unwrap_err();
    assert!(e.message.contains("seal"), "{e}");
    // Another payload under a sound seal: refused by the id.
    let h = l.record(req("2", "two".into())).unwrap();
    rusqlite::Connection::open(&db.0)
        .unwrap()
        .execute_batch("UPDATE entries SET codec = 0, raw_len = 3, payload = CAST('owt' AS BLOB) WHERE tool_call_id = '2'")
        .unwrap();
    let e = b.try_handle("ns", &h.mem_id).unwrap_err();
    assert!(e.message.contains("does not match its payload"), "{e}");
    // Recording the result again repairs both.
    let c = ledger(&db, usize::MAX, None);
    c.record(req("1", "one".into())).unwrap();
    c.record(req("2", "two".into())).unwrap();
    let d = ledger(&db, usize::MAX, None);
    assert_eq!(d.fetch("ns", &h.mem_id, &spec(|_| ())), "two");
    assert_eq!(d.try_handle("ns", &h.mem_id).unwrap(), Some(h));
}

#[test]
fn many_threads_record_and_read_one_file() {
    let db = TempDb::new("threads");
    let l = std::sync::Arc::new(ledger(&db, 4_000, None));
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
    let s = open(&db.0).unwrap();
    assert_eq!(block_on(s.integrity_check(d())).unwrap().unwrap(), "ok");
    assert_eq!(l.stats().store_errors, 0);
}

#[test]
fn forgetting_in_memory_keeps_the_rows_and_a_miss_reloads_them() {
    let db = TempDb::new("forget");
    let a = ledger(&db, usize::MAX, None);
    let h = a
        .record(req("f", Payload::Utf8("kept in the store".into())))
        .unwrap();
    assert_eq!(a.stats().entries, 1);
    a.forget_in_memory();
    assert_eq!((a.stats().entries, a.stats().bytes), (0, 0));
    assert_eq!(a.fetch("ns", &h.mem_id, &spec(|_| {})), "kept in the store");
    assert_eq!(a.stats().store_hits, 1);
}

#[test]
fn close_waits_for_the_calls_in_flight_then_refuses_every_call() {
    use crate::runtime::Deadline;
    use std::future::Future;
    use std::task::Poll;
    let db = TempDb::new("close");
    let l = std::sync::Arc::new(ledger(&db, usize::MAX, None));
    let h = block_on(async {
        let d = Deadline::after(std::time::Duration::from_secs(5));
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
    assert!(l.is_closed());
    assert!(matches!(
        l.record(req("after", "late".into())),
        Err(LedgerError::Closed)
    ));
    assert!(l.try_handle("ns", &h.mem_id).is_err());
    assert_eq!(l.stats().entries, 0, "freed");
    // The entry reached the file before the store closed.
    let other = ledger(&db, usize::MAX, None);
    assert_eq!(other.fetch("ns", &h.mem_id, &spec(|_| {})), "x".repeat(100_000));
}
