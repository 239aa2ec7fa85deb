//! Payload compression for stores: zstd at level 1. Measured on the
//! benchmark's 5 MB JSON catalog and 5 MB text log (README, "Storage"), it
//! compresses about as fast as lz4 (lz4_flex) with 2× (JSON) to 8× (log)
//! smaller output, and decompresses at 2–4 GB/s.
//! The codec is stored per row, so rows written by another codec stay readable.

/// Stored as is (short payloads, or ones that do not shrink).
pub const RAW: i64 = 0;
/// zstd frame of the payload.
pub const ZSTD: i64 = 1;

const LEVEL: i32 = 1;
/// Below this, a payload is stored as is: the frame overhead is not worth it.
const MIN_BYTES: usize = 256;

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
pub fn decode(codec: i64, stored: &[u8], raw_len: usize) -> Result<Vec<u8>, String> {
    let out = match codec {
        RAW => stored.to_vec(),
        ZSTD => zstd::bulk::decompress(stored, raw_len).map_err(|e| format!("corrupt payload: {e}"))?,
        other => return Err(format!("unknown payload codec {other}")),
    };
    if out.len() != raw_len {
        return Err(format!(
            "corrupt payload: {} bytes where {raw_len} were stored",
            out.len()
        ));
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
        assert_eq!(decode(c, &z, big.len()).unwrap(), big.as_bytes());
        let (c, z) = encode(b"short");
        assert_eq!((c, z.as_slice()), (RAW, &b"short"[..]));
        assert!(decode(ZSTD, b"not zstd", 10).is_err());
        assert!(decode(7, b"x", 1).is_err());
        assert!(decode(RAW, b"xy", 1).is_err());
    }
}
