#![deny(clippy::all)]
//! @symfonic/core: the napi binding. All logic lives in the `symfonic-core`
//! crate (no napi types); these modules convert arguments, map errors (in
//! `error`) and call it.

mod error;
pub mod functions;
mod held_buffer;
#[cfg(feature = "test-hooks")]
pub mod hooks;
pub mod ledger;
pub mod media;
pub mod text;
