//! `describeBlock`: what the core reads from an image's or a document's
//! bytes (the core's `media`), as a plain object.

use napi_derive::napi;
use symfonic_core::api::describe_media;

/// What a block's bytes say, never what its producer declared.
#[napi(object, object_from_js = false)]
pub struct BlockFacts {
    /// `'png'`, `'jpeg'`, `'gif'`, `'webp'` or `'pdf'` when the magic bytes name one; else null.
    pub format: Option<String>,
    /// The MIME type of `format`; else null.
    pub mime_type: Option<String>,
    /// Length in bytes.
    pub bytes: f64,
    /// Stored pixel width and height from the header (before any EXIF rotation); null for a PDF or an opaque block.
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// Frames of a GIF or an animated WebP, when the whole file could be walked.
    pub frames: Option<u32>,
    /// A progressive JPEG.
    pub progressive: bool,
    /// EXIF orientation 2–8 of a JPEG (1, the default, is null).
    pub orientation: Option<u32>,
    /// A PDF's page count, when its page tree is in plain objects.
    pub pages: Option<u32>,
    /// Why the block is opaque (`'empty'`, `'format not recognised'`,
    /// `'truncated or malformed header'`, `'absurd pixel size'`); null when its header was read.
    pub opaque: Option<String>,
    /// The declared MIME type names another format than the bytes.
    pub mismatch: bool,
    /// The one-line description the stub shows, e.g. `png 1280×800, 193,497 bytes`.
    pub line: String,
}

/// Reads a block's format and header facts from its bytes, without decoding
/// it; `declaredMimeType` is compared with them, never trusted. Sync: it reads
/// headers only (a PDF is scanned for its page tree).
#[napi(catch_unwind)]
pub fn describe_block(data: &[u8], declared_mime_type: Option<String>) -> BlockFacts {
    let f = describe_media(data, declared_mime_type.as_deref());
    let h = f.header.as_ref().ok();
    let sized = h.filter(|h| h.width > 0);
    BlockFacts {
        format: f.format.map(|x| x.name().to_string()),
        mime_type: f.format.map(|x| x.mime().to_string()),
        bytes: f.bytes as f64,
        width: sized.map(|h| h.width),
        height: sized.map(|h| h.height),
        frames: h.and_then(|h| h.frames),
        progressive: h.is_some_and(|h| h.progressive),
        orientation: h.and_then(|h| h.orientation).map(u32::from),
        pages: h.and_then(|h| h.pages),
        opaque: f.header.as_ref().err().map(|e| e.reason().to_string()),
        mismatch: f.mismatch,
        line: f.line(),
    }
}
