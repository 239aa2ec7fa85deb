//! PNG: the size from IHDR, which must be the first chunk.

use super::bytes::be32;
use super::Header;

pub(super) fn header(b: &[u8]) -> Option<Header> {
    // 8-byte signature, then the IHDR chunk: length 13, type, width, height.
    (be32(b, 8)? == 13 && b.get(12..16)? == b"IHDR").then_some(())?;
    Some(Header {
        width: be32(b, 16)?,
        height: be32(b, 20)?,
        ..Header::default()
    })
}
