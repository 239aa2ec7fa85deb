//! A long string crossing in slices: the JS entry (`lib/ledger.js`) hands a
//! string longer than a slice to `record` one slice per event-loop turn, each
//! copied straight into one buffer of the whole string's UTF-16 units, so no
//! turn of the event loop copies (and page-faults) more than a slice. A
//! surrogate pair cut by a slice edge is whole again in the buffer.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::core::transcode;

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
        let mut n = 0usize;
        // SAFETY: `value` is a live JS value of this call; a non-string fails the status check.
        check_status!(unsafe {
            sys::napi_get_value_string_utf16(env, value, std::ptr::null_mut(), 0, &mut n)
        })?;
        units.reserve(n + 1);
        let len = units.len();
        let mut written = 0usize;
        // SAFETY: room for `n` units and V8's terminating NUL was reserved past `len`.
        check_status!(unsafe {
            sys::napi_get_value_string_utf16(env, value, units.as_mut_ptr().add(len), n + 1, &mut written)
        })?;
        // SAFETY: V8 wrote `written` <= n units after `len`.
        unsafe { units.set_len(len + written.min(n)) };
        Ok(())
    }
}
