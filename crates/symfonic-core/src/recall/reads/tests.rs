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
    let (l, id) = ledger_with(log(5000));
    let out = l
        .recall("", &id, &reads(Some("ERROR"), false, 0.0, None), 2000)
        .to_string_lossy()
        .into_owned();
    assert!(count_chars(out.as_bytes()) <= 2000);
    let head = out.lines().next().unwrap();
    let last = out.lines().last().unwrap();
    let last_line: usize = last.split(':').next().unwrap().parse().unwrap();
    let shown = out.lines().count() - 1;
    assert_eq!(
        head,
        format!("[recall: 714 matching lines for pattern 'ERROR' in {id}; {shown} shown; for the rest pass lines='{}-' with the same pattern]", last_line + 1)
    );
    // Following the hint answers the next matching lines.
    let next = l.recall(
        "",
        &id,
        &reads(Some("ERROR"), false, 0.0, Some(&format!("{}-", last_line + 1))),
        2000,
    );
    let second = next.to_string_lossy().lines().nth(1).unwrap().to_string();
    assert!(second.starts_with(&format!("{}:", last_line + 7)), "{second}");
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
fn lines_read_the_payload_and_continue_by_offset_or_line() {
    let text = log(100);
    let (l, id) = ledger_with(text.clone());
    let all: Vec<&str> = text.split("\r\n").collect();
    assert_eq!(
        l.recall("", &id, &reads(None, false, 0.0, Some("3-4")), 50_000),
        all[2..4].join("\r\n")
    );
    assert_eq!(
        l.recall("", &id, &reads(None, false, 0.0, Some("100")), 50_000),
        all[99]
    );
    let out = l
        .recall("", &id, &reads(None, false, 0.0, Some("10-")), 500)
        .to_string_lossy()
        .into_owned();
    assert!(count_chars(out.as_bytes()) <= 500);
    let (body, marker) = out.split_once("\n...[").unwrap();
    let start = text.find(all[9]).unwrap();
    let next = start + body.len();
    let line = 10 + body.matches('\n').count();
    assert!(
        marker.ends_with(&format!("; continue with offset={next} or lines='{line}-']")),
        "{marker}"
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
fn a_json_node_over_the_cap_continues_or_is_described() {
    let rows: Vec<String> = (0..10_000)
        .map(|i| format!("{{\"id\":{i},\"name\":\"n{i}\"}}"))
        .collect();
    let doc = format!("{{\"meta\":{{\"n\":10000}},\"rows\":[{}]}}", rows.join(","));
    let (l, id) = ledger_with(doc.clone());
    let path = |p: &str| FetchSpec::new(None, None, None, None, Some(p.into()));
    let at = doc.find("[{").unwrap();
    let out = l
        .recall("", &id, &path("rows"), 50_000)
        .to_string_lossy()
        .into_owned();
    assert!(out.starts_with(&format!("[recall: json_path 'rows' in {id} selects {} chars, over the 50000-char answer cap; its structure: array[10000] of records, 2 columns (1000 rows sampled): id,name", doc.len() - at - 1)), "{}", &out[..out.len().min(400)]);
    assert!(out.ends_with(&format!("or read it in parts from offset={at} with max_chars]")));
    // Less than twice the cap: cut, with the offset to continue from.
    let out = l
        .recall("", &id, &path("rows"), 150_000)
        .to_string_lossy()
        .into_owned();
    let (body, marker) = out.split_once("\n...[").unwrap();
    assert!(doc[at..].starts_with(body));
    assert!(marker.ends_with(&format!("; continue with offset={}]", at + body.len())));
    // Several nodes: cut, with a hint to narrow.
    let out = l
        .recall("", &id, &path("rows[*].name"), 1000)
        .to_string_lossy()
        .into_owned();
    assert!(out.ends_with("; narrow the path (an index range such as [0:20], or a filter) to see the rest]"));
    assert!(count_chars(out.as_bytes()) <= 1000);
}
