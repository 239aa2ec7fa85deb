//! An archived result as the ledger holds it (`Entry`) and as callers see it
//! (`Handle`): a leaf the ledger, the stores and recall all build on.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use crate::clock::expired;
use crate::json::JsonDoc;
use crate::search::Blocks;
use crate::text::Text;

/// Largest payload `record` accepts: 4,000,000,000 bytes of UTF-8. Below it, sizes
/// in code points fit a `u32` (JS handles report them exactly) and the JSON
/// index's `u32` offsets address the whole payload, so nothing saturates or
/// silently degrades to text.
pub const MAX_CONTENT_BYTES: usize = 4_000_000_000;
// The JSON pass treats payloads this close to u32::MAX as text; the limit stays below.
const _: () = assert!(MAX_CONTENT_BYTES < u32::MAX as usize - 64);

/// Payloads larger than this many bytes get a query index (`search::Blocks`),
/// built on their first query; smaller ones are scanned whole.
pub const INDEX_MIN_BYTES: usize = 64 * 1024;

/// What a caller gets back for a recorded result.
#[derive(Debug, Clone, PartialEq)]
pub struct Handle {
    pub mem_id: String,
    pub namespace: String,
    pub tool_name: String,
    pub tool_call_id: String,
    pub size_chars: usize,
    pub summary: String,
    pub schema: Option<String>,
    pub preview: Option<String>,
    pub stub: String,
}

/// One archived result.
#[derive(Debug)]
pub struct Entry {
    pub handle: Handle,
    pub text: Text,
    pub json: Option<JsonDoc>,
    /// Bytes this entry holds (payload, indexes, handle strings).
    pub bytes: usize,
    /// Unix time in milliseconds after which the entry is gone; 0: never.
    pub(crate) expires_at: AtomicU64,
    /// The query index, built on the first query of a large payload (its
    /// bytes are counted in `bytes` from the start).
    pub(crate) blocks: OnceLock<Blocks>,
}

impl Entry {
    /// Unix time in milliseconds after which the entry is gone; `None`: never.
    pub fn expires_at(&self) -> Option<u64> {
        Some(self.expires_at.load(Ordering::Relaxed)).filter(|&t| t != 0)
    }

    pub(crate) fn set_expiry(&self, expires_at: Option<u64>) {
        // 0 means never; an expiry at the epoch itself is 1 ms later.
        self.expires_at
            .store(expires_at.map_or(0, |t| t.max(1)), Ordering::Relaxed);
    }

    pub(crate) fn expired(&self, now: u64) -> bool {
        expired(self.expires_at(), now)
    }

    /// The query index of a payload larger than [`INDEX_MIN_BYTES`], built
    /// here on first use (a smaller payload is scanned whole, at once).
    pub fn blocks(&self) -> Option<&Blocks> {
        let b = self.text.as_bytes();
        has_query_index(b.len()).then(|| self.blocks.get_or_init(|| Blocks::build(b)))
    }
}

impl AsRef<[u8]> for Entry {
    /// The payload as stored: UTF-8, WTF-8, or a block's head and bytes.
    fn as_ref(&self) -> &[u8] {
        self.text.payload()
    }
}

/// Whether a payload of `len` bytes gets a query index (smaller ones are
/// scanned whole, at once).
pub(crate) fn has_query_index(len: usize) -> bool {
    len > INDEX_MIN_BYTES
}
