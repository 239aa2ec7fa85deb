//! Counting code points of UTF-8 (or WTF-8) fast. A code point starts at every
//! byte that is not a continuation byte (`10xxxxxx`), lone surrogates in
//! WTF-8 included, so counting is a compare summed over fixed blocks into a
//! byte-wide counter, which the compiler vectorises (simdutf's `count_utf8`
//! is as fast but specified for valid UTF-8 only, so not trusted on WTF-8).

/// Bytes summed into one `u8` counter: at most 255, a multiple of the vector width.
const BLOCK: usize = 192;

/// Code point starts in `block` (at most 255 bytes, so the sum fits a `u8`).
#[inline]
fn starts(block: &[u8]) -> usize {
    debug_assert!(block.len() <= u8::MAX as usize);
    let mut n = 0u8;
    for &b in block {
        n += ((b as i8) >= -0x40) as u8;
    }
    n as usize
}

/// Counts code points in UTF-8 (or WTF-8) bytes.
pub fn count_chars(bytes: &[u8]) -> usize {
    let (blocks, rest) = bytes.as_chunks::<BLOCK>();
    blocks.iter().map(|b| starts(b)).sum::<usize>() + starts(rest)
}

/// The code points of UTF-8 (or WTF-8) bytes and the byte offset of every
/// `every`-th one, starting with code point 0 (none for empty bytes): the
/// sparse index of `Text`. Blocks are counted as in [`count_chars`]; only in
/// a block holding a mark (one in about `every / BLOCK`) are the 16 bytes
/// holding it walked byte by byte (none when the block is ASCII).
pub fn mark_index(bytes: &[u8], every: usize) -> (usize, Vec<usize>) {
    assert!(every > 0, "marks need a positive spacing");
    let mut marks = Vec::with_capacity(bytes.len() / every + 1);
    let mut chars = 0usize;
    let mut next = 0usize;
    let (blocks, rest) = bytes.as_chunks::<BLOCK>();
    // Whole blocks have a constant length (an unrolled, vectorised count).
    for (k, block) in blocks.iter().enumerate() {
        let n = starts(block);
        if chars + n > next {
            mark_block(&mut marks, block, k * BLOCK, chars, n, &mut next, every);
        }
        chars += n;
    }
    let n = starts(rest);
    if chars + n > next {
        mark_block(&mut marks, rest, blocks.len() * BLOCK, chars, n, &mut next, every);
    }
    chars += n;
    marks.shrink_to_fit();
    (chars, marks)
}

/// Pushes the marks that fall in `block` (starting at byte `at`, its first
/// code point being number `first`, `n` code points in all).
fn mark_block(
    marks: &mut Vec<usize>,
    block: &[u8],
    at: usize,
    first: usize,
    n: usize,
    next: &mut usize,
    every: usize,
) {
    if n == block.len() {
        // ASCII: code point k of the block is its byte k.
        while *next < first + n {
            marks.push(at + (*next - first));
            *next += every;
        }
        return;
    }
    // Skip whole 16-byte pieces before the mark; walk only the piece holding it.
    let mut c = first;
    for (p, piece) in block.chunks(16).enumerate() {
        let k = starts(piece);
        if c + k <= *next {
            c += k;
            continue;
        }
        for (j, &b) in piece.iter().enumerate() {
            if (b as i8) >= -0x40 {
                if c == *next {
                    marks.push(at + p * 16 + j);
                    *next += every;
                }
                c += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scalar reference: every non-continuation byte, walked one by one.
    fn naive(bytes: &[u8], every: usize) -> (usize, Vec<usize>) {
        let starts: Vec<usize> = (0..bytes.len()).filter(|&i| (bytes[i] as i8) >= -0x40).collect();
        let marks = starts.iter().copied().step_by(every).collect();
        (starts.len(), marks)
    }

    #[test]
    fn counts_and_marks_agree_with_a_naive_walk() {
        let pieces = ["a", "é", "€", "😀", "\n", "\u{7f}", "\u{80}", "\u{10FFFF}"];
        let mut seed = 7u64;
        for len in [0usize, 1, 2, 63, 191, 192, 193, 383, 384, 385, 1000, 5000] {
            for every in [1usize, 2, 3, 191, 192, 193, 4096] {
                for mix in 0..4 {
                    let mut s = String::new();
                    while s.len() < len {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        // mix 0: ASCII only; others: more and more multibyte.
                        let k = (seed >> 33) as usize % (if mix == 0 { 1 } else { 2 * mix + 2 });
                        s.push_str(pieces[k.min(pieces.len() - 1)]);
                    }
                    let want = naive(s.as_bytes(), every);
                    assert_eq!(
                        mark_index(s.as_bytes(), every),
                        want,
                        "len {len} every {every} mix {mix}"
                    );
                    assert_eq!(count_chars(s.as_bytes()), want.0);
                }
            }
        }
    }

    #[test]
    fn a_lone_surrogate_in_wtf8_counts_once() {
        // "a", U+D800 (ED A0 80), "b"
        let b = [0x61, 0xED, 0xA0, 0x80, 0x62];
        assert_eq!(count_chars(&b), 3);
        assert_eq!(mark_index(&b, 1), (3, vec![0, 1, 4]));
    }
}
