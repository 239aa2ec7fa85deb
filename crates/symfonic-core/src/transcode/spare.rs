//! Spare buffers for the JS thread's one copy of a string's UTF-16 units. A
//! fresh multi-megabyte buffer is a fresh mapping whose every page faults on
//! first write, which costs the JS thread more than the copy itself; a
//! buffer given back once its payload is settled has its pages mapped
//! already. Buffers under [`MIN_BYTES`] are never kept, and at most
//! [`KEEP`], [`MAX_KEPT_BYTES`] in all.

use std::sync::Mutex;

/// Buffers kept at most.
pub const KEEP: usize = 2;
/// Bytes of capacity kept at most, all buffers together.
pub const MAX_KEPT_BYTES: usize = 32 << 20;
/// Buffers smaller than this are never kept (the allocator has those).
pub const MIN_BYTES: usize = 128 << 10;

static SPARES: Mutex<Vec<Vec<u16>>> = Mutex::new(Vec::new());

fn bytes_of(buf: &Vec<u16>) -> usize {
    2 * buf.capacity()
}

/// An empty buffer with room for `len` UTF-16 units: a spare that fits, else a new one.
pub fn units(len: usize) -> Vec<u16> {
    if 2 * len >= MIN_BYTES {
        let mut spares = SPARES.lock().unwrap_or_else(|e| e.into_inner());
        let fits = spares.iter().enumerate().filter(|(_, b)| b.capacity() >= len);
        if let Some((i, _)) = fits.min_by_key(|(_, b)| b.capacity()) {
            return spares.swap_remove(i);
        }
    }
    Vec::with_capacity(len)
}

/// Keeps `buf` for a later copy if there is room, else frees it.
pub fn give_back(mut buf: Vec<u16>) {
    if bytes_of(&buf) < MIN_BYTES || bytes_of(&buf) > MAX_KEPT_BYTES {
        return;
    }
    buf.clear();
    let mut spares = SPARES.lock().unwrap_or_else(|e| e.into_inner());
    spares.push(buf);
    // Past the bounds, the smallest spares go first.
    spares.sort_by_key(|b| std::cmp::Reverse(b.capacity()));
    while spares.len() > KEEP || spares.iter().map(bytes_of).sum::<usize>() > MAX_KEPT_BYTES {
        spares.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_given_back_is_taken_again_and_small_ones_are_not_kept() {
        let mut a = units(MIN_BYTES);
        a.extend(std::iter::repeat_n(7u16, MIN_BYTES / 2));
        let at = a.as_ptr();
        give_back(a);
        // (Other tests may give back buffers of their own meanwhile.)
        let b = units(MIN_BYTES);
        assert!(b.is_empty() && b.capacity() >= MIN_BYTES);
        assert_eq!(b.as_ptr(), at, "the same memory");
        give_back(units(16));
        let spares = SPARES.lock().unwrap();
        assert!(spares.len() <= KEEP && spares.iter().all(|s| bytes_of(s) >= MIN_BYTES));
        assert!(spares.iter().map(bytes_of).sum::<usize>() <= MAX_KEPT_BYTES);
    }
}
