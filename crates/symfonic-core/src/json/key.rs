//! A key written as a path segment, in RFC 9535 JSONPath syntax: `.key` where
//! the member-name shorthand allows, `['…']` with the RFC's escapes otherwise.
//! Stubs and messages write keys this way so that a model can copy the path.

/// Appends `key` to `out` as one segment: `.key` or `['key']`.
pub(crate) fn push_key_label(out: &mut String, key: &str) {
    if is_shorthand(key) {
        out.push('.');
        out.push_str(key);
    } else {
        push_bracketed(out, key);
    }
}

/// A key as a stub lists it among others: bare where the shorthand allows
/// (`status`), else in brackets (`['#W2611340']`), so it can be appended to a path.
pub(crate) fn key_label(key: &str) -> String {
    if is_shorthand(key) {
        key.to_string()
    } else {
        let mut s = String::new();
        push_bracketed(&mut s, key);
        s
    }
}

/// `key` as an RFC 9535 single-quoted string: `'it\'s'`.
pub(crate) fn quoted(key: &str) -> String {
    let mut s = String::new();
    push_bracketed(&mut s, key);
    s[1..s.len() - 1].to_string()
}

/// Whether the RFC's `member-name-shorthand` spells `key`: a first character
/// that is a letter, `_` or non-ASCII, then those or digits. Non-ASCII
/// characters that would break or hide a line (C1 controls, U+2028/9) are
/// bracketed and escaped instead, so a segment never spans two lines.
fn is_shorthand(key: &str) -> bool {
    let mut chars = key.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let name_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || (!c.is_ascii() && !line_breaking(c));
    (first.is_ascii_alphabetic() || first == '_' || (!first.is_ascii() && !line_breaking(first)))
        && chars.all(name_char)
}

fn line_breaking(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

/// `['key']` with the escapes of the RFC's single-quoted string: `\'`, `\\`,
/// `\b \f \n \r \t`, and `\uXXXX` for any other character that is not allowed
/// unescaped (C0 controls) or that would break a line (DEL, C1, U+2028/9).
fn push_bracketed(out: &mut String, key: &str) {
    out.push_str("['");
    for c in key.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if line_breaking(c) => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push_str("']");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path_of(keys: &[&str]) -> String {
        let mut s = String::from("$");
        for k in keys {
            push_key_label(&mut s, k);
        }
        s
    }

    fn seg(k: &str) -> String {
        let mut s = String::new();
        push_key_label(&mut s, k);
        s
    }

    #[test]
    fn shorthand_where_the_rfc_allows_it() {
        assert_eq!(seg("status"), ".status");
        assert_eq!(seg("_id"), "._id");
        assert_eq!(seg("a1"), ".a1");
        assert_eq!(seg("café"), ".café");
        assert_eq!(seg("名前"), ".名前");
        assert_eq!(
            path_of(&["main", "ja", "localeDisplayNames"]),
            "$.main.ja.localeDisplayNames"
        );
    }

    #[test]
    fn brackets_and_escapes_otherwise() {
        assert_eq!(seg(""), "['']");
        assert_eq!(seg(". "), "['. ']");
        assert_eq!(seg("it's"), "['it\\'s']");
        assert_eq!(seg("\n"), "['\\n']");
        assert_eq!(seg("a\\b"), "['a\\\\b']");
        assert_eq!(seg("#W2611340"), "['#W2611340']");
        assert_eq!(seg("-moz-appearance"), "['-moz-appearance']");
        assert_eq!(seg("0"), "['0']");
        assert_eq!(seg("$ref"), "['$ref']");
        assert_eq!(seg("*"), "['*']");
        assert_eq!(seg("a b"), "['a b']");
        assert_eq!(seg("\"q\""), "['\"q\"']");
        assert_eq!(
            seg("x\u{1}\u{7f}\u{85}\u{2028}"),
            "['x\\u0001\\u007f\\u0085\\u2028']"
        );
        assert_eq!(seg("\u{8}\u{c}\r\t"), "['\\b\\f\\r\\t']");
        assert_eq!(
            path_of(&["orders", "#W2611340", "status"]),
            "$.orders['#W2611340'].status"
        );
        assert_eq!(key_label("status"), "status");
        assert_eq!(key_label(". "), "['. ']");
        assert_eq!(quoted("it's"), "'it\\'s'");
        assert_eq!(quoted("aa"), "'aa'");
    }

    #[test]
    fn a_segment_never_holds_a_line_break() {
        for k in ["\n", "\r\n", "\u{2028}", "\u{85}", "a\u{2029}b"] {
            assert!(!seg(k).chars().any(line_breaking), "{k:?}");
        }
    }
}
