#![deny(clippy::all)]
//! @symfonic/core: the napi layer. All logic lives in `core` (no napi types);
//! the `napi_*` modules only convert arguments and map errors.

mod error;
pub mod napi_crossing;
pub mod napi_external;
pub mod napi_ledger;
mod napi_text;
