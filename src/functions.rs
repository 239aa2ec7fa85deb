//! The package's free functions and constants: the ones outside the
//! `Ledger` class (`mem_id_for`, `cap_recall_output`), the limits and
//! defaults it exports, and the internal ones the JS entry calls.

use std::time::Duration;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{guard, ledger_error, Code};
use crate::ledger::{self, max_output};
use crate::text::{ContentRef, JsStr, JsText};
use symfonic_core::api::{
    self, cap_output, Deadline, LedgerError, StoreError, DEFAULT_TIMEOUT, MAX_CONTENT_BYTES as MAX_CONTENT,
    MAX_NAMESPACE_CHARS as MAX_NAMESPACE, MAX_OUTPUT_CHARS as MAX_OUT,
};

/// The cap on what `recall` returns, in code points, marker included.
#[napi]
pub const MAX_OUTPUT_CHARS: u32 = MAX_OUT as u32;

/// The default `maxBytes` of a ledger (256 MiB).
#[napi]
pub const DEFAULT_MAX_BYTES: u32 = api::DEFAULT_MAX_BYTES as u32;

/// The default `timeoutMs` of a ledger with a store (5000).
#[napi]
pub const DEFAULT_TIMEOUT_MS: u32 = DEFAULT_TIMEOUT.as_millis() as u32;

/// The most bytes of UTF-8 `record` accepts (4,000,000,000); a Buffer longer
/// than this is refused by its length, before anything is copied.
#[napi]
pub const MAX_CONTENT_BYTES: u32 = MAX_CONTENT as u32;

/// The most code points a namespace may have (1,024); `record` refuses a
/// longer one at the call (`ERR_SYMFONIC_NAMESPACE_TOO_LONG`).
#[napi]
pub const MAX_NAMESPACE_CHARS: u32 = MAX_NAMESPACE as u32;

/// The memory id `record` would give `(toolCallId, content)`, without recording:
/// `trm_` + 12 lowercase hex, the same in any process on any day.
#[napi(catch_unwind)]
pub fn mem_id_for(
    tool_call_id: String,
    #[napi(ts_arg_type = "string | Buffer")] content: ContentRef,
) -> Result<String, Code> {
    guard(|| Ok(api::mem_id_for(&tool_call_id, &content.0)))
}

/// Cuts a recall answer to `maxOutputChars` code points, marker included (for
/// answers from ledgers written in JS; the native Ledger cuts in `recall`).
/// `contiguousFrom`: the payload offset the text starts at, when it is a contiguous part.
/// Lone surrogates in `text` are kept (the cut never splits a pair).
#[napi(ts_return_type = "string", catch_unwind)]
pub fn cap_recall_output(
    #[napi(ts_arg_type = "string")] text: JsStr,
    mem_id: String,
    max_output_chars: Option<f64>,
    contiguous_from: Option<f64>,
) -> Result<JsText, Code> {
    guard(|| {
        let from = contiguous_from.map(|x| x as usize);
        Ok(JsText(cap_output(
            &text.0,
            &mem_id,
            max_output(max_output_chars),
            from,
        )))
    })
}

/// Internal, for the JS entry: throws the error of a record that waited for
/// its turn among the records in flight (`lib/in-flight.js`) past its bound of
/// `timeoutMs`; it never reached the store. Not in the typings.
#[doc(hidden)]
#[napi(js_name = "__queueTimeout", skip_typescript, catch_unwind)]
pub fn queue_timeout(timeout_ms: f64) -> Result<(), Code> {
    guard(|| {
        let bound = Duration::from_micros((timeout_ms.max(0.0) * 1000.0).ceil() as u64);
        let waited = "waiting for the records in flight ahead of it";
        let e = StoreError::timeout("put", waited, &Deadline::after(bound), false);
        Err(ledger_error("Ledger.record(input)", LedgerError::Store(e)))
    })
}

/// Internal, for `recall` over a ledger written in JS (or one it need not
/// ask): the answer `kind` (`notFound`, `closed` or `failed`) for `memId` in
/// `namespace`, worded as the native ledger words it. Not in the typings.
#[doc(hidden)]
#[napi(js_name = "__recallAnswer", skip_typescript, catch_unwind)]
pub fn recall_answer(kind: String, mem_id: String, namespace: Option<String>) -> Result<String, Code> {
    guard(|| {
        Ok(match kind.as_str() {
            "notFound" => api::not_found(&mem_id, &ledger::namespace(namespace)),
            "closed" => api::closed(&mem_id),
            _ => api::fetch_failed(&mem_id),
        })
    })
}
