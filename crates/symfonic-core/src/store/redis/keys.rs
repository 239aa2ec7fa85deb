//! Key names: a namespace encoded as its key's hash tag, the index key and
//! slot of an entry's key, and `SCAN MATCH` escaping.

/// A namespace as written inside its key's hash tag: `%`, `{` and `}`
/// percent-encoded, so the tag is exactly the namespace. The empty namespace
/// is `%` (no other namespace encodes to it): Redis Cluster ignores an empty
/// tag `{}` and would hash an entry and its index to different slots.
pub(crate) fn encode_namespace(ns: &str) -> String {
    if ns.is_empty() {
        return "%".into();
    }
    let mut out = String::with_capacity(ns.len());
    for c in ns.chars() {
        match c {
            '%' => out.push_str("%25"),
            '{' => out.push_str("%7B"),
            '}' => out.push_str("%7D"),
            c => out.push(c),
        }
    }
    out
}

/// `s` with the glob characters of `SCAN MATCH` escaped.
pub(super) fn glob_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The index key of the namespace `key` (an entry's key) belongs to.
pub(super) fn index_of(key: &[u8]) -> Vec<u8> {
    let cut = key.iter().rposition(|&b| b == b':').unwrap_or(key.len());
    let mut out = key[..cut].to_vec();
    out.extend_from_slice(b":index");
    out
}

/// The hash tag of a key (its slot on a cluster): keys with one tag share a slot.
pub(super) fn tag_of(key: &[u8]) -> &[u8] {
    let open = key.iter().position(|&b| b == b'{');
    let close = open.and_then(|o| key[o + 1..].iter().position(|&b| b == b'}').map(|c| o + 1 + c));
    match (open, close) {
        // `{}` is no tag: the whole key hashes.
        (Some(o), Some(c)) if c > o + 1 => &key[o + 1..c],
        _ => key,
    }
}
