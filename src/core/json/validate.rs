//! Validity is simd-json's call: a full parse to its tape, reusing one set of
//! parse buffers per process so repeated records skip the page faults of
//! fresh multi-megabyte allocations.

use std::sync::Mutex;

use simd_json::{Buffers, Node, Tape};

/// Scratch kept between calls only while it stays this small (bytes, estimated).
const KEEP_MAX_BYTES: usize = 48 << 20;

struct Scratch {
    input: Vec<u8>,
    buffers: Buffers,
    tape: Vec<Node<'static>>,
}

impl Scratch {
    fn held_bytes(&self) -> usize {
        // Buffers keeps string/structural buffers of about 2× the input.
        self.input.capacity() * 3 + self.tape.capacity() * std::mem::size_of::<Node<'static>>()
    }
}

static SCRATCH: Mutex<Option<Scratch>> = Mutex::new(None);

/// Whether simd-json accepts `bytes` as one JSON document.
pub(crate) fn is_json(bytes: &[u8]) -> bool {
    let len = bytes.len();
    if len >= u32::MAX as usize - 2 * simd_json::INPUT_PADDING {
        return false;
    }
    // Another thread holding the scratch just means this call allocates its own.
    let mut slot = SCRATCH.try_lock().ok();
    let mut s = slot
        .as_mut()
        .and_then(|g| g.take())
        .unwrap_or_else(|| Scratch {
            input: Vec::new(),
            buffers: Buffers::new(len),
            tape: Vec::new(),
        });
    s.input.clear();
    s.input.reserve(len + simd_json::INPUT_PADDING);
    s.input.extend_from_slice(bytes);
    s.input.resize(len + simd_json::INPUT_PADDING, b' ');
    let mut tape: Tape<'_> = Tape(std::mem::take(&mut s.tape)).reset();
    let ok = simd_json::fill_tape_padded(&mut s.input, len, &mut s.buffers, &mut tape).is_ok();
    s.tape = tape.reset().0;
    if s.held_bytes() <= KEEP_MAX_BYTES {
        if let Some(g) = slot.as_mut() {
            **g = Some(s);
        }
    }
    ok
}
