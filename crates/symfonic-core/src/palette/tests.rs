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
