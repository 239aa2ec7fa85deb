//! A long string crossing in slices: the JS entry (`lib/ledger.js`) hands a
//! string longer than a slice to `record` one slice per event-loop turn, each
//! copied straight into one buffer of the whole string's UTF-16 units, so no
//! turn of the event loop copies (and page-faults) more than a slice. A
//! surrogate pair cut by a slice edge is whole again in the buffer.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::core::transcode;
use crate::napi_text::{append_units, units_len};

/// Internal: the UTF-16 units of a string that crosses in slices, given to
/// `Ledger.record` as its `content` once complete (which takes them).
#[napi(js_name = "__Crossing")]
pub struct Crossing {
    units: Option<Vec<u16>>,
}

impl Crossing {
    /// The units, once: a second use is an error, not an empty payload.
    pub(crate) fn take(&mut self) -> Result<Vec<u16>> {
        self.units.take().ok_or_else(|| {
            Error::new(
                Status::InvalidArg,
                "content: this crossing was already recorded".to_string(),
            )
        })
    }
}

#[napi]
impl Crossing {
    /// A crossing with room for `units` UTF-16 units.
    #[napi(constructor)]
    pub fn new(units: u32) -> Self {
        Crossing {
            units: Some(transcode::recycle::take(units as usize + 1)),
        }
    }

    /// Appends the units of `part` (a string), copied once.
    #[napi]
    pub fn push(&mut self, env: Env, part: Unknown) -> Result<()> {
        let units = self.units.as_mut().ok_or_else(|| {
            Error::new(
                Status::InvalidArg,
                "this crossing was already recorded".to_string(),
            )
        })?;
        let (env, value) = (env.raw(), part.raw());
        // SAFETY: `value` is a live JS value of this call; a non-string fails the status check.
        unsafe {
            let n = units_len(env, value)?;
            append_units(env, value, n, units)?;
        }
        Ok(())
    }
}
