#![deny(clippy::all)]
//! @symfonic/core: the napi binding. All logic lives in the `symfonic-core`
//! crate (no napi types); these modules convert arguments, map errors (in
//! `error`) and call it.

mod error;
mod held_buffer;
#[cfg(feature = "test-hooks")]
pub mod hooks;
pub mod napi_ledger;
pub mod napi_media;
pub mod napi_text;
