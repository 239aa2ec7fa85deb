//! Transcoding a long string while it crosses: the JS thread hands over its
//! UTF-16 units a slice per event-loop turn (`napi_crossing`), and a thread
//! of the crossing's own converts each slice as soon as it arrives, so that
//! once the last slice has crossed the stored form is all but ready. The
//! other way, still taken while other records are in flight (see
//! `lib/crossing.js`), gathers the units into one buffer and transcodes the
//! whole string on the libuv pool once it has crossed.
//!
//! Why: the crossing of a 5 MB string takes about 20 turns of the event
//! loop, during which the pool has nothing of this record to do, and the
//! transcoding after it was most of the difference between recording a
//! non-ASCII catalog as a string and as a Buffer (measured on the 2-vCPU
//! VM: 3.4 ms of 12.8 ms for Latin-1). Done slice by slice it overlaps the
//! crossing instead, and the units need no buffer of the whole string: a
//! slice's buffer goes back to a small free-list of its own
//! (`recycle::chunks`) once converted.
//!
//! Each slice is converted into a buffer of its own, exactly its size, and
//! the pieces are joined once the last has come (by `Streamed::settle`, on
//! the pool; a large payload's two halves at once, see `halves::join`).
//! Converting straight into one buffer reserved for the worst case (3
//! bytes a unit) was slower: a reservation that large is a fresh
//! mapping every time (glibc maps anything larger than the largest block
//! freed so far afresh), and this VM's page faults on fresh memory cost
//! more than the conversion (the thread took 6.5 ms for 5 MB of Latin-1,
//! against 1.2 ms into reused memory).
//!
//! A slice whose units are all at most U+00FF may come as Latin-1 instead,
//! one byte a unit (`Stream::push_latin1`; `lib/crossing.js` decides): for a
//! string V8 holds as one-byte, the JS thread's copy is then a memcpy of half
//! the bytes (5 MB ASCII catalog, in one A/B: records 8.0-9.5 ms against
//! 9.9-10.3 ms). Such a slice is converted here with simdutf, or copied as
//! is when ASCII (checking and copying 5 MB took 0.17 ms, simdutf's
//! conversion 0.24 ms); a high surrogate carried from the slice before it
//! is lone.
//!
//! Given the record's call id, the thread also hashes each converted piece
//! for the memory id (`Encoder::hashing`, `ids::IdHasher`): the pieces are
//! the stored bytes in order, so the id is `mem_id_for`'s, and the record
//! no longer hashes 5 MB on the pool once the string has crossed. In Rust,
//! a 5 MB ASCII catalog recorded from its finished stream took 3.23-3.42 ms
//! against 3.48-3.65 (fastest of 41, interleaved in one process, four
//! runs; medians 3.43-4.98 against 4.05-6.01); CJK, whose code points the
//! walk's other thread counts meanwhile, 3.44-5.18 against 3.51-5.23.
//!
//! The result is [`super::from_utf16`]'s, byte for byte: each slice is
//! converted with SIMD (one validating pass; ASCII narrowed blockwise first),
//! a high surrogate that ends a slice waits for the next one (a pair cut by a
//! slice edge is whole again), and a slice that holds a lone surrogate is
//! written losslessly as WTF-8, as the whole string would have been.

use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

use crate::ids::{HashedAhead, IdHasher};
use crate::text::Settled;
use crate::wtf8;

use super::{is_ascii, narrow, push_one, push_wtf8, recycle, ASCII_BLOCK, HIGH};

/// The stored form of UTF-16 units given in pieces, converted as they come:
/// each piece into a buffer of its own (exactly its size, so the allocator
/// serves them from memory it has), joined once the last has come.
#[derive(Debug, Default)]
pub struct Encoder {
    parts: Vec<Vec<u8>>,
    bytes: usize,
    units: usize,
    /// A high surrogate that ended the last piece: its pair may follow.
    carry: Option<u16>,
    /// Whether a lone surrogate was written (the output is WTF-8).
    lone: bool,
    /// The memory id's hash of the output so far, for a call id (see
    /// [`Encoder::hashing`]).
    id: Option<(String, IdHasher)>,
}

impl Encoder {
    /// An encoder that also hashes its output for the memory id of
    /// `tool_call_id` (`ids::mem_id_for`), each piece as it is converted:
    /// the record then has its id without a pass over the payload.
    pub fn hashing(tool_call_id: String) -> Self {
        let hasher = IdHasher::new(&tool_call_id);
        Encoder {
            id: Some((tool_call_id, hasher)),
            ..Encoder::default()
        }
    }

    /// Keeps `out`, the next piece of the output (hashed, if hashing).
    fn keep(&mut self, out: Vec<u8>) {
        if let Some((_, h)) = &mut self.id {
            h.update(&out);
        }
        self.bytes += out.len();
        self.parts.push(out);
    }

    /// Converts the next units.
    pub fn push(&mut self, mut units: &[u16]) {
        if units.is_empty() {
            return;
        }
        self.units += units.len();
        // Room for the worst case: 3 bytes a unit, a carried surrogate's 3 more.
        let mut out = Vec::with_capacity(3 * units.len() + 3);
        if let Some(hi) = self.carry.take() {
            // The pair, or the carried unit alone (then lone).
            if push_one(&mut out, &[hi, units[0]], 0) == 2 {
                units = &units[1..];
            } else {
                self.lone = true;
            }
        }
        if let Some((&last, rest)) = units.split_last() {
            if HIGH.contains(&last) {
                self.carry = Some(last);
                units = rest;
            }
        }
        self.lone |= !convert(&mut out, units);
        out.shrink_to_fit();
        self.keep(out);
    }

    /// Converts the next units given as Latin-1, one byte a unit (a slice
    /// whose units are all at most U+00FF, copied narrow; see `Piece`).
    pub fn push_latin1(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.units += bytes.len();
        let ascii = simdutf::validate_ascii(bytes);
        // At most 2 bytes a unit, and a carried surrogate's 3; but the room
        // a UTF-16 slice gets (3 bytes a unit), cut to size below like
        // theirs. Sized exactly, these parts stayed resident in the
        // allocator: a fresh process recording 5 MB ASCII catalogs held 14
        // MB more after its first ten (RSS 23.3 MB over the payloads, against
        // 5.3 MB this way and 8.7 MB with UTF-16 slices), at the same speed.
        let mut out = Vec::with_capacity(3 * bytes.len() + 3);
        if let Some(hi) = self.carry.take() {
            // No low surrogate follows: the carried one is lone.
            self.lone = true;
            wtf8::push_code_point(&mut out, hi as u32);
        }
        if ascii {
            out.extend_from_slice(bytes);
        } else {
            let at = out.len();
            // SAFETY: `out` has room for 2 bytes a byte past `at`, the most
            // UTF-8 a Latin-1 character takes; the buffers do not overlap.
            let written = unsafe {
                simdutf::convert_latin1_to_utf8(bytes.as_ptr(), bytes.len(), out.as_mut_ptr().add(at))
            };
            assert!(written <= 2 * bytes.len(), "simdutf wrote past the room it had");
            // SAFETY: simdutf wrote `written` bytes of UTF-8 after `at`.
            unsafe { out.set_len(at + written) };
        }
        out.shrink_to_fit();
        self.keep(out);
    }

    /// The stored form of all the units pushed: `Ascii`, `Utf8` or `Wtf8`,
    /// exactly as [`super::from_utf16`] makes it for the whole, in a buffer
    /// of exactly its size.
    pub fn finish(self) -> Settled {
        self.finish_hashed().0
    }

    /// [`finish`](Self::finish), with the memory id of the output when
    /// hashing ([`hashing`](Self::hashing)).
    pub fn finish_hashed(mut self) -> (Settled, Option<HashedAhead>) {
        if let Some(hi) = self.carry.take() {
            self.lone = true;
            let mut last = Vec::with_capacity(3);
            wtf8::push_code_point(&mut last, hi as u32);
            self.keep(last);
        }
        let hashed = self.id.take().map(|(tool_call_id, h)| HashedAhead {
            tool_call_id,
            mem_id: h.finish(),
        });
        (self.settled(), hashed)
    }

    /// The joined pieces as their stored form.
    fn settled(self) -> Settled {
        let parts: Vec<&[u8]> = self.parts.iter().map(Vec::as_slice).collect();
        let out = super::halves::join(&parts, self.bytes);
        if self.lone {
            return Settled::Wtf8(out);
        }
        // Well-formed UTF-16 takes one UTF-8 byte a unit only when all ASCII.
        let ascii = out.len() == self.units;
        debug_assert!(std::str::from_utf8(&out).is_ok());
        // SAFETY: no lone surrogate was written: every piece was converted
        // by simdutf's validating conversion or narrowed as checked ASCII,
        // and every pair cut by a piece edge was joined above.
        let s = unsafe { String::from_utf8_unchecked(out) };
        if ascii {
            Settled::Ascii(s)
        } else {
            Settled::Utf8(s)
        }
    }
}

/// Appends the stored form of `units`, which do not end with a high
/// surrogate, to `out`, which has room for 3 bytes a unit; `false` when it
/// holds a lone surrogate (written losslessly as WTF-8).
fn convert(out: &mut Vec<u8>, units: &[u16]) -> bool {
    if units.is_empty() {
        return true;
    }
    let at = out.len();
    assert!(out.capacity() - at >= 3 * units.len(), "room for 3 bytes a unit");
    let spare = &mut out.spare_capacity_mut()[..units.len()];
    if is_ascii(&units[..units.len().min(ASCII_BLOCK)]) && narrow(units, spare) {
        // SAFETY: `narrow` checked every unit ASCII and wrote all of them.
        unsafe { out.set_len(at + units.len()) };
        return true;
    }
    // SAFETY: `out` has room for 3 bytes a unit past `at` (asserted above),
    // the most UTF-8 any UTF-16 unit takes; the buffers do not overlap.
    // simdutf validates as it converts: 0 when ill-formed (a valid
    // non-empty input writes at least one byte).
    let written =
        unsafe { simdutf::convert_utf16_to_utf8(units.as_ptr(), units.len(), out.as_mut_ptr().add(at)) };
    if written > 0 {
        assert!(written <= 3 * units.len(), "simdutf wrote past the room it had");
        // SAFETY: simdutf wrote `written` bytes of UTF-8 after `at`.
        unsafe { out.set_len(at + written) };
        return true;
    }
    // A lone surrogate: losslessly, as the whole string would be.
    let checked = simdutf::validate_utf16_with_errors(units);
    push_wtf8(out, units, checked.count);
    false
}

/// A slice for the thread, in a buffer of the crossing's free list.
enum Piece {
    /// UTF-16 units.
    Units(Vec<u16>),
    /// The first `len` bytes of the buffer's memory: Latin-1, one byte a unit.
    Latin1(Vec<u16>, usize),
}

/// A crossing's transcoder thread: give it the units in order ([`push`]
/// (Self::push)), then [`finish`](Self::finish) it for the stored form.
/// Dropped unfinished (a crossing abandoned), its thread is stopped and
/// joined: it has at most the slice it holds to finish.
pub struct Stream {
    tx: Option<Sender<Piece>>,
    worker: Option<JoinHandle<Encoder>>,
}

impl Stream {
    /// Starts the thread for a string; with `tool_call_id`, it hashes the
    /// output for that call's memory id as it goes ([`Encoder::hashing`]).
    pub fn start(tool_call_id: Option<String>) -> std::io::Result<Stream> {
        let chunks = recycle::chunks();
        // Slice buffers given back between two slices are kept for the next
        // one while this crossing lasts (see `recycle::Recycler::hold`).
        chunks.hold();
        let (tx, rx) = channel::<Piece>();
        let spawned = std::thread::Builder::new()
            .name("symfonic-transcode".into())
            .spawn(move || {
                let _held = Held;
                let mut enc = tool_call_id.map_or_else(Encoder::default, Encoder::hashing);
                for piece in rx {
                    let buf = match piece {
                        Piece::Units(units) => {
                            enc.push(&units);
                            units
                        }
                        Piece::Latin1(buf, len) => {
                            enc.push_latin1(latin1_bytes(&buf, len));
                            buf
                        }
                    };
                    recycle::chunks().give_back(buf);
                }
                enc
            });
        match spawned {
            Ok(worker) => Ok(Stream {
                tx: Some(tx),
                worker: Some(worker),
            }),
            Err(e) => {
                chunks.release();
                Err(e)
            }
        }
    }

    /// An empty buffer for a slice of up to `units` units (one of the free
    /// list's, pages mapped already, when it has one large enough).
    pub fn buffer(units: usize) -> Vec<u16> {
        recycle::chunks().take(units)
    }

    /// Hands the next units to the thread; `false` if it is gone (it panicked).
    pub fn push(&self, units: Vec<u16>) -> bool {
        self.send(Piece::Units(units))
    }

    /// Hands the next units to the thread as Latin-1: the first `len` bytes
    /// of `buf`'s memory (at most its capacity in bytes, all written; see
    /// [`latin1_room`]). `false` if the thread is gone.
    pub fn push_latin1(&self, buf: Vec<u16>, len: usize) -> bool {
        assert!(len <= 2 * buf.capacity(), "Latin-1 bytes within the buffer");
        self.send(Piece::Latin1(buf, len))
    }

    fn send(&self, piece: Piece) -> bool {
        self.tx.as_ref().is_some_and(|tx| tx.send(piece).is_ok())
    }

    /// Ends the input: the stored form, once the thread has converted all.
    pub fn finish(mut self) -> Streamed {
        self.tx = None;
        Streamed(self.worker.take().expect("a stream finishes once"))
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(worker) = self.worker.take() {
            // Its result (or panic) is nobody's: the crossing was abandoned.
            let _ = worker.join();
        }
    }
}

/// Releases the crossing's hold on the slice buffers when its thread ends.
struct Held;

impl Drop for Held {
    fn drop(&mut self) {
        recycle::chunks().release();
    }
}

/// The memory of a slice buffer as bytes, for a Latin-1 copy: the
/// buffer's whole capacity, 2 bytes a unit.
pub fn latin1_room(buf: &mut Vec<u16>) -> &mut [std::mem::MaybeUninit<u8>] {
    let bytes = 2 * buf.capacity();
    // SAFETY: the allocation holds `capacity` u16s, so `bytes` bytes, and u8
    // has no alignment; MaybeUninit makes no claim on their contents.
    unsafe { std::slice::from_raw_parts_mut(buf.as_mut_ptr().cast(), bytes) }
}

/// The `len` Latin-1 bytes written into `buf`'s memory (through [`latin1_room`]).
fn latin1_bytes(buf: &Vec<u16>, len: usize) -> &[u8] {
    assert!(len <= 2 * buf.capacity());
    // SAFETY: the first `len` bytes of the allocation were written (the
    // contract of `Stream::push_latin1`), within its `2 * capacity` bytes.
    unsafe { std::slice::from_raw_parts(buf.as_ptr().cast(), len) }
}

/// A string whose input has ended, its thread converting what is left.
pub struct Streamed(JoinHandle<Encoder>);

impl Streamed {
    /// Waits for the thread (a slice's conversion at most) and joins its
    /// pieces, here (on the libuv pool for an async record); a panic of the
    /// thread is resumed here. With the memory id, if the thread hashed.
    pub fn settle(self) -> (Settled, Option<HashedAhead>) {
        match self.0.join() {
            Ok(enc) => enc.finish_hashed(),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

impl std::fmt::Debug for Streamed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Streamed")
    }
}

#[cfg(test)]
mod tests;
