//! Maps engine errors to JS errors, in one place. Model-facing calls never get
//! here: they answer with `[...]` strings. What reaches this module is a
//! programmer's mistake or a refusal the caller must see.

use napi::{Env, Error, Status};

use crate::core::ledger::LedgerError;

/// An engine error as a JS `Error` with a stable `code`.
pub fn ledger_error(e: LedgerError) -> Error {
    let code = match e {
        LedgerError::Collision { .. } => "ERR_SYMFONIC_MEM_ID_COLLISION",
    };
    Error::new(Status::GenericFailure, format!("{code}: {e}"))
}

/// Throws a JS `TypeError` now and returns the marker napi-rs expects for an
/// exception that is already pending.
pub fn type_error(env: &Env, message: &str) -> Error {
    match env.throw_type_error(message, Some("ERR_INVALID_ARG_TYPE")) {
        Ok(()) => Error::new(Status::PendingException, message.to_string()),
        Err(e) => e,
    }
}
