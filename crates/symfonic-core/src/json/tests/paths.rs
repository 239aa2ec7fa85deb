//! JSON paths: keys, indexes, brackets, wildcards, slices (as Python's),
//! and the helpful misses.

use super::*;

#[test]
fn dotted_keys_and_indices() {
    assert_eq!(node(SMALL, "meta.count"), "7");
    assert_eq!(node(SMALL, "rows.1.id"), "20");
    assert_eq!(node(SMALL, "rows.0.tags.1"), "\"b\"");
    assert_eq!(node(SMALL, "rows.-1.id"), "30");
    assert_eq!(node(SMALL, "rows.-3.id"), "10");
    // `..` is the descendant segment, never a second dot.
    assert_eq!(many(SMALL, "rows..0..id"), "[10]");
    assert_eq!(node(SMALL, "rows.2.nested.x.-1"), "3");
}

#[test]
fn brackets_and_quotes() {
    assert_eq!(node(SMALL, "rows[0].price"), "1.50");
    assert_eq!(node(SMALL, "rows[-1].id"), "30");
    assert_eq!(node(SMALL, "rows[ 1 ][\"id\"]"), "20");
    assert_eq!(node(SMALL, "[\"key.with.dots\"].inner"), "true");
    assert_eq!(node(SMALL, "['key.with.dots']['inner']"), "true");
    assert_eq!(node(SMALL, r#"['it\'s']"#), "1");
    assert_eq!(node(SMALL, r#"["q\"k"]"#), "2");
    assert_eq!(node(SMALL, "rows[2].nested.x[0]"), "1");
}

#[test]
fn dollar_forms() {
    assert_eq!(node(SMALL, "$.meta.count"), "7");
    assert_eq!(node(SMALL, "$[\"meta\"].count"), "7");
    assert_eq!(node(SMALL, "$"), SMALL);
    assert_eq!(node(SMALL, ""), SMALL);
    assert_eq!(node(SMALL, "$."), SMALL);
    let padded = format!("  \n{SMALL}\t ");
    assert_eq!(node(&padded, "$"), SMALL);
}

#[test]
fn integer_segment_on_object_is_a_key() {
    assert_eq!(node(SMALL, "0"), "\"zero\"");
    assert_eq!(node(SMALL, "$.0"), "\"zero\"");
    assert_eq!(node(SMALL, "['0']"), "\"zero\"");
    // RFC 9535: an index selector selects nothing on an object.
    assert!(err(SMALL, "[0]").contains("not found"));
    assert_eq!(node(r#"{"-1": 5}"#, "-1"), "5");
    assert_eq!(node(r#"[{"0": "k"}]"#, "0.0"), "\"k\"");
}

#[test]
fn original_text_is_preserved() {
    assert_eq!(node(SMALL, "rows.0.price"), "1.50");
    assert_eq!(node(SMALL, "rows.1.price"), "2.0e1");
    assert_eq!(node(SMALL, "rows.1.name"), r#""caf\u00e9""#);
    assert_eq!(node(SMALL, "rows.2.nested"), r#"{ "x" : [1, 2,  3] }"#);
    assert_eq!(node(SMALL, "empty"), "{}");
    assert_eq!(node(SMALL, "none"), "null");
    assert_eq!(node(SMALL, "list"), "[]");
}

#[test]
fn non_ascii_keys() {
    assert_eq!(node(SMALL, "café"), "\"é\"");
    assert_eq!(node(SMALL, "[\"café\"]"), "\"é\"");
    let s = r#"{"caf\u00e9": 1, "日本": {"東京": [1, "🎉"]}}"#;
    assert_eq!(node(s, "café"), "1");
    assert_eq!(node(s, "日本.東京.1"), "\"🎉\"");
    assert!(err(s, "日本.大阪").contains("'$.日本' is an object with 1 key [東京]"));
}

#[test]
fn wildcards() {
    assert_eq!(many(SMALL, "rows[*].id"), "[10,20,30]");
    assert_eq!(many(SMALL, "rows.*.id"), "[10,20,30]");
    assert_eq!(many(SMALL, "meta.*"), r#"[7,"keepa"]"#);
    assert_eq!(many(SMALL, "rows[*].name"), r#"["caf\u00e9"]"#);
    assert_eq!(many(SMALL, "rows[*].tags[*]"), r#"["a","b"]"#);
    assert_eq!(many(SMALL, "rows[*].missing"), "[]");
    assert_eq!(many(SMALL, "list[*]"), "[]");
    assert!(many(SMALL, "$[*]").starts_with("[{\"count\": 7"));
    assert_eq!(many("[[1,2],[3],4]", "[*][*]"), "[1,2,3]");
    assert_eq!(many("[[1,2],[3],4]", "*.-1"), "[2,3]");
}

#[test]
fn slices() {
    let a = "[0,1,2,3,4,5,6,7,8,9]";
    assert_eq!(many(a, "[2:5]"), "[2,3,4]");
    assert_eq!(many(a, "[7:]"), "[7,8,9]");
    assert_eq!(many(a, "[:3]"), "[0,1,2]");
    assert_eq!(many(a, "[:]"), a);
    assert_eq!(many(a, "[-2:]"), "[8,9]");
    assert_eq!(many(a, "[-100:2]"), "[0,1]");
    assert_eq!(many(a, "[1:8:3]"), "[1,4,7]");
    assert_eq!(many(a, "[::-1]"), "[9,8,7,6,5,4,3,2,1,0]");
    assert_eq!(many(a, "[8:2:-2]"), "[8,6,4]");
    assert_eq!(many(a, "[-1:-4:-1]"), "[9,8,7]");
    assert_eq!(many(a, "[5:2]"), "[]");
    assert_eq!(many(a, "[ 1 : 3 ]"), "[1,2]");
    assert_eq!(many(SMALL, "rows[1:].id"), "[20,30]");
    assert_eq!(many(SMALL, "rows[:2][\"price\"]"), "[1.50,2.0e1]");
}

#[test]
fn duplicate_keys_first_wins() {
    assert_eq!(node(r#"{"a": 1, "a": 2}"#, "a"), "1");
}

#[test]
fn not_found_names_the_resolved_prefix() {
    assert_eq!(
        err(SMALL, "rows.1.prise"),
        "[recall: json_path 'rows.1.prise' not found: '$.rows[1]' is an object with 3 keys [id,price,name] (did you mean 'price'?)]"
    );
    assert_eq!(
        err(SMALL, "rows.3"),
        "[recall: json_path 'rows.3' not found: '$.rows' is an array of length 3]"
    );
    assert_eq!(
        err(SMALL, "rows[-4]"),
        "[recall: json_path 'rows[-4]' not found: '$.rows' is an array of length 3]"
    );
    assert_eq!(
        err(SMALL, "meta.count.x"),
        "[recall: json_path 'meta.count.x' not found: '$.meta.count' is a number]"
    );
    assert_eq!(
        err(SMALL, "rows.1.name.first"),
        "[recall: json_path 'rows.1.name.first' not found: '$.rows[1].name' is a string]"
    );
    assert_eq!(
        err(SMALL, "none.x"),
        "[recall: json_path 'none.x' not found: '$.none' is null]"
    );
    assert!(err(SMALL, "nope").starts_with(
        "[recall: json_path 'nope' not found: '$' is an object with 10 keys [meta,rows,key.with.dots,0,it's,"
    ));
    assert_eq!(
        err(SMALL, "[\"key.with.dots\"].x"),
        "[recall: json_path '[\"key.with.dots\"].x' not found: '$[\'key.with.dots\']' is an object with 1 key [inner]]"
    );
    assert_eq!(
        err(SMALL, "rows.x"),
        "[recall: json_path 'rows.x' not found: '$.rows' is an array of length 3]"
    );
    // A query that may select several nodes answers an array, empty when none.
    assert_eq!(many(SMALL, "meta.count[*]"), "[]");
    assert_eq!(many(SMALL, "meta[1:2]"), "[]");
    assert_eq!(
        err("[1,2]", "[\"a\"]"),
        "[recall: json_path '[\"a\"]' not found: '$' is an array of length 2]"
    );
    assert_eq!(
        err("5", "a"),
        "[recall: json_path 'a' not found: '$' is a number]"
    );
}

#[test]
fn not_found_lists_at_most_twenty_keys() {
    let members: Vec<String> = (0..30).map(|i| format!("\"k{i}\":{i}")).collect();
    let s = format!("{{{}}}", members.join(","));
    let keys: Vec<String> = (0..20).map(|i| format!("k{i}")).collect();
    assert_eq!(
        err(&s, "zz"),
        format!(
            "[recall: json_path 'zz' not found: '$' is an object with 30 keys [{},...]]",
            keys.join(",")
        )
    );
}

#[test]
fn invalid_paths() {
    assert_eq!(
        err(SMALL, "rows["),
        "[recall: invalid json_path 'rows[': unclosed '[' at character 5]"
    );
    assert_eq!(
        err(SMALL, "rows[abc]"),
        "[recall: invalid json_path 'rows[abc]': unexpected 'a', expected a quoted name, an index, a slice, '*' or a '?' filter (quote keys: ['key']) at character 6]"
    );
    // RFC 9535: a zero step selects nothing.
    assert_eq!(many(SMALL, "rows[1:2:0]"), "[]");
    assert!(err(SMALL, "[1:2:3:4]").starts_with("[recall: invalid json_path"));
    assert!(err(SMALL, "[x:2]").starts_with("[recall: invalid json_path"));
    assert!(err(SMALL, "[\"abc]").starts_with("[recall: invalid json_path"));
    assert!(err(SMALL, "[\"abc\"x]").starts_with("[recall: invalid json_path"));
    assert!(err(SMALL, "[]").starts_with("[recall: invalid json_path"));
    assert!(err(SMALL, "[99999999999999999999]").starts_with("[recall: invalid json_path"));
}

#[test]
fn long_paths_are_echoed_cut() {
    let long = format!("rows.{}", "é".repeat(1_000_000));
    let e = err(SMALL, &long);
    let echoed = e.split('\'').nth(1).unwrap();
    assert_eq!(echoed.chars().count(), 203);
    assert!(echoed.ends_with("..."));
    assert!(e.len() < 2000);
    let long_bad = format!("{}[", "a".repeat(500));
    assert!(err(SMALL, &long_bad).len() < 600);
}

/// Python's slice semantics, written as the plain loop CPython documents.
fn py_slice(len: i64, start: Option<i64>, stop: Option<i64>, step: i64) -> Vec<i64> {
    let adjust = |v: i64, lo: i64, hi: i64| {
        let v = if v < 0 { v + len } else { v };
        v.clamp(lo, hi)
    };
    let mut out = Vec::new();
    if step > 0 {
        let (mut i, hi) = (
            adjust(start.unwrap_or(0), 0, len),
            adjust(stop.unwrap_or(len), 0, len),
        );
        while i < hi {
            out.push(i);
            i += step;
        }
    } else {
        let mut i = start.map_or(len - 1, |v| adjust(v, -1, len - 1));
        let lo = stop.map_or(-1, |v| adjust(v, -1, len - 1));
        while i > lo {
            out.push(i);
            i += step;
        }
    }
    out
}

#[test]
fn slices_match_python_semantics() {
    let mut rng = Rng(11);
    let big = format!(
        "[{}]",
        (0..6000).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
    );
    for len in (0..25).chain([6000]) {
        let s = if len == 6000 {
            big.clone()
        } else {
            format!(
                "[{}]",
                (0..len).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
            )
        };
        let d = doc(&s);
        for _ in 0..300 {
            let range = len as u64 * 2 + 6;
            let mut bound = || (rng.below(4) > 0).then(|| rng.below(range) as i64 - range as i64 / 2);
            let (start, stop) = (bound(), bound());
            let step = match rng.below(6) {
                0 => 1,
                1 => -1,
                2 => rng.below(20) as i64 + 1,
                3 => -(rng.below(20) as i64) - 1,
                4 => rng.below(3000) as i64 + 1,
                _ => -(rng.below(3000) as i64) - 1,
            };
            let show = |b: Option<i64>| b.map(|v| v.to_string()).unwrap_or_default();
            let path = format!("[{}:{}:{step}]", show(start), show(stop));
            let want: Vec<String> = py_slice(len, start, stop, step)
                .iter()
                .map(|i| i.to_string())
                .collect();
            match select(s.as_bytes(), &d.index, &path) {
                Ok(Selection::Many(got)) => {
                    assert_eq!(
                        String::from_utf8(got).unwrap(),
                        format!("[{}]", want.join(",")),
                        "{path} on {len}"
                    )
                }
                other => panic!("{path}: {other:?}"),
            }
        }
    }
}

/// SPDX's license ids and MDN's browser versions are keys with dots, which
/// models write in dotted form: where the dotted reading finds nothing and
/// the names joined by `.` are a key, that key is read (docs/jsonpath.md).
#[test]
fn dotted_keys_written_in_dotted_form_are_read() {
    let spdx = r#"{"GPL-3.0-only": {"name": "GNU General Public License v3.0 only"}, "MIT": {"name": "MIT License"}}"#;
    assert_eq!(
        node(spdx, "$.GPL-3.0-only.name"),
        r#""GNU General Public License v3.0 only""#
    );
    assert_eq!(
        node(spdx, "GPL-3.0-only"),
        r#"{"name": "GNU General Public License v3.0 only"}"#
    );
    let mdn =
        r#"{"data": {"css-grid": {"stats": {"safari": {"15.4": "y", "15": {"4": "n"}, "16.0": "y"}}}}}"#;
    // The segment-by-segment reading comes first: `15` then `4` exists, so it is the answer.
    assert_eq!(node(mdn, "$.data.css-grid.stats.safari.15.4"), r#""n""#);
    assert_eq!(node(mdn, "$.data.css-grid.stats.safari.16.0"), r#""y""#);
    // In brackets the names are separate keys, as written.
    assert!(err(spdx, "$['GPL-3']['0-only'].name").contains("not found"));
    assert!(err(spdx, "$.GPL-3.0-only.nam").contains("not found: '$['GPL-3.0-only']' is an object"));
}
