//! JPEG: the markers walked from SOI to the first start-of-frame, which holds
//! the size and says baseline or progressive; an EXIF APP1 segment on the way
//! gives the orientation. The entropy-coded data is never read.

use super::bytes::{be16, be32, le16, le32};
use super::Header;

pub(super) fn header(b: &[u8]) -> Option<Header> {
    let mut at = 2;
    let mut orientation = None;
    loop {
        (*b.get(at)? == 0xff).then_some(())?;
        // Fill bytes: any number of 0xff before a marker.
        while *b.get(at + 1)? == 0xff {
            at += 1;
        }
        let marker = *b.get(at + 1)?;
        at += 2;
        if matches!(marker, 0x01 | 0xd0..=0xd7) {
            continue;
        }
        if matches!(marker, 0xd9 | 0xda) {
            return None; // end of image or scan data before any frame header
        }
        let len = usize::from(be16(b, at)?);
        (len >= 2).then_some(())?;
        let seg = b.get(at + 2..at + len).unwrap_or(&[]);
        match marker {
            0xe1 if seg.starts_with(b"Exif\0\0") && orientation.is_none() => {
                orientation = exif_orientation(&seg[6..]).filter(|o| (2..=8).contains(o));
            }
            0xc0..=0xcf if !matches!(marker, 0xc4 | 0xc8 | 0xcc) => {
                return Some(Header {
                    height: u32::from(be16(b, at + 3)?),
                    width: u32::from(be16(b, at + 5)?),
                    progressive: matches!(marker, 0xc2 | 0xc6 | 0xca | 0xce),
                    orientation,
                    ..Header::default()
                });
            }
            _ => {}
        }
        at += len;
    }
}

/// Tag 0x0112 of IFD0 in a TIFF structure, either byte order.
fn exif_orientation(t: &[u8]) -> Option<u8> {
    let little = match t.get(..4)? {
        b"II*\0" => true,
        b"MM\0*" => false,
        _ => return None,
    };
    let u16_at = |at| if little { le16(t, at) } else { be16(t, at) };
    let u32_at = |at| if little { le32(t, at) } else { be32(t, at) };
    let ifd = u32_at(4)? as usize;
    let count = usize::from(u16_at(ifd)?);
    (0..count)
        .find_map(|i| {
            let e = ifd.checked_add(2 + 12 * i)?;
            // type 3 is SHORT: the value sits in the first two bytes of the field.
            (u16_at(e)? == 0x0112 && u16_at(e + 2)? == 3).then(|| u16_at(e + 8))?
        })
        .and_then(|o| u8::try_from(o).ok())
}
