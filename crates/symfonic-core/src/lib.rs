//! The engine: plain Rust, no napi types, covered by `cargo test`.

pub mod clock;
pub mod display;
pub mod entry;
pub mod ids;
pub mod json;
pub mod ledger;
pub mod media;
pub mod outline;
pub mod recall;
pub mod runtime;
pub mod search;
pub mod store;
pub mod stub;
pub mod text;
pub mod transcode;
pub mod wtf8;

#[cfg(test)]
mod proptests;
#[cfg(test)]
pub(crate) mod testing;
