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
//! Concurrency: one writer thread with its connection (SQLite allows one
//! writer at a time; `put` runs `BEGIN IMMEDIATE`, so two processes recording
//! the same id are serialised and the second one sees the first's row), and
//! a few reader threads with theirs (WAL readers never wait for the writer).
//! Every call is a job for those threads (`workers`): the caller's thread
//! never blocks, and a job waits for a lock held by another process until its
//! own deadline, never longer.
//!
//! `sqlite::memory:` is a database in this process's memory, private to one
//! store: one connection (the writer's) serves reads too.
//!
//! Rows read back are untrusted ([`row`](super::row) decodes and checks them), and every
//! job first checks that the path still names the file opened (`identity`),
//! a record once more after its commit.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use rusqlite::{Connection, ErrorCode, OpenFlags, TransactionBehavior};

use super::{Lookup, NewEntry, PutOutcome, Store, StoreError, StoreFuture};
use crate::runtime::Deadline;

mod identity;
mod workers;
use identity::FileIdentity;
use workers::{busy, Workers};
mod rows;
use rows::{clear_rows, delete_row, get_row, put_row, sweep_rows};

/// The schema this code writes (`PRAGMA user_version`); 2 added `seal`.
const SCHEMA_VERSION: i64 = 2;
/// Reader threads (each with its connection) of a database file.
const READERS: usize = 2;

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

pub struct SqliteStore {
    /// `sqlite:<path>` as given, or `sqlite::memory:`, for messages.
    shown: String,
    writer: Workers,
    /// `None` in memory: the writer's connection serves reads.
    readers: Option<Workers>,
    /// The file opened (set once it is; never in memory): every job checks
    /// the path still names it.
    file: Arc<OnceLock<FileIdentity>>,
}

/// A SQLite error as a store error: the lock still held at the deadline is a
/// timeout of a statement that did nothing (`BEGIN IMMEDIATE` is the only one
/// that waits for the write lock), anything else a failure.
fn err<'a>(
    op: &'static str,
    shown: &'a str,
    deadline: Deadline,
) -> impl Fn(rusqlite::Error) -> StoreError + 'a {
    move |e| match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::timeout(
            op,
            format!("{shown}: the database stayed locked by another connection or process"),
            &deadline,
            false,
        ),
        _ => StoreError::new(op, format!("{shown}: {e}")),
    }
}

/// How a worker connects to the file at `path`: the first connection (the
/// writer's, setting the file up) may create it; any later one (a reader's,
/// or a worker's again after a panic) first checks that the path still names
/// the file opened (`file`), and never creates one in its place.
fn connector(path: String, file: Arc<OnceLock<FileIdentity>>) -> workers::Connect {
    Arc::new(move || {
        let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        match file.get() {
            Some(f) => f.check("open").map_err(|e| e.message)?,
            None => flags |= OpenFlags::SQLITE_OPEN_CREATE,
        }
        Connection::open_with_flags(Path::new(&path), flags)
            .and_then(prepare)
            .map_err(|e| cannot_open(&path, e))
    })
}

/// Why a file cannot be opened, in the user's terms where SQLite only says
/// "unable to open database file": a folder that does not exist, a path that
/// names a folder, or a folder this process cannot write.
fn cannot_open(path: &str, e: rusqlite::Error) -> String {
    if e.sqlite_error_code() == Some(ErrorCode::CannotOpen) {
        if Path::new(path).is_dir() {
            return format!("{path} is a folder: name a file in it (such as {path}/ledger.db)");
        }
        let parent = Path::new(path).parent().filter(|d| !d.as_os_str().is_empty());
        let dir = parent.unwrap_or(Path::new("."));
        if dir.is_dir() && !Path::new(path).exists() && !writable(dir) {
            let dir = dir.display();
            return format!(
                "the folder {dir} is not writable by this process: check its permissions, or name a file in a folder it can write"
            );
        }
        if let Some(dir) = parent.filter(|d| !d.is_dir()) {
            // Quoted as a JS string (`{:?}` escapes as JSON does).
            let dir = dir.display().to_string();
            return format!(
                "the folder {dir} does not exist: create it first (fs.mkdirSync({dir:?}, {{ recursive: true }})), or name a file in a folder that exists"
            );
        }
    }
    e.to_string()
}

/// Whether this process may create files in `dir` (its own user and groups).
#[cfg(unix)]
fn writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return true;
    };
    // SAFETY: a NUL-terminated path that outlives the call.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

#[cfg(not(unix))]
fn writable(_dir: &Path) -> bool {
    true
}

fn prepare(c: Connection) -> rusqlite::Result<Connection> {
    // Waits for another connection's lock until the running job's deadline.
    c.busy_handler(Some(busy))?;
    c.pragma_update(None, "synchronous", "FULL")?;
    Ok(c)
}

/// Creates the schema (or checks a newer one is not there), in WAL mode
/// unless in memory, and sweeps expired rows.
fn set_up(c: &mut Connection, shown: &str, wal: bool, deadline: Deadline) -> Result<(), StoreError> {
    let open = err("open", shown, deadline);
    if wal {
        let mode: String = c
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(&open)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::new(
                "open",
                format!("{shown}: could not enable WAL (journal_mode is {mode})"),
            ));
        }
    }
    // Read first: a file already set up is opened without the write lock, so
    // a ledger opens while another process holds it.
    let version: i64 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(&open)?;
    if version > SCHEMA_VERSION {
        return Err(newer(shown, version));
    }
    if version < SCHEMA_VERSION {
        let tx = c
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(&open)?;
        let version: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(&open)?;
        if version > SCHEMA_VERSION {
            return Err(newer(shown, version));
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
    }
    // The sweep is housekeeping: done if the write lock is free now, else
    // left to a later one (a record sweeps at most once a minute).
    match workers::without_waiting(|| sweep_rows(c, shown, deadline)) {
        Err(e) if e.timed_out => {}
        other => {
            other.map_err(|e| StoreError { op: "open", ..e })?;
        }
    }
    Ok(())
}

fn newer(shown: &str, version: i64) -> StoreError {
    StoreError::new(
        "open",
        format!("{shown}: schema version {version} is newer than this build's ({SCHEMA_VERSION})"),
    )
}

impl SqliteStore {
    /// Opens (creating if needed) the database at `path` (absolute, as
    /// `StoreSpec::parse` makes it: the file checks name it after a chdir),
    /// in WAL mode, and sweeps its expired entries, on the store's writer
    /// thread, by `deadline`.
    pub async fn open(path: String, deadline: Deadline) -> Result<SqliteStore, StoreError> {
        let shown = format!("sqlite:{path}");
        let file = Arc::new(OnceLock::new());
        let writer = Workers::start("sqlite-writer", 1, connector(path.clone(), file.clone()))?;
        let readers = Workers::start("sqlite-reader", READERS, connector(path.clone(), file.clone()))?;
        let store = SqliteStore {
            shown,
            writer,
            readers: Some(readers),
            file,
        };
        store.set_up(Some(path), deadline).await?;
        Ok(store)
    }

    /// A database in this process's memory, private to this store.
    pub async fn open_in_memory(deadline: Deadline) -> Result<SqliteStore, StoreError> {
        let writer = Workers::start(
            "sqlite-memory",
            1,
            Arc::new(|| {
                Connection::open_in_memory()
                    .and_then(prepare)
                    .map_err(|e| e.to_string())
            }),
        )?;
        let store = SqliteStore {
            shown: "sqlite::memory:".into(),
            writer,
            readers: None,
            file: Arc::new(OnceLock::new()),
        };
        store.set_up(None, deadline).await?;
        Ok(store)
    }

    /// Sets the database up (`set_up`: WAL for a file at `path`); then, for a
    /// file, keeps the identity of the one opened.
    async fn set_up(&self, path: Option<String>, deadline: Deadline) -> Result<(), StoreError> {
        let (shown, file) = (self.shown.clone(), self.file.clone());
        let opened = self
            .writer
            .run("open", shown.clone(), deadline, move |c| {
                set_up(c, &shown, path.is_some(), deadline)?;
                if let Some(path) = path {
                    let _ = file.set(FileIdentity::of(&path)?);
                }
                Ok(())
            })
            .await;
        if opened.is_err() {
            let _ = self.close().await;
        }
        opened
    }

    /// Ok if the path still names the file opened (always, in memory).
    fn still_there(file: &OnceLock<FileIdentity>, op: &'static str) -> Result<(), StoreError> {
        file.get().map_or(Ok(()), |f| f.check(op))
    }

    /// Runs `f` on a reader's connection (the writer's in memory).
    fn read<T, F>(&self, op: &'static str, deadline: Deadline, f: F) -> StoreFuture<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, &str) -> Result<T, StoreError> + Send + 'static,
    {
        let (shown, file) = (self.shown.clone(), self.file.clone());
        let workers = self.readers.as_ref().unwrap_or(&self.writer);
        workers.run(op, self.shown.clone(), deadline, move |c| {
            Self::still_there(&file, op)?;
            f(c, &shown)
        })
    }

    /// Runs `f` on the writer's connection.
    fn write<T, F>(&self, op: &'static str, deadline: Deadline, f: F) -> StoreFuture<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection, &str) -> Result<T, StoreError> + Send + 'static,
    {
        let (shown, file) = (self.shown.clone(), self.file.clone());
        self.writer.run(op, self.shown.clone(), deadline, move |c| {
            Self::still_there(&file, op)?;
            f(c, &shown)
        })
    }

    /// Runs `PRAGMA integrity_check`; `Ok("ok")` for a sound database.
    pub async fn integrity_check(&self, deadline: Deadline) -> Result<String, StoreError> {
        self.write("integrity_check", deadline, move |c, shown| {
            c.query_row("PRAGMA integrity_check", [], |r| r.get(0))
                .map_err(err("integrity_check", shown, deadline))
        })
        .await
    }

    /// Runs `f` on the writer's connection (tests look at the file with it).
    #[cfg(test)]
    pub(crate) fn with_writer<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> T + Send + 'static,
    ) -> T {
        let d = Deadline::after(crate::runtime::DEFAULT_TIMEOUT);
        crate::runtime::block_on(self.write("test", d, move |c, _| Ok(f(c))))
            .unwrap()
            .unwrap()
    }
}

impl Store for SqliteStore {
    fn put(&self, entry: NewEntry, deadline: Deadline) -> StoreFuture<PutOutcome> {
        let file = self.file.clone();
        self.write("put", deadline, move |c, shown| {
            let outcome = put_row(c, shown, &entry, deadline)?;
            // Never acknowledged into a file swapped while it ran.
            Self::still_there(&file, "put")?;
            Ok(outcome)
        })
    }

    fn get(&self, namespace: &str, mem_id: &str, deadline: Deadline) -> StoreFuture<Lookup> {
        let (ns, id) = (namespace.to_string(), mem_id.to_string());
        self.read("get", deadline, move |c, shown| {
            get_row(c, shown, &ns, &id, deadline)
        })
    }

    fn delete(&self, namespace: &str, mem_id: &str, deadline: Deadline) -> StoreFuture<bool> {
        let (ns, id) = (namespace.to_string(), mem_id.to_string());
        self.write("delete", deadline, move |c, shown| {
            delete_row(c, shown, &ns, &id, deadline)
        })
    }

    fn clear(&self, namespace: Option<&str>, deadline: Deadline) -> StoreFuture<usize> {
        let ns = namespace.map(str::to_string);
        self.write("clear", deadline, move |c, shown| {
            clear_rows(c, shown, ns.as_deref(), deadline)
        })
    }

    fn sweep(&self, deadline: Deadline) -> StoreFuture<usize> {
        self.write("sweep", deadline, move |c, shown| sweep_rows(c, shown, deadline))
    }

    fn close(&self) -> StoreFuture<()> {
        let readers = self.readers.as_ref().map(Workers::close);
        let writer = self.writer.close();
        Box::pin(async move {
            if let Some(r) = readers {
                r.await?;
            }
            writer.await
        })
    }
}

#[cfg(test)]
pub(crate) mod tests;
