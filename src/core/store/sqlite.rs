//! The embedded SQLite store (`sqlite:<path>`): one file that several
//! processes can share.
//!
//! Durability: WAL journal with `synchronous=FULL`, so a commit returns only
//! after the WAL is fsynced. With `NORMAL` a WAL commit survives a crash of
//! the process (the WAL pages are in the OS's cache) but not a power loss or
//! an OS crash; with `FULL` a `record` that resolved has its row on stable
//! storage either way, which is the guarantee the ledger states. The cost is
//! one fsync per record.
//!
//! Concurrency: one writer connection (SQLite allows one writer at a time;
//! `put` runs `BEGIN IMMEDIATE`, so two processes recording the same id are
//! serialised and the second one sees the first's row), and a small pool of
//! reader connections (WAL readers never wait for the writer). A busy
//! timeout of 5 s lets processes queue for the write lock instead of failing.

use std::path::Path;
use std::sync::{LazyLock, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};

use super::row::{self, Col, Encoded, Field, Found, Row};
use super::{expired, now_ms, NewEntry, PutOutcome, Store, StoreError, StoredEntry};

/// How long a connection waits for a lock held by another connection or process.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// The schema this code writes (`PRAGMA user_version`); 2 added `seal`.
const SCHEMA_VERSION: i64 = 2;
/// Reader connections kept open for reuse.
const MAX_IDLE_READERS: usize = 4;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS entries (
  id INTEGER PRIMARY KEY,
  namespace TEXT NOT NULL,
  mem_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  tool_name TEXT NOT NULL,
  size_chars INTEGER NOT NULL,
  summary TEXT NOT NULL,
  schema TEXT,
  preview TEXT,
  stub TEXT NOT NULL,
  wtf8 INTEGER NOT NULL,
  codec INTEGER NOT NULL,
  raw_len INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  payload BLOB NOT NULL,
  seal TEXT,
  UNIQUE (namespace, mem_id)
);
CREATE INDEX IF NOT EXISTS entries_expiry ON entries (expires_at) WHERE expires_at IS NOT NULL;
";

/// A row's fields, in `row::Col::ALL`'s order.
static SELECT: LazyLock<String> = LazyLock::new(|| {
    let cols: Vec<&str> = Col::ALL.iter().map(|c| c.sqlite()).collect();
    format!(
        "SELECT {} FROM entries WHERE namespace = ?1 AND mem_id = ?2",
        cols.join(", ")
    )
});

mod identity;
use identity::FileIdentity;

pub struct SqliteStore {
    path: String,
    /// The file opened (see `identity`): every operation checks the path still names it.
    file: FileIdentity,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
}

fn err(op: &'static str) -> impl Fn(rusqlite::Error) -> StoreError {
    move |e| StoreError::new(op, e)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn connect(path: &str) -> rusqlite::Result<Connection> {
    let c = Connection::open_with_flags(
        Path::new(path),
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    c.busy_timeout(BUSY_TIMEOUT)?;
    c.pragma_update(None, "synchronous", "FULL")?;
    Ok(c)
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path`, in WAL mode, and
    /// sweeps its expired entries.
    pub fn open(path: &str) -> Result<SqliteStore, StoreError> {
        let open = err("open");
        // Relative to the cwd now: the file checks and the reader connections
        // opened later must name the same file after a chdir.
        let absolute =
            std::path::absolute(path).map_err(|e| StoreError::new("open", format!("{path}: {e}")))?;
        let path = absolute.to_str().unwrap_or(path);
        let mut c = connect(path).map_err(&open)?;
        let mode: String = c
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(&open)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::new(
                "open",
                format!("{path}: could not enable WAL (journal_mode is {mode})"),
            ));
        }
        let tx = c
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(&open)?;
        let version: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(&open)?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::new(
                "open",
                format!("{path}: schema version {version} is newer than this build's ({SCHEMA_VERSION})"),
            ));
        }
        if version == 1 {
            // Rows from before seals are unreadable (no seal) until recorded again.
            tx.execute_batch("ALTER TABLE entries ADD COLUMN seal TEXT")
                .map_err(&open)?;
        }
        tx.execute_batch(SCHEMA).map_err(&open)?;
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(&open)?;
        tx.commit().map_err(&open)?;
        let store = SqliteStore {
            file: FileIdentity::of(path)?,
            path: path.to_string(),
            writer: Mutex::new(c),
            readers: Mutex::new(Vec::new()),
        };
        store.sweep().map_err(|e| StoreError::new("open", e))?;
        Ok(store)
    }

    /// Runs `f` on a reader connection from the pool (opening one if none is idle).
    fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let idle = lock(&self.readers).pop();
        let conn = match idle {
            Some(c) => c,
            None => connect(&self.path).map_err(err("get"))?,
        };
        let out = f(&conn);
        let mut pool = lock(&self.readers);
        if pool.len() < MAX_IDLE_READERS {
            pool.push(conn);
        }
        out
    }

    /// Runs `PRAGMA integrity_check`; `Ok("ok")` for a sound database.
    pub fn integrity_check(&self) -> Result<String, StoreError> {
        let w = lock(&self.writer);
        w.query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(err("integrity_check"))
    }
}

/// A selected row (`SELECT`'s columns) as `row` decodes it, whatever types
/// its columns hold.
fn stored_row(op: &'static str, r: &rusqlite::Row<'_>) -> rusqlite::Result<Result<Row, StoreError>> {
    let mut fields = Vec::with_capacity(Col::ALL.len());
    for i in 0..Col::ALL.len() {
        fields.push(match r.get_ref(i)? {
            ValueRef::Null => Field::Null,
            ValueRef::Integer(n) => Field::Int(n),
            ValueRef::Real(x) => Field::Real(x),
            ValueRef::Text(b) | ValueRef::Blob(b) => Field::Bytes(b.to_vec()),
        });
    }
    Ok(Row::decode(op, |col| {
        std::mem::replace(&mut fields[col.index()], Field::Null)
    }))
}

fn to_i64(op: &'static str, x: u64) -> Result<i64, StoreError> {
    i64::try_from(x).map_err(|_| StoreError::new(op, format!("{x} does not fit an INTEGER")))
}

impl Store for SqliteStore {
    fn put(&self, entry: NewEntry<'_>) -> Result<PutOutcome, StoreError> {
        let put = err("put");
        let h = &entry.handle;
        // Compression runs before the write lock is taken.
        let row = Encoded::new(entry);
        let expires_at = entry.expires_at.map(|t| to_i64("put", t)).transpose()?;
        self.file.check("put")?;
        let mut w = lock(&self.writer);
        let tx = w
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(&put)?;
        let existing = tx
            .query_row(&SELECT, params![h.namespace, h.mem_id], |r| stored_row("put", r))
            .optional()
            .map_err(&put)?;
        let now = now_ms();
        let mut outcome = PutOutcome::Inserted;
        if let Some(found) = existing {
            // An expired row is free for another result, as no row would be.
            if !found.as_ref().is_ok_and(|r| expired(r.expires_at(), now)) {
                match row::judge(found, &entry) {
                    Found::Same => {
                        tx.execute(
                            "UPDATE entries SET expires_at = ?3 WHERE namespace = ?1 AND mem_id = ?2",
                            params![h.namespace, h.mem_id, expires_at],
                        )
                        .map_err(&put)?;
                        tx.commit().map_err(&put)?;
                        self.file.check("put")?;
                        return Ok(PutOutcome::Existing);
                    }
                    // The transaction rolls back on drop.
                    Found::Different => return Ok(PutOutcome::Collision),
                    Found::Unreadable(_) => outcome = PutOutcome::Repaired,
                }
            }
        }
        tx.execute(
            "INSERT OR REPLACE INTO entries (namespace, mem_id, tool_call_id, tool_name, size_chars,
               summary, schema, preview, stub, wtf8, codec, raw_len, created_at, expires_at, payload, seal)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
            params![
                h.namespace,
                h.mem_id,
                h.tool_call_id,
                h.tool_name,
                h.size_chars as i64,
                h.summary,
                h.schema,
                h.preview,
                h.stub,
                entry.wtf8 as i64,
                row.codec,
                entry.content.len() as i64,
                to_i64("put", now)?,
                expires_at,
                row.payload,
                row.seal,
            ],
        )
        .map_err(&put)?;
        tx.commit().map_err(&put)?;
        self.file.check("put")?;
        Ok(outcome)
    }

    fn get(&self, namespace: &str, mem_id: &str) -> Result<Option<StoredEntry>, StoreError> {
        self.file.check("get")?;
        let row = self.read(|c| {
            c.prepare_cached(&SELECT)
                .and_then(|mut s| {
                    s.query_row(params![namespace, mem_id], |r| stored_row("get", r))
                        .optional()
                })
                .map_err(err("get"))
        })?;
        let Some(row) = row.transpose()? else {
            return Ok(None);
        };
        if expired(row.expires_at(), now_ms()) {
            return Ok(None);
        }
        row.open("get", namespace, mem_id).map(Some)
    }

    fn delete(&self, namespace: &str, mem_id: &str) -> Result<bool, StoreError> {
        let del = err("delete");
        let now = to_i64("delete", now_ms())?;
        self.file.check("delete")?;
        let mut w = lock(&self.writer);
        let tx = w.transaction().map_err(&del)?;
        let live = tx
            .execute(
                "DELETE FROM entries WHERE namespace = ?1 AND mem_id = ?2
                   AND (expires_at IS NULL OR expires_at > ?3)",
                params![namespace, mem_id, now],
            )
            .map_err(&del)?;
        tx.execute(
            "DELETE FROM entries WHERE namespace = ?1 AND mem_id = ?2",
            params![namespace, mem_id],
        )
        .map_err(&del)?;
        tx.commit().map_err(&del)?;
        Ok(live > 0)
    }

    fn clear(&self, namespace: Option<&str>) -> Result<usize, StoreError> {
        let clear = err("clear");
        let now = to_i64("clear", now_ms())?;
        self.file.check("clear")?;
        let mut w = lock(&self.writer);
        let tx = w.transaction().map_err(&clear)?;
        let live = tx
            .execute(
                "DELETE FROM entries WHERE (?1 IS NULL OR namespace = ?1)
                   AND (expires_at IS NULL OR expires_at > ?2)",
                params![namespace, now],
            )
            .map_err(&clear)?;
        tx.execute(
            "DELETE FROM entries WHERE ?1 IS NULL OR namespace = ?1",
            params![namespace],
        )
        .map_err(&clear)?;
        tx.commit().map_err(&clear)?;
        Ok(live)
    }

    fn sweep(&self) -> Result<usize, StoreError> {
        let now = to_i64("sweep", now_ms())?;
        self.file.check("sweep")?;
        let w = lock(&self.writer);
        w.execute(
            "DELETE FROM entries WHERE expires_at IS NOT NULL AND expires_at <= ?1",
            params![now],
        )
        .map_err(err("sweep"))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::core::ledger::Handle;
    use std::sync::atomic::{AtomicUsize, Ordering};

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

    fn handle(ns: &str, id: &str, call: &str) -> Handle {
        Handle {
            mem_id: id.into(),
            namespace: ns.into(),
            tool_name: "t".into(),
            tool_call_id: call.into(),
            size_chars: 3,
            summary: "s".into(),
            schema: Some("text: lines=1".into()),
            preview: None,
            stub: "stub\nline".into(),
        }
    }

    fn put(s: &SqliteStore, h: &Handle, content: &[u8], wtf8: bool, expires_at: Option<u64>) -> PutOutcome {
        s.put(NewEntry {
            handle: h,
            content,
            wtf8,
            expires_at,
        })
        .unwrap()
    }

    #[test]
    fn entries_round_trip_across_connections_and_reopen() {
        let db = TempDb::new("roundtrip");
        let a = SqliteStore::open(&db.0).unwrap();
        let h = handle("ns", "trm_000000000001", "c");
        let big = "row,".repeat(10_000);
        assert_eq!(put(&a, &h, big.as_bytes(), false, None), PutOutcome::Inserted);
        let lone = b"x\xed\xa0\x80y".to_vec(); // WTF-8 of "x\uD800y"
        let h2 = handle("ns", "trm_000000000002", "c");
        assert_eq!(put(&a, &h2, &lone, true, None), PutOutcome::Inserted);
        drop(a);
        let b = SqliteStore::open(&db.0).unwrap();
        let got = b.get("ns", "trm_000000000001").unwrap().unwrap();
        assert_eq!(got.handle, h);
        assert_eq!(got.content, big.as_bytes());
        let got = b.get("ns", "trm_000000000002").unwrap().unwrap();
        assert_eq!((got.content, got.wtf8), (lone, true));
        assert_eq!(b.get("other", "trm_000000000001").unwrap(), None);
        // Compressed on disk: the 40 KB payload takes far less.
        let stored: i64 = lock(&b.writer)
            .query_row(
                "SELECT length(payload) FROM entries WHERE mem_id = 'trm_000000000001'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(stored < 1000, "{stored}");
        assert_eq!(b.integrity_check().unwrap(), "ok");
        let mode: String = lock(&b.writer)
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let sync: i64 = lock(&b.writer)
            .query_row("PRAGMA synchronous", [], |r| r.get(0))
            .unwrap();
        assert_eq!(sync, 2, "FULL");
    }

    #[test]
    fn a_different_result_under_a_stored_id_is_a_collision_in_any_connection() {
        let db = TempDb::new("collision");
        let (a, b) = (
            SqliteStore::open(&db.0).unwrap(),
            SqliteStore::open(&db.0).unwrap(),
        );
        let h = handle("", "trm_00000000000a", "c");
        assert_eq!(put(&a, &h, b"one", false, None), PutOutcome::Inserted);
        assert_eq!(put(&b, &h, b"one", false, None), PutOutcome::Existing);
        assert_eq!(put(&b, &h, b"two", false, None), PutOutcome::Collision);
        assert_eq!(
            put(&b, &handle("", "trm_00000000000a", "d"), b"one", false, None),
            PutOutcome::Collision
        );
        assert_eq!(a.get("", "trm_00000000000a").unwrap().unwrap().content, b"one");
        // In another namespace the id is free.
        assert_eq!(
            put(&b, &handle("x", "trm_00000000000a", "c"), b"two", false, None),
            PutOutcome::Inserted
        );
    }

    #[test]
    fn expiry_is_honoured_on_read_and_swept() {
        let db = TempDb::new("ttl");
        let s = SqliteStore::open(&db.0).unwrap();
        let now = now_ms();
        let h = handle("", "trm_0000000000e1", "c");
        put(&s, &h, b"gone", false, Some(now - 1));
        put(
            &s,
            &handle("", "trm_0000000000e2", "c"),
            b"kept",
            false,
            Some(now + 60_000),
        );
        put(&s, &handle("", "trm_0000000000e3", "c"), b"never", false, None);
        assert_eq!(s.get("", "trm_0000000000e1").unwrap(), None);
        assert_eq!(
            s.get("", "trm_0000000000e2").unwrap().unwrap().expires_at,
            Some(now + 60_000)
        );
        // An expired id is free for another result.
        assert_eq!(put(&s, &h, b"new", false, Some(now - 1)), PutOutcome::Inserted);
        assert_eq!(s.sweep().unwrap(), 1);
        assert_eq!(s.sweep().unwrap(), 0);
        drop(s);
        put(
            &SqliteStore::open(&db.0).unwrap(),
            &handle("", "trm_0000000000e4", "c"),
            b"x",
            false,
            Some(now - 1),
        );
        // Opening sweeps.
        let s = SqliteStore::open(&db.0).unwrap();
        let rows: i64 = lock(&s.writer)
            .query_row("SELECT count(*) FROM entries", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 2);
    }

    #[test]
    fn delete_and_clear_count_live_entries() {
        let db = TempDb::new("clear");
        let s = SqliteStore::open(&db.0).unwrap();
        for (ns, id) in [
            ("a", "trm_000000000001"),
            ("a", "trm_000000000002"),
            ("b", "trm_000000000001"),
        ] {
            put(&s, &handle(ns, id, "c"), b"x", false, None);
        }
        put(&s, &handle("a", "trm_000000000003", "c"), b"x", false, Some(1));
        assert!(s.delete("a", "trm_000000000001").unwrap());
        assert!(!s.delete("a", "trm_000000000001").unwrap());
        assert!(!s.delete("a", "trm_000000000003").unwrap(), "expired: not live");
        assert_eq!(s.clear(Some("a")).unwrap(), 1);
        assert_eq!(s.clear(None).unwrap(), 1);
        assert_eq!(s.get("b", "trm_000000000001").unwrap(), None);
    }

    #[test]
    fn open_refuses_what_it_cannot_use() {
        let dir = std::env::temp_dir();
        let e = SqliteStore::open(&dir.to_string_lossy()).err().unwrap();
        assert_eq!(e.op, "open");
        let db = TempDb::new("newer");
        SqliteStore::open(&db.0).unwrap();
        Connection::open(&db.0)
            .unwrap()
            .pragma_update(None, "user_version", 99)
            .unwrap();
        let e = SqliteStore::open(&db.0).err().unwrap();
        assert!(e.message.contains("newer"), "{e}");
    }

    #[test]
    fn a_file_deleted_or_replaced_under_the_store_fails_every_operation() {
        let db = TempDb::new("unlinked");
        let s = SqliteStore::open(&db.0).unwrap();
        let h = handle("", "trm_000000000001", "c");
        assert_eq!(put(&s, &h, b"kept", false, None), PutOutcome::Inserted);
        std::fs::remove_file(&db.0).unwrap();
        let h2 = handle("", "trm_000000000002", "c");
        let new = NewEntry {
            handle: &h2,
            content: b"lost",
            wtf8: false,
            expires_at: None,
        };
        let e = s.put(new).unwrap_err();
        assert_eq!(e.op, "put");
        assert!(
            e.message.contains("was deleted after this ledger opened it"),
            "{e}"
        );
        assert!(s.get("", "trm_000000000001").is_err());
        assert!(s.delete("", "trm_000000000001").is_err());
        assert!(s.clear(None).is_err());
        assert!(s.sweep().is_err());
        // What a new process finds at the path: nothing the old store was asked to write.
        let fresh = SqliteStore::open(&db.0).unwrap();
        assert_eq!(fresh.get("", "trm_000000000002").unwrap(), None);
        drop(fresh);
        // Another database renamed over the path.
        let db = TempDb::new("replaced");
        let other = TempDb::new("replacement");
        let s = SqliteStore::open(&db.0).unwrap();
        SqliteStore::open(&other.0).unwrap();
        std::fs::rename(&other.0, &db.0).unwrap();
        let e = s.put(new).unwrap_err();
        assert!(e.message.contains("was replaced by another file"), "{e}");
        assert!(SqliteStore::open(&db.0).unwrap().put(new).is_ok());
    }

    #[test]
    fn a_broken_database_is_an_error_not_a_panic() {
        let db = TempDb::new("broken");
        let s = SqliteStore::open(&db.0).unwrap();
        Connection::open(&db.0)
            .unwrap()
            .execute_batch("DROP TABLE entries")
            .unwrap();
        let h = handle("", "trm_000000000001", "c");
        let e = s
            .put(NewEntry {
                handle: &h,
                content: b"x",
                wtf8: false,
                expires_at: None,
            })
            .unwrap_err();
        assert_eq!(e.op, "put");
        assert!(e.message.contains("no such table"), "{e}");
        assert_eq!(s.get("", "trm_000000000001").unwrap_err().op, "get");
        assert_eq!(s.delete("", "trm_000000000001").unwrap_err().op, "delete");
        assert_eq!(s.clear(None).unwrap_err().op, "clear");
    }
}
