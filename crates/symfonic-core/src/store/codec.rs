//! Payload compression for stores: zstd at level 1, about as fast as lz4 with
//! a much smaller output on JSON and logs (benchmark/README.md, "Stores").
//! The codec is stored per row, so rows written by another codec stay readable.
//! Stored bytes are untrusted (see `row`): decoding never allocates more
//! than the stored bytes can expand to, and never aborts on a failed allocation.

/// Stored as is (short payloads, or ones that do not shrink).
pub const RAW: i64 = 0;
/// zstd frame of the payload.
pub const ZSTD: i64 = 1;

const LEVEL: i32 = 1;
/// Below this, a payload is stored as is: the frame overhead is not worth it.
const MIN_BYTES: usize = 256;
/// The most a zstd frame can expand: each block of at most 128 KiB takes 4
/// bytes or more (an RLE block: 3 of header, 1 of content).
pub const MAX_ZSTD_RATIO: usize = 1 << 15;

/// The payload as stored: its codec and bytes.
pub fn encode(content: &[u8]) -> (i64, Vec<u8>) {
    if content.len() >= MIN_BYTES {
        if let Ok(z) = zstd::bulk::compress(content, LEVEL) {
            if z.len() < content.len() {
                return (ZSTD, z);
            }
        }
    }
    (RAW, content.to_vec())
}

/// The payload back from its stored form; `raw_len` is its recorded length.
/// A raw payload is returned as is (no copy). A zstd frame must announce
/// `raw_len` in its header, and `raw_len` must be within what the frame's
/// bytes can expand to, before the output is allocated (fallibly).
pub fn decode(codec: i64, stored: Vec<u8>, raw_len: usize) -> Result<Vec<u8>, String> {
    match codec {
        RAW if stored.len() == raw_len => Ok(stored),
        RAW => Err(format!(
            "corrupt payload: {} bytes where {raw_len} were stored",
            stored.len()
        )),
        ZSTD => unzstd(&stored, raw_len),
        other => Err(format!("unknown payload codec {other}")),
    }
}

fn unzstd(stored: &[u8], raw_len: usize) -> Result<Vec<u8>, String> {
    if raw_len > stored.len().saturating_mul(MAX_ZSTD_RATIO) {
        return Err(format!(
            "corrupt payload: {} compressed bytes cannot hold {raw_len}",
            stored.len()
        ));
    }
    match zstd::zstd_safe::get_frame_content_size(stored) {
        Ok(Some(n)) if n == raw_len as u64 => {}
        Ok(Some(n)) => {
            return Err(format!(
                "corrupt payload: its frame holds {n} bytes where {raw_len} were stored"
            ))
        }
        Ok(None) | Err(_) => return Err("corrupt payload: not a zstd frame with its size".into()),
    }
    let mut out = Vec::new();
    out.try_reserve_exact(raw_len)
        .map_err(|_| format!("payload of {raw_len} bytes: out of memory"))?;
    // Into the Vec's capacity (not a slice of its length, which is 0).
    let n = zstd::bulk::Decompressor::new()
        .and_then(|mut d| d.decompress_to_buffer(stored, &mut out))
        .map_err(|e| format!("corrupt payload: {e}"))?;
    if n != raw_len {
        return Err(format!("corrupt payload: {n} bytes where {raw_len} were stored"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_skips_what_does_not_shrink() {
        let big = "row,".repeat(1000);
        let (c, z) = encode(big.as_bytes());
        assert_eq!(c, ZSTD);
        assert!(z.len() < big.len() / 10);
        assert_eq!(decode(c, z, big.len()).unwrap(), big.as_bytes());
        let (c, z) = encode(b"short");
        assert_eq!((c, z.as_slice()), (RAW, &b"short"[..]));
        assert!(decode(ZSTD, b"not zstd".to_vec(), 10).is_err());
        assert!(decode(7, b"x".to_vec(), 1).is_err());
        assert!(decode(RAW, b"xy".to_vec(), 1).is_err());
    }

    #[test]
    fn stored_lengths_never_size_an_allocation_unchecked() {
        let big = vec![b'a'; 1 << 20];
        let (c, z) = encode(&big);
        assert_eq!(c, ZSTD);
        // Lengths no frame of these bytes can hold, and one the frame does not announce.
        for len in [99_999_999_999, usize::MAX, big.len() + 1, big.len() - 1, 0] {
            let e = decode(c, z.clone(), len).unwrap_err();
            assert!(e.starts_with("corrupt payload"), "{len}: {e}");
        }
        // The frame's own header lying about its size: zstd stops at the allocation.
        let mut forged = zstd::bulk::compress(&big[..1000], 1).unwrap();
        let real = decode(ZSTD, forged.clone(), 1000).unwrap();
        assert_eq!(real, &big[..1000]);
        forged.truncate(forged.len() - 1);
        assert!(decode(ZSTD, forged, 1000).is_err());
        // The densest frame zstd makes is within the bound.
        let zeros = vec![0u8; 64 << 20];
        let (c, z) = encode(&zeros);
        assert!(zeros.len() <= z.len() * MAX_ZSTD_RATIO, "{}", z.len());
        assert_eq!(decode(c, z, zeros.len()).unwrap().len(), zeros.len());
    }
}
