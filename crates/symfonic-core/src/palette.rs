//! Tool palettes: per-role allowlists of tool names, compiled once and matched
//! against lists of tool names.
//!
//! An allowlist entry is an exact tool name, or a prefix pattern when it ends
//! in `*` (`github_*`, `mcp__jira__*`; a lone `*` matches every name). Only a
//! trailing `*` is special; a `*` anywhere else is rejected at compile time so
//! that `github_*_read` cannot silently mean something other than it looks.
//!
//! Names are compared exactly, UTF-16 unit for unit, as JS `===` and
//! `startsWith` compare them: names are held as UTF-16 units, so a name with
//! a lone surrogate never equals (or starts with) one that differs from it
//! only there. Tool names cross from JS once per tool list, as one string
//! (see [`ToolNames::parse`]); a selection is matched once per (list,
//! palette, role) and then only copied out as indices.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// The Fx hash (as in rustc): tool names are short and not adversarial, and
/// SipHash would cost more than the rest of a lookup.
#[derive(Default, Clone, Copy)]
struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    #[inline]
    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

type NameSet = HashSet<Box<[u16]>, BuildHasherDefault<FxHasher>>;

/// `*`, the prefix marker, as a UTF-16 unit.
const STAR: u16 = b'*' as u16;

/// Why an allowlist did not compile. The JS layer validates first, so these
/// only surface for direct Rust callers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PaletteError {
    /// An entry was the empty string: no tool can be named that.
    EmptyEntry { role: usize },
    /// An entry has a `*` that is not its last character.
    InnerWildcard { role: usize, entry: String },
}

impl fmt::Display for PaletteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PaletteError::EmptyEntry { role } => {
                write!(
                    f,
                    "allowlist #{role} has an empty entry; tool names are never empty"
                )
            }
            PaletteError::InnerWildcard { role, entry } => {
                let why = "only a trailing '*' (prefix match) is supported";
                write!(f, "allowlist #{role} has entry '{entry}': {why}")
            }
        }
    }
}

impl std::error::Error for PaletteError {}

/// One role's allowlist, compiled: exact names in a hash set, prefixes sorted
/// so a lookup is a binary search rather than a scan over every entry.
#[derive(Debug, Clone, Default)]
pub struct Allowlist {
    exact: NameSet,
    /// Sorted, and minimal: no prefix is itself a prefix of another (the longer
    /// one is redundant). That makes the greatest prefix `<= name` the only one
    /// that can match it, so matching is one binary search.
    prefixes: Vec<Box<[u16]>>,
    /// A lone `*` entry.
    any: bool,
    entries: usize,
}

impl Allowlist {
    /// Compiles `entries`, each a name's UTF-16 units (`role` only labels errors).
    pub fn compile<S: AsRef<[u16]>>(role: usize, entries: &[S]) -> Result<Self, PaletteError> {
        let mut exact = NameSet::default();
        let mut prefixes: Vec<Box<[u16]>> = Vec::new();
        let mut any = false;
        for entry in entries {
            let entry = entry.as_ref();
            if entry.is_empty() {
                return Err(PaletteError::EmptyEntry { role });
            }
            let (body, is_prefix) = match entry.split_last() {
                Some((&STAR, body)) => (body, true),
                _ => (entry, false),
            };
            if body.contains(&STAR) {
                return Err(PaletteError::InnerWildcard {
                    role,
                    entry: String::from_utf16_lossy(entry),
                });
            }
            match (is_prefix, body.is_empty()) {
                (true, true) => any = true,
                (true, false) => prefixes.push(body.into()),
                (false, _) => {
                    exact.insert(body.into());
                }
            }
        }
        prefixes.sort_unstable();
        prefixes.dedup();
        // After sorting, a redundant prefix directly follows the shorter prefix it
        // starts with (or another redundant one), so one pass keeps the minimal set.
        let mut minimal: Vec<Box<[u16]>> = Vec::with_capacity(prefixes.len());
        for p in prefixes {
            if minimal.last().is_none_or(|kept| !p.starts_with(kept)) {
                minimal.push(p);
            }
        }
        Ok(Allowlist {
            exact,
            prefixes: minimal,
            any,
            entries: entries.len(),
        })
    }

    /// Number of entries as given (before de-duplication).
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// Whether the allowlist has no entries at all (a configuration error).
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Whether `name` (its UTF-16 units) is allowed. Units compare as
    /// numbers, so the prefix order is JS's string order.
    pub fn matches(&self, name: &[u16]) -> bool {
        if self.any {
            return true;
        }
        if self.exact.contains(name) {
            return true;
        }
        // Greatest prefix <= name; see the invariant on `prefixes`.
        let idx = self.prefixes.partition_point(|p| **p <= *name);
        idx > 0 && name.starts_with(&self.prefixes[idx - 1])
    }
}

/// A list of tool names as it crossed from JS, kept for as long as the JS
/// tool list it came from is unchanged.
#[derive(Debug, Default)]
pub struct ToolNames {
    text: Vec<u16>,
    /// Unit range of each name in `text`; `None` for a tool without a usable
    /// string name, which never matches.
    spans: Vec<Option<(u32, u32)>>,
    /// Selections already made on this list, by (palette id, role). Both
    /// sides are immutable, so a selection never goes stale; the agent loop
    /// asks the same question before every model call.
    memo: RefCell<Vec<Selection>>,
}

#[derive(Debug)]
struct Selection {
    palette: u64,
    role: usize,
    indices: Box<[u32]>,
}

/// Selections remembered per tool list (one per palette and role in use).
const MEMO_SLOTS: usize = 16;

/// Separates names in the wire format of [`ToolNames::parse`] (`\0`).
pub const NAME_SEPARATOR: u16 = 0;

impl ToolNames {
    /// Parses the wire format (UTF-16 units of a JS string): one segment per
    /// tool, separated by `\0`; a segment is `+name` for a tool named `name`,
    /// or `-` for a tool without a string name. The empty string is the empty
    /// list. (A name containing `\0` cannot be sent and is sent as `-`: no
    /// provider accepts such a name.)
    pub fn parse(joined: &[u16]) -> Self {
        let mut spans = Vec::new();
        if !joined.is_empty() {
            let mut start = 0usize;
            for segment in joined.split(|&u| u == NAME_SEPARATOR) {
                let end = start + segment.len();
                spans.push(match segment.first() {
                    Some(&u) if u == b'+' as u16 => Some(((start + 1) as u32, end as u32)),
                    _ => None,
                });
                start = end + 1;
            }
        }
        ToolNames {
            text: joined.to_owned(),
            spans,
            memo: RefCell::default(),
        }
    }

    /// Builds the list from names' UTF-16 units directly (`None` = no usable name).
    pub fn from_names<'a, I: IntoIterator<Item = Option<&'a [u16]>>>(names: I) -> Self {
        let mut text = Vec::new();
        let mut spans = Vec::new();
        for name in names {
            spans.push(name.map(|n| {
                let start = text.len() as u32;
                text.extend_from_slice(n);
                (start, text.len() as u32)
            }));
        }
        ToolNames {
            text,
            spans,
            memo: RefCell::default(),
        }
    }

    /// Number of tools in the list.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether the list holds no tools.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The name of tool `i` (its UTF-16 units), if it has one.
    pub fn name(&self, i: usize) -> Option<&[u16]> {
        self.spans[i].map(|(s, e)| &self.text[s as usize..e as usize])
    }
}

/// Every role's allowlist, compiled once. Roles are addressed by index; the
/// JS layer maps role names to indices.
#[derive(Debug)]
pub struct Palette {
    /// Process-unique, so tool lists can remember selections per palette.
    id: u64,
    allowlists: Vec<Allowlist>,
}

static NEXT_PALETTE_ID: AtomicU64 = AtomicU64::new(1);

impl Palette {
    /// Compiles one allowlist per role, in order.
    pub fn compile<S: AsRef<[u16]>>(allowlists: &[Vec<S>]) -> Result<Self, PaletteError> {
        let allowlists = allowlists
            .iter()
            .enumerate()
            .map(|(role, entries)| Allowlist::compile(role, entries))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Palette {
            id: NEXT_PALETTE_ID.fetch_add(1, Ordering::Relaxed),
            allowlists,
        })
    }

    /// Number of roles.
    pub fn roles(&self) -> usize {
        self.allowlists.len()
    }

    /// The allowlist of role `role`, if there is one.
    pub fn allowlist(&self, role: usize) -> Option<&Allowlist> {
        self.allowlists.get(role)
    }

    /// Writes the indices of the tools of `names` that `role` allows into
    /// `out`, in input order, and returns how many there are. An unknown role
    /// selects nothing. `out` must hold at least `names.len()` slots; indices
    /// past its end are not written (and not counted). The first selection
    /// for a (palette, role) on a list is matched and remembered on the list;
    /// later ones are copied.
    pub fn select_into(&self, role: usize, names: &ToolNames, out: &mut [u32]) -> usize {
        let mut memo = names.memo.borrow_mut();
        let found = memo
            .iter()
            .find(|s| s.palette == self.id && s.role == role)
            .map(|s| &s.indices);
        let indices = match found {
            Some(indices) => indices,
            None => {
                let indices = self.match_all(role, names).into_boxed_slice();
                if memo.len() == MEMO_SLOTS {
                    memo.remove(0);
                }
                memo.push(Selection {
                    palette: self.id,
                    role,
                    indices,
                });
                &memo.last().expect("just pushed").indices
            }
        };
        let n = indices.len().min(out.len());
        out[..n].copy_from_slice(&indices[..n]);
        n
    }

    /// The matching itself, without the memo.
    pub fn match_all(&self, role: usize, names: &ToolNames) -> Vec<u32> {
        let Some(allowlist) = self.allowlists.get(role) else {
            return Vec::new();
        };
        names
            .spans
            .iter()
            .enumerate()
            .filter_map(|(i, span)| {
                let (s, e) = (*span)?;
                allowlist
                    .matches(&names.text[s as usize..e as usize])
                    .then_some(i as u32)
            })
            .collect()
    }

    /// [`select_into`](Self::select_into) into a fresh vector.
    pub fn select(&self, role: usize, names: &ToolNames) -> Vec<u32> {
        let mut out = vec![0u32; names.len()];
        let n = self.select_into(role, names, &mut out);
        out.truncate(n);
        out
    }
}

#[cfg(test)]
mod tests;
