//! The threads a SQLite store's blocking calls run on: each owns one
//! connection and takes jobs from a queue it shares with the others of its
//! group (one writer; a few readers). A caller waits for its job's answer as
//! a future, bounded by its deadline; the thread, not the caller, blocks.
//!
//! Bounded whatever the queueing: a job still queued when its caller gives
//! up is skipped (so its outcome is certain: it did nothing), and a job
//! waiting for a lock held by another connection or process gives up at its
//! own deadline (the busy handler below), so one stuck lock holder delays
//! each queued job by at most its bound.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use super::super::{StoreError, StoreFuture};
use crate::runtime::Deadline;

/// How long before a job's deadline its lock wait ends; and how long past it
/// a caller waits for the answer of a job that has started.
const GIVE_UP_EARLY: Duration = Duration::from_millis(25);

const QUEUED: u8 = 0;
const STARTED: u8 = 1;
const SKIPPED: u8 = 2;

/// A job's work: its connection, or why the worker could not connect.
type Work = Box<dyn FnOnce(Result<&mut Connection, String>) + Send>;

struct Job {
    work: Work,
    deadline: Deadline,
    state: Arc<AtomicU8>,
}

/// Opens a connection for a worker (on the worker's own thread), or says why not.
pub(super) type Connect = Arc<dyn Fn() -> Result<Connection, String> + Send + Sync>;

thread_local! {
    /// The deadline of the job this worker thread is running.
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// SQLite's busy handler for every worker connection: while another
/// connection holds the lock, wait (1, 2, 4 … 50 ms apart) until the running
/// job's deadline, then give up (the statement fails with `SQLITE_BUSY`).
pub(super) fn busy(count: i32) -> bool {
    let Some(deadline) = DEADLINE.get() else {
        return false;
    };
    // Gives up a little before the deadline, so that its certain answer
    // ("not recorded") reaches the caller before the caller's own timer.
    let left = deadline
        .saturating_duration_since(Instant::now())
        .saturating_sub(GIVE_UP_EARLY);
    if left.is_zero() {
        return false;
    }
    let step = Duration::from_millis(1u64 << count.clamp(0, 6) as u32).min(Duration::from_millis(50));
    std::thread::sleep(step.min(left));
    true
}

/// Runs `f` (on a worker thread) with no waiting for another connection's
/// lock: a statement that needs it fails at once with `SQLITE_BUSY`.
pub(super) fn without_waiting<T>(f: impl FnOnce() -> T) -> T {
    let before = DEADLINE.replace(None);
    let out = f();
    DEADLINE.set(before);
    out
}

/// A group of worker threads sharing one queue.
pub(super) struct Workers {
    name: String,
    queue: Mutex<Option<mpsc::Sender<Job>>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl Workers {
    /// Starts `n` threads, each connecting (with `connect`) on its first job.
    pub(super) fn start(name: &str, n: usize, connect: Connect) -> Result<Workers, StoreError> {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let mut threads = Vec::with_capacity(n);
        for i in 0..n {
            let (rx, connect) = (rx.clone(), connect.clone());
            let t = std::thread::Builder::new()
                .name(format!("symfonic-{name}-{i}"))
                .spawn(move || serve(&rx, &*connect))
                .map_err(|e| StoreError::new("open", format!("could not start a SQLite thread: {e}")))?;
            threads.push(t);
        }
        Ok(Workers {
            name: name.to_string(),
            queue: Mutex::new(Some(tx)),
            threads: Mutex::new(threads),
        })
    }

    /// Queues `f` for a worker's connection; its answer, or a timeout at
    /// `deadline` (an error whose outcome says whether `f` had started).
    pub(super) fn run<T, F>(&self, op: &'static str, what: String, deadline: Deadline, f: F) -> StoreFuture<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let state = Arc::new(AtomicU8::new(QUEUED));
        let job = Job {
            work: Box::new({
                let what = what.clone();
                move |c| {
                    let _ = tx.send(match c {
                        Ok(c) => f(c),
                        Err(e) => Err(StoreError::new(op, format!("{what}: {e}"))),
                    });
                }
            }),
            deadline,
            state: state.clone(),
        };
        let sent = match &*self.queue.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(q) => q.send(job).is_ok(),
            None => false,
        };
        Box::pin(async move {
            if !sent {
                return Err(StoreError::new(op, format!("{what}: the store is closed")));
            }
            let mut rx = rx;
            match deadline.within(&mut rx).await {
                Some(Ok(answer)) => answer,
                // Dropped unanswered: skipped (its deadline had passed) or it panicked.
                Some(Err(_)) => Err(match state.load(Ordering::Acquire) {
                    SKIPPED => StoreError::timeout(op, what, &deadline, false),
                    _ => StoreError::unknown(op, format!("{what}: the SQLite thread failed")),
                }),
                None => {
                    let never_started = state
                        .compare_exchange(QUEUED, SKIPPED, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok();
                    if never_started {
                        return Err(StoreError::timeout(op, what, &deadline, false));
                    }
                    // Started: its lock wait ended with the deadline; its answer says what it did.
                    let grace = Deadline::after(GIVE_UP_EARLY);
                    match grace.within(rx).await {
                        Some(Ok(answer)) => answer,
                        _ => Err(StoreError::timeout(op, what, &deadline, true)),
                    }
                }
            }
        })
    }

    /// No more jobs: the threads finish the queued ones, close their
    /// connections and end; resolves once they have.
    pub(super) fn close(&self) -> StoreFuture<()> {
        drop(self.queue.lock().unwrap_or_else(|e| e.into_inner()).take());
        let threads = std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
        let name = self.name.clone();
        Box::pin(async move {
            let joined =
                tokio::task::spawn_blocking(move || threads.into_iter().all(|t| t.join().is_ok())).await;
            match joined {
                Ok(true) => Ok(()),
                _ => Err(StoreError::new("close", format!("a SQLite {name} thread failed"))),
            }
        })
    }
}

fn serve(rx: &Mutex<mpsc::Receiver<Job>>, connect: &(dyn Fn() -> Result<Connection, String> + Send + Sync)) {
    let mut conn: Option<Connection> = None;
    loop {
        let job = match rx.lock().unwrap_or_else(|e| e.into_inner()).recv() {
            Ok(j) => j,
            Err(_) => return, // closed: the connection closes as the thread ends
        };
        // Past its deadline (its caller has given up, or is about to): skipped.
        if job.deadline.passed()
            || job
                .state
                .compare_exchange(QUEUED, STARTED, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
        {
            job.state.store(SKIPPED, Ordering::Release);
            continue;
        }
        DEADLINE.set(Some(job.deadline.at));
        if conn.is_none() {
            match connect() {
                Ok(c) => conn = Some(c),
                Err(e) => {
                    // Tried again by the next job.
                    let _ = catch_unwind(AssertUnwindSafe(|| (job.work)(Err(e))));
                    DEADLINE.set(None);
                    continue;
                }
            }
        }
        let c = conn.as_mut().expect("connected above");
        if catch_unwind(AssertUnwindSafe(|| (job.work)(Ok(c)))).is_err() {
            // A panic may leave a transaction open: start afresh.
            conn = None;
        }
        DEADLINE.set(None);
    }
}
