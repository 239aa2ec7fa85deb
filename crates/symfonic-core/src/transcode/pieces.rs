//! A long Buffer's bytes as they cross from JS, a slice per event-loop turn
//! (`napi_crossing`): each slice is copied into a slice buffer of the
//! recycled list ([`recycle::chunks`], pages already mapped), and the pieces
//! are joined into the payload's one buffer once the last has come, on the
//! libuv pool.
//!
//! Why: copied straight into one buffer of the whole length, each slice's
//! copy on the JS thread wrote fresh pages, about 0.47 ms of page faults per
//! 512 KiB slice, 4.4 ms of JS-thread time per 5 MB Buffer whose ledger
//! keeps its records (measured on the 2-vCPU VM); into recycled buffers a
//! slice takes about 0.09 ms. The faults of the joined buffer are paid on
//! the pool instead.

use std::mem::size_of;

use super::recycle::{self, Recycler};

/// Bytes gathered in slice buffers of a recycled list, in order.
pub struct Pieces {
    /// Each buffer with the number of bytes it holds.
    parts: Vec<(Vec<u16>, usize)>,
    len: usize,
    list: &'static Recycler,
}

impl Pieces {
    /// Pieces whose buffers come from, and go back to, the slice list.
    pub fn new() -> Self {
        Pieces::from_list(recycle::chunks())
    }

    /// Pieces whose buffers come from, and go back to, `list`.
    pub fn from_list(list: &'static Recycler) -> Self {
        Pieces {
            parts: Vec::new(),
            len: 0,
            list,
        }
    }

    /// Bytes gathered so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no byte was gathered.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies `bytes` into a buffer of the list.
    pub fn push(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        // A byte buffer in u16 units: one more unit, as a string slice's
        // buffer has (V8's NUL), so both kinds of slices share sizes.
        let units = bytes.len().div_ceil(size_of::<u16>());
        let mut buf = self.list.take(units + 1);
        let spare = buf.spare_capacity_mut();
        // SAFETY: the spare capacity holds at least `units` u16s, that is
        // `bytes.len()` bytes and the pad byte of an odd length; a
        // MaybeUninit<u16> has no invalid bit patterns to write over, and the
        // buffers do not overlap.
        unsafe {
            let dst = spare.as_mut_ptr().cast::<u8>();
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
            if bytes.len() % 2 == 1 {
                dst.add(bytes.len()).write(0);
            }
            buf.set_len(units);
        }
        self.len += bytes.len();
        self.parts.push((buf, bytes.len()));
    }

    /// All the bytes in one buffer of exactly their length (where their pages
    /// are first written), the slice buffers given back.
    /// A large payload's two halves are copied at once (`halves::join`).
    pub fn join(mut self) -> Vec<u8> {
        let parts = std::mem::take(&mut self.parts);
        let views: Vec<&[u8]> = parts
            .iter()
            // SAFETY: the buffer's first `n` bytes were written by `push`
            // (its `len` units cover them).
            .map(|(buf, n)| unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), *n) })
            .collect();
        let out = super::halves::join(&views, self.len);
        drop(views);
        for (buf, _) in parts {
            self.list.give_back(buf);
        }
        out
    }
}

impl Default for Pieces {
    fn default() -> Self {
        Pieces::new()
    }
}

impl Drop for Pieces {
    /// An abandoned crossing gives its buffers back too.
    fn drop(&mut self) {
        for (buf, _) in self.parts.drain(..) {
            self.list.give_back(buf);
        }
    }
}

impl std::fmt::Debug for Pieces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pieces({} bytes in {})", self.len, self.parts.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list() -> &'static Recycler {
        Box::leak(Box::new(Recycler::lasting(4)))
    }

    #[test]
    fn pieces_join_to_the_bytes_in_order_whatever_their_lengths() {
        let data: Vec<u8> = (0..3 * recycle::MIN_UNITS * 2 + 7)
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        for cuts in [
            vec![],
            vec![1],
            vec![3, 4],
            vec![recycle::MIN_UNITS * 2 - 1, recycle::MIN_UNITS * 4 + 1],
        ] {
            let mut p = Pieces::from_list(list());
            let mut at = 0;
            for &c in cuts.iter().chain(std::iter::once(&data.len())) {
                p.push(&data[at..c]);
                at = c;
            }
            assert_eq!(p.len(), data.len());
            assert_eq!(p.join(), data, "cut at {cuts:?}");
        }
        let empty = Pieces::from_list(list());
        assert!(empty.is_empty());
        assert_eq!(empty.join(), Vec::<u8>::new());
    }

    #[test]
    fn slice_buffers_go_back_to_the_list_joined_or_abandoned_and_are_reused() {
        let l = list();
        let slice = vec![7u8; recycle::MIN_UNITS * 2 + 1]; // odd: a pad byte
        let mut p = Pieces::from_list(l);
        p.push(&slice);
        p.push(&slice);
        assert_eq!(l.kept_bytes(), 0);
        assert_eq!(p.join(), [slice.clone(), slice.clone()].concat());
        let kept = l.kept_bytes();
        assert!(kept >= 2 * slice.len(), "{kept}");
        // Reused: taking one for the next slice leaves less kept.
        let mut q = Pieces::from_list(l);
        q.push(&slice);
        assert!(l.kept_bytes() < kept);
        drop(q);
        assert_eq!(l.kept_bytes(), kept);
        assert_eq!(l.in_flight(), 0);
    }
}
