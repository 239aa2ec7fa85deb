//! Building entries: from a new record (summary, schema, preview, stub) or
//! from a store's row (the stored handle, the payload re-indexed), and their
//! size in memory.

use std::sync::atomic::AtomicU64;
use std::sync::OnceLock;

use crate::ids::mem_id_for;
use crate::json::{analyze_str_with, JsonDoc};
use crate::search::Blocks;
use crate::store::{Form, StoreError, StoredEntry};
use crate::stub::{self, StubParts, STUB_HEADER_V1};
use crate::text::{block_head_len, Settled, Text};
use crate::{transcode, wtf8};

use super::{Entry, Handle, RecordRequest};
use crate::entry::has_query_index;

/// A new entry for `req`, whose content was taken out and settled as
/// `text` (what `req.content` still holds is ignored).
pub(super) fn build_entry(
    mem_id: String,
    req: RecordRequest,
    text: Text,
    json: Option<JsonDoc>,
    preview_chars: usize,
) -> Entry {
    let RecordRequest {
        namespace,
        tool_call_id,
        tool_name,
        tool_args,
        content: _,
    } = req;
    let tool_args = tool_args.as_ref();
    // The stub is display text: a lone surrogate shows there as U+FFFD, so
    // every handle string is well-formed (the payload itself keeps it).
    let shown = text.lossy();
    let owned;
    let outline = match &json {
        Some(doc) => &doc.outline,
        None => {
            owned = stub::text_outline(&shown);
            &owned
        }
    };
    let summary = stub::summary(&tool_name, tool_args, &outline.shape);
    let preview = stub::preview(&shown, preview_chars, outline.preview, preview_chars);
    drop(shown);
    let schema = outline.schema.clone();
    let stub = stub::render(
        &StubParts {
            tool_name: &tool_name,
            tool_call_id: &tool_call_id,
            mem_id: &mem_id,
            size_chars: text.char_len(),
            schema: Some(&schema),
            summary: &summary,
            preview: Some(&preview),
        },
        &outline.facts,
        &outline.recall,
    );
    let handle = Handle {
        size_chars: text.char_len(),
        schema: Some(schema).filter(|s| !s.is_empty()),
        preview: Some(preview).filter(|s| !s.is_empty()),
        mem_id,
        namespace,
        tool_name,
        tool_call_id,
        summary,
        stub,
    };
    assemble(handle, text, json, None)
}

/// An entry from its parts.
pub(super) fn assemble(handle: Handle, text: Text, json: Option<JsonDoc>, expires_at: Option<u64>) -> Entry {
    let bytes = text.heap_bytes()
        + json
            .as_ref()
            .map_or(0, |d| d.index.heap_bytes() + d.outline.heap_bytes())
        + handle_bytes(&handle)
        + std::mem::size_of::<Entry>()
        + if has_query_index(text.as_bytes().len()) {
            Blocks::bytes_for(text.as_bytes().len())
        } else {
            0
        };
    let e = Entry {
        handle,
        text,
        json,
        bytes,
        expires_at: AtomicU64::new(0),
        blocks: OnceLock::new(),
    };
    e.set_expiry(expires_at);
    e
}

/// An entry from its stored form: the handle as stored (so the stub is the
/// original, byte for byte; the store checked it against its seal, see
/// `store::row`), the payload re-indexed. The payload must be well-formed
/// text of the stored size and, with `verify`, the id's own (`mem_id_for`),
/// so a tampered or misplaced row is refused rather than served.
pub(super) fn rebuild_entry(stored: StoredEntry, verify: bool) -> Result<Entry, StoreError> {
    let StoredEntry {
        handle,
        content,
        form,
        expires_at,
    } = stored;
    if verify && mem_id_for(&handle.tool_call_id, &content) != handle.mem_id {
        return Err(StoreError::new(
            "get",
            format!("corrupt row: {} does not match its payload", handle.mem_id),
        ));
    }
    let payload = match form {
        // Lone surrogates are the only reason a payload is stored as WTF-8.
        Form::Wtf8 if !wtf8::is_wtf8(&content) || transcode::is_utf8(&content) => {
            return Err(StoreError::new("get", "corrupt row: payload is not WTF-8"));
        }
        Form::Wtf8 => Settled::Wtf8(content),
        // SAFETY: validated in the guard.
        Form::Utf8 if transcode::is_utf8(&content) => {
            Settled::Utf8(unsafe { String::from_utf8_unchecked(content) })
        }
        Form::Utf8 => return Err(StoreError::new("get", "corrupt row: payload is not UTF-8")),
        Form::Block => match block_head_len(&content) {
            Some(head) => Settled::Block(content, head),
            None => {
                return Err(StoreError::new(
                    "get",
                    "corrupt row: block payload has no UTF-8 head",
                ))
            }
        },
    };
    let view = payload.lossy();
    let (json, (), counted) = analyze_str_with(&view, &|| (), &|| Text::count(&payload));
    drop(view);
    let text = Text::from_counted(payload, counted);
    if text.char_len() != handle.size_chars {
        return Err(StoreError::new(
            "get",
            format!(
                "corrupt row: size {} where the payload has {} code points",
                handle.size_chars,
                text.char_len()
            ),
        ));
    }
    Ok(assemble(handle, text, json, expires_at))
}

pub(super) fn handle_bytes(h: &Handle) -> usize {
    h.mem_id.len()
        + h.namespace.len()
        + h.tool_name.len()
        + h.tool_call_id.len()
        + h.summary.len()
        + h.schema.as_ref().map_or(0, String::len)
        + h.preview.as_ref().map_or(0, String::len)
        + h.stub.len()
}

/// The entry's stub with a preview of `preview_chars`, in the format its
/// stored stub has: an entry recorded as v1 (a store's row, a checkpoint's
/// offloaded stub) renders as v1 again; a v2 stub keeps every line but the
/// preview, byte for byte, whichever build recorded it.
pub(super) fn restub(e: &Entry, preview_chars: usize, default_chars: usize) -> String {
    let h = &e.handle;
    let text = e.text.lossy();
    if !h.stub.starts_with(STUB_HEADER_V1) {
        let style = stub::preview_style(&h.summary);
        return stub::with_preview(
            &h.stub,
            &stub::preview(&text, preview_chars, style, default_chars),
        );
    }
    stub::v1::render(&StubParts {
        tool_name: &h.tool_name,
        tool_call_id: &h.tool_call_id,
        mem_id: &h.mem_id,
        size_chars: h.size_chars,
        schema: h.schema.as_deref(),
        summary: &h.summary,
        preview: Some(&stub::v1::preview(&text, preview_chars)),
    })
}
