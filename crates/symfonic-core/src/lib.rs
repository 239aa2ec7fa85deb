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

/// What the napi binding (`src/`) may use of the core, in one list: it
/// imports from here only, so its reach into the core reads at a glance.
pub mod api {
    pub use crate::ids::mem_id_for;
    pub use crate::ledger::{
        check_content_len, check_namespace, Found, Handle, Ledger, LedgerConfig, LedgerError, Read,
        RecordRequest, Ttl, DEFAULT_MAX_BYTES, DEFAULT_PREVIEW_CHARS, MAX_CONTENT_BYTES, MAX_NAMESPACE_CHARS,
    };
    pub use crate::media::describe as describe_media;
    pub use crate::recall::{cap_output, closed, fetch_failed, not_found, FetchSpec, MAX_OUTPUT_CHARS};
    pub use crate::runtime::{runtime, Deadline, DEFAULT_TIMEOUT, INLINE_BYTES};
    pub use crate::store::row::seal as seal_row;
    pub use crate::store::{take_warnings, StoreError, StoreSpec};
    pub use crate::text::{Form, Held, Payload, Shared};
    pub use crate::transcode::{from_utf16, spare, utf8_lossy};
    pub use crate::wtf8::Wtf8Buf;
}
