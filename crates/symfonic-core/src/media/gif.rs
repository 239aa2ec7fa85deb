//! GIF: the logical screen size from the header, and the frames counted by
//! walking the blocks (each image descriptor is a frame) without decoding.

use super::bytes::le16;
use super::Header;

pub(super) fn header(b: &[u8]) -> Option<Header> {
    let width = u32::from(le16(b, 6)?);
    let height = u32::from(le16(b, 8)?);
    let flags = *b.get(10)?;
    Some(Header {
        width,
        height,
        frames: frames(b, flags),
        ..Header::default()
    })
}

/// Frames counted up to the trailer; `None` when the file ends or breaks first.
fn frames(b: &[u8], screen_flags: u8) -> Option<u32> {
    let mut at = 13 + color_table(screen_flags);
    let mut n = 0u32;
    loop {
        match *b.get(at)? {
            0x3b => return Some(n),
            0x21 => at = sub_blocks(b, at + 2)?,
            0x2c => {
                let flags = *b.get(at + 9)?;
                // descriptor, local color table, LZW minimum code size, data
                at = sub_blocks(b, at + 10 + color_table(flags) + 1)?;
                n += 1;
            }
            _ => return None,
        }
    }
}

fn color_table(flags: u8) -> usize {
    if flags & 0x80 != 0 {
        3 << ((flags & 7) + 1)
    } else {
        0
    }
}

/// The offset after a chain of data sub-blocks starting at `at`.
fn sub_blocks(b: &[u8], mut at: usize) -> Option<usize> {
    loop {
        let len = usize::from(*b.get(at)?);
        at += 1;
        if len == 0 {
            return Some(at);
        }
        at += len;
    }
}
