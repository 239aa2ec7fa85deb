//! A long string crossing in slices: the JS entry (`lib/crossing.js`) hands
//! a string longer than a slice to `record` one slice per event-loop turn,
//! so that no turn copies more than a slice. Each slice is copied once,
//! either into one buffer of the whole string's units, transcoded after the
//! crossing (on the libuv pool, by `Payload::settle`), or into a slice
//! buffer given to the crossing's own transcoder thread, which converts it
//! while the next slices cross (`core::transcode::stream`). The JS side
//! chooses the second only when no other record is in flight (see
//! `lib/crossing.js`). A surrogate pair cut by a slice edge is whole again
//! either way.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::core::text::Payload;
use crate::core::transcode::{self, stream::Stream};
use crate::napi_text::{append_units, units_len};

enum Into {
    /// The whole string's units, transcoded once complete.
    Units(Vec<u16>),
    /// Transcoded slice by slice as it crosses.
    Stream(Stream),
}

/// Internal: a string that crosses in slices, given to `Ledger.record` as its
/// `content` once complete (which takes it).
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

impl Crossing {
    /// The crossed string, once: a second use is an error, not an empty payload.
    pub(crate) fn take(&mut self) -> Result<Payload> {
        Ok(match self.into.take().ok_or_else(recorded)? {
            Into::Units(units) => Payload::Utf16(units),
            Into::Stream(stream) => Payload::Streamed(stream.finish()),
        })
    }
}

#[napi]
impl Crossing {
    /// A crossing of a string of `units` UTF-16 units; with `stream`, its
    /// slices are transcoded as they cross, by a thread of its own.
    #[napi(constructor)]
    pub fn new(units: u32, stream: bool) -> Result<Self> {
        let into = if stream {
            Into::Stream(Stream::start().map_err(|e| {
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

    /// Appends the units of `part` (a string), copied once.
    #[napi]
    pub fn push(&mut self, env: Env, part: Unknown) -> Result<()> {
        let into = self.into.as_mut().ok_or_else(recorded)?;
        let (env, value) = (env.raw(), part.raw());
        // SAFETY: `value` is a live JS value of this call; a non-string fails the status check.
        let n = unsafe { units_len(env, value)? };
        match into {
            Into::Units(units) => unsafe { append_units(env, value, n, units) },
            Into::Stream(stream) => {
                let mut units = Stream::buffer(n + 1); // V8 writes a terminating NUL too
                                                       // SAFETY: as above.
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
}
