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
    let mut h = IdHasher::new(tool_call_id);
    h.update(content);
    h.finish()
}

/// [`mem_id_for`]'s hash, given the content in pieces as it is made: a long
/// string's transcoding thread hashes each piece as it converts it
/// (`transcode::stream`), so that its record has the id once it has crossed.
pub struct IdHasher(Xxh3);

impl IdHasher {
    /// A hash of `tool_call_id` and the content to come.
    pub fn new(tool_call_id: &str) -> Self {
        let mut h = Xxh3::new();
        h.update(b"symfonic.tool_memory.v1\0");
        h.update(&(tool_call_id.len() as u64).to_le_bytes());
        h.update(tool_call_id.as_bytes());
        IdHasher(h)
    }

    /// The next bytes of the content.
    pub fn update(&mut self, content: &[u8]) {
        self.0.update(content);
    }

    /// The memory id of the call id and all the content given.
    pub fn finish(&self) -> String {
        let digest = self.0.digest128().to_be_bytes();
        let mut id = String::with_capacity(16);
        id.push_str(MEM_ID_PREFIX);
        for b in &digest[..6] {
            id.push(char::from_digit((b >> 4) as u32, 16).unwrap());
            id.push(char::from_digit((b & 0xf) as u32, 16).unwrap());
        }
        id
    }
}

impl std::fmt::Debug for IdHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IdHasher")
    }
}

/// A memory id computed while the content was made, with the call id it
/// was computed for: the record uses it only for that call id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HashedAhead {
    pub tool_call_id: String,
    pub mem_id: String,
}

impl HashedAhead {
    /// The id, if it was computed for `tool_call_id`.
    pub fn for_call(self, tool_call_id: &str) -> Option<String> {
        (self.tool_call_id == tool_call_id).then_some(self.mem_id)
    }
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

    #[test]
    fn hashed_in_pieces_is_the_id_of_the_whole() {
        let content = "héllo, wörld — 世界 😀".repeat(40);
        let whole = mem_id_for("call_7", content.as_bytes());
        for cut in [0, 1, 7, 100, content.len() - 1, content.len()] {
            let (a, b) = content.as_bytes().split_at(cut);
            let mut h = IdHasher::new("call_7");
            h.update(a);
            h.update(&[]);
            h.update(b);
            assert_eq!(h.finish(), whole, "cut at {cut}");
        }
        assert_eq!(IdHasher::new("call_1").finish(), mem_id_for("call_1", b""));
        let ahead = HashedAhead {
            tool_call_id: "call_7".into(),
            mem_id: whole.clone(),
        };
        assert_eq!(ahead.clone().for_call("call_7"), Some(whole));
        assert_eq!(ahead.for_call("call_8"), None, "never for another call id");
    }
}
