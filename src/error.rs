//! Maps engine errors to JS errors, in one place. Model-facing calls never get
//! here: they answer with `[...]` strings. What reaches this module is a
//! programmer's mistake, a refusal the caller must see, or a panic, which
//! becomes a JS error instead of unwinding into Node (undefined behaviour,
//! in practice an abort of the whole process).

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::{FromNapiValue, JsError, Unknown};
use napi::{Env, Error, Status};

use symfonic_core::api::{Ledger, LedgerError, StoreError};

/// The `code` of a JS error thrown by the addon: one of napi-rs's statuses, or
/// one of this package's `ERR_SYMFONIC_*` codes. napi-rs puts the status string
/// of an `Error<S>` on the JS error's `code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    Napi(Status),
    MemIdCollision,
    NamespaceTooLong,
    ContentTooLarge,
    Store,
    StoreTimeout,
    Closed,
    Internal,
}

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        match self {
            Code::Napi(s) => s.as_ref(),
            Code::MemIdCollision => "ERR_SYMFONIC_MEM_ID_COLLISION",
            Code::NamespaceTooLong => "ERR_SYMFONIC_NAMESPACE_TOO_LONG",
            Code::ContentTooLarge => "ERR_SYMFONIC_CONTENT_TOO_LARGE",
            Code::Store => "ERR_SYMFONIC_STORE",
            Code::StoreTimeout => "ERR_SYMFONIC_STORE_TIMEOUT",
            Code::Closed => "ERR_SYMFONIC_CLOSED",
            Code::Internal => "ERR_SYMFONIC_INTERNAL",
        }
    }
}

/// What the addon's entry points return (`Result<T, Code>` in their signatures,
/// which napi-derive recognises by name): the error carries its JS `code`.
pub type JsResult<T> = napi::Result<T, Code>;

/// An engine error of the call `method` as a JS `Error` with a stable `code`.
/// The marker stays a prefix of the message too, for callers that matched on
/// it before `code`.
pub fn ledger_error(method: &str, e: LedgerError) -> Error<Code> {
    let code = match e {
        LedgerError::Collision { .. } => Code::MemIdCollision,
        LedgerError::NamespaceTooLong { .. } => Code::NamespaceTooLong,
        LedgerError::ContentTooLarge { .. } => Code::ContentTooLarge,
        LedgerError::Store(ref e) if e.timed_out => Code::StoreTimeout,
        LedgerError::Store(_) => Code::Store,
        LedgerError::Closed => return closed_error(method),
    };
    Error::new(code, format!("{}: {e}", code.as_ref()))
}

/// A failed lookup or removal of the call `method` on `ledger`: closed once
/// the ledger is shut (its store released under the call), else the store's error.
pub fn call_error(method: &str, ledger: &Ledger, e: StoreError) -> Error<Code> {
    if ledger.is_shut() {
        closed_error(method)
    } else {
        store_error(e)
    }
}

/// A failed store operation (open, read, delete, clear) as a JS `Error` with
/// `code` `ERR_SYMFONIC_STORE`, or `ERR_SYMFONIC_STORE_TIMEOUT` when it had no
/// answer within its bound; a failed record comes through [`ledger_error`].
pub fn store_error(e: StoreError) -> Error<Code> {
    let code = if e.timed_out {
        Code::StoreTimeout
    } else {
        Code::Store
    };
    Error::new(code, format!("{}: {e}", code.as_ref()))
}

/// A call on a closed ledger: `ERR_SYMFONIC_CLOSED`, naming the method.
pub fn closed_error(method: &str) -> Error<Code> {
    Error::new(
        Code::Closed,
        format!("{}: {method}: {}", Code::Closed.as_ref(), LedgerError::Closed),
    )
}

/// The core's runtime could not start (no thread could be spawned).
pub fn runtime_error(e: String) -> Error<Code> {
    internal_error("runtime", &e)
}

/// What converting content says of a value that is neither a string nor a
/// Buffer (the JS entry lets none through).
pub fn not_content() -> Error {
    Error::new(Status::InvalidArg, "expected a string or a Buffer".to_string())
}

/// A napi-rs error, its status kept as the code.
pub fn napi_error(e: Error) -> Error<Code> {
    Error::new(Code::Napi(e.status), e.reason)
}

/// Throws a JS `TypeError` now and returns the marker napi-rs expects for an
/// exception that is already pending.
pub fn type_error(env: &Env, message: &str) -> Error<Code> {
    match env.throw_type_error(message, Some("ERR_INVALID_ARG_TYPE")) {
        Ok(()) => Error::new(Code::Napi(Status::PendingException), message.to_string()),
        Err(e) => napi_error(e),
    }
}

/// Runs an entry point's body, turning a panic into
/// `@symfonic/core: internal error (panic): <message>` (code `ERR_SYMFONIC_INTERNAL`).
/// Used by every function and method (a panic in a call's future on the
/// runtime is caught where it is spawned, `ledger::spawn`).
pub fn guard<T>(f: impl FnOnce() -> JsResult<T>) -> JsResult<T> {
    // Unwind safety: the ledger recovers its poisoned lock (see `Ledger::lock`)
    // and every other value touched here is dropped with the failed call.
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(panic_error(payload)))
}

pub fn panic_error(payload: Box<dyn Any + Send>) -> Error<Code> {
    let message = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        // A payload of another type might panic again in its Drop; leak it.
        std::mem::forget(payload);
        "(no message)".to_string()
    };
    internal_error("panic", &message)
}

/// `@symfonic/core: internal error (<what>): <message>`, code `ERR_SYMFONIC_INTERNAL`.
fn internal_error(what: &str, message: &str) -> Error<Code> {
    Error::new(
        Code::Internal,
        format!("@symfonic/core: internal error ({what}): {message}"),
    )
}

/// For a deferred promise settled on the JS thread: a coded error as the JS
/// error object to reject with. napi-rs rejects with a plain `Error` (status
/// `Status`), so the coded one is built here and handed over by reference,
/// which napi-rs passes to the promise as is.
pub fn rejection(env: &Env, e: Error<Code>) -> Error {
    // SAFETY: called on the JS thread with its live env; the value is created
    // in the current handle scope and referenced before it ends.
    unsafe {
        let value = JsError::from(e).into_value(env.raw());
        if value.is_null() {
            return Error::new(
                Status::GenericFailure,
                "@symfonic/core: could not create an error".to_string(),
            );
        }
        match Unknown::from_napi_value(env.raw(), value) {
            Ok(v) => Error::from(v),
            Err(e) => e,
        }
    }
}
