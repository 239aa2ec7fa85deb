//! Text reads and capped answers, through a ledger as `recall` answers them.

use crate::recall::FetchSpec;
use crate::testing::ledger_with;
use crate::text::count_chars;

fn reads(pattern: Option<&str>, ignore_case: bool, context: f64, lines: Option<&str>) -> FetchSpec {
    FetchSpec::new(Some("full"), None, None, None, None).with_reads(
        pattern.map(String::from),
        Some(ignore_case),
        Some(context),
        lines.map(String::from),
    )
}

fn log(n: usize) -> String {
    (1..=n)
        .map(|i| {
            format!(
                "2024-01-01 00:00:{:02} {} request {i}\r\n",
                i % 60,
                if i % 7 == 0 { "ERROR" } else { "INFO" }
            )
        })
        .collect()
}

#[test]
fn pattern_answers_count_number_and_show_lines() {
    let (l, id) = ledger_with(log(30));
    let out = l.recall(
        "",
        &id,
        &reads(Some(r"ERROR request (7|14)\b"), false, 0.0, None),
        50_000,
    );
    assert_eq!(
        out,
        format!("[recall: 2 matching lines for pattern 'ERROR request (7|14)\\b' in {id}]\n7:2024-01-01 00:00:07 ERROR request 7\n14:2024-01-01 00:00:14 ERROR request 14")
    );
    let out = l.recall("", &id, &reads(Some("error"), false, 0.0, None), 50_000);
    assert_eq!(
        out,
        format!("[recall: no match for pattern 'error' in {id}; with ignore_case=true: 4 matching lines]")
    );
    let out = l.recall("", &id, &reads(Some("error"), true, 1.0, Some("10-15")), 50_000);
    assert_eq!(
        out.to_string_lossy().lines().next().unwrap(),
        format!("[recall: 1 matching line for pattern 'error' (ignore_case) in {id} lines 10-15]")
    );
    assert!(out.to_string_lossy().ends_with("13-2024-01-01 00:00:13 INFO request 13\n14:2024-01-01 00:00:14 ERROR request 14\n15-2024-01-01 00:00:15 INFO request 15"));
}

#[test]
fn a_capped_pattern_answer_says_how_to_get_the_rest() {
    let text = log(5000);
    let (l, id) = ledger_with(text.clone());
    let out = l
        .recall("", &id, &reads(Some("ERROR"), false, 0.0, None), 2000)
        .to_string_lossy()
        .into_owned();
    assert!(count_chars(out.as_bytes()) <= 2000);
    let head = out.lines().next().unwrap();
    let last = out.lines().last().unwrap();
    let last_line: usize = last.split(':').next().unwrap().parse().unwrap();
    let shown = out.lines().count() - 1;
    let next_line = text
        .split("\r\n")
        .take(last_line + 7)
        .map(|l| l.len() + 2)
        .sum::<usize>()
        - text.split("\r\n").nth(last_line + 6).unwrap().len()
        - 2;
    assert_eq!(
        head,
        format!("[recall: 714 matching lines for pattern 'ERROR' in {id}; {shown} shown; for the rest pass offset={next_line} with the same pattern]")
    );
    // Following the offsets answers every matching line once, in order.
    let (mut seen, mut spec) = (Vec::new(), reads(Some("ERROR"), false, 0.0, None));
    loop {
        let out = l.recall("", &id, &spec, 2000).to_string_lossy().into_owned();
        assert!(count_chars(out.as_bytes()) <= 2000);
        seen.extend(
            out.lines()
                .skip(1)
                .map(|l| l.split(':').next().unwrap().parse::<usize>().unwrap()),
        );
        match out.lines().next().unwrap().split("pass offset=").nth(1) {
            Some(rest) => spec.offset = Some(rest.split(' ').next().unwrap().parse().unwrap()),
            None => {
                assert!(
                    out.starts_with(&format!(
                        "[recall: 714 matching lines for pattern 'ERROR' in {id}; from offset="
                    )),
                    "{out}"
                );
                assert!(out.lines().next().unwrap().ends_with("shown, the last]"));
                break;
            }
        }
    }
    assert_eq!(seen, (1..=5000).filter(|i| i % 7 == 0).collect::<Vec<_>>());
    // The count alone.
    let mut count = reads(Some("ERROR"), false, 0.0, None);
    count.count_only = true;
    assert_eq!(
        l.recall("", &id, &count, 2000),
        format!("[recall: 714 matching lines for pattern 'ERROR' in {id}]")
    );
}

#[test]
fn pattern_problems_are_answers() {
    let (l, id) = ledger_with("a\nb\n".into());
    let out = l.recall("", &id, &reads(Some("a("), false, 0.0, None), 50_000);
    assert_eq!(out, "[recall: pattern 'a(' does not compile: unclosed group at character 2; for a literal string use query, or escape the special characters with \\]");
    let out = l.recall("", &id, &reads(Some("a"), false, 0.0, Some("9-")), 50_000);
    assert_eq!(
        out,
        format!("[recall: lines '9-' start past the end of {id}, which has 2 lines]")
    );
    let out = l.recall("", &id, &reads(None, false, 0.0, Some("two")), 50_000);
    assert!(out
        .to_string_lossy()
        .starts_with("[recall: lines 'two' cannot be read: it is not a line range;"));
}

#[test]
fn lines_are_numbered_cut_at_a_line_and_raw_on_request() {
    let text = log(100);
    let (l, id) = ledger_with(text.clone());
    let all: Vec<&str> = text.split("\r\n").collect();
    let numbered = |from: usize, to: usize| {
        (from..=to)
            .map(|n| format!("{n}:{}", all[n - 1]))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        l.recall("", &id, &reads(None, false, 0.0, Some("3-4")), 50_000),
        numbered(3, 4)
    );
    assert_eq!(
        l.recall("", &id, &reads(None, false, 0.0, Some("100")), 50_000),
        numbered(100, 100)
    );
    // Past the end: the size, and the lines there are.
    assert_eq!(
        l.recall("", &id, &reads(None, false, 0.0, Some("99-120")), 50_000),
        format!(
            "[recall: {id} has 100 lines; lines 99-100 follow]\n{}",
            numbered(99, 100)
        )
    );
    // Cut at a whole line, and how to read on.
    let out = l
        .recall("", &id, &reads(None, false, 0.0, Some("10-")), 500)
        .to_string_lossy()
        .into_owned();
    assert!(count_chars(out.as_bytes()) <= 500);
    let (head, body) = out.split_once('\n').unwrap();
    let last: usize = body
        .lines()
        .last()
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(body, numbered(10, last));
    assert_eq!(
        head,
        format!(
            "[recall: lines 10-{last} of {id} follow; for the rest pass lines='{}-']",
            last + 1
        )
    );
    // The payload's own text on request, continued by offset or line.
    let mut raw = reads(None, false, 0.0, Some("10-"));
    raw.raw = true;
    let out = l.recall("", &id, &raw, 500).to_string_lossy().into_owned();
    let (body, marker) = out.split_once("\n...[").unwrap();
    let start = text.find(all[9]).unwrap();
    let next = start + body.len();
    let line = 10 + body.matches('\n').count();
    assert!(
        marker.ends_with(&format!("; continue with offset={next} or lines='{line}-']")),
        "{marker}"
    );
    // One line longer than the answer: its head, and where it goes on.
    let (l2, id2) = ledger_with(format!("short\n{}\nafter\n", "x".repeat(3000)));
    let out = l2
        .recall("", &id2, &reads(None, false, 0.0, Some("2-3")), 1000)
        .to_string_lossy()
        .into_owned();
    assert!(
        count_chars(out.as_bytes()) <= 1000,
        "{}",
        count_chars(out.as_bytes())
    );
    let (head, body) = out.split_once('\n').unwrap();
    let kept = body.len() - 5; // "2:" and "..."
    assert_eq!(
        head,
        format!("[recall: line 2 of {id2} is 3000 chars, too long for one answer; its first {kept} follow; for the rest of it pass offset={} with max_chars, and lines='3' for the lines after it]", 6 + kept)
    );
    // The query can be narrowed to lines too, and ignore case.
    let q = FetchSpec::new(
        Some("full"),
        Some("error REQUEST 2".to_string().into()),
        None,
        None,
        None,
    )
    .with_reads(None, Some(true), None, Some("20-30".into()));
    let out = l.recall("", &id, &q, 50_000).to_string_lossy().into_owned();
    assert!(
        out.contains("ERROR request 21") && !out.contains("[recall"),
        "{out}"
    );
}

#[test]
fn a_json_answer_over_the_cap_pages_by_whole_nodes() {
    let rows: Vec<String> = (0..10_000)
        .map(|i| format!("{{\"id\": {i}, \"name\": \"n{i}\"}}"))
        .collect();
    let doc = format!("{{\"meta\": {{\"n\": 10000}}, \"rows\": [{}]}}", rows.join(", "));
    let (l, id) = ledger_with(doc.clone());
    let path = |p: &str, offset: Option<i64>| {
        FetchSpec::new(None, None, offset.map(|o| o as f64), None, Some(p.into()))
    };
    // One array over the cap: its elements, whole, and the offset to read on.
    let mut seen = Vec::new();
    let mut offset = None;
    loop {
        let out = l
            .recall("", &id, &path("rows", offset), 50_000)
            .to_string_lossy()
            .into_owned();
        assert!(count_chars(out.as_bytes()) <= 50_000);
        let (head, body) = out.split_once('\n').unwrap();
        let v: serde_json::Value = serde_json::from_str(body).unwrap();
        seen.extend(v.as_array().unwrap().iter().map(|r| r["id"].as_u64().unwrap()));
        assert!(
            head.starts_with("[recall: json_path 'rows' is an array of 10000 elements"),
            "{head}"
        );
        match head.split("pass offset=").nth(1) {
            Some(rest) => offset = Some(rest.split(' ').next().unwrap().parse().unwrap()),
            None => {
                assert!(head.ends_with(" of 10000 follow, the last]"), "{head}");
                break;
            }
        }
    }
    assert_eq!(seen, (0..10_000).collect::<Vec<_>>());
    // A nodelist the same way, compact: no spaces the payload had.
    let out = l
        .recall("", &id, &path("rows[*].name", None), 1000)
        .to_string_lossy()
        .into_owned();
    assert!(count_chars(out.as_bytes()) <= 1000);
    let (head, body) = out.split_once('\n').unwrap();
    let n = serde_json::from_str::<serde_json::Value>(body)
        .unwrap()
        .as_array()
        .unwrap()
        .len();
    assert_eq!(
        head,
        format!("[recall: json_path 'rows[*].name' selects 10000 nodes, too long for one answer; nodes 1-{n} of 10000 follow; for the rest pass offset={n} with the same json_path]")
    );
    assert!(body.starts_with("[\"n0\",\"n1\","));
    // An object: whole members, with their keys.
    let out = l
        .recall("", &id, &path("$", None), 200)
        .to_string_lossy()
        .into_owned();
    assert!(
        out.starts_with("[recall: json_path '$' is an object of 2 members, too long for one answer; member 1 of 2 follows; for the rest pass offset=1 with the same json_path]\n{\"meta\":{\"n\":10000}}"),
        "{out}"
    );
    let out = l
        .recall("", &id, &path("$", Some(1)), 200)
        .to_string_lossy()
        .into_owned();
    assert_eq!(out, "[recall: json_path '$' is an object of 2 members; member 2 alone is too long for one answer: read it with json_path=\"$['rows']\"]");
    // Past the last node.
    let out = l.recall("", &id, &path("rows[*].id", Some(10_000)), 200);
    assert_eq!(
        out,
        "[recall: json_path 'rows[*].id' selects 10000 nodes; offset=10000 is past the last]"
    );
    // A long string is cut as a part of the payload.
    let (l2, id2) = ledger_with(format!("{{\"s\": \"{}\"}}", "y".repeat(5000)));
    let out = l2
        .recall("", &id2, &path("s", None), 1000)
        .to_string_lossy()
        .into_owned();
    assert!(out.starts_with("\"yyy"));
    assert!(
        out.ends_with(&format!(
            "; continue with offset={}]",
            6 + count_chars(out.split_once("\n...[").unwrap().0.as_bytes())
        )),
        "{out}"
    );
}

/// loghub's Apache error log, in its shape: a level in brackets on every
/// line, and `jk2_init() Can't find child` in some. Copying `[error]` from
/// the stub as a pattern is a character class; `()` is an empty group; the
/// Windows CBS log's `C:\Windows\servicing` holds `\W` and `\s`. Each answer
/// says how often the text itself occurs, and how to find it.
#[test]
fn a_pattern_meant_as_text_says_where_the_text_is() {
    let mut text = String::new();
    for i in 1..=40 {
        let (level, what) = match i % 4 {
            0 => ("error", "mod_jk child workerEnv in error state 6".to_string()),
            1 => ("error", format!("jk2_init() Can't find child {i} in scoreboard")),
            _ => (
                "notice",
                format!("jk2_init() Found child {i} in scoreboard slot 8"),
            ),
        };
        text.push_str(&format!(
            "[Sun Dec 04 04:47:{:02} 2005] [{level}] {what}\n",
            i % 60
        ));
    }
    text.push_str("2016-09-28 04:30:31, Info CBS Loaded Servicing Stack v6.1.7601.23505 with Core: C:\\Windows\\servicing\\cbscore.dll\n");
    let (l, id) = ledger_with(text);
    let count = |p: &str| {
        let mut s = reads(Some(p), false, 0.0, None);
        s.count_only = true;
        l.recall("", &id, &s, 50_000).to_string_lossy().into_owned()
    };
    assert_eq!(
        count("[error]"),
        format!(
            r#"[recall: 41 matching lines for pattern '[error]' in {id}; the text '[error]' as written is on 20 lines: in a pattern \ . + * ? ( ) [ ] {{ }} | ^ $ are special, so for the text pass query="[error]" or pattern="\\[error\\]"]"#
        )
    );
    let out = l.recall(
        "",
        &id,
        &reads(Some("jk2_init() Can't find child"), false, 0.0, None),
        50_000,
    );
    assert_eq!(
        out,
        format!(
            r#"[recall: no match for pattern 'jk2_init() Can't find child' in {id}; the text 'jk2_init() Can't find child' as written is on 10 lines: in a pattern \ . + * ? ( ) [ ] {{ }} | ^ $ are special, so for the text pass query="jk2_init() Can't find child" or pattern="jk2_init\\(\\) Can't find child"]"#
        )
    );
    let out = l.recall(
        "",
        &id,
        &reads(Some(r"C:\Windows\servicing"), false, 0.0, None),
        50_000,
    );
    assert!(
        out.to_string_lossy().contains(r#"as written is on 1 line: "#),
        "{out:?}"
    );
    // The escaped pattern it names finds those lines, and a regex meant as one gets no note.
    assert!(count(r"\[error\]").starts_with("[recall: 20 matching lines for pattern '\\[error\\]'"));
    assert!(!count(r"error|notice").contains("as written"));
    assert!(!count(r"child \d+").contains("as written"));
}

/// SPDX's `$.MIT.name` with `max_chars: 1` answered `"` alone: a value cut
/// by `max_chars` says so, and where the rest is.
#[test]
fn a_value_cut_by_max_chars_says_so_and_how_to_read_on() {
    let doc = r#"{"MIT": {"name": "MIT License", "isOsiApproved": true}}"#;
    let (l, id) = ledger_with(doc.to_string());
    let mut spec = FetchSpec::new(None, None, None, None, Some("$.MIT.name".into()));
    spec.max_chars = Some(1);
    let out = l.recall("", &id, &spec, 50_000).to_string_lossy().into_owned();
    let at = doc.find("\"MIT License\"").unwrap();
    assert_eq!(out, format!("[recall: json_path '$.MIT.name' is a string of 13 chars as written, cut at max_chars=1: its first char follows; for the rest pass offset={} with max_chars, without json_path]\n\"", at + 1));
    // The offset it names reads on from there.
    let rest = FetchSpec::new(None, None, Some((at + 1) as f64), Some(12.0), None);
    assert_eq!(
        l.recall("", &id, &rest, 50_000).to_string_lossy(),
        "MIT License\""
    );
}

/// `format: 'count'` with `json_path` counts the nodes (it was refused, and
/// the model counted 423 itself).
#[test]
fn json_path_counts_with_format_count() {
    let users: Vec<String> = (0..423).map(|i| format!("{{\"id\":{i}}}")).collect();
    let (l, id) = ledger_with(format!("{{\"users\":[{}],\"name\":\"x\"}}", users.join(",")));
    let count = |p: &str| {
        let mut s = FetchSpec::new(Some("count"), None, None, None, Some(p.to_string()));
        s.count_only = true;
        l.recall("", &id, &s, 50_000).to_string_lossy().into_owned()
    };
    assert_eq!(
        count("$.users[*]"),
        "[recall: json_path '$.users[*]' selects 423 nodes]"
    );
    assert_eq!(
        count("$.users[?@.id < 10]"),
        "[recall: json_path '$.users[?@.id < 10]' selects 10 nodes]"
    );
    assert_eq!(
        count("$.users"),
        "[recall: json_path '$.users' selects 1 node, an array of 423 elements]"
    );
    assert_eq!(
        count("$.name"),
        "[recall: json_path '$.name' selects 1 node, a string]"
    );
    assert!(count("$.user").starts_with("[recall: json_path '$.user' not found"));
}

/// `offset: -500` means the last 500 characters (a model's Python slice).
#[test]
fn a_negative_offset_reads_from_the_end() {
    let text: String = (0..2000).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
    let (l, id) = ledger_with(text.clone());
    let spec = FetchSpec::new(None, None, Some(-500.0), None, None);
    assert_eq!(l.recall("", &id, &spec, 50_000).to_string_lossy(), &text[1500..]);
    let spec = FetchSpec::new(None, None, Some(-5000.0), Some(10.0), None);
    assert_eq!(l.recall("", &id, &spec, 50_000).to_string_lossy(), &text[..10]);
}

/// `format: 'full'` on a payload many answers long says which page this is
/// of about how many, and the narrower read (GitHub's 73 MB OpenAPI file:
/// page 1 of about 1,460).
#[test]
fn a_full_read_of_a_long_payload_says_its_page_and_a_narrower_read() {
    let doc = format!(
        "{{\"paths\":{{{}}}}}",
        (0..4000)
            .map(|i| format!("\"/p{i}\":{{\"get\":{{\"summary\":\"op {i}\"}}}}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let len = doc.chars().count();
    let (l, id) = ledger_with(doc);
    let full = FetchSpec::new(Some("full"), None, None, None, None);
    let out = l.recall("", &id, &full, 10_000).to_string_lossy().into_owned();
    let pages = len.div_ceil(10_000 - 200);
    assert!(out.ends_with(&format!(" (page 1 of about {pages} at this size; to read a part, pass json_path (the stub shows what is there))]")), "{}", &out[out.len() - 300..]);
    assert!(count_chars(out.as_bytes()) <= 10_000);
    // A short payload read whole says nothing of pages.
    let (l, id) = ledger_with("x".repeat(100));
    assert_eq!(
        l.recall("", &id, &full, 10_000).to_string_lossy(),
        "x".repeat(100)
    );
}

/// A match on a line over 1,000 characters (a minified bundle, TypeScript's
/// 9 MB `typescript.js`) shows around the match: the answer names the
/// `lines=` that reads the line from its start.
#[test]
fn a_long_matching_line_names_the_lines_read_that_has_it_whole() {
    let text = format!(
        "short line\n{}needle{}\nlast\n",
        "a".repeat(3000),
        "b".repeat(3000)
    );
    let (l, id) = ledger_with(text);
    let out = l
        .recall("", &id, &reads(Some("needle"), false, 0.0, None), 50_000)
        .to_string_lossy()
        .into_owned();
    let head = out.lines().next().unwrap();
    assert_eq!(head, format!("[recall: 1 matching line for pattern 'needle' in {id}; line 2 is over 1000 chars and shows around its matches: lines='2' reads it from its start]"));
    assert!(out.lines().nth(1).unwrap().starts_with("2:...a"));
    let whole = FetchSpec::new(None, None, None, None, None).with_reads(None, None, None, Some("2".into()));
    assert_eq!(count_chars(l.recall("", &id, &whole, 50_000).as_bytes()), 6008);
}
