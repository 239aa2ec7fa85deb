//! How text crosses the JS/Rust boundary, once: payloads in (a Buffer's
//! bytes copied, a string's UTF-16 units copied, both transcoded later, off
//! the JS thread), arguments read losslessly, and answers out (UTF-8 for
//! well-formed text, UTF-16 units for text with lone surrogates).

use napi::bindgen_prelude::*;

use crate::napi_crossing::Crossing;
use symfonic_core::ledger::{check_content_len, LedgerError};
use symfonic_core::text::Payload;
use symfonic_core::transcode;
use symfonic_core::wtf8::Wtf8Buf;

/// A payload crossing into Rust: the one copy the JS thread makes, and
/// nothing more. A Buffer's bytes are copied as they are (validated later);
/// a JS string's UTF-16 units are copied out (see [`js_units`]). Turning
/// either into its stored form is `Payload::settle`'s work, which an async
/// `record` runs on the libuv pool: the JS thread no longer pays V8's UTF-8
/// length pass, its UTF-8 encoder, nor the U+FFFD check and re-read that
/// lone surrogates needed (measured on a 5 MB payload: 5.9 to 12.4 ms before).
pub struct Content(std::result::Result<Payload, usize>);

impl Content {
    /// The payload, or the refusal of a Buffer over `MAX_CONTENT_BYTES`,
    /// which was measured and never copied.
    pub(crate) fn payload(self) -> std::result::Result<Payload, LedgerError> {
        self.0.map_err(|bytes| LedgerError::ContentTooLarge { bytes })
    }
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
pub(crate) unsafe fn buffer_bytes<'a>(
    env: sys::napi_env,
    value: sys::napi_value,
) -> Result<Option<&'a [u8]>> {
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

fn not_content() -> Error {
    Error::new(
        Status::InvalidArg,
        "content must be a string or a Buffer".to_string(),
    )
}

impl FromNapiValue for Content {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        if let Some(bytes) = unsafe { buffer_bytes(env, value)? } {
            // A Buffer's bytes are never fewer once settled (an invalid byte
            // becomes 3): one over the limit is refused by its length alone.
            if check_content_len(bytes.len()).is_err() {
                return Ok(Content(Err(bytes.len())));
            }
            return Ok(Content(Ok(Payload::Bytes(bytes.to_vec()))));
        }
        let mut kind = 0;
        check_status!(unsafe { sys::napi_typeof(env, value, &mut kind) })?;
        if kind == sys::ValueType::napi_object {
            // A string that crossed in slices (see `napi_crossing`); any other
            // object fails the class's type-tag check.
            let mut crossing = unsafe { ClassInstance::<Crossing>::from_napi_value(env, value) }
                .map_err(|_| not_content())?;
            return Ok(Content(Ok(crossing.take()?)));
        }
        unsafe { js_units(env, value) }.map(|units| Content(Ok(Payload::Utf16(units))))
    }
}

/// A JS string's UTF-16 units, lone surrogates included: the one copy. The
/// length query without a buffer is O(1) (no pass over the string); the copy
/// is a memcpy for a string V8 holds as two-byte, a widening copy for a
/// one-byte one. (N-API cannot tell which a string is, so a narrower copy of
/// one-byte strings cannot be chosen safely: `napi_get_value_string_latin1`
/// would silently truncate a two-byte string.)
unsafe fn js_units(env: sys::napi_env, value: sys::napi_value) -> Result<Vec<u16>> {
    let mut kind = 0;
    check_status!(unsafe { sys::napi_typeof(env, value, &mut kind) })?;
    if kind != sys::ValueType::napi_string {
        return Err(not_content());
    }
    let units = unsafe { units_len(env, value)? };
    // One more unit for the terminating NUL that V8 writes. A recycled buffer
    // has its pages mapped already (see `transcode::recycle`).
    let mut wide = transcode::recycle::take(units + 1);
    unsafe { append_units(env, value, units, &mut wide)? };
    Ok(wide)
}

/// The number of UTF-16 units of the JS string `value` (O(1), no pass over it).
pub(crate) unsafe fn units_len(env: sys::napi_env, value: sys::napi_value) -> Result<usize> {
    let mut units = 0usize;
    check_status!(unsafe {
        sys::napi_get_value_string_utf16(env, value, std::ptr::null_mut(), 0, &mut units)
    })?;
    Ok(units)
}

/// Appends the `units` UTF-16 units of the JS string `value` to `out`: the one
/// copy, written by V8 straight into `out`'s spare capacity.
pub(crate) unsafe fn append_units(
    env: sys::napi_env,
    value: sys::napi_value,
    units: usize,
    out: &mut Vec<u16>,
) -> Result<()> {
    out.reserve(units + 1); // V8 writes a terminating NUL too
    let len = out.len();
    let mut written = 0usize;
    // SAFETY: room for `units` + 1 units was reserved past `len`.
    check_status!(unsafe {
        sys::napi_get_value_string_utf16(env, value, out.as_mut_ptr().add(len), units + 1, &mut written)
    })?;
    // SAFETY: V8 wrote `written` <= units units after `len`.
    unsafe { out.set_len(len + written.min(units)) };
    Ok(())
}

/// Copies the `len` units of the JS string `value`, all at most U+00FF (the
/// caller checked), as Latin-1 into `buf`'s memory, one byte a unit; returns
/// the number written. For a string V8 holds as one-byte this is a memcpy of
/// half the bytes of the UTF-16 copy. (A unit above U+00FF would be
/// truncated, hence the caller's check.)
pub(crate) unsafe fn copy_latin1(
    env: sys::napi_env,
    value: sys::napi_value,
    len: usize,
    buf: &mut Vec<u16>,
) -> Result<usize> {
    // One more byte for the terminating NUL that V8 writes.
    buf.reserve(len / 2 + 1);
    let room = transcode::stream::latin1_room(buf);
    let mut written = 0usize;
    // SAFETY: `room` is `buf`'s memory, at least `len + 1` bytes.
    check_status!(unsafe {
        sys::napi_get_value_string_latin1(env, value, room.as_mut_ptr().cast(), len + 1, &mut written)
    })?;
    Ok(written.min(len))
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
            return Ok(ContentRef(match transcode::utf8_lossy(bytes) {
                std::borrow::Cow::Borrowed(_) => std::borrow::Cow::Borrowed(bytes),
                std::borrow::Cow::Owned(s) => std::borrow::Cow::Owned(s.into_bytes()),
            }));
        }
        // Sync by nature (an id is returned), with `record`'s transcoder.
        let units = unsafe { js_units(env, value)? };
        let bytes = transcode::from_utf16(&units).into_bytes();
        transcode::recycle::give_back(units);
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
        let text = transcode::from_utf16(&units).into_wtf8_buf();
        transcode::recycle::give_back(units);
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
