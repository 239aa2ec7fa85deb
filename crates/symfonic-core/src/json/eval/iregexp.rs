//! I-Regexp (RFC 9485) for `match` and `search`, run on the `regex` crate:
//! linear-time matching and a bound on each compiled program, so a pattern a
//! model sends (or a payload holds) can neither hang a thread nor take
//! unbounded memory. A pattern outside I-Regexp matches nothing, as RFC 9535
//! asks, rather than meaning what another dialect would.

use regex::{Regex, RegexBuilder};
use std::collections::HashMap;

/// Bound on one compiled program (and on its lazy DFA's cache), in bytes.
const COMPILED_BYTES: usize = 1 << 20;
/// Longest pattern compiled, in bytes.
const MAX_PATTERN_BYTES: usize = 4096;
/// Distinct patterns kept compiled during one query.
const CACHED: usize = 64;

/// The patterns of one query evaluation, compiled once each.
#[derive(Default)]
pub(crate) struct Patterns {
    cache: HashMap<(String, bool), Option<Regex>>,
}

impl Patterns {
    /// `match` (`whole`) or `search` of `pattern` in `text`; false when the
    /// pattern is not I-Regexp or is too large.
    pub(crate) fn is_match(&mut self, pattern: &str, whole: bool, text: &str) -> bool {
        let key = (pattern.to_string(), whole);
        if let Some(re) = self.cache.get(&key) {
            return re.as_ref().is_some_and(|re| re.is_match(text));
        }
        let re = compile(pattern, whole);
        let hit = re.as_ref().is_some_and(|re| re.is_match(text));
        if self.cache.len() < CACHED {
            self.cache.insert(key, re);
        }
        hit
    }
}

fn compile(pattern: &str, whole: bool) -> Option<Regex> {
    if pattern.len() > MAX_PATTERN_BYTES {
        return None;
    }
    let body = translate(pattern)?;
    let full = if whole { format!(r"\A(?:{body})\z") } else { body };
    RegexBuilder::new(&full)
        .size_limit(COMPILED_BYTES)
        .dfa_size_limit(COMPILED_BYTES)
        .nest_limit(64)
        .build()
        .ok()
}

/// The `regex` crate's spelling of an I-Regexp, or `None` when the pattern
/// uses syntax I-Regexp lacks: `.` excludes only `\n` and `\r`, and class
/// characters the crate reads as set operations are escaped.
pub(crate) fn translate(p: &str) -> Option<String> {
    let mut out = String::with_capacity(p.len() + 8);
    let mut chars = p.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let e = chars.next()?;
                match e {
                    'p' | 'P' => {
                        if chars.next()? != '{' {
                            return None;
                        }
                        out.push('\\');
                        out.push(e);
                        out.push('{');
                        loop {
                            let n = chars.next()?;
                            if n == '}' {
                                break;
                            }
                            if !n.is_ascii_alphanumeric() && n != '-' {
                                return None;
                            }
                            out.push(n);
                        }
                        out.push('}');
                    }
                    'n' | 'r' | 't' => {
                        out.push('\\');
                        out.push(e);
                    }
                    '(' | ')' | '*' | '+' | '-' | '.' | '?' | '[' | '\\' | ']' | '^' | '{' | '|' | '}' => {
                        out.push('\\');
                        out.push(e);
                    }
                    _ => return None,
                }
            }
            '[' if in_class => out.push_str(r"\["),
            '[' => {
                in_class = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push(chars.next()?);
                }
                // A `]` first in a class is I-Regexp's error, the crate's literal.
                if chars.peek() == Some(&']') {
                    return None;
                }
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
            }
            '.' if !in_class => out.push_str(r"[^\n\r]"),
            '(' if chars.peek() == Some(&'?') => return None,
            _ => out.push(c),
        }
    }
    (!in_class).then_some(out)
}

/// Why `p` is not an I-Regexp, naming the construct and, where there is
/// one, its I-Regexp form; `None` when it is one. A model writes the
/// dialect it knows (`\d`, `(?i)`), and RFC 9535 has those match nothing.
pub(crate) fn outside(p: &str) -> Option<String> {
    if p.len() > MAX_PATTERN_BYTES {
        return Some(format!("it is longer than {MAX_PATTERN_BYTES} bytes"));
    }
    match translate(p) {
        Some(_) => None,
        None => Some(why_not(p)),
    }
}

/// What [`outside`] says of a pattern `translate` refused.
fn why_not(p: &str) -> String {
    let mut chars = p.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    return "it ends with a lone \\".into();
                };
                let form = match e {
                    'd' => "[0-9]",
                    'D' => "[^0-9]",
                    'w' => "[A-Za-z0-9_]",
                    'W' => "[^A-Za-z0-9_]",
                    's' => "[ \\t\\n\\r]",
                    'S' => "[^ \\t\\n\\r]",
                    'b' | 'B' | 'A' | 'z' | 'Z' => {
                        return format!("\\{e} (I-Regexp has no anchors or word boundaries: match() tests the whole value, search() any part of it)");
                    }
                    '1'..='9' => return format!("\\{e} (I-Regexp has no back-references)"),
                    'x' | 'u' => {
                        return format!("\\{e} (write the character itself; a JSONPath string takes \\uXXXX)")
                    }
                    'p' | 'P' => return format!("\\{e} (I-Regexp writes a category as \\{e}{{Lu}})"),
                    'n' | 'r' | 't' => continue,
                    '(' | ')' | '*' | '+' | '-' | '.' | '?' | '[' | '\\' | ']' | '^' | '{' | '|' | '}' => {
                        continue
                    }
                    _ => {
                        return format!(
                            "\\{e} (I-Regexp escapes only \\ ( ) * + - . ? [ ] ^ {{ | }} and \\n \\r \\t)"
                        )
                    }
                };
                return format!("\\{e} (write {form})");
            }
            '[' if !in_class => {
                in_class = true;
                if chars.peek() == Some(&'^') {
                    chars.next();
                }
                if chars.peek() == Some(&']') {
                    return "a ']' first in a class (write \\])".into();
                }
            }
            ']' if in_class => in_class = false,
            '(' if chars.peek() == Some(&'?') => {
                chars.next();
                return match chars.next() {
                    Some(':') => "(?: (write a plain group ( ))".into(),
                    Some('=' | '!' | '<') => "(?… look-around (I-Regexp has none)".into(),
                    _ => "(?… flags such as (?i) (I-Regexp has none: spell both cases, as [Ee]rror)".into(),
                };
            }
            _ => {}
        }
    }
    "an unclosed '['".into()
}
