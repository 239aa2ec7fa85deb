//! Where store calls run: one process-wide tokio runtime that this crate
//! owns (two worker threads, built on first use, never dropped), and the
//! deadline every store call carries.
//!
//! Why a runtime of our own: a call on a ledger with a store waits on a
//! server or a file lock; waiting on the libuv pool would hold one of its
//! four threads (12 fetches against a hung Redis took 5, 10 and 12.2 s for a
//! 5 s bound, and the app's own `fs.readFile` queued behind them). Here a
//! wait is a parked future, and a hung store costs each caller its bound and
//! nothing else. The runtime outlives every ledger and every napi env (the
//! Redis client's reconnect tasks are spawned on it), and `cargo test` drives
//! it as is.
//!
//! CPU work of a store call (analysing a payload, re-indexing a reloaded one)
//! runs on the runtime's blocking pool through [`cpu`], at most
//! [`cpu_slots`] at a time, so that 200 calls in flight do not become 200
//! threads indexing megabytes at once.

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
            .map_err(|e| format!("could not start the store runtime: {e}"))
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

/// How many CPU stages of store calls run at once: one per CPU, between 2 and 4
/// (libuv's pool, which runs the same work for ledgers without a store, has 4).
pub fn cpu_slots() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4))
}

/// Runs `f` on the runtime's blocking pool once one of [`cpu_slots`] is
/// free; `None` if `deadline` passes first (then `f` never runs). Once
/// started, `f` runs to its end.
pub async fn cpu<T, F>(deadline: Deadline, f: F) -> Option<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    static SLOTS: OnceLock<Semaphore> = OnceLock::new();
    let slots = SLOTS.get_or_init(|| Semaphore::new(cpu_slots()));
    // (`within` polls its future before its timer: a free slot would win.)
    if deadline.passed() {
        return None;
    }
    let permit = deadline.within(slots.acquire()).await?.ok()?;
    let out = tokio::task::spawn_blocking(f).await;
    drop(permit);
    match out {
        Ok(v) => Some(v),
        // The closure panicked: carry the panic to the caller's own guard.
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

/// When a store call must have answered by: its start plus the ledger's bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    pub at: Instant,
    /// The bound it was made from, for messages ("within 5000 ms").
    pub bound: Duration,
}

impl Deadline {
    /// `bound` from now.
    pub fn after(bound: Duration) -> Deadline {
        let now = Instant::now();
        Deadline {
            at: now
                .checked_add(bound)
                .unwrap_or(now + Duration::from_secs(86_400 * 365)),
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
        let out = block_on(cpu(d, || 6 * 7)).unwrap();
        assert_eq!(out, Some(42));
        // A deadline already passed: the work never starts.
        let gone = Deadline::after(Duration::ZERO);
        let ran = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let r = ran.clone();
        std::thread::sleep(Duration::from_millis(1));
        let out = block_on(cpu(gone, move || {
            r.store(true, std::sync::atomic::Ordering::SeqCst)
        }))
        .unwrap();
        assert_eq!(out, None);
        assert!(!ran.load(std::sync::atomic::Ordering::SeqCst));
    }
}
