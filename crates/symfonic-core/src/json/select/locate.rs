//! Where a node is: its RFC 9535 Normalized Path (§2.7: `$['key'][3]`),
//! found by walking down from the root, each step a binary search over the
//! container's children through the index (a few hundred bytes scanned per
//! step), so locating the nodes of one answer never walks the whole payload.

use super::super::index::JsonIndex;
use super::super::scan;

/// One step down: a member's key (decoded) or an element's index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

/// The steps from the root to the value starting at byte `node`.
pub(crate) fn steps(b: &[u8], index: &JsonIndex, node: usize) -> Vec<Step> {
    let mut out = Vec::new();
    let mut c = index.root();
    while c != node && matches!(b.get(c), Some(b'{' | b'[')) {
        let Some((i, child)) = child_holding(b, index, c, node) else {
            break;
        };
        out.push(match child.key {
            Some(_) => Step::Key(scan::decode(child.key_raw(b)).into_owned()),
            None => Step::Index(i),
        });
        c = child.value;
    }
    out
}

/// The child of the container at `c` whose value holds byte `node`, and its index.
fn child_holding(
    b: &[u8],
    index: &JsonIndex,
    c: usize,
    node: usize,
) -> Option<(usize, super::super::index::Child)> {
    // The last child starting at or before `node`: children start in order.
    let (mut lo, mut hi) = (0usize, index.child_count(b, c));
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        match index.children_from(b, c, mid).next_child() {
            Some(ch) if ch.key.unwrap_or(ch.value) <= node => lo = mid,
            _ => hi = mid,
        }
    }
    let child = index.children_from(b, c, lo).next_child()?;
    (child.value <= node && node < index.value_end(b, child.value)).then_some((lo, child))
}

/// The Normalized Path of `steps`: `$` then `['name']` or `[index]` each,
/// names escaped as §2.7 says (`\b \f \n \r \t \' \\`, other controls `\u00xx`).
pub(crate) fn normalized(steps: &[Step]) -> String {
    let mut s = String::from("$");
    for step in steps {
        push_step(&mut s, step);
    }
    s
}

pub(crate) fn push_step(s: &mut String, step: &Step) {
    match step {
        Step::Index(i) => {
            s.push('[');
            s.push_str(&i.to_string());
            s.push(']');
        }
        Step::Key(k) => {
            s.push_str("['");
            for ch in k.chars() {
                match ch {
                    '\u{8}' => s.push_str("\\b"),
                    '\u{c}' => s.push_str("\\f"),
                    '\n' => s.push_str("\\n"),
                    '\r' => s.push_str("\\r"),
                    '\t' => s.push_str("\\t"),
                    '\'' => s.push_str("\\'"),
                    '\\' => s.push_str("\\\\"),
                    c if (c as u32) < 0x20 => s.push_str(&format!("\\u{:04x}", c as u32)),
                    c => s.push(c),
                }
            }
            s.push_str("']");
        }
    }
}

/// The Normalized Path of the node at byte `node`.
pub(crate) fn path_of(b: &[u8], index: &JsonIndex, node: usize) -> String {
    normalized(&steps(b, index, node))
}
