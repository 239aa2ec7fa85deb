//! A node's compact text: the same JSON value without insignificant
//! whitespace, and with the `\uXXXX` escapes of printable characters written
//! as the characters (`\u30a2` → `ア`, `\/` → `/`). Numbers and every other
//! escape are kept as written, so the value is identical. One pass, no parse.

use super::super::scan;

/// Appends the compact form of the validated JSON value `node` to `out`.
/// Raw bytes (lone surrogates of a WTF-8 payload included) are copied as is.
pub(crate) fn compact_into(node: &[u8], out: &mut Vec<u8>) {
    out.reserve(node.len());
    let mut i = 0;
    while i < node.len() {
        let c = node[i];
        if c == b'"' {
            let end = scan::string_end(node, i).min(node.len());
            string_into(&node[i..end], out);
            i = end;
        } else {
            if !scan::is_ws(c) {
                out.push(c);
            }
            i += 1;
        }
    }
}

/// The compact text of `node`, as a new buffer.
#[cfg(test)]
pub(crate) fn compact(node: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    compact_into(node, &mut out);
    out
}

/// A string literal (quotes included) with its decodable escapes decoded.
fn string_into(lit: &[u8], out: &mut Vec<u8>) {
    let Some(first) = memchr::memchr(b'\\', lit) else {
        out.extend_from_slice(lit);
        return;
    };
    out.extend_from_slice(&lit[..first]);
    let mut i = first;
    while i < lit.len() {
        let c = lit[i];
        if c != b'\\' {
            // Copy up to the next escape in one go.
            let next = memchr::memchr(b'\\', &lit[i..]).map_or(lit.len(), |k| i + k);
            out.extend_from_slice(&lit[i..next]);
            i = next;
            continue;
        }
        match lit.get(i + 1) {
            Some(b'/') => {
                out.push(b'/');
                i += 2;
            }
            Some(b'u') => i = unicode_escape(lit, i, out),
            Some(&e) => {
                out.extend_from_slice(&[b'\\', e]);
                i += 2;
            }
            None => {
                out.push(b'\\');
                i += 1;
            }
        }
    }
}

/// The `\uXXXX` escape at `i` (and its low half, for a pair): the character
/// when it is printable, else the escape as written. Returns the next position.
fn unicode_escape(lit: &[u8], i: usize, out: &mut Vec<u8>) -> usize {
    let Some(hi) = hex4(lit, i + 2) else {
        out.extend_from_slice(&lit[i..i + 2]);
        return i + 2;
    };
    let (cp, len) = if (0xD800..0xDC00).contains(&hi) {
        match (lit.get(i + 6), lit.get(i + 7), hex4(lit, i + 8)) {
            (Some(b'\\'), Some(b'u'), Some(lo)) if (0xDC00..0xE000).contains(&lo) => {
                (0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00), 12)
            }
            _ => (hi, 6),
        }
    } else {
        (hi, 6)
    };
    match char::from_u32(cp).filter(|&c| printable(c)) {
        Some('"') => out.extend_from_slice(b"\\\""),
        Some('\\') => out.extend_from_slice(b"\\\\"),
        Some(c) => {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        None => out.extend_from_slice(&lit[i..i + len]),
    }
    i + len
}

fn hex4(b: &[u8], i: usize) -> Option<u32> {
    let s = b.get(i..i + 4)?;
    let mut v = 0u32;
    for &c in s {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// Characters written as themselves: not controls, not invisible format
/// characters (zero-width, bidirectional, BOM), not line separators to JS,
/// not noncharacters. The rest keep their escape, so nothing hidden appears.
fn printable(c: char) -> bool {
    !(c.is_control()
        || matches!(c,
            '\u{ad}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{fdd0}'..='\u{fdef}')
        || (c as u32 & 0xfffe) == 0xfffe)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> String {
        String::from_utf8(compact(s.as_bytes())).unwrap()
    }

    #[test]
    fn whitespace_goes_and_strings_keep_theirs() {
        assert_eq!(
            c("{\n  \"a b\" : [ 1 , 2.50 ],\r\n\t\"c\": \" x \" }"),
            r#"{"a b":[1,2.50],"c":" x "}"#
        );
        assert_eq!(c("  true "), "true");
        assert_eq!(c(r#""a\"b\\c""#), r#""a\"b\\c""#);
    }

    #[test]
    fn printable_escapes_are_decoded_and_the_rest_kept() {
        assert_eq!(c(r#""\u30a2\u30e1\u30ea\u30ab""#), "\"アメリカ\"");
        assert_eq!(c(r#""\ud83d\ude00 \/""#), "\"😀 /\"");
        assert_eq!(c(r#""\u0022\u005c\u0041""#), r#""\"\\A""#);
        // Controls, zero-width and bidi characters, line separators, lone surrogates.
        for kept in [
            r#""\u0000""#,
            r#""\u001f""#,
            r#""\u200b""#,
            r#""\u202e""#,
            r#""\u2028""#,
            r#""\ud800x""#,
            r#""\udc00""#,
            r#""\ufeff""#,
            r#""\uffff""#,
            r#""\n\t""#,
        ] {
            assert_eq!(c(kept), kept);
        }
        assert_eq!(c(r#""\u00e9\u00E9""#), "\"éé\"");
    }

    #[test]
    fn the_value_is_unchanged() {
        let src = r#"{ "k\u00e9y" : [ "\u30a2", "\ud83d\ude00", "\u0007", 1e5, -0.0, null ] , "\/": {} }"#;
        let a: serde_json::Value = serde_json::from_str(src).unwrap();
        let b: serde_json::Value = serde_json::from_str(&c(src)).unwrap();
        assert_eq!(a, b);
    }
}
