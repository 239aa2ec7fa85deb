//! simd-json's stage 1 (its SIMD structural scan) as a feed of structural
//! byte offsets, one chunk of the payload at a time.
//!
//! Stage 1 finds, 64 bytes per step, every `{ } [ ] : ,` outside strings,
//! every opening quote, and the first byte of every other token (numbers,
//! `true`…), and checks UTF-8, raw control characters inside strings and
//! string termination. simd-json 0.19 exposes it only through a full parse
//! (`fill_tape_padded`), whose stage 2 would build a tape and unescape
//! strings in place, which we neither need nor can afford (payloads are
//! immutable, and the tape costs 3–4× our whole index pass). So each chunk
//! is copied behind a `[` into a small reused buffer and parsed with
//! `max_depth` 0: stage 1 runs over the whole chunk, then stage 2 stops at
//! that first `[` with `DepthLimitExceeded` before touching anything, and
//! `Buffers::structural_indexes` holds stage 1's offsets. Any other error is
//! stage 1's refusal.
//!
//! Why chunks: one copy of a 5 MB payload into fresh memory costs more in
//! page faults than stage 1 itself (and simd-json's offset vector for the
//! whole document is another 6 MB); a 64 KB chunk stays in L2, buffers and
//! all. A chunk must start outside any string, right after a structural
//! byte (the `[` in front stands for it). The walk starts at such places,
//! and each chunk ends just past a `,`, `[` or `]` found after `CHUNK`
//! bytes: if that byte was inside a string, stage 1 ends the chunk inside a
//! string and refuses it, and the chunk is retried twice as long. A refusal
//! of the rest of the payload is a real one (unterminated string, control
//! character, invalid UTF-8).
//!
//! Stage 1 does not check escapes, so each accepted chunk's backslashes are
//! checked here, in order: inside strings each starts an escape, and one
//! outside a string is an error the grammar reports anyway.

use simd_json::{fill_tape_padded, Buffers, ErrorType, Tape, INPUT_PADDING};

/// Payload bytes per stage-1 call (then up to the next cut byte).
pub(super) const CHUNK: usize = 64 << 10;

/// Stage-1 offsets of a payload, chunk by chunk (see the module docs).
pub(crate) struct Structurals<'b> {
    b: &'b [u8],
    /// Where the next chunk starts.
    next: usize,
    /// `[`, the chunk, then simd-json's padding.
    buf: Vec<u8>,
    bufs: Option<Buffers>,
    /// Reused empty tape (stage 2 never writes to it).
    tape: Option<Tape<'static>>,
}

impl<'b> Structurals<'b> {
    pub(super) fn new(b: &'b [u8]) -> Self {
        Structurals {
            b,
            next: 0,
            buf: Vec::new(),
            bufs: None,
            tape: None,
        }
    }

    /// The next chunk starts at `at`, which is outside strings and is a
    /// structural byte or follows one or whitespace.
    pub(super) fn restart(&mut self, at: usize) {
        self.next = at;
    }

    /// The next chunk's structural offsets: `(start, offsets)`, where offset
    /// `o` is payload position `start + o - 1`. `None` past the end,
    /// `Some(Err(()))` when the payload is not JSON.
    pub(super) fn next_chunk(&mut self) -> Option<Result<(usize, &[u32]), ()>> {
        let b = self.b;
        let start = self.next;
        if start >= b.len() {
            return None;
        }
        let mut want = CHUNK;
        let end = loop {
            let target = start.saturating_add(want);
            let end = match b.get(target..).and_then(|t| memchr::memchr3(b',', b'[', b']', t)) {
                Some(k) => target + k + 1,
                None => b.len(),
            };
            if self.stage1(start, end) {
                break end;
            }
            if end == b.len() {
                return Some(Err(()));
            }
            want = (end - start) * 2;
        };
        if !escapes_ok(&b[start..end]) {
            return Some(Err(()));
        }
        self.next = end;
        let offsets = self.bufs.as_ref()?.structural_indexes();
        Some(Ok((start, offsets.get(1..).unwrap_or(&[]))))
    }

    /// Runs stage 1 over `[` + `b[start..end]`; `false` = refused.
    fn stage1(&mut self, start: usize, end: usize) -> bool {
        let chunk = &self.b[start..end];
        let len = chunk.len() + 1;
        self.buf.clear();
        self.buf.reserve(len + INPUT_PADDING);
        self.buf.push(b'[');
        self.buf.extend_from_slice(chunk);
        self.buf.resize(len + INPUT_PADDING, b' ');
        let bufs = self
            .bufs
            .get_or_insert_with(|| Buffers::with_max_depth(len.min(CHUNK + 4096), 0));
        let mut tape = self.tape.take().unwrap_or_else(Tape::null).reset();
        let r = fill_tape_padded(&mut self.buf, len, bufs, &mut tape);
        self.tape = Some(tape.reset());
        matches!(r, Err(e) if *e.error() == ErrorType::DepthLimitExceeded)
            && bufs.structural_indexes().first() == Some(&0)
    }
}

/// Every backslash of `s` starts a valid escape (`\uXXXX` may be any code
/// unit, lone surrogates included, as `JSON.parse` accepts).
fn escapes_ok(s: &[u8]) -> bool {
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'\\', &s[i..]) {
        let p = i + k;
        i = match s.get(p + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => p + 2,
            Some(b'u')
                if s.get(p + 2..p + 6)
                    .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) =>
            {
                p + 6
            }
            _ => return false,
        };
    }
    true
}
