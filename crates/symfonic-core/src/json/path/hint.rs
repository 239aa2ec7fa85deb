//! What an invalid path most likely meant, where a model writes another
//! dialect: `=~` (a regex in JSONPath-Plus and jq), `contains` / `in`
//! (JSONPath-Plus, Jayway), `~` and `keys()` / `| keys` (a key's name), a
//! regex escape (`\d`) in a filter's string. The
//! message names the RFC 9535 way instead of only the character refused.

/// The message for an invalid `path` whose parse stopped at byte `at` with
/// `msg`, or `None` when the plain message says it best.
pub(super) fn better(path: &str, at: usize) -> Option<String> {
    if path.trim_start().starts_with(['/', '#']) {
        return None; // a JSON Pointer: its own messages
    }
    let rest = path.get(at..).unwrap_or("");
    let before = path.get(..at).unwrap_or("");
    let word = rest.trim_start();
    // `"\d{7}"` in match()/search(): an invalid escape in a JSONPath string,
    // and not I-Regexp once escaped.
    if let Some(e) = rest.strip_prefix('\\').and_then(|r| r.chars().next()) {
        if before.contains("match(") || before.contains("search(") {
            let form = match e {
                'd' => " and [0-9] in I-Regexp, the regular expressions match() and search() take",
                'w' => " and [A-Za-z0-9_] in I-Regexp, the regular expressions match() and search() take",
                's' => " and [ \\t\\n\\r] in I-Regexp, the regular expressions match() and search() take",
                _ => " in a regular expression",
            };
            return Some(format!("'\\{e}' is not an escape of a JSONPath string: a backslash there is written \\\\ (\\\\{e}),{form}"));
        }
    }
    if rest.starts_with("=~") {
        return Some("'=~' is not an operator: a regular expression is search(@.name, 'regex') (any part of the value) or match(@.name, 'regex') (the whole value)".into());
    }
    let in_filter = before.contains("[?");
    if in_filter
        && rest.starts_with('=')
        && !rest.starts_with("==")
        && !before.ends_with(['=', '!', '<', '>'])
    {
        return Some("'=' is not an operator: compare with '=='".into());
    }
    // The operator word, where the parse stopped or later in the filter.
    let filter = path.find("[?").map_or("", |i| &path[i..]);
    let op = ["contains", "in", "nin", "anyof", "subsetof", "has", "like"]
        .into_iter()
        .find(|w| {
            (word.starts_with(w) && !word[w.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_'))
                || filter.contains(&format!(" {w} "))
        });
    if let Some(op) = op {
        if in_filter {
            return Some(format!("JSONPath has no '{op}' operator: to test the elements of an array use a filter inside the filter, as [?@.groups[?@ == 'admin']]; for part of a string, search(@.name, 'admin')"));
        }
    }
    let keys = "JSONPath selects values, not keys: format='paths' answers each value beside its path, which ends with its key";
    if rest.starts_with('~') {
        let of = before.trim_end();
        return Some(format!(
            "'~' (a key's name) is not JSONPath; {keys} (json_path='{of}' with format='paths')"
        ));
    }
    let lower = path.to_ascii_lowercase();
    if let Some(i) = lower.find("keys(") {
        let inner = path[i + 5..].trim_end().trim_end_matches(')').trim();
        let of = if inner.is_empty() || inner == "@" || inner == "." {
            "$"
        } else {
            inner
        };
        return Some(format!(
            "JSONPath has no keys(); {keys} (json_path='{}.*' with format='paths')",
            of.trim_end_matches('.')
        ));
    }
    if let Some(i) = lower
        .find('|')
        .filter(|&i| lower[i + 1..].trim_start().starts_with("keys"))
    {
        let of = path[..i].trim();
        return Some(format!(
            "JSONPath has no '| keys'; {keys} (json_path='{}.*' with format='paths')",
            of.trim_end_matches('.')
        ));
    }
    None
}
