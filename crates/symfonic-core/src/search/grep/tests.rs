//! `search` against a naive line-by-line grep, and the bounds on patterns.

use proptest::prelude::*;

use super::*;
use crate::search::lines;

/// `grep -n` (with `-C context`) written the obvious way: split, test each
/// line, print matches and their neighbours, `--` between groups.
fn naive(text: &str, pattern: &str, ignore_case: bool, context: usize) -> (String, usize) {
    let syntax = regex_automata::util::syntax::Config::new()
        .case_insensitive(ignore_case)
        .multi_line(true)
        .crlf(true);
    let re = Regex::builder().syntax(syntax).build(pattern).unwrap();
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') || text.is_empty() {
        lines.pop();
    }
    let hits: Vec<bool> = lines
        .iter()
        .map(|l| re.is_match(l.strip_suffix('\r').unwrap_or(l)))
        .collect();
    let total = hits.iter().filter(|&&h| h).count();
    let shown = |i: usize| (i.saturating_sub(context)..=(i + context).min(lines.len() - 1)).any(|j| hits[j]);
    let mut out = Vec::new();
    let mut last = None;
    for i in 0..lines.len() {
        if !shown(i) {
            continue;
        }
        if context > 0 && last.is_some_and(|l: usize| i > l + 1) {
            out.push("--".to_string());
        }
        let line = lines[i].strip_suffix('\r').unwrap_or(lines[i]);
        out.push(format!("{}{}{line}", i + 1, if hits[i] { ':' } else { '-' }));
        last = Some(i);
    }
    (out.join("\n"), total)
}

fn whole(text: &str) -> Span {
    let end = text.len() - usize::from(text.ends_with('\n'));
    Span {
        start: 0,
        end: lines::end_of_line(text.as_bytes(), 0, end),
        first: 1,
        last: usize::MAX,
    }
}

fn run(text: &str, pattern: &str, ignore_case: bool, context: usize, budget: usize) -> Found {
    let re = compile_for(pattern, ignore_case, text.is_ascii()).unwrap();
    search(text, text.as_bytes(), &re, whole(text), 0, context, budget)
}

#[test]
fn answers_as_grep_does() {
    let log = "INFO start\nWARN disk 91%\nINFO tick\nERROR disk full\nINFO tick\nINFO tick\nINFO tick\nERROR again\n";
    let f = run(log, "ERROR|WARN", false, 0, usize::MAX);
    assert_eq!(f.body, b"2:WARN disk 91%\n4:ERROR disk full\n8:ERROR again");
    assert_eq!((f.total, f.shown, f.resume), (3, 3, None));
    let f = run(log, "^ERROR", false, 1, usize::MAX);
    assert_eq!(
        String::from_utf8(f.body).unwrap(),
        "3-INFO tick\n4:ERROR disk full\n5-INFO tick\n--\n7-INFO tick\n8:ERROR again"
    );
    let f = run(log, "error", true, 0, usize::MAX);
    assert_eq!(f.total, 2);
    // Matches stay within a line: a class never takes the `\n`, a literal one never matches.
    let f = run(log, "[^x]*91", false, 0, usize::MAX);
    assert_eq!((f.body.as_slice(), f.total), (&b"2:WARN disk 91%"[..], 1));
    assert_eq!(run(log, r"start\nWARN", false, 0, usize::MAX).total, 0);
    assert_eq!(run(log, r"tick\s+INFO", false, 0, usize::MAX).total, 0);
    // CRLF: `$` before `\r\n`, and the `\r` is not shown.
    let crlf = "a=1\r\nb=2\r\nc=3";
    let f = run(crlf, r"=\d$", false, 0, usize::MAX);
    assert_eq!(f.body, b"1:a=1\n2:b=2\n3:c=3");
}

#[test]
fn the_budget_cuts_between_lines_and_says_where_to_resume() {
    let log: String = (1..=100)
        .map(|i| format!("line {i} {}\n", if i % 10 == 0 { "HIT" } else { "-" }))
        .collect();
    let full = run(&log, "HIT", false, 0, usize::MAX);
    assert_eq!((full.total, full.shown), (10, 10));
    // "10:line 10 HIT\n" is 15 code points: three lines fit in 50.
    let cut = run(&log, "HIT", false, 0, 50);
    let at = log.find("line 40 ").unwrap();
    assert_eq!((cut.total, cut.shown, cut.resume), (10, 3, Some(at)));
    assert!(full.body.starts_with(&cut.body));
    // Resuming at the byte named finds the rest.
    let re = compile("HIT", false).unwrap();
    let rest = search(&log, log.as_bytes(), &re, whole(&log), at, 0, usize::MAX);
    assert_eq!(rest.total, 7);
    assert!(rest.body.starts_with(b"40:line 40 HIT"));
}

#[test]
fn long_lines_are_cut_around_the_match() {
    let line = format!("{}NEEDLE{}\nshort\n", "é".repeat(5000), "x".repeat(5000));
    let f = run(&line, "NEEDLE", false, 1, usize::MAX);
    let body = String::from_utf8(f.body).unwrap();
    let want = format!(
        "1:...{}NEEDLE{}...\n2-short",
        "é".repeat(CUT_SIDE),
        "x".repeat(CUT_SIDE)
    );
    assert_eq!(body, want);
    let f = run(&line, "short", false, 1, usize::MAX);
    let body = String::from_utf8(f.body).unwrap();
    assert_eq!(body, format!("1-{}...\n2:short", "é".repeat(2 * CUT_SIDE)));
}

#[test]
fn a_long_line_shows_each_match_once_and_resumes_inside_it() {
    let line: String = (0..40)
        .map(|i| format!("{}M{i:02}", "x".repeat(500)))
        .collect::<String>()
        + "\nM99 short\n";
    let all = run(&line, r"M\d\d", false, 0, usize::MAX);
    let body = String::from_utf8(all.body).unwrap();
    assert_eq!((all.total, all.shown), (2, 2));
    assert_eq!(body.matches("1:...").count(), 40, "one part per match");
    assert!(body.ends_with("\n2:M99 short"));
    // Close matches share a part: no text shows twice.
    let dense: String = (0..40)
        .map(|i| format!("{}M{i:02}", "x".repeat(50)))
        .collect::<String>()
        + "\n";
    let d = String::from_utf8(run(&dense, r"M\d\d", false, 0, usize::MAX).body).unwrap();
    assert_eq!(d.matches('M').count(), 40);
    assert!(d.lines().count() < 10, "{d}");
    // A budget cuts between parts; resuming at the byte named reaches every match once.
    let re = compile(r"M\d\d", false).unwrap();
    let (mut from, mut seen) = (0usize, Vec::new());
    loop {
        let f = search(&line, line.as_bytes(), &re, whole(&line), from, 0, 2000);
        let text = String::from_utf8(f.body).unwrap();
        for (i, _) in text.match_indices('M') {
            seen.push(text[i + 1..i + 3].to_string());
        }
        match f.resume {
            Some(r) => {
                assert!(r > from);
                from = r;
            }
            None => break,
        }
    }
    let want: Vec<String> = (0..40)
        .map(|i| format!("{i:02}"))
        .chain(["99".to_string()])
        .collect();
    assert_eq!(seen, want);
}

#[test]
fn lone_surrogates_read_as_replacement_and_come_back_whole() {
    // "a\u{D800}b\nc": WTF-8, searched through its display text.
    let raw = crate::wtf8::from_utf16(&[0x61, 0xD800, 0x62, 0x0A, 0x63]).0;
    let view = crate::wtf8::to_string_lossy(&raw);
    let re = compile("a.b", false).unwrap();
    let span = Span {
        start: 0,
        end: raw.len(),
        first: 1,
        last: usize::MAX,
    };
    let f = search(&view, &raw, &re, span, span.start, 0, usize::MAX);
    let mut want = b"1:".to_vec();
    want.extend_from_slice(&raw[..5]);
    assert_eq!(f.body, want);
}

#[test]
fn patterns_are_bounded_and_errors_are_one_line() {
    assert_eq!(
        compile("foo(", false).unwrap_err(),
        "unclosed group at character 4"
    );
    assert!(compile(r"[\w.]{1,100}", false).unwrap_err().contains("4 MiB"));
    assert!(compile(&"a".repeat(MAX_PATTERN_CHARS + 1), false)
        .unwrap_err()
        .contains("longer than"));
    let deep = format!("{}a{}", "(".repeat(100), ")".repeat(100));
    assert!(compile(&deep, false).unwrap_err().contains("nest"));
    assert!(compile(r"\p{Nope}", false)
        .unwrap_err()
        .contains("at character 1"));
    // A Unicode class repeated within the limit compiles.
    assert!(compile(r"\w{1,50}", false).is_ok());
}

fn arb_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("ERROR"),
            Just("error"),
            Just("warn"),
            Just("é"),
            Just("😀"),
            Just("x"),
            Just(" "),
            Just("\n"),
            Just("\r\n"),
            Just("42"),
        ],
        0..60,
    )
    .prop_map(|v| v.concat())
}

fn arb_pattern() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("ERROR"),
        Just("^ERROR"),
        Just("x$"),
        Just(r"\d+"),
        Just("é|😀"),
        Just("r{2}"),
        Just("^$"),
        Just("^"),
        Just("w.r"),
        Just("(?i)error"),
        Just(r"[^x]*r"),
        Just(r"\s"),
        Just(r"\W+"),
    ]
}

proptest! {
    #[test]
    fn search_equals_naive_grep(text in arb_text(), pattern in arb_pattern(), ic: bool, context in 0usize..3) {
        let f = run(&text, pattern, ic, context, usize::MAX);
        let (want, total) = naive(&text, pattern, ic, context);
        prop_assert_eq!(String::from_utf8(f.body).unwrap(), want);
        prop_assert_eq!(f.total, total);
        prop_assert_eq!(f.shown, total);
        prop_assert_eq!(f.resume, None);
    }

    #[test]
    fn a_budget_shows_a_prefix_within_it(text in arb_text(), pattern in arb_pattern(), context in 0usize..3, budget in 0usize..80) {
        let full = run(&text, pattern, false, context, usize::MAX);
        let cut = run(&text, pattern, false, context, budget);
        prop_assert!(count_chars(&cut.body) <= budget);
        // A prefix, unless the first matching line did not fit whole: then in parts.
        prop_assert!(full.body.starts_with(&cut.body) || cut.body.windows(3).any(|w| w == b"..."));
        prop_assert_eq!(cut.total, full.total);
        if cut.shown < full.shown {
            prop_assert!(cut.resume.is_some() || cut.cut.is_some());
        }
    }
}
