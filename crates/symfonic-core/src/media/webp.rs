//! WebP: the RIFF container's first chunk says which bitstream follows:
//! `VP8 ` (lossy, sizes in the frame header), `VP8L` (lossless, 14-bit
//! sizes) or `VP8X` (extended: the canvas size, and the animation flag, whose
//! `ANMF` chunks are counted as frames).

use super::bytes::{le16, le24, le32};
use super::Header;

pub(super) fn header(b: &[u8]) -> Option<Header> {
    let kind = b.get(12..16)?;
    let data = 20;
    match kind {
        b"VP8 " => {
            // 3-byte frame tag, then the start code 9d 01 2a, then 14-bit sizes.
            (b.get(data + 3..data + 6)? == [0x9d, 0x01, 0x2a]).then_some(())?;
            Some(Header {
                width: u32::from(le16(b, data + 6)? & 0x3fff),
                height: u32::from(le16(b, data + 8)? & 0x3fff),
                ..Header::default()
            })
        }
        b"VP8L" => {
            (*b.get(data)? == 0x2f).then_some(())?;
            let bits = le32(b, data + 1)?;
            Some(Header {
                width: (bits & 0x3fff) + 1,
                height: ((bits >> 14) & 0x3fff) + 1,
                ..Header::default()
            })
        }
        b"VP8X" => {
            let animated = *b.get(data)? & 0x02 != 0;
            Some(Header {
                width: le24(b, data + 4)? + 1,
                height: le24(b, data + 7)? + 1,
                frames: if animated { anmf_frames(b) } else { Some(1) },
                ..Header::default()
            })
        }
        _ => None,
    }
}

/// `ANMF` chunks at the top level; `None` when a chunk runs past the end.
fn anmf_frames(b: &[u8]) -> Option<u32> {
    let mut at = 12usize;
    let mut n = 0u32;
    while at < b.len() {
        let size = le32(b, at + 4)? as usize;
        if b.get(at..at + 4)? == b"ANMF" {
            n += 1;
        }
        // Chunks are padded to an even size.
        at = at.checked_add(8)?.checked_add(size)?.checked_add(size & 1)?;
        if at > b.len() {
            return None;
        }
    }
    Some(n)
}
