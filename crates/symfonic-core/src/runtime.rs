//! Where every async call runs: one process-wide tokio runtime this crate
//! owns (two worker threads, built on first use, never dropped), and the
//! deadline each call carries.
//!
//! A call that waits on a server or a file lock is a parked future here, so
//! a hung store costs each caller its bound and nothing else. CPU work
//! (analysing a payload, re-indexing a reloaded one, answering a read) runs
//! on the runtime's blocking pool through [`cpu`], at most [`cpu_slots`] at
//! a time, so that 200 calls in flight do not become 200 threads indexing
//! megabytes at once. The runtime outlives every ledger and every napi env
//! (the Redis client's reconnect tasks are spawned on it), and `cargo test`
//! drives it as is.

use std::future::Future;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tokio::runtime::Runtime;
use tokio::sync::Semaphore;

/// The default bound on one store call, end to end.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// The runtime, built on first use; `Err` if the OS refused its threads.
pub fn runtime() -> Result<&'static Runtime, String> {
    static RT: OnceLock<Result<Runtime, String>> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("symfonic-store")
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| format!("could not start the runtime: {e}"))
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Runs `f` to completion on the runtime and waits for it on this thread,
/// which must not be one of the runtime's own (a sync API over async work,
/// for tests and for ledgers whose store is in memory).
pub fn block_on<F: Future>(f: F) -> Result<F::Output, String> {
    Ok(runtime()?.block_on(f))
}

/// How many CPU stages run at once: one per CPU, between 2 and 4.
pub fn cpu_slots() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4))
}

/// The queue CPU work waits in for its slot. Reads (an answer, a payload
/// reloaded from the store) never wait behind the analysis of records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// A record's analysis, a store write's checks.
    Record,
    /// A fetch or recall answer, an entry read back from the store.
    Read,
}

impl Lane {
    /// CPU stages of the lane at once: [`cpu_slots`] records; twice that
    /// many reads, which are short, so that one long read (an entry
    /// re-indexed from the store) does not hold the others behind it.
    pub fn slots(self) -> usize {
        match self {
            Lane::Record => cpu_slots(),
            Lane::Read => 2 * cpu_slots(),
        }
    }
}

/// Runs `f` on the runtime's blocking pool once one of the [`Lane::slots`]
/// of its `lane` is free; `None` if `deadline` passes first. Work still running
/// then is abandoned and its output dropped; it holds its slot until it
/// ends, so long work takes the deadline along and checks it between its
/// phases (a record's analysis does) to end soon after its caller gave up.
pub async fn cpu<T, F>(lane: Lane, deadline: Deadline, f: F) -> Option<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    static SLOTS: [OnceLock<Semaphore>; 2] = [OnceLock::new(), OnceLock::new()];
    let slots = SLOTS[lane as usize].get_or_init(|| Semaphore::new(lane.slots()));
    // (`within` polls its future before its timer: a free slot would win.)
    if deadline.passed() {
        return None;
    }
    let permit = deadline.within(slots.acquire()).await?.ok()?;
    if lane == Lane::Record {
        if let Some(pool) = record_pool() {
            let (tx, rx) = tokio::sync::oneshot::channel();
            let job: Job = Box::new(move || {
                let _slot = permit;
                let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
            });
            if pool.send(job).is_ok() {
                return match deadline.within(rx).await? {
                    Ok(Ok(v)) => Some(v),
                    // The closure panicked: carry the panic to the caller's own guard.
                    Ok(Err(panic)) => std::panic::resume_unwind(panic),
                    Err(_) => None,
                };
            }
            return None;
        }
    }
    let work = tokio::task::spawn_blocking(move || {
        let _slot = permit;
        f()
    });
    match deadline.within(work).await? {
        Ok(v) => Some(v),
        // The closure panicked: carry the panic to the caller's own guard.
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => None,
    }
}

type Job = Box<dyn FnOnce() + Send>;

/// The record lane's threads, [`cpu_slots`] of them, started on first use
/// (`None` if the OS refused them: the blocking pool serves instead). On
/// Linux they are `SCHED_BATCH` threads: as fair a share of the CPUs as any
/// other, but a record's work that starts, or a record's second index
/// thread, never preempts a running thread when it wakes, so the JS thread
/// is not put behind a record's analysis for a scheduler's slice (what the
/// wake of a shared pool thread did). Threads of their own, so that reads
/// on the blocking pool keep the ordinary policy.
fn record_pool() -> Option<&'static std::sync::mpsc::Sender<Job>> {
    static POOL: OnceLock<Option<std::sync::mpsc::Sender<Job>>> = OnceLock::new();
    POOL.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        let rx = std::sync::Arc::new(std::sync::Mutex::new(rx));
        for _ in 0..cpu_slots() {
            let rx = rx.clone();
            let spawned = std::thread::Builder::new()
                .name("symfonic-record".into())
                .spawn(move || {
                    batch_policy();
                    loop {
                        let job = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                        match job {
                            Ok(job) => job(),
                            Err(_) => return,
                        }
                    }
                });
            spawned.ok()?;
        }
        Some(tx)
    })
    .as_ref()
}

/// `SCHED_BATCH` for the calling thread (Linux: the policy is per thread; a
/// refusal leaves it as it was).
fn batch_policy() {
    #[cfg(target_os = "linux")]
    // SAFETY: a plain syscall on the calling thread.
    unsafe {
        let p = libc::sched_param { sched_priority: 0 };
        libc::sched_setscheduler(0, libc::SCHED_BATCH, &p);
    }
}

/// Work on payloads up to this many bytes runs in the calling task: a hop to
/// the blocking pool and back costs more than it does.
pub const INLINE_BYTES: usize = 64 << 10;

/// [`cpu`] for work on a payload of `bytes` bytes: in the calling task when
/// it is at most [`INLINE_BYTES`], else on the blocking pool.
pub async fn cpu_for<T, F>(lane: Lane, deadline: Deadline, bytes: usize, f: F) -> Option<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    if bytes > INLINE_BYTES {
        return cpu(lane, deadline, f).await;
    }
    (!deadline.passed()).then(f)
}

/// When a call must have answered by: its start plus the ledger's bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    pub at: Instant,
    /// The bound it was made from, for messages ("within 5000 ms").
    pub bound: Duration,
}

impl Deadline {
    /// `bound` from now.
    pub fn after(bound: Duration) -> Deadline {
        Deadline::since(Instant::now(), bound)
    }

    /// No bound (a ledger without a store: nothing outside the process to wait on).
    pub fn none() -> Deadline {
        Deadline::after(Duration::from_secs(86_400 * 365))
    }

    /// `bound` from `start`, which may be in the past (the call waited before).
    pub fn since(start: Instant, bound: Duration) -> Deadline {
        Deadline {
            at: start
                .checked_add(bound)
                .unwrap_or(start + Duration::from_secs(86_400 * 365)),
            bound,
        }
    }

    pub fn passed(&self) -> bool {
        Instant::now() >= self.at
    }

    /// Time left, zero once passed.
    pub fn left(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    /// `f`'s output, or `None` once the deadline passes (then `f` is dropped).
    /// Needs the runtime's timer: call it from a task on [`runtime`].
    pub async fn within<F: Future>(&self, f: F) -> Option<F::Output> {
        tokio::time::timeout_at(tokio::time::Instant::from_std(self.at), f)
            .await
            .ok()
    }

    pub fn millis(&self) -> u128 {
        self.bound.as_millis()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_bounds_a_future_and_cpu_work_waits_for_a_slot() {
        let d = Deadline::after(Duration::from_millis(50));
        let never = block_on(d.within(std::future::pending::<()>())).unwrap();
        assert_eq!(never, None);
        assert!(d.passed());
        let d = Deadline::after(Duration::from_secs(5));
        assert_eq!(block_on(d.within(async { 7 })).unwrap(), Some(7));
        let out = block_on(cpu(Lane::Read, d, || 6 * 7)).unwrap();
        assert_eq!(out, Some(42));
        // A deadline already passed: the work never starts.
        let gone = Deadline::after(Duration::ZERO);
        let ran = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let r = ran.clone();
        std::thread::sleep(Duration::from_millis(1));
        let out = block_on(cpu(Lane::Record, gone, move || {
            r.store(true, std::sync::atomic::Ordering::SeqCst)
        }))
        .unwrap();
        assert_eq!(out, None);
        assert!(!ran.load(std::sync::atomic::Ordering::SeqCst));
    }

    #[test]
    fn work_that_checks_its_deadline_ends_soon_after_its_caller_gave_up() {
        let d = Deadline::after(Duration::from_millis(30));
        let (tx, rx) = std::sync::mpsc::channel();
        let started = Instant::now();
        block_on(cpu(Lane::Record, d, move || {
            let start = Instant::now();
            // Phases of 5 ms each, for 10 s unless the deadline passes.
            while start.elapsed() < Duration::from_secs(10) && !d.passed() {
                std::thread::sleep(Duration::from_millis(5));
            }
            tx.send(start.elapsed()).unwrap();
        }))
        .unwrap();
        assert!(started.elapsed() < Duration::from_secs(1));
        // Ended soon after the deadline, or never started (other tests held the slots).
        match rx.recv_timeout(Duration::from_secs(2)) {
            Ok(ran) => assert!(ran < Duration::from_secs(1), "{ran:?}"),
            Err(e) => assert_eq!(e, std::sync::mpsc::RecvTimeoutError::Disconnected),
        }
    }
}
