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
mod tests {
    use super::*;

    fn u(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    fn units(entries: &[&str]) -> Vec<Vec<u16>> {
        entries.iter().map(|e| u(e)).collect()
    }

    fn list(entries: &[&str]) -> Allowlist {
        Allowlist::compile(0, &units(entries)).unwrap()
    }

    fn pal(lists: &[&[&str]]) -> Palette {
        Palette::compile(&lists.iter().map(|l| units(l)).collect::<Vec<_>>()).unwrap()
    }

    fn m(a: &Allowlist, name: &str) -> bool {
        a.matches(&u(name))
    }

    fn nm(names: &ToolNames, i: usize) -> Option<String> {
        names.name(i).map(String::from_utf16_lossy)
    }

    fn parse(s: &str) -> ToolNames {
        ToolNames::parse(&u(s))
    }

    fn from(names: &[Option<&str>]) -> ToolNames {
        let owned: Vec<Option<Vec<u16>>> = names.iter().map(|n| n.map(u)).collect();
        ToolNames::from_names(owned.iter().map(|n| n.as_deref()))
    }

    fn wire(names: &[Option<&str>]) -> String {
        names
            .iter()
            .map(|n| match n {
                Some(n) => format!("+{n}"),
                None => "-".to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\0")
    }

    #[test]
    fn exact_names_match_only_themselves() {
        let a = list(&["search", "fetch_page"]);
        assert!(m(&a, "search"));
        assert!(m(&a, "fetch_page"));
        assert!(!m(&a, "searc"));
        assert!(!m(&a, "search2"));
        assert!(!m(&a, ""));
        assert!(!m(&a, "SEARCH"));
    }

    #[test]
    fn trailing_star_is_a_prefix_match() {
        let a = list(&["github_*", "mcp__jira__*", "exact"]);
        assert!(m(&a, "github_"));
        assert!(m(&a, "github_create_issue"));
        assert!(m(&a, "mcp__jira__search"));
        assert!(!m(&a, "github"));
        assert!(!m(&a, "mcp__jira_search"));
        assert!(!m(&a, "gitlab_x"));
        assert!(m(&a, "exact"));
        assert!(!m(&a, "exactly"));
    }

    #[test]
    fn lone_star_matches_everything() {
        let a = list(&["*"]);
        assert!(m(&a, "anything"));
        assert!(m(&a, ""));
    }

    #[test]
    fn redundant_prefixes_are_dropped_without_changing_answers() {
        // `a*` covers `ab*` and `abc*`; `b*` is independent.
        let a = list(&["abc*", "a*", "ab*", "b*", "a*"]);
        assert_eq!(a.prefixes.len(), 2);
        for name in ["a", "ab", "abc", "abd", "azz", "b", "bz"] {
            assert!(m(&a, name), "{name}");
        }
        for name in ["", "c", "ba"] {
            assert_eq!(m(&a, name), name.starts_with('b'), "{name}");
        }
    }

    #[test]
    fn prefix_search_finds_the_right_neighbour() {
        // Names sorting between two prefixes must still find the lower one.
        let a = list(&["tool_a*", "tool_b*", "tool_c*"]);
        assert!(m(&a, "tool_a_zzz"));
        assert!(m(&a, "tool_b"));
        assert!(m(&a, "tool_ab"));
        assert!(m(&a, "tool_ax"));
        assert!(m(&a, "tool_a"));
        assert!(!m(&a, "tool_"));
        assert!(!m(&a, "tool_d"));
    }

    #[test]
    fn matches_agrees_with_a_naive_scan() {
        let entries = [
            "s*",
            "sa*",
            "search",
            "z",
            "mcp__*",
            "mcp__jira__*",
            "é*",
            "日本*",
        ];
        let a = list(&entries);
        let naive = |name: &str| {
            entries.iter().any(|e| match e.strip_suffix('*') {
                Some(p) => name.starts_with(p),
                None => *e == name,
            })
        };
        let names = [
            "",
            "s",
            "sa",
            "sab",
            "search",
            "searcher",
            "t",
            "z",
            "zz",
            "mcp__",
            "mcp__x",
            "mcp_",
            "é",
            "éa",
            "e",
            "日本語",
            "日",
            "a",
            "r",
            "ss",
        ];
        for name in names {
            assert_eq!(m(&a, name), naive(name), "{name}");
        }
    }

    #[test]
    fn lone_surrogates_compare_unit_for_unit() {
        let name = |units: &[u16]| units.to_vec();
        let x = |tail: &[u16]| [&[0x78][..], tail, &u("_admin")].concat();
        let a = Allowlist::compile(0, &[x(&[0xDFFF])]).unwrap();
        assert!(a.matches(&x(&[0xDFFF])));
        assert!(!a.matches(&x(&[0xD800])));
        assert!(!a.matches(&x(&[0xFFFD])));
        // A prefix ending in a lone lead surrogate is a prefix, in units, of
        // a name where that lead starts a pair (as JS `startsWith` says).
        let p = Allowlist::compile(0, &[name(&[0x78, 0xD83D, STAR])]).unwrap();
        assert!(p.matches(&u("x😀")));
        assert!(p.matches(&[0x78, 0xD83D]));
        assert!(!p.matches(&[0x78, 0xD83C, 0xDF89]));
        assert!(!p.matches(&u("x\u{FFFD}")));
        // Sorting is by unit, so U+E000.. sorts after pairs, as in JS.
        let q = Allowlist::compile(0, &[u("\u{E000}*"), u("😀*")]).unwrap();
        assert!(q.matches(&u("\u{E000}z")) && q.matches(&u("😀z")));
        assert!(!q.matches(&[0xD83D]));
    }

    #[test]
    fn rejects_malformed_entries() {
        assert_eq!(
            Allowlist::compile(3, &units(&["ok", ""])).unwrap_err(),
            PaletteError::EmptyEntry { role: 3 }
        );
        let err = Allowlist::compile(1, &units(&["github_*_read"])).unwrap_err();
        assert_eq!(
            err,
            PaletteError::InnerWildcard {
                role: 1,
                entry: "github_*_read".into()
            }
        );
        assert!(err.to_string().contains("only a trailing '*'"));
        assert!(Allowlist::compile(0, &units(&["**"])).is_err());
    }

    #[test]
    fn empty_allowlist_is_reported_and_matches_nothing() {
        let a = list(&[]);
        assert!(a.is_empty());
        assert_eq!(a.entries(), 0);
        assert!(!m(&a, "x"));
        assert!(!list(&["x"]).is_empty());
    }

    #[test]
    fn wire_format_round_trips() {
        let names = parse(&wire(&[Some("a"), None, Some(""), Some("日本"), Some("b*")]));
        assert_eq!(names.len(), 5);
        assert_eq!(nm(&names, 0).as_deref(), Some("a"));
        assert_eq!(nm(&names, 1), None);
        assert_eq!(nm(&names, 2).as_deref(), Some(""));
        assert_eq!(nm(&names, 3).as_deref(), Some("日本"));
        assert_eq!(nm(&names, 4).as_deref(), Some("b*"));
        assert!(parse("").is_empty());
        // A single tool with the empty name is not the empty list.
        assert_eq!(parse("+").len(), 1);
        // Anything that is not `+name` is a tool without a name.
        assert_eq!(nm(&parse("x\0+y"), 0), None);
    }

    #[test]
    fn select_keeps_input_order_and_skips_unnamed_tools() {
        let palette = pal(&[&["b", "github_*"], &[]]);
        let names = parse(&wire(&[
            Some("github_z"),
            Some("a"),
            None,
            Some("b"),
            Some("github_a"),
            Some("b"),
        ]));
        assert_eq!(palette.select(0, &names), vec![0, 3, 4, 5]);
        assert_eq!(palette.select(1, &names), Vec::<u32>::new());
        assert_eq!(palette.select(7, &names), Vec::<u32>::new());
        assert_eq!(palette.roles(), 2);
        assert!(palette.allowlist(1).unwrap().is_empty());
    }

    #[test]
    fn select_into_never_writes_past_the_buffer() {
        let palette = pal(&[&["*"]]);
        let names = from(&[Some("a"), Some("b"), Some("c")]);
        let mut out = [u32::MAX; 2];
        assert_eq!(palette.select_into(0, &names, &mut out), 2);
        assert_eq!(out, [0, 1]);
    }

    #[test]
    fn selections_are_remembered_per_palette_and_role() {
        let a = pal(&[&["x"], &["y*"]]);
        let b = pal(&[&["y1"]]);
        let names = from(&[Some("y1"), Some("x"), Some("y2")]);
        for _ in 0..3 {
            assert_eq!(a.select(0, &names), vec![1]);
            assert_eq!(a.select(1, &names), vec![0, 2]);
            // Same role index, other palette: its own answer, not a's.
            assert_eq!(b.select(0, &names), vec![0]);
        }
        assert_eq!(names.memo.borrow().len(), 3);
        // The memo is bounded.
        let many: Vec<&[&str]> = (0..40).map(|_| &["x"][..]).collect();
        let c = pal(&many);
        for role in 0..40 {
            assert_eq!(c.select(role, &names), vec![1]);
        }
        assert_eq!(names.memo.borrow().len(), MEMO_SLOTS);
        assert_eq!(c.select(0, &names), c.match_all(0, &names));
    }

    #[test]
    fn from_names_matches_parse() {
        let a = from(&[Some("x"), None, Some("yz")]);
        let b = parse(&wire(&[Some("x"), None, Some("yz")]));
        for i in 0..3 {
            assert_eq!(a.name(i), b.name(i));
        }
    }
}
