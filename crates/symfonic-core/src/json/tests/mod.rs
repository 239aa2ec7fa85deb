//! Tests of the JSON index, its validation, paths and schema: the shared
//! helpers and generated payloads; the tests themselves, one file per concern.

use super::*;

mod big;
mod cts;
mod oracle;
mod paths;
mod rfc;
mod schema;
mod simd_filter;
mod split;
mod validity;

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
