//! A small bounded free-list of UTF-16 buffers for payloads crossing from JS.
//!
//! Why: the JS thread copies a string's UTF-16 units into a fresh buffer,
//! and a fresh multi-megabyte buffer is a fresh mapping whose every page
//! faults on first write. Measured on a 5 MB catalog (10 MB of units), the
//! faults cost 4.5 to 8.5 ms of JS-thread time, several times the copy
//! itself (about 1 ms into pages already mapped), whenever the allocator
//! hands back new pages: every time under an allocator that returns large
//! blocks to the system at once (musl, or glibc with a fixed mmap threshold),
//! and under glibc's default whenever its heap has no free chunk that large.
//! A buffer that has been used once has its pages mapped, so the buffer a
//! settled payload no longer needs is kept for the next crossing.
//!
//! Bounded: at most [`KEEP`] buffers and [`MAX_KEPT_BYTES`] in all, process
//! wide, so the memory kept beyond the ledger's own is at most 32 MiB; small
//! buffers are never kept (the allocator serves those from memory it already
//! has). A buffer is taken by one crossing at a time and given back once its
//! payload is settled, so concurrent records never share one.
//!
//! Kept only while crossings are in flight: the buffer given back by the
//! last one (none taken and not yet given back) is freed, and the list with
//! it, so a burst of records reuses pages while an idle process holds none
//! (measured: RSS growth per payload byte 1.27 with the list kept for good,
//! against 1.04 without, over 10 sequential 5 MB records). The list of slice
//! buffers ([`chunks`]) is the exception: small buffers, at most 6 MiB in
//! all, kept for good (see `CHUNKS`). A crossing that
//! is abandoned before its payload settles leaves the count raised, which
//! only means the list stays bounded as above instead of emptying.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Buffers kept at most (two records crossing while two settle).
pub const KEEP: usize = 2;
/// Bytes of capacity kept at most, all buffers together.
pub const MAX_KEPT_BYTES: usize = 32 << 20;
/// Buffers under this many units are neither taken from nor kept in the list.
pub const MIN_UNITS: usize = 64 << 10;

/// Slice buffers kept at most: a 5 MB Buffer's ten slices, or those of a
/// string between the JS thread and its transcoder (see `CHUNKS`).
pub const KEEP_CHUNKS: usize = 12;

/// The free-list: empty buffers, largest first.
pub struct Recycler {
    free: Mutex<Vec<Vec<u16>>>,
    /// Large buffers taken and not yet given back.
    out: AtomicUsize,
    /// Buffers kept at most.
    keep: usize,
    /// Whether the list outlives the crossings in flight.
    kept_when_idle: bool,
}

static SHARED: Recycler = Recycler::new();

/// The slice buffers of strings transcoded as they cross (see
/// `transcode::stream`) and of long Buffers (`transcode::pieces`): a list of
/// their own, so that the slices of a crossing never take the whole-string
/// buffers of the others. Kept when no
/// crossing is in flight, at most `KEEP_CHUNKS` buffers of a slice each
/// (6 MiB): a crossing's slices outrun its transcoder, and without the list
/// each slice after the first few was copied into fresh pages, about 0.4 ms
/// of page faults per 512 KiB slice on the JS thread. Measured on the 2-vCPU
/// VM, 20 records of 5 MB strings 30 ms apart: the slices' copies took 4.1
/// ms of JS-thread time per record (90th percentile 0.5 ms a slice), with the
/// list kept 1.9-3.0 ms (0.12-0.15 ms). Those 6 MiB are a fixed cost, not a
/// share of each payload.
static CHUNKS: Recycler = Recycler::lasting(KEEP_CHUNKS);

/// The process-wide list of slice buffers.
pub fn chunks() -> &'static Recycler {
    &CHUNKS
}

/// [`Recycler::take`] on the process-wide list.
pub fn take(units: usize) -> Vec<u16> {
    SHARED.take(units)
}

/// [`Recycler::give_back`] to the process-wide list.
pub fn give_back(buf: Vec<u16>) {
    SHARED.give_back(buf)
}

fn bytes(b: &Vec<u16>) -> usize {
    b.capacity() * std::mem::size_of::<u16>()
}

impl Recycler {
    /// A list of at most `KEEP` buffers, freed whenever no user is in flight.
    pub const fn new() -> Self {
        Recycler {
            free: Mutex::new(Vec::new()),
            out: AtomicUsize::new(0),
            keep: KEEP,
            kept_when_idle: false,
        }
    }

    /// A list of at most `keep` buffers, kept when no user is in flight.
    pub const fn lasting(keep: usize) -> Self {
        Recycler {
            free: Mutex::new(Vec::new()),
            out: AtomicUsize::new(0),
            keep,
            kept_when_idle: true,
        }
    }

    fn list(&self) -> MutexGuard<'_, Vec<Vec<u16>>> {
        // The list holds only empty buffers: a panic cannot leave it inconsistent.
        self.free.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An empty buffer with room for at least `units` units: the smallest
    /// kept one that is large enough, else a new one.
    pub fn take(&self, units: usize) -> Vec<u16> {
        if units >= MIN_UNITS {
            self.out.fetch_add(1, Ordering::AcqRel);
            let mut free = self.list();
            let fit = (0..free.len())
                .filter(|&i| free[i].capacity() >= units)
                .min_by_key(|&i| free[i].capacity());
            if let Some(i) = fit {
                return free.remove(i);
            }
        }
        Vec::with_capacity(units)
    }

    /// Gives a buffer back once its units are no longer needed: kept if it
    /// is large enough to be worth keeping and the bounds allow (the largest
    /// buffers are the ones kept), freed otherwise, here, once the list's
    /// lock is released (see [`put_back`](Self::put_back)).
    pub fn give_back(&self, buf: Vec<u16>) {
        if buf.capacity() < MIN_UNITS {
            return;
        }
        drop(self.put_back(buf));
    }

    /// [`give_back`](Self::give_back) up to the freeing: puts `buf` in the
    /// list, under its lock, and returns the buffers the list lets go of
    /// (`buf` among them, if it is not kept), for the caller to free.
    ///
    /// Never freed under the lock: freeing a large buffer unmaps its pages
    /// (a whole string's units are 10 MB for a 5 MB catalog), and the JS
    /// thread takes the same lock to start a crossing and, on the slice
    /// list, for every slice, so a pool thread freeing under it, or
    /// preempted while it did on a busy machine, held the JS thread as long.
    /// Handing them to the low-priority reaping thread (`crate::reap`)
    /// instead was no faster: a loop of `recordSync` calls, which settle on
    /// the JS thread, then found no freed memory to reuse.
    fn put_back(&self, mut buf: Vec<u16>) -> Vec<Vec<u16>> {
        let out = self.leave();
        let mut gone = Vec::with_capacity(self.keep + 1);
        let mut free = self.list();
        if out == 0 && !self.kept_when_idle {
            // The last crossing in flight: nothing will reuse these soon.
            gone.append(&mut free);
            gone.push(buf);
        } else if bytes(&buf) > MAX_KEPT_BYTES {
            gone.push(buf);
        } else {
            buf.clear();
            free.push(buf);
            free.sort_unstable_by_key(|b| std::cmp::Reverse(b.capacity()));
            while free.len() > self.keep || free.iter().map(bytes).sum::<usize>() > MAX_KEPT_BYTES {
                // The smallest goes first.
                gone.extend(free.pop());
            }
        }
        gone
    }

    /// Counts one more user in flight that takes and gives back buffers
    /// over a while (a crossing in slices, between two of them), so that
    /// what it gives back is kept for its next take; [`release`]
    /// (Self::release) ends it.
    pub fn hold(&self) {
        self.out.fetch_add(1, Ordering::AcqRel);
    }

    /// Ends a [`hold`](Self::hold): with nothing else in flight, the list is
    /// freed (unless it is kept when idle).
    pub fn release(&self) {
        if self.leave() == 0 && !self.kept_when_idle {
            // Freed once the lock is released (see `put_back`).
            let gone = std::mem::take(&mut *self.list());
            drop(gone);
        }
    }

    /// One fewer in flight (never below none); the count left.
    fn leave(&self) -> usize {
        let before = self
            .out
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| Some(n.saturating_sub(1)))
            .unwrap_or_else(|n| n);
        before.saturating_sub(1)
    }

    /// Bytes of capacity kept now.
    pub fn kept_bytes(&self) -> usize {
        self.list().iter().map(bytes).sum()
    }

    /// Large buffers taken and holds, not yet given back or released.
    #[cfg(test)]
    pub(crate) fn in_flight(&self) -> usize {
        self.out.load(Ordering::Acquire)
    }
}

impl Default for Recycler {
    fn default() -> Self {
        Recycler::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_reused_and_the_list_stays_bounded() {
        let r = Recycler::new();
        // Ten other crossings in flight throughout (the list is empty: fresh buffers).
        let hold: Vec<Vec<u16>> = (0..10).map(|_| r.take(MIN_UNITS)).collect();
        // Small buffers are never kept.
        r.give_back(Vec::with_capacity(MIN_UNITS - 1));
        assert_eq!(r.kept_bytes(), 0);
        // A large one is kept, handed out again empty, and only when it fits.
        let mut b = r.take(MIN_UNITS * 4);
        b.extend(std::iter::repeat_n(7u16, MIN_UNITS * 4));
        let (ptr, cap) = (b.as_ptr(), b.capacity());
        r.give_back(b);
        assert_eq!(r.kept_bytes(), cap * 2);
        assert!(r.take(cap + 1).capacity() > cap); // abandoned: never given back
        let again = r.take(MIN_UNITS);
        assert_eq!((again.as_ptr(), again.capacity(), again.len()), (ptr, cap, 0));
        assert_eq!(r.kept_bytes(), 0);
        // No more than KEEP buffers, the largest kept, the best fit taken.
        for k in 1..=4 {
            r.give_back(Vec::with_capacity(MIN_UNITS * k));
        }
        let caps: Vec<usize> = r.list().iter().map(|b| b.capacity()).collect();
        assert_eq!(caps, [MIN_UNITS * 4, MIN_UNITS * 3]);
        assert_eq!(r.take(MIN_UNITS * 2).capacity(), MIN_UNITS * 3);
        // Never past the byte bound, whatever is given back.
        r.give_back(Vec::with_capacity(MAX_KEPT_BYTES));
        r.give_back(Vec::with_capacity(MAX_KEPT_BYTES / 2));
        r.give_back(Vec::with_capacity(MAX_KEPT_BYTES / 2 - 1));
        assert!(r.kept_bytes() <= MAX_KEPT_BYTES, "{}", r.kept_bytes());
        assert_eq!(r.list().len(), 1);
        // Once no crossing is in flight, nothing is kept. Out now: 10 held,
        // 4 large takes, minus 8 large give-backs.
        assert_eq!(r.out.load(Ordering::Acquire), 6);
        let mut hold = hold.into_iter();
        for b in hold.by_ref().take(5) {
            r.give_back(b);
            assert!(r.kept_bytes() > 0);
        }
        r.give_back(hold.next().unwrap());
        assert_eq!(r.kept_bytes(), 0);
        // More give-backs than takes never wrap the count around.
        hold.for_each(|b| r.give_back(b));
        assert_eq!(r.kept_bytes(), 0);
        let b = r.take(MIN_UNITS);
        r.give_back(b);
        assert_eq!(r.kept_bytes(), 0, "a lone crossing keeps nothing");
    }

    #[test]
    fn what_the_list_lets_go_of_is_handed_back_to_be_freed_outside_its_lock() {
        let r = Recycler::new();
        let caps = |v: &[Vec<u16>]| v.iter().map(Vec::capacity).collect::<Vec<_>>();
        for _ in 0..5 {
            r.hold(); // five crossings in flight, each giving one buffer back
        }
        assert!(r.put_back(Vec::with_capacity(MIN_UNITS)).is_empty());
        assert!(r.put_back(Vec::with_capacity(MIN_UNITS * 2)).is_empty());
        // Past KEEP: the smallest is let go, not freed under the lock.
        assert_eq!(caps(&r.put_back(Vec::with_capacity(MIN_UNITS * 3))), [MIN_UNITS]);
        assert_eq!(r.kept_bytes(), 2 * (MIN_UNITS * 5));
        // Too large to keep: handed back whole.
        let huge = MAX_KEPT_BYTES / 2 + 1;
        assert_eq!(caps(&r.put_back(Vec::with_capacity(huge))), [huge]);
        // The last in flight: the list and the buffer, all handed back.
        assert_eq!(r.in_flight(), 1);
        let got = caps(&r.put_back(Vec::with_capacity(MIN_UNITS * 4)));
        assert_eq!(got, [MIN_UNITS * 3, MIN_UNITS * 2, MIN_UNITS * 4]);
        assert_eq!(r.kept_bytes(), 0);
    }

    #[test]
    fn a_lasting_list_keeps_its_buffers_when_idle_within_its_bound() {
        let r = Recycler::lasting(3);
        let bufs: Vec<Vec<u16>> = (0..5).map(|k| r.take(MIN_UNITS + k)).collect();
        bufs.into_iter().for_each(|b| r.give_back(b));
        assert_eq!(r.in_flight(), 0);
        // Idle, and still kept: the three largest.
        let caps: Vec<usize> = r.list().iter().map(|b| b.capacity()).collect();
        assert_eq!(caps, [MIN_UNITS + 4, MIN_UNITS + 3, MIN_UNITS + 2]);
        r.hold();
        r.release();
        assert_eq!(
            r.list().len(),
            3,
            "a release with nothing in flight keeps them too"
        );
        assert_eq!(r.take(MIN_UNITS).capacity(), MIN_UNITS + 2);
    }

    #[test]
    fn a_hold_keeps_what_is_given_back_until_it_is_released() {
        let r = Recycler::new();
        r.hold();
        let b = r.take(MIN_UNITS);
        let ptr = b.as_ptr();
        r.give_back(b);
        assert!(r.kept_bytes() > 0, "kept between two takes of one holder");
        let again = r.take(MIN_UNITS);
        assert_eq!(again.as_ptr(), ptr);
        r.give_back(again);
        assert_eq!(r.in_flight(), 1);
        r.release();
        assert_eq!((r.in_flight(), r.kept_bytes()), (0, 0));
        r.release(); // never below none
        assert_eq!(r.in_flight(), 0);
    }
}
