//! RFC 6901 JSON Pointers as paths: `/a/b`, and the URI fragment form
//! `#/a/b` that `"$ref"` values carry (percent-decoded first). A pointer
//! names at most one node, so it is a singular query: a token is a key on
//! objects and, when it is an array index (`0` or digits without a leading
//! zero), an index on arrays.

use super::{Invalid, Query, Segment, Selector};

pub(super) fn parse(p: &str) -> Result<Query, Invalid> {
    let (text, base) = match p.strip_prefix('#') {
        Some(frag) => (percent_decode(frag)?, 1),
        None => (p.to_string(), 0),
    };
    if text.is_empty() {
        return Ok(Query { segs: Vec::new() });
    }
    let Some(body) = text.strip_prefix('/') else {
        return Err(Invalid {
            at: base,
            msg: "a JSON Pointer starts with '/' (or '#/')".into(),
        });
    };
    let mut segs = Vec::new();
    // Positions are exact in the pointer form; after percent-decoding they are approximate.
    let mut at = base + 1;
    for token in body.split('/') {
        let key = unescape(token).map_err(|k| Invalid {
            at: at + k,
            msg: "'~' in a JSON Pointer must be '~0' or '~1'".into(),
        })?;
        let index = token.bytes().all(|c| c.is_ascii_digit())
            && !token.is_empty()
            && (token == "0" || !token.starts_with('0'));
        let sel = match token.parse::<i64>() {
            Ok(n) if index => Selector::KeyOrIndex(key, n),
            _ => Selector::Name(key),
        };
        segs.push(Segment {
            descendant: false,
            sels: vec![sel],
        });
        at += token.len() + 1;
    }
    Ok(Query { segs })
}

/// `~1` → `/`, `~0` → `~`; `Err` holds the byte offset of a bad `~`.
fn unescape(token: &str) -> Result<String, usize> {
    if !token.contains('~') {
        return Ok(token.to_string());
    }
    let mut out = String::with_capacity(token.len());
    let mut chars = token.char_indices();
    while let Some((i, c)) = chars.next() {
        if c != '~' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some((_, '0')) => out.push('~'),
            Some((_, '1')) => out.push('/'),
            _ => return Err(i),
        }
    }
    Ok(out)
}

/// Decodes `%XX` escapes of a URI fragment into UTF-8 text.
fn percent_decode(frag: &str) -> Result<String, Invalid> {
    if !frag.contains('%') {
        return Ok(frag.to_string());
    }
    let b = frag.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let hex = b
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        let Some(v) = hex else {
            return Err(Invalid {
                at: i + 1,
                msg: "'%' in a '#' pointer must be followed by two hex digits".into(),
            });
        };
        out.push(v);
        i += 3;
    }
    String::from_utf8(out).map_err(|_| Invalid {
        at: 1,
        msg: "the percent-decoded pointer is not UTF-8".into(),
    })
}
