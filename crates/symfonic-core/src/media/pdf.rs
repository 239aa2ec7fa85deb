//! PDF: the header `%PDF-` (allowed after up to 1,024 bytes of junk, as
//! readers do), and the page count when cheap: the largest `/Count` of a
//! `/Type /Pages` object in plain (not compressed) objects, which is the root
//! of the page tree. In an object stream it is not seen, and none is given.

use memchr::memmem;

use super::Header;

pub(super) fn starts(b: &[u8]) -> bool {
    b.starts_with(b"%PDF-") || memmem::find(&b[..b.len().min(1024)], b"%PDF-").is_some()
}

pub(super) fn header(b: &[u8]) -> Header {
    Header {
        pages: page_count(b),
        ..Header::default()
    }
}

fn page_count(b: &[u8]) -> Option<u32> {
    let mut best: Option<u32> = None;
    for at in memmem::find_iter(b, b"/Pages") {
        // `/Type /Pages` or `/Type/Pages`, not `/Pages 3 0 R` (a reference to it).
        let before = &b[at.saturating_sub(7)..at];
        let is_type = before.ends_with(b"/Type ") || before.ends_with(b"/Type");
        if !is_type {
            continue;
        }
        // The object's dictionary: look for /Count within the next bytes and
        // the preceding ones up to the object's start.
        let lo = at.saturating_sub(512);
        let hi = (at + 512).min(b.len());
        let start = memmem::rfind(&b[lo..at], b"obj").map_or(lo, |i| lo + i);
        let end = memmem::find(&b[at..hi], b"endobj").map_or(hi, |i| at + i);
        if let Some(n) = count_in(&b[start..end]) {
            best = Some(best.map_or(n, |m: u32| m.max(n)));
        }
    }
    best.filter(|&n| n > 0)
}

fn count_in(dict: &[u8]) -> Option<u32> {
    let at = memmem::find(dict, b"/Count")? + 6;
    let digits: Vec<u8> = dict[at..]
        .iter()
        .skip_while(|c| c.is_ascii_whitespace())
        .take_while(|c| c.is_ascii_digit())
        .copied()
        .collect();
    std::str::from_utf8(&digits).ok()?.parse().ok()
}
