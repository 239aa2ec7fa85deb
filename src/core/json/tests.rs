use super::*;

fn doc(s: &str) -> JsonDoc {
    analyze(s.as_bytes()).unwrap_or_else(|| panic!("not JSON: {}", &s[..s.len().min(80)]))
}

fn sel(s: &str, path: &str) -> Result<String, String> {
    let d = doc(s);
    select(s.as_bytes(), &d.index, path).map(|x| match x {
        Selection::Node(t) => std::str::from_utf8(t).unwrap().to_string(),
        Selection::Many(t) => String::from_utf8(t).unwrap(),
    })
}

fn node(s: &str, path: &str) -> String {
    let d = doc(s);
    match select(s.as_bytes(), &d.index, path) {
        Ok(Selection::Node(t)) => std::str::from_utf8(t).unwrap().to_string(),
        other => panic!("{path}: expected a node, got {other:?}"),
    }
}

fn many(s: &str, path: &str) -> String {
    let d = doc(s);
    match select(s.as_bytes(), &d.index, path) {
        Ok(Selection::Many(t)) => String::from_utf8(t).unwrap(),
        other => panic!("{path}: expected many, got {other:?}"),
    }
}

fn err(s: &str, path: &str) -> String {
    sel(s, path).expect_err(path)
}

const SMALL: &str = r#"{"meta": {"count": 7, "source": "keepa"},
  "rows": [ {"id": 10, "price": 1.50, "tags": ["a", "b"]},
            {"id": 20, "price": 2.0e1, "name": "caf\u00e9"},
            {"id": 30, "price": -0.5, "nested": { "x" : [1, 2,  3] }} ],
  "key.with.dots": {"inner": true}, "0": "zero", "it's": 1, "q\"k": 2,
  "café": "é", "empty": {}, "none": null, "list": []}"#;

#[test]
fn dotted_keys_and_indices() {
    assert_eq!(node(SMALL, "meta.count"), "7");
    assert_eq!(node(SMALL, "rows.1.id"), "20");
    assert_eq!(node(SMALL, "rows.0.tags.1"), "\"b\"");
    assert_eq!(node(SMALL, "rows.-1.id"), "30");
    assert_eq!(node(SMALL, "rows.-3.id"), "10");
    assert_eq!(node(SMALL, "rows..0..id"), "10");
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
    assert_eq!(node(SMALL, "[0]"), "\"zero\"");
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
    assert!(err(s, "日本.大阪").contains("'日本' is an object with 1 key [東京]"));
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
        "[recall: json_path 'rows.1.prise' not found: 'rows[1]' is an object with 3 keys [id,price,name]]"
    );
    assert_eq!(
        err(SMALL, "rows.3"),
        "[recall: json_path 'rows.3' not found: 'rows' is an array of length 3]"
    );
    assert_eq!(
        err(SMALL, "rows[-4]"),
        "[recall: json_path 'rows[-4]' not found: 'rows' is an array of length 3]"
    );
    assert_eq!(
        err(SMALL, "meta.count.x"),
        "[recall: json_path 'meta.count.x' not found: 'meta.count' is a number]"
    );
    assert_eq!(
        err(SMALL, "rows.1.name.first"),
        "[recall: json_path 'rows.1.name.first' not found: 'rows[1].name' is a string]"
    );
    assert_eq!(
        err(SMALL, "none.x"),
        "[recall: json_path 'none.x' not found: 'none' is null]"
    );
    assert!(err(SMALL, "nope").starts_with(
        "[recall: json_path 'nope' not found: '$' is an object with 10 keys [meta,rows,key.with.dots,0,it's,"
    ));
    assert_eq!(
        err(SMALL, "[\"key.with.dots\"].x"),
        "[recall: json_path '[\"key.with.dots\"].x' not found: '[\"key.with.dots\"]' is an object with 1 key [inner]]"
    );
    assert_eq!(
        err(SMALL, "rows.x"),
        "[recall: json_path 'rows.x' not found: 'rows' is an array of length 3]"
    );
    assert_eq!(
        err(SMALL, "meta.count[*]"),
        "[recall: json_path 'meta.count[*]' not found: 'meta.count' is a number]"
    );
    assert_eq!(
        err(SMALL, "meta[1:2]"),
        "[recall: json_path 'meta[1:2]' not found: 'meta' is an object with 2 keys [count,source]]"
    );
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
        "[recall: invalid json_path 'rows[abc]': '[abc]' is not an index, slice or '*'; quote keys as [\"key\"]]"
    );
    assert_eq!(
        err(SMALL, "rows[1:2:0]"),
        "[recall: invalid json_path 'rows[1:2:0]': slice step cannot be zero]"
    );
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

#[test]
fn validity() {
    for ok in [
        "0",
        "-0",
        "1.5e-3",
        "1E+2",
        "true",
        "null",
        "\"s\"",
        "[]",
        "{}",
        " [1, {\"a\": [null]}] ",
        "123456789012345678901234567890",
        "1e400",
        r#""\ud800""#,
        r#""\uD83D\uDE00""#,
        "[1,2]\n",
    ] {
        assert!(analyze(ok.as_bytes()).is_some(), "{ok}");
    }
    for bad in [
        "",
        "   ",
        "[1,]",
        "{\"a\":1,}",
        "01",
        "1.",
        ".5",
        "-",
        "+1",
        "tru",
        "nul",
        "[1 2]",
        "{\"a\" 1}",
        "\"a\tb\"",
        "1 2",
        "[1]x",
        "\"\\x\"",
        "1e5.0",
        "[-]",
        "0e",
        "0.e1",
        "{1:2}",
        "[",
        "]",
        "{\"a\"}",
        "{\"a\":}",
        "[,1]",
        "\u{feff}1",
        "\"abc",
        "\"\\u12\"",
        "truex",
        "[1}",
        "{]",
        "{\"a\":1]",
        "nan",
    ] {
        assert!(analyze(bad.as_bytes()).is_none(), "{bad:?}");
    }
    assert!(analyze(b"\"\xff\"").is_none());
}

/// Small xorshift generator: deterministic tests without a rand dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

#[test]
fn validity_agrees_with_simd_json() {
    // Mutations of valid documents; numbers stay small and escapes BMP-only,
    // where simd-json and JSON.parse agree.
    let seeds = [
        r#"{"a": [1, 2.5, -3e2, true, false, null], "b": {"c": "d\n\u0041"}, "e": []}"#,
        r#"[{"x": "y"}, [], {}, "\\", 0, -0.0]"#,
    ];
    let alphabet = b"{}[]:,\"\\ 01-.eEtrufalsn\tx";
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..20_000 {
        let mut v = seeds[round % 2].as_bytes().to_vec();
        for _ in 0..=rng.below(3) {
            let i = rng.below(v.len() as u64) as usize;
            match rng.below(3) {
                0 => v[i] = alphabet[rng.below(alphabet.len() as u64) as usize],
                1 => {
                    v.remove(i);
                }
                _ => v.insert(i, alphabet[rng.below(alphabet.len() as u64) as usize]),
            }
        }
        let mut copy = v.clone();
        let theirs = simd_json::to_tape(&mut copy).is_ok();
        let ours = analyze(&v).is_some();
        assert_eq!(ours, theirs, "{}", String::from_utf8_lossy(&v));
        assert_eq!(
            analyze_with(&v, 0).is_some(),
            theirs,
            "split: {}",
            String::from_utf8_lossy(&v)
        );
    }
}

#[test]
fn deep_nesting_does_not_overflow() {
    let depth = 100_000;
    let s = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let d = doc(&s);
    let path = "[0]".repeat(depth);
    assert_eq!(node(&s, &path), "1");
    assert_eq!(
        select(s.as_bytes(), &d.index, &"0.".repeat(depth - 1)).map(|_| ()),
        Ok(())
    );
    assert!(err(&s, &"[1]".repeat(10)).contains("not found: '$' is an array of length 1"));
    assert_eq!(d.schema, "array: len=1 of array");
    let deep_obj = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
    assert_eq!(node(&deep_obj, &"a.".repeat(depth)), "1");
    assert!(analyze(&b"[".repeat(depth)).is_none());
    assert!(analyze(format!("{}1{}", "[".repeat(depth), "]".repeat(depth - 1)).as_bytes()).is_none());
}

#[test]
fn schema_and_shape_per_kind() {
    let t = r#"[{"asin":"A","price":1,"bsr":2,"a":3,"b":4,"c":5},{"asin":"B"}]"#;
    let d = doc(t);
    assert_eq!(d.schema, "table: rows=2 cols=6 [asin,price,bsr,a,b,...]");
    assert_eq!(d.shape, "tabular result, 2 rows / 6 cols");
    let d = doc(r#"[{"x":1,"y":2}]"#);
    assert_eq!(d.schema, "table: rows=1 cols=2 [x,y]");
    assert_eq!(d.shape, "tabular result, 1 rows / 2 cols");

    let d = doc("[1, 2, 3.5]");
    assert_eq!(d.schema, "array: len=3 of num");
    assert_eq!(d.shape, "11 chars");
    assert_eq!(doc(r#"[1, "a"]"#).schema, "array: len=2 of mixed");
    assert_eq!(doc(r#"[1, {"a": 1}]"#).schema, "array: len=2 of mixed");
    assert_eq!(doc(r#"["a", "b"]"#).schema, "array: len=2 of str");
    assert_eq!(doc("[]").schema, "array: len=0, empty");
    assert_eq!(doc("[]").shape, "2 chars");

    assert_eq!(doc("7").schema, "value: num");
    assert_eq!(doc("\"héllo\"").schema, "value: str");
    assert_eq!(doc("\"héllo\"").shape, "7 chars");
    assert_eq!(doc("true").schema, "value: bool");
    assert_eq!(doc("null").schema, "value: null");

    let d = doc(SMALL);
    assert_eq!(
        d.schema,
        "object: keys=10 [meta:object{2},rows:array[3],key.with.dots:object{1},0:str,it's:num,q\"k:num,café:str,empty:object{0},...]; table rows: rows=3 cols=3 [id,price,tags]"
    );
    assert_eq!(
        d.shape,
        "object result, top-level keys [meta,rows,key.with.dots,0,it's,...]"
    );
    let d = doc(r#"{"a": 1, "b": [1], "c": {"x": true}}"#);
    assert_eq!(d.schema, "object: keys=3 [a:num,b:array[1],c:object{1}]");
    assert_eq!(d.shape, "object result, top-level keys [a,b,c]");
    assert_eq!(doc("{}").schema, "object: keys=0 []");
    assert_eq!(doc("{}").shape, "object result, top-level keys []");
}

#[test]
fn schema_finds_the_largest_table_one_level_down() {
    let s = r#"{"data": {"items": [{"id": 1, "v": 2}, {"id": 2}, {"id": 3}], "few": [{"q": 1}]},
               "top": [{"z": 1}, {"z": 2}], "nums": [1, 2, 3, 4, 5]}"#;
    let d = doc(s);
    assert_eq!(
        d.schema,
        "object: keys=3 [data:object{2},top:array[2],nums:array[5]]; table data.items: rows=3 cols=2 [id,v]"
    );
}

#[test]
fn schema_is_capped_at_300_code_points() {
    let members: Vec<String> = (0..12)
        .map(|i| format!("\"{}{i}\": [{{\"é{}\": 1}}]", "ключ".repeat(20), "x".repeat(50)))
        .collect();
    let s = format!("{{{}}}", members.join(","));
    let d = doc(&s);
    assert_eq!(d.schema.chars().count(), 300);
    assert!(d.schema.ends_with("..."));
    assert!(d.schema.starts_with("object: keys=12 ["));
    let keys: Vec<String> = (0..9).map(|i| format!("\"k{i}\":{i}")).collect();
    let d = doc(&format!("{{{}}}", keys.join(",")));
    assert_eq!(
        d.schema,
        "object: keys=9 [k0:num,k1:num,k2:num,k3:num,k4:num,k5:num,k6:num,k7:num,...]"
    );
    assert_eq!(d.shape, "object result, top-level keys [k0,k1,k2,k3,k4,...]");
}

#[test]
fn schema_keys_are_decoded_and_single_line() {
    let d = doc(r#"{"a\nb": 1, "\u00e9": 2}"#);
    assert_eq!(d.schema, "object: keys=2 [a b:num,é:num]");
    assert!(!d.schema.contains('\n'));
}

// ---- the index on big payloads, against a naive reference walk ----

/// Generates a multi-megabyte document mixing every shape the index treats
/// differently: big arrays (sampled), big objects with key hashes, nested big
/// subtrees, escaped keys and strings, odd whitespace.
fn big_payload(rng: &mut Rng) -> String {
    let mut s = String::from("{\n\"meta\": {\"count\": 7, \"source\": \"gen\"},\n\"rows\": [");
    for i in 0..12_000 {
        if i > 0 {
            s.push_str(if i % 7 == 0 { " ,\n " } else { "," });
        }
        s.push_str(&format!(
            "{{\"id\":{i},\"price\":{}.{:02},\"name\":\"item \\\"{i}\\\" caf\\u00e9\",\"tags\":[{}],\"d\":{{\"w\":{}}}}}",
            rng.below(1000),
            rng.below(100),
            (0..rng.below(4)).map(|t| format!("\"t{t}\"")).collect::<Vec<_>>().join(","),
            rng.below(10)
        ));
    }
    s.push_str("],\n\"byAsin\": {");
    for i in 0..3_000 {
        if i > 0 {
            s.push(',');
        }
        let key = if i % 97 == 0 {
            format!("B\\u0030{i:05}")
        } else {
            format!("B0{i:05}")
        };
        s.push_str(&format!(
            "\"{key}\": {{\"rank\": {i}, \"title\": \"{}\"}}",
            "x".repeat(rng.below(60) as usize)
        ));
    }
    s.push_str("},\n\"matrix\": [");
    for r in 0..200 {
        if r > 0 {
            s.push(',');
        }
        let row: Vec<String> = (0..100).map(|c| ((r * c) % 10).to_string()).collect();
        s.push_str(&format!("[{}]", row.join(",")));
    }
    s.push_str("],\n\"digits\": [");
    let digits: Vec<String> = (0..200_000).map(|i| (i % 10).to_string()).collect();
    s.push_str(&digits.join(","));
    s.push_str("],\n\"deep\": ");
    s.push_str(&"[".repeat(500));
    s.push_str(&format!("\"{}\"", "y".repeat(5000)));
    s.push_str(&"]".repeat(500));
    s.push_str(",\n\"tail\": 1, \"meta\": \"duplicate\"}");
    s
}

/// The big generated payload, built once for all tests.
fn big() -> &'static str {
    static BIG: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BIG.get_or_init(|| big_payload(&mut Rng(42)))
}

/// Reference: parse with simd-json and walk the value tree.
mod reference {
    use simd_json::{prelude::*, OwnedValue};

    pub enum Step {
        Key(String),
        Index(i64),
    }

    pub fn walk<'v>(v: &'v OwnedValue, path: &[Step]) -> Option<&'v OwnedValue> {
        let mut cur = v;
        for s in path {
            cur = match s {
                Step::Key(k) => cur.as_object()?.get(k.as_str())?,
                Step::Index(i) => {
                    let a = cur.as_array()?;
                    let i = if *i < 0 { a.len() as i64 + i } else { *i };
                    a.get(usize::try_from(i).ok()?)?
                }
            };
        }
        Some(cur)
    }

    pub fn parse(s: &str) -> OwnedValue {
        let mut b = s.as_bytes().to_vec();
        simd_json::to_owned_value(&mut b).unwrap()
    }
}

#[test]
fn index_matches_a_reference_walk_on_a_big_payload() {
    use reference::Step;
    let mut rng = Rng(42);
    let s = big();
    assert!(s.len() > 1_500_000, "{}", s.len());
    let d = doc(s);
    assert!(
        d.index.heap_bytes() * 100 < s.len() * 15,
        "heap {}",
        d.index.heap_bytes()
    );
    let value = reference::parse(s);
    let paths: Vec<(String, Vec<Step>)> = (0..4000)
        .map(|_| match rng.below(7) {
            0 => {
                let i = rng.below(12_100) as i64 - 50;
                (
                    format!("rows[{i}].price"),
                    vec![
                        Step::Key("rows".into()),
                        Step::Index(i),
                        Step::Key("price".into()),
                    ],
                )
            }
            1 => {
                let i = rng.below(12_000) as i64 - 12_000;
                (
                    format!("rows.{i}.tags.0"),
                    vec![
                        Step::Key("rows".into()),
                        Step::Index(i),
                        Step::Key("tags".into()),
                        Step::Index(0),
                    ],
                )
            }
            2 => {
                let i = rng.below(3_050);
                let key = format!("B0{i:05}");
                (
                    format!("byAsin.{key}.rank"),
                    vec![
                        Step::Key("byAsin".into()),
                        Step::Key(key),
                        Step::Key("rank".into()),
                    ],
                )
            }
            3 => {
                let (r, c) = (rng.below(210) as i64, rng.below(100) as i64 - 50);
                (
                    format!("matrix[{r}][{c}]"),
                    vec![Step::Key("matrix".into()), Step::Index(r), Step::Index(c)],
                )
            }
            4 => {
                let i = rng.below(200_100) as i64 - 100_000;
                (
                    format!("$.digits[{i}]"),
                    vec![Step::Key("digits".into()), Step::Index(i)],
                )
            }
            5 => {
                let k = rng.below(502) as usize;
                let mut p = vec![Step::Key("deep".into())];
                p.extend((0..k).map(|_| Step::Index(0)));
                (format!("deep{}", "[0]".repeat(k)), p)
            }
            _ => {
                let i = rng.below(12_000) as i64;
                (
                    format!("rows.{i}.d"),
                    vec![Step::Key("rows".into()), Step::Index(i), Step::Key("d".into())],
                )
            }
        })
        .collect();
    let mut checked = 0;
    for (path, steps) in paths {
        let expected = reference::walk(&value, &steps);
        match (select(s.as_bytes(), &d.index, &path), expected) {
            (Ok(Selection::Node(text)), Some(v)) => {
                assert_eq!(&reference::parse(std::str::from_utf8(text).unwrap()), v, "{path}");
                checked += 1;
            }
            (Err(e), None) => {
                let echoed: String = path.chars().take(200).collect();
                assert!(e.starts_with(&format!("[recall: json_path '{echoed}")), "{e}");
                assert!(e.contains("' not found: '"), "{e}");
            }
            (got, want) => panic!("{path}: got {got:?}, want {want:?}"),
        }
    }
    assert!(checked > 3000, "{checked}");
    // Duplicate top-level key: the first one wins, even in a big object.
    assert_eq!(node(s, "meta.count"), "7");
    // Escaped keys in a hashed object.
    assert_eq!(node(s, "byAsin.B000097.rank"), "97");
    // Wildcards and slices over big arrays.
    let ids = many(s, "rows[*].id");
    assert_eq!(
        reference::parse(&ids),
        reference::parse(&format!(
            "[{}]",
            (0..12_000).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
        ))
    );
    assert_eq!(many(s, "rows[-2:].id"), "[11998,11999]");
    assert_eq!(many(s, "digits[199995::2]"), "[5,7,9]");
    assert_eq!(many(s, "matrix[::-50][1]"), "[9,9,9,9]");
    assert!(err(s, "rows.99999").ends_with("'rows' is an array of length 12000]"));
}

#[test]
fn heap_stays_small_on_adversarial_shapes() {
    let digits = format!(
        "[{}]",
        (0..1_000_000)
            .map(|i| (i % 10).to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    let d = doc(&digits);
    assert!(d.index.heap_bytes() * 100 <= digits.len() * 15);
    assert_eq!(node(&digits, "[-1]"), "9");
    assert_eq!(node(&digits, "[123457]"), "7");
    // Many tiny members: no key hashes, still small.
    let obj = format!(
        "{{{}}}",
        (0..200_000)
            .map(|i| format!("\"{i}\":1"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let d = doc(&obj);
    assert!(d.index.heap_bytes() * 100 <= obj.len() * 15);
    assert_eq!(node(&obj, "199999"), "1");
    // Nested chains of big containers.
    let chain = format!(
        "{}[{}]{}",
        "[".repeat(900),
        "1,".repeat(5000) + "1",
        "]".repeat(900)
    );
    let d = doc(&chain);
    assert!(
        d.index.heap_bytes() * 100 <= chain.len() * 15,
        "{} vs {}",
        d.index.heap_bytes(),
        chain.len()
    );
}

#[test]
fn a_mismatched_payload_never_panics() {
    let big = big();
    let d = doc(big);
    let other = SMALL.repeat(3);
    for path in [
        "rows[-1]",
        "rows.5000.price",
        "byAsin.B000097",
        "digits[*]",
        "$",
        "meta.*",
        "rows[::-7].id",
        "zz",
    ] {
        let _ = select(other.as_bytes(), &d.index, path);
        let _ = select("".as_bytes(), &d.index, path);
        let _ = select(&big.as_bytes()[..big.len() / 2], &d.index, path);
    }
}

fn simd_ok(v: &[u8]) -> bool {
    let mut copy = v.to_vec();
    simd_json::to_tape(&mut copy).is_ok()
}

#[test]
fn string_validation_at_every_alignment() {
    // A special byte at each offset of strings up to 40 bytes long, so the
    // eight-byte scan meets it in every lane.
    let specials: [&[u8]; 9] = [
        b"\"",
        b"\\n",
        b"\\\"",
        b"\\u00e9",
        b"\x01",
        b"\t",
        b"\\q",
        b"\\u12g4",
        "é".as_bytes(),
    ];
    for len in 0..40 {
        for at in 0..=len {
            for sp in specials {
                let mut v = b"[\"".to_vec();
                v.extend(std::iter::repeat_n(b'a', at));
                v.extend_from_slice(sp);
                v.extend(std::iter::repeat_n(b'b', len - at));
                v.extend_from_slice(b"\", 1]");
                assert_eq!(
                    analyze(&v).is_some(),
                    simd_ok(&v),
                    "{}",
                    String::from_utf8_lossy(&v)
                );
            }
        }
    }
}

#[test]
fn big_payload_validity_agrees_with_simd_json() {
    let mut rng = Rng(3);
    let s = big();
    assert!(simd_ok(s.as_bytes()));
    for _ in 0..8 {
        let cut = rng.below(s.len() as u64) as usize;
        let v = &s.as_bytes()[..cut];
        assert_eq!(analyze(v).is_some(), simd_ok(v), "cut at {cut}");
        let mut w = s.as_bytes().to_vec();
        let i = rng.below(w.len() as u64) as usize;
        w[i] = b"{}[]:,\"\\x"[rng.below(9) as usize];
        assert_eq!(analyze(&w).is_some(), simd_ok(&w), "byte {i}");
    }
}

#[test]
fn hashed_big_object_keeps_first_wins_and_escapes() {
    let mut members = vec![
        r#""a\u0062": "first""#.to_string(),
        r#""ab": "second""#.to_string(),
    ];
    members.extend((0..200).map(|i| format!("\"key{i}\": \"{}\"", "v".repeat(40))));
    members.push(r#""ab": "third""#.to_string());
    members.push(r#""tail\"q": 5"#.to_string());
    let s = format!("{{{}}}", members.join(", "));
    assert!(s.len() > 8192);
    let d = doc(&s);
    assert!(d.index.heap_bytes() > 0);
    assert_eq!(node(&s, "ab"), "\"first\"");
    assert_eq!(node(&s, "key199"), format!("\"{}\"", "v".repeat(40)));
    assert_eq!(node(&s, "[\"tail\\\"q\"]"), "5");
    assert!(err(&s, "key200").contains("'$' is an object with 204 keys [ab,ab,key0,"));
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

/// Every select answer and the validity verdict must not depend on whether
/// the walk was split between two threads.
fn same_both_ways(s: &str, paths: &[&str]) {
    let seq = analyze_with(s.as_bytes(), usize::MAX);
    let par = analyze_with(s.as_bytes(), 0);
    assert_eq!(
        seq.is_some(),
        par.is_some(),
        "validity differs: {}",
        &s[..s.len().min(120)]
    );
    let (Some(seq), Some(par)) = (seq, par) else {
        return;
    };
    assert_eq!(seq.schema, par.schema);
    assert_eq!(seq.shape, par.shape);
    for p in paths {
        assert_eq!(
            select(s.as_bytes(), &seq.index, p),
            select(s.as_bytes(), &par.index, p),
            "{p}"
        );
    }
}

#[test]
fn split_walk_matches_the_sequential_walk() {
    let s = big();
    let d = analyze_with(s.as_bytes(), 0).unwrap();
    assert!(d.index.heap_bytes() * 100 < s.len() * 15);
    let mut rng = Rng(5);
    let mut paths: Vec<String> = vec![
        "rows[-1]".into(),
        "rows[*].id".into(),
        "digits[::997]".into(),
        "byAsin.B002999".into(),
    ];
    for _ in 0..500 {
        paths.push(format!("rows[{}].tags", rng.below(12_000)));
        paths.push(format!("digits[{}]", rng.below(200_000) as i64 - 100_000));
        paths.push(format!("matrix[{}][{}]", rng.below(200), rng.below(100)));
    }
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    same_both_ways(s, &refs);
}

#[test]
fn split_walk_survives_bad_guesses() {
    let rows: Vec<String> = (0..200)
        .map(|i| format!("{{\"id\":{i},\"b\":[{i},{{\"x\":1}},{{\"y\":[2,3]}}]}}"))
        .collect();
    let table = format!("[{}]", rows.join(","));
    // A fake row boundary inside a string straddling the middle.
    let fake = format!(
        "[{{\"s\":\"{}}},{{{}\"}},{}]",
        "a".repeat(table.len() + 120),
        "b".repeat(100),
        table
    );
    // The middle lands in nested arrays of every row.
    let nested = format!("{{\"k\":{table},\"t\":[1,2]}}");
    let numbers = format!(
        "[{}]",
        (0..3000).map(|i| i.to_string()).collect::<Vec<_>>().join(" , ")
    );
    let dict = format!(
        "{{{}}}",
        (0..300)
            .map(|i| format!("\"k{i}\": {{\"v\": [{i}], \"s\": \"x\"}}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let flat_dict = format!(
        "{{{}}}",
        (0..900)
            .map(|i| format!("\"k{i}\":{i}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let strings = format!(
        "[{}]",
        (0..900)
            .map(|i| format!("\"s{i}\""))
            .collect::<Vec<_>>()
            .join(",")
    );
    // A key containing a comma right at the middle: looks like a member boundary.
    let comma_key = format!(
        "{{\"{}\": 1, \"a,\": 2, \"{}\": 3}}",
        "x".repeat(2000),
        "y".repeat(1990)
    );
    let mut docs = vec![
        table.clone(),
        fake,
        nested,
        numbers,
        dict.clone(),
        flat_dict,
        strings,
        comma_key,
    ];
    for at in [dict.len() / 2 - 2, dict.len() / 2 + 7] {
        let mut broken = dict.clone().into_bytes();
        broken[at] = b'}';
        docs.push(String::from_utf8(broken).unwrap());
    }
    // Broken halves: errors before and after the split point.
    let mid = table.len() / 2;
    for at in [10, mid - 3, mid, mid + 3, table.len() - 5] {
        let mut broken = table.clone().into_bytes();
        broken[at] = b'#';
        docs.push(String::from_utf8(broken).unwrap());
    }
    docs.push(table[..mid].to_string());
    docs.push(format!("{}]]", &table[..table.len() - 1]));
    docs.push(format!("{}}}", &table[..table.len() - 1]));
    let paths = [
        "[-1]",
        "[0].b[2].y[1]",
        "[*].id",
        "[150].b[::-1]",
        "k[199].b[1].x",
        "t[1]",
        "[3000]",
        "[2999]",
        "k299.v",
        "k150",
        "k899",
        "[\"a,\"]",
        "*",
        "[450]",
    ];
    for doc in &docs {
        same_both_ways(doc, &paths);
    }
}

#[test]
fn split_walk_rebases_the_second_half_index() {
    // Every element is itself indexed (hashed members, a sampled array), so
    // the second walker closes big containers of its own.
    let obj = |n: usize| {
        let members: Vec<String> = (0..100)
            .map(|k| format!("\"k{k}\": \"{n}-{}\"", "x".repeat(40)))
            .collect();
        let arr: Vec<String> = (0..2000).map(|i| (i * n).to_string()).collect();
        format!("{{{}, \"arr\": [{}]}}", members.join(", "), arr.join(","))
    };
    let s = format!("[{}]", (0..10).map(obj).collect::<Vec<_>>().join(",\n"));
    let d = analyze_with(s.as_bytes(), 0).unwrap();
    for n in 0..10 {
        for k in [0, 55, 99] {
            assert_eq!(
                select(s.as_bytes(), &d.index, &format!("[{n}].k{k}")),
                Ok(Selection::Node(format!("\"{n}-{}\"", "x".repeat(40)).as_bytes()))
            );
        }
        for i in [0, 1234, 1999] {
            let want = (i * n).to_string();
            assert_eq!(
                select(s.as_bytes(), &d.index, &format!("[{n}].arr[{i}]")),
                Ok(Selection::Node(want.as_bytes()))
            );
        }
    }
    same_both_ways(
        &s,
        &["[7].k55", "[9].arr[-1]", "[*].k99", "[5:].arr[::500]", "[3].zz"],
    );
}
