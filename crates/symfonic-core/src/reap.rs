//! Freeing large values off the calling thread. Dropping a ledger's entries
//! returns their pages to the system (100 MB of payloads took 2.5 to 7 ms);
//! on the JS thread, in `clear`, `delete` or a collected ledger's finalizer,
//! that was a stall of the event loop. Values holding at least
//! `OFF_THREAD_MIN_BYTES` go to one long-lived thread that drops them in
//! the order sent, at the lowest priority (freeing is work nothing waits on,
//! so it takes no CPU that records or the JS thread want); smaller ones are
//! dropped where they are, as is everything if that thread cannot be started.

use std::sync::mpsc::{channel, Sender};
use std::sync::OnceLock;

use crate::cpu;

/// Values holding fewer bytes than this are dropped on the calling thread.
pub const OFF_THREAD_MIN_BYTES: usize = 1 << 20;

type Garbage = Box<dyn Send>;

static REAPER: OnceLock<Option<Sender<Garbage>>> = OnceLock::new();

fn reaper() -> Option<&'static Sender<Garbage>> {
    REAPER
        .get_or_init(|| {
            let (tx, rx) = channel::<Garbage>();
            std::thread::Builder::new()
                .name("symfonic-reap".into())
                .spawn(move || {
                    cpu::give_way();
                    rx.into_iter().for_each(drop)
                })
                .ok()
                .map(|_| tx)
        })
        .as_ref()
}

/// Drops `value`, which holds about `bytes` bytes: here if that is few,
/// else on the reaping thread.
pub fn drop_off_thread<T: Send + 'static>(value: T, bytes: usize) {
    if bytes < OFF_THREAD_MIN_BYTES {
        return;
    }
    if let Some(tx) = reaper() {
        // A failed send hands the value back inside the error, dropped here.
        let _ = tx.send(Box::new(value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{sync_channel, SyncSender};
    use std::thread::{self, ThreadId};

    /// Reports the thread it is dropped on.
    struct Witness(SyncSender<ThreadId>);

    impl Drop for Witness {
        fn drop(&mut self) {
            let _ = self.0.send(thread::current().id());
        }
    }

    #[test]
    fn large_values_are_dropped_on_another_thread_small_ones_here() {
        let (tx, rx) = sync_channel(2);
        drop_off_thread(Witness(tx.clone()), OFF_THREAD_MIN_BYTES - 1);
        assert_eq!(rx.recv().unwrap(), thread::current().id());
        drop_off_thread(Witness(tx), OFF_THREAD_MIN_BYTES);
        let on = rx.recv().unwrap();
        assert_ne!(on, thread::current().id());
    }

    #[test]
    fn values_sent_off_are_all_dropped_on_one_thread() {
        let (tx, rx) = sync_channel(100);
        for i in 0..100u32 {
            let w = Witness(tx.clone());
            drop_off_thread((i, w), OFF_THREAD_MIN_BYTES * 2);
        }
        drop(tx);
        let threads: Vec<ThreadId> = rx.iter().collect();
        assert_eq!(threads.len(), 100);
        assert!(threads
            .iter()
            .all(|t| *t == threads[0] && *t != thread::current().id()));
    }
}
