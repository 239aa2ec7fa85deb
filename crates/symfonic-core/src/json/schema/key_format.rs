//! How a map's keys look, for the stub: a common prefix with a run of digits
//! or hex digits (`'#W' + 7 digits`), UUIDs, or a few of the keys.

use super::super::key::quoted;
use super::{cut, KEY_CHARS};

/// How a map's keys look: ` keyed like '#W2611340' ('#W' + 7 digits)`, or a
/// few of them: `, keys like 'aa','ab','ace'`.
pub(super) fn key_format(keys: &[String]) -> String {
    let Some(first) = keys.first() else {
        return ", keys like ''".into();
    };
    if let Some(shape) = shape_of(keys) {
        return format!(" keyed like {} ({shape})", quoted(&cut(first, KEY_CHARS)));
    }
    let shown: Vec<String> = keys.iter().take(3).map(|k| quoted(&cut(k, KEY_CHARS))).collect();
    format!(", keys like {}", shown.join(","))
}

/// A common prefix followed by digits or hex digits, or UUIDs.
pub(super) fn shape_of(keys: &[String]) -> Option<String> {
    if keys.len() < 2 {
        return None;
    }
    if keys.iter().all(|k| is_uuid(k)) {
        return Some("UUIDs".into());
    }
    let first = &keys[0];
    let mut prefix = first.len();
    for k in &keys[1..] {
        prefix = prefix.min(first.bytes().zip(k.bytes()).take_while(|(a, b)| a == b).count());
    }
    // Digits shared by every key belong to the number, not the prefix.
    while prefix > 0 && (first.as_bytes()[prefix - 1].is_ascii_digit() || !first.is_char_boundary(prefix)) {
        prefix -= 1;
    }
    let rests: Vec<&str> = keys.iter().map(|k| &k[prefix..]).collect();
    let len = rests[0].len();
    let same_len = rests.iter().all(|r| r.len() == len);
    let class = if rests
        .iter()
        .all(|r| !r.is_empty() && r.bytes().all(|c| c.is_ascii_digit()))
    {
        "digits"
    } else if same_len && len >= 6 && rests.iter().all(|r| r.bytes().all(|c| c.is_ascii_hexdigit())) {
        "hex digits"
    } else {
        return None;
    };
    let count = if same_len {
        format!("{len} ")
    } else {
        String::new()
    };
    Some(if prefix == 0 {
        format!("{count}{class}")
    } else {
        format!("{} + {count}{class}", quoted(&first[..prefix]))
    })
}

fn is_uuid(k: &str) -> bool {
    let b = k.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}
