//! Which bytes each 8 KiB block of a payload holds, and how many lines end
//! before it: 36 bytes of index per block (0.4 % of the payload). A query
//! then scans only the blocks where a match can start, the ones that (with
//! the next block) hold every byte of the needle: for a rare needle, a few
//! blocks of a multi-megabyte log; and the line a match is on is counted
//! from its block's start, not the payload's. Built on a payload's first
//! query, off the JS thread.

/// Bytes per block.
pub const BLOCK: usize = 8192;

/// Byte presence per block (see the module docs).
#[derive(Debug, Default)]
pub struct Blocks {
    bits: Vec<[u64; 4]>,
    /// Line ends (`\n`) before each block.
    lines_before: Vec<u32>,
}

/// A region to scan: matches start in `[start, starts_before)` and may run
/// on to `end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub start: usize,
    pub starts_before: usize,
    pub end: usize,
}

impl Blocks {
    /// The index of `hay`, in one pass of plain stores: a 256-entry "seen"
    /// table per block has no dependency between bytes (a bit-set update per
    /// byte would), then becomes the block's 256 bits.
    pub fn build(hay: &[u8]) -> Blocks {
        let mut bits = Vec::with_capacity(hay.len().div_ceil(BLOCK));
        let mut lines_before = Vec::with_capacity(hay.len().div_ceil(BLOCK));
        let mut lines = 0u32;
        for block in hay.chunks(BLOCK) {
            let mut seen = [0u8; 256];
            for &b in block {
                seen[b as usize] = 1;
            }
            lines_before.push(lines);
            if seen[b'\n' as usize] == 1 {
                // A payload holds at most 4e9 bytes (MAX_CONTENT_BYTES): its line count fits.
                lines += memchr::memchr_iter(b'\n', block).count() as u32;
            }
            let mut w = [0u64; 4];
            for (i, &s) in seen.iter().enumerate() {
                w[i >> 6] |= (s as u64) << (i & 63);
            }
            bits.push(w);
        }
        Blocks { bits, lines_before }
    }

    /// Heap bytes an index of a payload of `len` bytes holds.
    pub fn bytes_for(len: usize) -> usize {
        len.div_ceil(BLOCK) * (std::mem::size_of::<[u64; 4]>() + std::mem::size_of::<u32>())
    }

    /// The 1-based line of byte `at` of `hay` (the payload this index was
    /// built from): its block's count, and the line ends before it in that block.
    pub fn line_of(&self, hay: &[u8], at: usize) -> usize {
        let block = at / BLOCK;
        let before = self.lines_before.get(block).map_or(0, |&n| n as usize);
        let start = (block * BLOCK).min(at);
        1 + before + memchr::memchr_iter(b'\n', &hay[start..at]).count()
    }

    /// Whether a match of a needle whose byte set is `want` could start in
    /// `block`: every needle byte is in this block or the next. With
    /// `caseless`, `want` holds ASCII letters in lower case and the blocks'
    /// letters are folded to lower case too. Four word operations, whatever
    /// the needle's length.
    #[inline]
    fn may_start(&self, block: usize, want: &[u64; 4], caseless: bool) -> bool {
        let mut have = self.bits[block];
        if let Some(next) = self.bits.get(block + 1) {
            (0..4).for_each(|i| have[i] |= next[i]);
        }
        if caseless {
            have = fold(have);
        }
        (0..4).all(|i| want[i] & !have[i] == 0)
    }
    /// The regions of a payload of `len` bytes where matches of `needle` can
    /// start, merged where blocks are adjacent; `None` for a needle longer
    /// than a block (a match could then span three blocks).
    pub fn regions(&self, len: usize, needle: &[u8], caseless: bool) -> Option<Vec<Region>> {
        if needle.len() > BLOCK || needle.is_empty() {
            return None;
        }
        let mut want = [0u64; 4];
        for &b in needle {
            let b = if caseless { b.to_ascii_lowercase() } else { b };
            want[(b >> 6) as usize] |= 1 << (b & 63);
        }
        let mut out: Vec<Region> = Vec::new();
        for block in 0..self.bits.len() {
            if !self.may_start(block, &want, caseless) {
                continue;
            }
            let start = block * BLOCK;
            let starts_before = (start + BLOCK).min(len);
            let end = (starts_before + needle.len() - 1).min(len);
            match out.last_mut() {
                Some(r) if r.starts_before == start => {
                    r.starts_before = starts_before;
                    r.end = end;
                }
                _ => out.push(Region {
                    start,
                    starts_before,
                    end,
                }),
            }
        }
        Some(out)
    }
}

/// A byte set with ASCII upper-case letters also counted as their lower case.
#[inline]
fn fold(mut set: [u64; 4]) -> [u64; 4] {
    // 'A'..='Z' are bits 1..=26 of word 1 (65..=90), 'a'..='z' bits 33..=58 (97..=122).
    const UPPER: u64 = ((1u64 << 26) - 1) << 1;
    set[1] |= (set[1] & UPPER) << 32;
    set
}

/// Bytes a set of regions scans.
pub fn scanned(regions: &[Region]) -> usize {
    regions.iter().map(|r| r.end - r.start).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_of_agrees_with_counting_from_the_start() {
        // Lines of every length, blocks with no line end, a CR LF or two.
        let mut hay = Vec::new();
        for i in 0..4000usize {
            hay.extend(std::iter::repeat_n(b'x', (i * 37) % 300));
            hay.extend_from_slice(if i % 5 == 0 { b"\r\n" } else { b"\n" });
            if i == 2000 {
                hay.extend(std::iter::repeat_n(b'y', 3 * BLOCK));
            }
        }
        let index = Blocks::build(&hay);
        let mut line = 1;
        for at in 0..=hay.len() {
            if at % 97 == 0 || at % BLOCK == 0 || at == hay.len() {
                assert_eq!(index.line_of(&hay, at), line, "byte {at}");
            }
            if at < hay.len() && hay[at] == b'\n' {
                line += 1;
            }
        }
    }
}
