//! How text crosses the JS/Rust boundary, once: payloads in (a string's
//! UTF-16 units copied on the JS thread, a long one a slice per turn of the
//! event loop, [`Gathered`]; a Buffer held, `held_buffer.rs`, and copied off
//! it; both transcoded off the JS thread), arguments read losslessly, and
//! answers out (UTF-8 for well-formed text, UTF-16 units for text with lone
//! surrogates).

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::not_content;
use crate::held_buffer::HeldBuffer;
use symfonic_core::api::{self, check_content_len, LedgerError, Payload, Shared, Wtf8Buf};

/// A payload given to `record`, taken by [`Content::payload`] within the
/// call: a Buffer is kept alive and read where the record is settled; a
/// string's UTF-16 units are copied, the one copy the JS thread makes, into
/// a spare buffer whose pages are mapped (`transcode::spare`). Turning it
/// into its stored form is `Payload::settle`'s work, off the JS thread for
/// an async `record`.
pub struct Content {
    env: sys::napi_env,
    value: sys::napi_value,
}

impl Content {
    /// The payload; or the refusal of a Buffer over `MAX_CONTENT_BYTES`, by
    /// its length, before anything is read.
    pub(crate) fn payload(self) -> Result<std::result::Result<Payload, LedgerError>> {
        let (env, value) = (self.env, self.value);
        // SAFETY: `value` is an argument of the call still running.
        if let Some(bytes) = unsafe { buffer_bytes(env, value)? } {
            // A Buffer's bytes are never fewer once settled (an invalid byte
            // becomes 3): one over the limit is refused by its length alone.
            if let Err(e) = check_content_len(bytes.len()) {
                return Ok(Err(e));
            }
            // A short one is copied at the call (microseconds), so the caller may
            // reuse it at once; a long one must not change until its record settles.
            if bytes.len() <= api::INLINE_BYTES {
                return Ok(Ok(Payload::Bytes(bytes.to_vec())));
            }
            let held = unsafe { HeldBuffer::new(env, value)? };
            return Ok(Ok(Payload::Shared(Shared(Box::new(held)))));
        }
        // A long string gathered over several turns (`lib/crossing.js`).
        if let Some(gathered) = unsafe { gathered(env, value)? } {
            return Ok(Ok(Payload::Utf16(std::mem::take(&mut gathered.units))));
        }
        Ok(Ok(Payload::Utf16(unsafe { js_units(env, value)? })))
    }
}

/// A long string's UTF-16 units, copied a slice per turn of the event loop
/// (`lib/crossing.js`) into a spare buffer (`transcode::spare`), so that no
/// turn copies megabytes; `record` then takes them as its content. Its
/// buffer goes back to the spares if it is dropped untaken.
pub struct Gathered {
    units: Vec<u16>,
}

impl Drop for Gathered {
    fn drop(&mut self) {
        api::spare::give_back(std::mem::take(&mut self.units));
    }
}

/// Internal, for the JS entry: an empty gathering for a string of `len`
/// units. Not in the typings.
#[doc(hidden)]
#[napi(js_name = "__gather", skip_typescript)]
pub fn gather(len: u32) -> External<Gathered> {
    // One more unit for the terminating NUL that V8 writes.
    External::new(Gathered {
        units: api::spare::units(len as usize + 1),
    })
}

/// Internal, for the JS entry: appends the units of `part` (a slice of the
/// string, at most what is left of its length). Not in the typings.
#[doc(hidden)]
#[napi(js_name = "__gatherSlice", skip_typescript)]
pub fn gather_slice(gathered: &mut External<Gathered>, part: Content) -> Result<()> {
    let units = &mut gathered.units;
    let (at, room) = (units.len(), units.capacity() - units.len());
    let mut written = 0usize;
    // SAFETY: V8 writes at most `room` units (its NUL included) past `at`,
    // within the capacity; `part` is an argument of this call.
    check_status!(unsafe {
        sys::napi_get_value_string_utf16(
            part.env,
            part.value,
            units.as_mut_ptr().add(at),
            room,
            &mut written,
        )
    })?;
    // SAFETY: V8 wrote `written` units, fewer than `room` (the NUL is not counted).
    unsafe { units.set_len(at + written.min(room.saturating_sub(1))) };
    Ok(())
}

/// The gathering `value` is, if it is one.
unsafe fn gathered<'a>(env: sys::napi_env, value: sys::napi_value) -> Result<Option<&'a mut Gathered>> {
    let mut kind = 0;
    check_status!(unsafe { sys::napi_typeof(env, value, &mut kind) })?;
    if kind != sys::ValueType::napi_external {
        return Ok(None);
    }
    let external = unsafe { <External<Gathered> as FromNapiMutRef>::from_napi_mut_ref(env, value)? };
    Ok(Some(&mut **external))
}

impl TypeName for Content {
    fn type_name() -> &'static str {
        "string | Buffer"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

/// A Buffer's bytes, borrowed for the duration of the call.
unsafe fn buffer_bytes<'a>(env: sys::napi_env, value: sys::napi_value) -> Result<Option<&'a [u8]>> {
    let mut is_buffer = false;
    check_status!(unsafe { sys::napi_is_buffer(env, value, &mut is_buffer) })?;
    if !is_buffer {
        return Ok(None);
    }
    let mut data = std::ptr::null_mut();
    let mut len = 0usize;
    check_status!(unsafe { sys::napi_get_buffer_info(env, value, &mut data, &mut len) })?;
    Ok(Some(if len == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(data.cast(), len) }
    }))
}

impl FromNapiValue for Content {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        Ok(Content { env, value })
    }
}

/// A JS string's UTF-16 units, lone surrogates included: the one copy (a
/// memcpy for a string V8 holds as two-byte, a widening copy for a one-byte
/// one). The length query without a buffer is O(1).
unsafe fn js_units(env: sys::napi_env, value: sys::napi_value) -> Result<Vec<u16>> {
    let mut kind = 0;
    check_status!(unsafe { sys::napi_typeof(env, value, &mut kind) })?;
    if kind != sys::ValueType::napi_string {
        return Err(not_content());
    }
    let mut units = 0usize;
    check_status!(unsafe {
        sys::napi_get_value_string_utf16(env, value, std::ptr::null_mut(), 0, &mut units)
    })?;
    // One more unit for the terminating NUL that V8 writes.
    let mut out = api::spare::units(units + 1);
    let mut written = 0usize;
    check_status!(unsafe {
        sys::napi_get_value_string_utf16(env, value, out.as_mut_ptr(), units + 1, &mut written)
    })?;
    // SAFETY: V8 wrote `written` <= units units.
    unsafe { out.set_len(written.min(units)) };
    Ok(out)
}

/// Content for hashing only: a Buffer is read in place, not copied. The borrow
/// is only used inside the call that received it, while the JS value is alive.
pub struct ContentRef(pub(crate) std::borrow::Cow<'static, [u8]>);

impl TypeName for ContentRef {
    fn type_name() -> &'static str {
        "string | Buffer"
    }

    fn value_type() -> ValueType {
        ValueType::Unknown
    }
}

impl FromNapiValue for ContentRef {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        if let Some(bytes) = unsafe { buffer_bytes(env, value)? } {
            // Invalid UTF-8 hashes as the text `record` would store (U+FFFD for bad bytes).
            return Ok(ContentRef(match api::utf8_lossy(bytes) {
                std::borrow::Cow::Borrowed(_) => std::borrow::Cow::Borrowed(bytes),
                std::borrow::Cow::Owned(s) => std::borrow::Cow::Owned(s.into_bytes()),
            }));
        }
        // Sync by nature (an id is returned), with `record`'s transcoder.
        let units = unsafe { js_units(env, value)? };
        let bytes = api::from_utf16(&units).into_bytes();
        api::spare::give_back(units);
        Ok(ContentRef(std::borrow::Cow::Owned(bytes)))
    }
}

/// A JS string argument read losslessly (lone surrogates kept, as WTF-8).
pub struct JsStr(pub(crate) Wtf8Buf);

impl TypeName for JsStr {
    fn type_name() -> &'static str {
        "string"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ValidateNapiValue for JsStr {}

impl FromNapiValue for JsStr {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        let units = unsafe { js_units(env, value)? };
        let text = api::from_utf16(&units).into_wtf8_buf();
        api::spare::give_back(units);
        Ok(JsStr(text))
    }
}

/// A string answer for JS: well-formed text crosses as UTF-8 (V8's fast
/// decoder); text with lone surrogates as UTF-16 units, so they come back as
/// the same lone units that were recorded.
pub struct JsText(pub(crate) Wtf8Buf);

impl TypeName for JsText {
    fn type_name() -> &'static str {
        "string"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ToNapiValue for JsText {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let mut out = std::ptr::null_mut();
        let b = val.0.as_bytes();
        if val.0.is_utf8() {
            check_status!(unsafe {
                sys::napi_create_string_utf8(env, b.as_ptr().cast(), b.len() as isize, &mut out)
            })?;
        } else {
            let units = val.0.to_utf16();
            check_status!(unsafe {
                sys::napi_create_string_utf16(env, units.as_ptr(), units.len() as isize, &mut out)
            })?;
        }
        Ok(out)
    }
}
