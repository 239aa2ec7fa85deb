//! Spare buffers for the JS thread's one copy of a payload (a string's
//! UTF-16 units, a Buffer's bytes). A fresh multi-megabyte buffer is a fresh
//! mapping whose every page faults on first write, which costs the JS thread
//! more than the copy itself; a buffer given back once its payload is
//! settled has its pages mapped already. Buffers under [`MIN_BYTES`] are
//! never kept, and at most [`KEEP`] of each kind, [`MAX_KEPT_BYTES`] in all.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Buffers of each kind kept at most.
pub const KEEP: usize = 2;
/// Bytes of capacity kept at most, all buffers together.
pub const MAX_KEPT_BYTES: usize = 32 << 20;
/// Buffers smaller than this are never kept (the allocator has those).
pub const MIN_BYTES: usize = 128 << 10;

struct Spares<T>(Mutex<Vec<Vec<T>>>);

static UNITS: Spares<u16> = Spares(Mutex::new(Vec::new()));
static BYTES: Spares<u8> = Spares(Mutex::new(Vec::new()));
static KEPT: AtomicUsize = AtomicUsize::new(0);

impl<T> Spares<T> {
    fn take(&self, len: usize) -> Vec<T> {
        if len * size_of::<T>() >= MIN_BYTES {
            let mut spares = self.0.lock().unwrap_or_else(|e| e.into_inner());
            let fits = spares.iter().enumerate().filter(|(_, b)| b.capacity() >= len);
            if let Some((i, _)) = fits.min_by_key(|(_, b)| b.capacity()) {
                let buf = spares.swap_remove(i);
                KEPT.fetch_sub(buf.capacity() * size_of::<T>(), Ordering::Relaxed);
                return buf;
            }
        }
        Vec::with_capacity(len)
    }

    fn give_back(&self, mut buf: Vec<T>) {
        let bytes = buf.capacity() * size_of::<T>();
        if bytes < MIN_BYTES {
            return;
        }
        buf.clear();
        let mut spares = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // Full: the smallest spare makes room for a larger one.
        if spares.len() == KEEP {
            let (i, smallest) = spares
                .iter()
                .enumerate()
                .min_by_key(|(_, b)| b.capacity())
                .expect("KEEP > 0");
            if smallest.capacity() >= buf.capacity() {
                return;
            }
            let gone = spares.swap_remove(i);
            KEPT.fetch_sub(gone.capacity() * size_of::<T>(), Ordering::Relaxed);
        }
        if KEPT.load(Ordering::Relaxed) + bytes <= MAX_KEPT_BYTES {
            KEPT.fetch_add(bytes, Ordering::Relaxed);
            spares.push(buf);
        }
    }
}

/// An empty buffer with room for `len` UTF-16 units: a spare that fits, else a new one.
pub fn units(len: usize) -> Vec<u16> {
    UNITS.take(len)
}

/// An empty buffer with room for `len` bytes: a spare that fits, else a new one.
pub fn bytes(len: usize) -> Vec<u8> {
    BYTES.take(len)
}

/// Keeps `buf` for a later copy if there is room, else frees it.
pub fn give_back_units(buf: Vec<u16>) {
    UNITS.give_back(buf)
}

/// Keeps `buf` for a later copy if there is room, else frees it.
pub fn give_back_bytes(buf: Vec<u8>) {
    BYTES.give_back(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_given_back_is_taken_again_and_small_ones_are_not_kept() {
        let mut a = bytes(MIN_BYTES * 2);
        a.extend(std::iter::repeat_n(7u8, MIN_BYTES));
        let at = a.as_ptr();
        give_back_bytes(a);
        // (Other tests may give back buffers of their own meanwhile.)
        let b = bytes(MIN_BYTES * 2);
        assert!(b.is_empty() && b.capacity() >= MIN_BYTES * 2);
        assert_eq!(b.as_ptr(), at, "the same memory");
        give_back_bytes(bytes(16));
        give_back_units(units(16));
        assert!(BYTES.0.lock().unwrap().iter().all(|s| s.capacity() >= MIN_BYTES));
        assert!(UNITS
            .0
            .lock()
            .unwrap()
            .iter()
            .all(|s| 2 * s.capacity() >= MIN_BYTES));
        assert!(KEPT.load(Ordering::Relaxed) <= MAX_KEPT_BYTES);
    }
}
