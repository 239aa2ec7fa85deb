//! Compiling a model-sent pattern: bounded in length, program and cache size,
//! confined to one line, and described (not thrown) when it does not compile.

use regex_automata::meta;
use regex_syntax::hir::{
    Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Literal,
};

use super::Regex;

/// Longest pattern, in code points.
pub const MAX_PATTERN_CHARS: usize = 1000;
/// Bounds on the compiled program and the lazy DFA's cache (regex's defaults
/// are 10 MiB and 2 MiB). 4 MiB admits `\w{1,50}`; an 8 MiB cache keeps
/// case-insensitive Unicode classes in the DFA (`(?i)\w{1,30}@\w{1,30}` on a
/// 5 MB log: 1.7 s with 2 MiB, where it falls back to the NFA; 2 ms with 8).
const SIZE_LIMIT: usize = 4 << 20;
const DFA_SIZE_LIMIT: usize = 8 << 20;
/// Nesting depth of groups and repetitions (the crate allows 250).
const NEST_LIMIT: u32 = 64;

/// `pattern` compiled with the search's flags, or what is wrong with it
/// (one line, for the model).
pub fn compile(pattern: &str, ignore_case: bool) -> Result<Regex, String> {
    compile_for(pattern, ignore_case, false)
}

/// [`compile`] for a haystack known to be ASCII (`ascii`): an ASCII pattern
/// is then compiled without Unicode classes and case folding, which match
/// exactly the same there (no non-ASCII byte to tell them apart) and are far
/// cheaper: `(?i)error|timeout` gets a literal prefilter (Unicode folding
/// adds U+017F for `s` and U+212A for `k`), `\b` stays in the DFA.
pub fn compile_for(pattern: &str, ignore_case: bool, ascii: bool) -> Result<Regex, String> {
    if pattern.chars().count() > MAX_PATTERN_CHARS {
        return Err(format!("it is longer than {MAX_PATTERN_CHARS} characters"));
    }
    let parse = |unicode: bool| {
        regex_syntax::ParserBuilder::new()
            .nest_limit(NEST_LIMIT)
            .case_insensitive(ignore_case)
            .multi_line(true)
            .crlf(true)
            .unicode(unicode)
            .utf8(unicode)
            .build()
            .parse(pattern)
            .map_err(Box::new)
    };
    // The parser alone first: its errors carry a kind and a position.
    let hir = parse(true).map_err(|e| syntax_problem(pattern, &e))?;
    // `\p{..}` and the like have no ASCII form: those keep the Unicode one.
    let hir = match ascii && pattern.is_ascii() {
        true => parse(false).unwrap_or(hir),
        false => hir,
    };
    let config = meta::Config::new()
        .nfa_size_limit(Some(SIZE_LIMIT))
        .hybrid_cache_capacity(DFA_SIZE_LIMIT);
    meta::Builder::new()
        .configure(config)
        .build_from_hir(&within_line(hir))
        .map_err(|e| match e.size_limit() {
            Some(_) => "it compiles to more than 4 MiB (use fewer or smaller repetitions)".to_string(),
            None => e.to_string().split_whitespace().collect::<Vec<_>>().join(" "),
        })
}

/// `h` with `\n` (and the `\r` of a CRLF, so `\s$` does not match every
/// line of a CRLF log) taken out of every class, and every literal holding a
/// `\n` made a never-match. Recursion depth is bounded by the parser's nest limit.
fn within_line(h: Hir) -> Hir {
    match h.into_kind() {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(Literal(b)) if b.contains(&b'\n') => Hir::fail(),
        HirKind::Literal(Literal(b)) => Hir::literal(b),
        HirKind::Class(Class::Unicode(mut c)) => {
            c.difference(&ClassUnicode::new([
                ClassUnicodeRange::new('\n', '\n'),
                ClassUnicodeRange::new('\r', '\r'),
            ]));
            Hir::class(Class::Unicode(c))
        }
        HirKind::Class(Class::Bytes(mut c)) => {
            c.difference(&ClassBytes::new([
                ClassBytesRange::new(b'\n', b'\n'),
                ClassBytesRange::new(b'\r', b'\r'),
            ]));
            Hir::class(Class::Bytes(c))
        }
        HirKind::Look(l) => Hir::look(l),
        HirKind::Repetition(mut r) => {
            r.sub = Box::new(within_line(*r.sub));
            Hir::repetition(r)
        }
        HirKind::Capture(mut c) => {
            c.sub = Box::new(within_line(*c.sub));
            Hir::capture(c)
        }
        HirKind::Concat(v) => Hir::concat(v.into_iter().map(within_line).collect()),
        HirKind::Alternation(v) => Hir::alternation(v.into_iter().map(within_line).collect()),
    }
}

fn syntax_problem(pattern: &str, e: &regex_syntax::Error) -> String {
    let (kind, at) = match e {
        regex_syntax::Error::Parse(a) => (a.kind().to_string(), a.span().start.offset),
        regex_syntax::Error::Translate(h) => (h.kind().to_string(), h.span().start.offset),
        other => (other.to_string(), 0),
    };
    let at = pattern.get(..at).map_or(0, |p| p.chars().count()) + 1;
    format!("{kind} at character {at}")
}
