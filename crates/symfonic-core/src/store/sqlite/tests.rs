//! The SQLite store on real files (temp files) and in memory.

use super::*;
use crate::clock::now_ms;
use crate::ledger::Handle;
use crate::runtime::block_on;
use crate::store::blocking::{d, handle, Blocking};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Opens the database at `path` (blocking).
pub(crate) fn open(path: &str) -> Result<SqliteStore, StoreError> {
    block_on(SqliteStore::open(path.to_string(), d())).unwrap()
}

/// A database path in the OS temp dir, removed (with its WAL files) on drop.
pub(crate) struct TempDb(pub String);

impl TempDb {
    pub(crate) fn new(tag: &str) -> TempDb {
        static N: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "symfonic-{tag}-{}-{}-{}.db",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed),
            now_ms()
        );
        TempDb(std::env::temp_dir().join(name).to_string_lossy().into_owned())
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.0));
        }
    }
}

fn put(s: &SqliteStore, h: &Handle, content: &[u8], wtf8: bool, expires_at: Option<u64>) -> PutOutcome {
    s.put_now(h, content, wtf8, expires_at).unwrap()
}

fn query<T: rusqlite::types::FromSql + Send + 'static>(s: &SqliteStore, sql: &'static str) -> T {
    s.with_writer(move |c| c.query_row(sql, [], |r| r.get(0)).unwrap())
}

// What every store does is tested once for all, in store/suite_tests.rs.

#[test]
fn a_file_reopens_compressed_in_wal_mode_with_full_sync() {
    let db = TempDb::new("file");
    let a = open(&db.0).unwrap();
    let h = handle("ns", "trm_000000000001", "c");
    let big = "row,".repeat(10_000);
    assert_eq!(put(&a, &h, big.as_bytes(), false, None), PutOutcome::Inserted);
    drop(a);
    let b = open(&db.0).unwrap();
    assert_eq!(
        b.get_now("ns", "trm_000000000001").unwrap().unwrap().content,
        big.as_bytes()
    );
    // Compressed on disk: the 40 KB payload takes far less.
    let stored: i64 = query(
        &b,
        "SELECT length(payload) FROM entries WHERE mem_id = 'trm_000000000001'",
    );
    assert!(stored < 1000, "{stored}");
    assert_eq!(block_on(b.integrity_check(d())).unwrap().unwrap(), "ok");
    let mode: String = query(&b, "PRAGMA journal_mode");
    assert_eq!(mode, "wal");
    let sync: i64 = query(&b, "PRAGMA synchronous");
    assert_eq!(sync, 2, "FULL");
}

#[test]
fn expired_rows_are_swept_and_opening_sweeps() {
    let db = TempDb::new("ttl");
    let s = open(&db.0).unwrap();
    let now = now_ms();
    put(
        &s,
        &handle("", "trm_0000000000e1", "c"),
        b"gone",
        false,
        Some(now - 1),
    );
    put(
        &s,
        &handle("", "trm_0000000000e2", "c"),
        b"kept",
        false,
        Some(now + 60_000),
    );
    assert_eq!(s.sweep_now().unwrap(), 1);
    assert_eq!(s.sweep_now().unwrap(), 0);
    put(
        &s,
        &handle("", "trm_0000000000e3", "c"),
        b"x",
        false,
        Some(now - 1),
    );
    drop(s);
    let s = open(&db.0).unwrap();
    let rows: i64 = query(&s, "SELECT count(*) FROM entries");
    assert_eq!(rows, 1);
}

#[test]
fn open_refuses_what_it_cannot_use() {
    let dir = std::env::temp_dir();
    let e = open(&dir.to_string_lossy()).err().unwrap();
    assert_eq!(e.op, "open");
    let db = TempDb::new("newer");
    open(&db.0).unwrap();
    Connection::open(&db.0)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    let e = open(&db.0).err().unwrap();
    assert!(e.message.contains("newer"), "{e}");
}

#[test]
fn a_file_in_a_folder_that_does_not_exist_says_so_and_how_to_fix_it() {
    let dir = std::env::temp_dir().join(format!("symfonic-no-such-folder-{}", std::process::id()));
    let path = dir.join("ledger.db");
    let e = open(&path.to_string_lossy()).err().unwrap();
    assert_eq!(e.op, "open");
    assert!(!e.timed_out, "{e}");
    let dir = dir.display().to_string();
    assert_eq!(
        e.message,
        format!(
            "sqlite:{}: the folder {dir} does not exist: create it first (fs.mkdirSync({dir:?}, {{ recursive: true }})), or name a file in a folder that exists",
            path.display()
        )
    );
}

#[test]
fn a_file_deleted_or_replaced_under_the_store_fails_every_operation() {
    let db = TempDb::new("unlinked");
    let s = open(&db.0).unwrap();
    let h = handle("", "trm_000000000001", "c");
    assert_eq!(put(&s, &h, b"kept", false, None), PutOutcome::Inserted);
    std::fs::remove_file(&db.0).unwrap();
    let h2 = handle("", "trm_000000000002", "c");
    let e = s.put_now(&h2, b"lost", false, None).unwrap_err();
    assert_eq!(e.op, "put");
    assert!(
        e.message.contains("was deleted after this ledger opened it"),
        "{e}"
    );
    assert!(s.get_now("", "trm_000000000001").is_err());
    assert!(s.delete_now("", "trm_000000000001").is_err());
    assert!(s.clear_now(None).is_err());
    assert!(s.sweep_now().is_err());
    // No connection opened since (the readers') made a new file in its place.
    assert!(!std::path::Path::new(&db.0).exists());
    // What a new process finds at the path: nothing the old store was asked to write.
    let fresh = open(&db.0).unwrap();
    assert_eq!(fresh.get_now("", "trm_000000000002").unwrap(), None);
    drop(fresh);
    // Another database renamed over the path.
    let db = TempDb::new("replaced");
    let other = TempDb::new("replacement");
    let s = open(&db.0).unwrap();
    open(&other.0).unwrap();
    std::fs::rename(&other.0, &db.0).unwrap();
    let e = s.put_now(&h2, b"lost", false, None).unwrap_err();
    assert!(e.message.contains("was replaced by another file"), "{e}");
    assert!(open(&db.0).unwrap().put_now(&h2, b"lost", false, None).is_ok());
}

#[test]
fn a_broken_database_is_an_error_not_a_panic() {
    let db = TempDb::new("broken");
    let s = open(&db.0).unwrap();
    Connection::open(&db.0)
        .unwrap()
        .execute_batch("DROP TABLE entries")
        .unwrap();
    let h = handle("", "trm_000000000001", "c");
    let e = s.put_now(&h, b"x", false, None).unwrap_err();
    assert_eq!(e.op, "put");
    assert!(e.message.contains("no such table"), "{e}");
    assert_eq!(s.get_now("", "trm_000000000001").unwrap_err().op, "get");
    assert_eq!(s.delete_now("", "trm_000000000001").unwrap_err().op, "delete");
    assert_eq!(s.clear_now(None).unwrap_err().op, "clear");
}
#[test]
fn a_write_lock_held_elsewhere_fails_writes_at_their_deadline_with_nothing_done() {
    let db = TempDb::new("locked");
    let s = open(&db.0).unwrap();
    put(&s, &handle("", "trm_000000000001", "c"), b"before", false, None);
    let other = Connection::open(&db.0).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    // A second store opens all the same (the file is set up: no write needed).
    let reopened = block_on(SqliteStore::open(db.0.clone(), d())).unwrap().unwrap();
    let bound = std::time::Duration::from_millis(300);
    let t = std::time::Instant::now();
    let writes: Vec<_> = (0..4)
        .map(|i| {
            let h = handle("", &format!("trm_00000000000{}", i + 2), "c");
            let content: crate::store::Bytes = Arc::new(b"x".to_vec());
            s.put(
                NewEntry::new(h, content, crate::store::Form::Utf8, None),
                Deadline::after(bound),
            )
        })
        .collect();
    for w in writes {
        let e = block_on(w).unwrap().unwrap_err();
        assert!(e.timed_out, "{e}");
        assert_eq!(e.outcome, crate::store::Outcome::NotDone, "{e}");
    }
    let took = t.elapsed();
    assert!(took < bound + std::time::Duration::from_millis(300), "{took:?}");
    // Readers do not wait for the writer.
    assert!(reopened.get_now("", "trm_000000000001").unwrap().is_some());
    other.execute_batch("COMMIT").unwrap();
    assert_eq!(
        put(&s, &handle("", "trm_000000000009", "c"), b"after", false, None),
        PutOutcome::Inserted
    );
}

#[test]
fn a_memory_database_is_private_and_works_like_a_file() {
    let a = block_on(SqliteStore::open_in_memory(d())).unwrap().unwrap();
    let b = block_on(SqliteStore::open_in_memory(d())).unwrap().unwrap();
    let h = handle("ns", "trm_000000000001", "c");
    assert_eq!(put(&a, &h, b"in memory", false, None), PutOutcome::Inserted);
    assert_eq!(
        a.get_now("ns", "trm_000000000001").unwrap().unwrap().content,
        b"in memory"
    );
    assert_eq!(b.get_now("ns", "trm_000000000001").unwrap(), None);
    assert_eq!(a.clear_now(None).unwrap(), 1);
    block_on(a.close()).unwrap().unwrap();
    let e = a.get_now("ns", "trm_000000000001").unwrap_err();
    assert!(e.message.contains("closed"), "{e}");
}
