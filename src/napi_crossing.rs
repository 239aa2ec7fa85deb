//! A long payload crossing in slices: the JS entry (`lib/crossing.js`) hands
//! a string or a Buffer longer than a slice to `record` one slice per
//! event-loop turn, so that no turn copies more than a slice (512 KiB). Each
//! slice is copied once. A string's slices go either into one buffer of the
//! whole string's units, transcoded after the crossing (on the libuv pool,
//! by `Payload::settle`), or into a slice buffer given to the crossing's own
//! transcoder thread, which converts it while the next slices cross
//! (`core::transcode::stream`); the JS side chooses the second only when no
//! other record is in flight (see `lib/crossing.js`). A surrogate pair cut
//! by a slice edge is whole again either way. A Buffer's slices go into
//! recycled slice buffers, joined and validated on the pool like any
//! Buffer's bytes (`core::transcode::pieces`; a UTF-8 sequence cut by a
//! slice edge is whole again there).

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::napi_text::{append_units, buffer_bytes, copy_latin1, units_len};
use symfonic_core::text::Payload;
use symfonic_core::transcode::{self, pieces::Pieces, stream::Stream};

enum Into {
    /// The whole string's units, transcoded once complete.
    Units(Vec<u16>),
    /// Transcoded slice by slice as it crosses.
    Stream(Stream),
    /// A Buffer's bytes, `len` of them expected.
    Bytes { pieces: Pieces, len: usize },
}

/// Internal: a string or a Buffer that crosses in slices, given to
/// `Ledger.record` as its `content` once complete (which takes it).
#[napi(js_name = "__Crossing")]
pub struct Crossing {
    into: Option<Into>,
}

fn recorded() -> Error {
    Error::new(
        Status::InvalidArg,
        "content: this crossing was already recorded".to_string(),
    )
}

/// A Buffer whose length changed while it crossed: detached (its memory
/// transferred) or resized before its record settled.
fn resized(len: usize, got: usize) -> Error {
    Error::new(
        Status::InvalidArg,
        format!(
            "content: the Buffer of {len} bytes changed length while it crossed ({got} bytes came): \
             it was detached, transferred or resized before its record settled"
        ),
    )
}

impl Crossing {
    /// The crossed string, once: a second use is an error, not an empty payload.
    pub(crate) fn take(&mut self) -> Result<Payload> {
        Ok(match self.into.take().ok_or_else(recorded)? {
            Into::Units(units) => Payload::Utf16(units),
            Into::Stream(stream) => Payload::Streamed(stream.finish()),
            Into::Bytes { pieces, len } if pieces.len() == len => Payload::Pieces(pieces),
            Into::Bytes { pieces, len } => return Err(resized(len, pieces.len())),
        })
    }
}

#[napi]
impl Crossing {
    /// A crossing of a string of `units` UTF-16 units; with `stream`, its
    /// slices are transcoded as they cross, by a thread of its own, which
    /// also hashes them for the memory id of `toolCallId` when given (the
    /// record uses that id only for the same call id).
    #[napi(constructor)]
    pub fn new(units: u32, stream: bool, tool_call_id: Option<String>) -> Result<Self> {
        let into = if stream {
            Into::Stream(Stream::start(tool_call_id).map_err(|e| {
                Error::new(
                    Status::GenericFailure,
                    format!("content: could not start the transcoding thread ({e})"),
                )
            })?)
        } else {
            Into::Units(transcode::recycle::take(units as usize + 1))
        };
        Ok(Crossing { into: Some(into) })
    }

    /// A crossing of a Buffer of `len` bytes, copied slice by slice.
    #[napi(factory)]
    pub fn of_bytes(len: u32) -> Self {
        Crossing {
            into: Some(Into::Bytes {
                pieces: Pieces::new(),
                len: len as usize,
            }),
        }
    }

    /// Appends `part`, copied once: the units of a string, or the bytes of a
    /// Buffer for a crossing made by `ofBytes`.
    #[napi]
    pub fn push(&mut self, env: Env, part: Unknown) -> Result<()> {
        let into = self.into.as_mut().ok_or_else(recorded)?;
        let (env, value) = (env.raw(), part.raw());
        match into {
            // SAFETY (all three): `value` is a live JS value of this call; a
            // value of the wrong kind fails the status or Buffer check.
            Into::Bytes { pieces, len } => unsafe { append_bytes(env, value, pieces, *len) },
            Into::Units(units) => unsafe {
                let n = units_len(env, value)?;
                append_units(env, value, n, units)
            },
            Into::Stream(stream) => {
                let n = unsafe { units_len(env, value)? };
                let mut units = Stream::buffer(n + 1); // V8 writes a terminating NUL too
                unsafe { append_units(env, value, n, &mut units)? };
                if stream.push(units) {
                    Ok(())
                } else {
                    Err(Error::new(
                        Status::GenericFailure,
                        "content: the transcoding thread stopped".to_string(),
                    ))
                }
            }
        }
    }

    /// Appends `part`, a string whose units are all at most U+00FF (the
    /// caller checked), copied once as Latin-1: for a crossing whose slices
    /// are transcoded as they cross.
    #[napi]
    pub fn push_latin1(&mut self, env: Env, part: Unknown) -> Result<()> {
        let Some(Into::Stream(stream)) = self.into.as_mut() else {
            return Err(Error::new(
                Status::InvalidArg,
                "content: a Latin-1 slice for a crossing that does not stream".to_string(),
            ));
        };
        let (env, value) = (env.raw(), part.raw());
        // SAFETY: `value` is a live JS value of this call; a value of the
        // wrong kind fails the status check.
        let n = unsafe { units_len(env, value)? };
        let mut buf = Stream::buffer(n / 2 + 1);
        let len = unsafe { copy_latin1(env, value, n, &mut buf)? };
        if stream.push_latin1(buf, len) {
            Ok(())
        } else {
            Err(Error::new(
                Status::GenericFailure,
                "content: the transcoding thread stopped".to_string(),
            ))
        }
    }
}

/// Appends the bytes of the Buffer `value` to `pieces`, which may hold `len`
/// bytes in all.
unsafe fn append_bytes(
    env: sys::napi_env,
    value: sys::napi_value,
    pieces: &mut Pieces,
    len: usize,
) -> Result<()> {
    // SAFETY: the caller's; the borrow ends with this call.
    let Some(part) = (unsafe { buffer_bytes(env, value)? }) else {
        return Err(Error::new(
            Status::InvalidArg,
            "content: a Buffer crossing takes Buffer slices".to_string(),
        ));
    };
    if pieces.len() + part.len() > len {
        return Err(resized(len, pieces.len() + part.len()));
    }
    pieces.push(part);
    Ok(())
}
