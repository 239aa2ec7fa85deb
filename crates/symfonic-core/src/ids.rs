//! Deterministic ids: `trm_` + 12 lowercase hex of an XXH3-128 hash over the
//! tool call id and the content, so the same result gets the same id in any
//! process on any day, and a reused call id with other content gets another.
//! XXH3 is a fixed, portable algorithm that hashes at memory speed (a 5 MB
//! payload in well under a millisecond); 48 bits cannot be collision-proof
//! whatever the hash, so the ledger detects collisions instead of trusting ids.

use xxhash_rust::xxh3::Xxh3;

/// Prefix of every memory id.
pub const MEM_ID_PREFIX: &str = "trm_";

/// The memory id of `(tool_call_id, content)`. The call id is length-prefixed
/// so that no split of one byte string into (id, content) collides with another.
pub fn mem_id_for(tool_call_id: &str, content: &[u8]) -> String {
    let mut h = Xxh3::new();
    h.update(b"symfonic.tool_memory.v1\0");
    h.update(&(tool_call_id.len() as u64).to_le_bytes());
    h.update(tool_call_id.as_bytes());
    h.update(content);
    let digest = h.digest128().to_be_bytes();
    let mut id = String::with_capacity(16);
    id.push_str(MEM_ID_PREFIX);
    for b in &digest[..6] {
        id.push(char::from_digit((b >> 4) as u32, 16).unwrap());
        id.push(char::from_digit((b & 0xf) as u32, 16).unwrap());
    }
    id
}

/// Whether `s` looks like an id this crate issues (used only to word messages).
pub fn looks_like_mem_id(s: &str) -> bool {
    s.len() == 16
        && s.starts_with(MEM_ID_PREFIX)
        && s[4..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_and_determinism() {
        let a = mem_id_for("call_1", b"hello");
        assert!(looks_like_mem_id(&a), "{a}");
        assert_eq!(a, mem_id_for("call_1", b"hello"));
        // Pinned: the id must be stable across versions, processes and platforms.
        assert_eq!(a, "trm_46d2bab0257d");
    }

    #[test]
    fn content_and_call_id_both_matter() {
        let a = mem_id_for("call_1", b"hello");
        assert_ne!(a, mem_id_for("call_1", b"hello!"));
        assert_ne!(a, mem_id_for("call_2", b"hello"));
        // length prefix: ("ab","c") and ("a","bc") differ
        assert_ne!(mem_id_for("ab", b"c"), mem_id_for("a", b"bc"));
    }
}
