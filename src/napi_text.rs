//! How text crosses the JS/Rust boundary, once: payloads in (a Buffer's
//! bytes copied, a string converted by V8 straight into Rust's buffer,
//! losslessly), arguments read without U+FFFD, and answers out (UTF-8 for
//! well-formed text, UTF-16 units for text with lone surrogates).

use napi::bindgen_prelude::*;

use crate::core::text::Payload;
use crate::core::wtf8::{self, Wtf8Buf};

/// A payload crossing into Rust: the one copy it ever makes. A Buffer's bytes
/// are copied, never passed through a JS string; a JS string is converted by
/// V8 straight into an exactly sized buffer. (Reserving the 3-byte worst case
/// to save V8's length pass was measured slower: a 15 MB reservation is a
/// fresh mapping whose pages all fault on first write.)
pub struct Content(pub(crate) Payload);

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

/// `String::from_utf8_lossy`, with `from_utf8`'s ASCII fast path first (the
/// lossy scan alone is several times slower on valid multi-megabyte input).
fn utf8_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    }
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
            return Ok(Content(Payload::Utf8(utf8_lossy(bytes).into_owned())));
        }
        unsafe { js_string(env, value) }.map(Content)
    }
}

/// A JS string, losslessly, in as few passes as V8 allows: its UTF-8 length
/// is one pass; when that equals its UTF-16 length the string is ASCII, and
/// the Latin-1 copy (a plain narrowing copy in V8) is already its UTF-8.
/// Otherwise V8 writes UTF-8, with each lone surrogate as U+FFFD; so only a
/// string whose UTF-8 holds U+FFFD can have one, and only such a string is
/// read again, as UTF-16 units, and kept as WTF-8 if it does (see `core::wtf8`).
unsafe fn js_string(env: sys::napi_env, value: sys::napi_value) -> Result<Payload> {
    let mut kind = 0;
    check_status!(unsafe { sys::napi_typeof(env, value, &mut kind) })?;
    if kind != sys::ValueType::napi_string {
        return Err(not_content());
    }
    let (mut units, mut bytes, mut written) = (0usize, 0usize, 0usize);
    check_status!(unsafe {
        sys::napi_get_value_string_utf16(env, value, std::ptr::null_mut(), 0, &mut units)
    })?;
    check_status!(unsafe {
        sys::napi_get_value_string_utf8(env, value, std::ptr::null_mut(), 0, &mut bytes)
    })?;
    let mut buf: Vec<u8> = Vec::with_capacity(bytes + 1);
    let out = buf.as_mut_ptr().cast();
    // Every non-ASCII UTF-16 unit takes more than one UTF-8 byte (a lone
    // surrogate becomes the 3-byte U+FFFD), so equal lengths mean ASCII.
    let ascii = bytes == units;
    if ascii {
        check_status!(unsafe {
            sys::napi_get_value_string_latin1(env, value, out, bytes + 1, &mut written)
        })?;
    } else {
        check_status!(unsafe { sys::napi_get_value_string_utf8(env, value, out, bytes + 1, &mut written) })?;
    }
    // SAFETY: V8 wrote `written` <= bytes bytes.
    unsafe { buf.set_len(written) };
    if ascii {
        debug_assert!(buf.is_ascii());
        // SAFETY: ASCII bytes (see above) are UTF-8.
        return Ok(Payload::Ascii(unsafe { String::from_utf8_unchecked(buf) }));
    }
    if memchr::memmem::find(&buf, "\u{FFFD}".as_bytes()).is_some() {
        let mut wide: Vec<u16> = Vec::with_capacity(units + 1);
        check_status!(unsafe {
            sys::napi_get_value_string_utf16(env, value, wide.as_mut_ptr(), units + 1, &mut written)
        })?;
        // SAFETY: V8 wrote `written` <= units units.
        unsafe { wide.set_len(written) };
        let (wtf8, lone) = wtf8::from_utf16(&wide);
        if lone {
            return Ok(Payload::Wtf8(wtf8));
        }
    }
    // Checking is cheap insurance on this (already slower) path and keeps `String` honest.
    Ok(match String::from_utf8(buf) {
        Ok(s) => Payload::Utf8(s),
        Err(e) => Payload::Utf8(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    })
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
            return Ok(ContentRef(match utf8_lossy(bytes) {
                std::borrow::Cow::Borrowed(_) => std::borrow::Cow::Borrowed(bytes),
                std::borrow::Cow::Owned(s) => std::borrow::Cow::Owned(s.into_bytes()),
            }));
        }
        let bytes = match unsafe { js_string(env, value)? } {
            Payload::Ascii(s) | Payload::Utf8(s) => s.into_bytes(),
            Payload::Wtf8(b) => b,
        };
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
        Ok(JsStr(match unsafe { js_string(env, value)? } {
            Payload::Ascii(s) | Payload::Utf8(s) => Wtf8Buf::from_string(s),
            Payload::Wtf8(b) => Wtf8Buf::from_bytes(b, false),
        }))
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
