//! Spare buffers for the JS thread's one copy of a string's UTF-16 units. A
//! fresh multi-megabyte buffer is a fresh mapping whose every page faults on
//! first write, which costs the JS thread more than the copy itself; a
//! buffer given back once its payload is settled has its pages mapped
//! already. Kept only while copies are out (none taken is left unsettled):
//! the last one given back frees them all, so an idle process holds none.
//! Buffers under [`MIN_BYTES`] are never kept, and at most [`KEEP`],
//! [`MAX_KEPT_BYTES`] in all.

use std::sync::Mutex;

/// Buffers kept at most.
pub const KEEP: usize = 8;
/// Bytes of capacity kept at most, all buffers together.
pub const MAX_KEPT_BYTES: usize = 64 << 20;
/// Buffers smaller than this are never kept (the allocator has those).
pub const MIN_BYTES: usize = 128 << 10;

struct Spares {
    kept: Vec<Vec<u16>>,
    /// Buffers of at least `MIN_BYTES` handed out and not given back.
    out: usize,
}

static SPARES: Mutex<Spares> = Mutex::new(Spares {
    kept: Vec::new(),
    out: 0,
});

fn bytes_of(buf: &Vec<u16>) -> usize {
    2 * buf.capacity()
}

/// An empty buffer with room for `len` UTF-16 units: a spare that fits, else a new one.
pub fn units(len: usize) -> Vec<u16> {
    if 2 * len < MIN_BYTES {
        return Vec::with_capacity(len);
    }
    let mut spares = SPARES.lock().unwrap_or_else(|e| e.into_inner());
    spares.out += 1;
    let fits = spares
        .kept
        .iter()
        .enumerate()
        .filter(|(_, b)| b.capacity() >= len);
    match fits.min_by_key(|(_, b)| b.capacity()) {
        Some((i, _)) => spares.kept.swap_remove(i),
        None => Vec::with_capacity(len),
    }
}

/// Keeps `buf` (taken from [`units`]) for a later copy if there is room, else frees it.
pub fn give_back(mut buf: Vec<u16>) {
    if bytes_of(&buf) < MIN_BYTES {
        return;
    }
    buf.clear();
    let mut spares = SPARES.lock().unwrap_or_else(|e| e.into_inner());
    spares.out = spares.out.saturating_sub(1);
    if spares.out == 0 {
        let idle = std::mem::take(&mut spares.kept);
        drop(spares);
        drop((buf, idle));
        return;
    }
    if bytes_of(&buf) > MAX_KEPT_BYTES {
        return;
    }
    spares.kept.push(buf);
    // Past the bounds, the smallest spares go first.
    spares.kept.sort_by_key(|b| std::cmp::Reverse(b.capacity()));
    while spares.kept.len() > KEEP || spares.kept.iter().map(bytes_of).sum::<usize>() > MAX_KEPT_BYTES {
        spares.kept.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_given_back_is_taken_again_while_copies_are_out_and_freed_after() {
        // (Other tests may take and give back buffers of their own meanwhile.)
        let held = units(MIN_BYTES); // keeps a copy out throughout
        let mut a = units(MIN_BYTES);
        a.extend(std::iter::repeat_n(7u16, MIN_BYTES / 2));
        let at = a.as_ptr();
        give_back(a);
        let b = units(MIN_BYTES);
        assert!(b.is_empty() && b.capacity() >= MIN_BYTES);
        assert_eq!(b.as_ptr(), at, "the same memory");
        give_back(b);
        give_back(units(16));
        {
            let spares = SPARES.lock().unwrap();
            assert!(spares.kept.len() <= KEEP && spares.kept.iter().all(|s| bytes_of(s) >= MIN_BYTES));
            assert!(spares.kept.iter().map(bytes_of).sum::<usize>() <= MAX_KEPT_BYTES);
        }
        give_back(held);
    }
}
