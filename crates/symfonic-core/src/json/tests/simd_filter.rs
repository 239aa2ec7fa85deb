//! The measurement behind filters reading values off the structural index
//! rather than parsing candidates with simd-json (benchmark/README.md,
//! "JSONPath"): on real payloads, the same filter evaluated both ways, and
//! both must select the same nodes. `cargo test` runs it once on the
//! committed fixtures; for the timing table, with the payloads collected:
//!   SYMFONIC_REAL_PAYLOADS=/path cargo test --release simd_filter -- --nocapture

use std::time::Instant;

use simd_json::prelude::*;

use super::*;

/// `(file, the filtered container's path, filter key, wanted string or bool, key to collect)`.
const CASES: &[(&str, &str, &str, &str, &str)] = &[
    ("items-catalog.json", "$.items", "stock", "0", "sku"),
    (
        "emoji-datasource-pretty.json",
        "$",
        "category",
        "\"Flags\"",
        "short_name",
    ),
    ("spdx-full.json", "$", "osiApproved", "true", "name"),
    (
        "github-openapi.json",
        "$.components.parameters",
        "in",
        "\"path\"",
        "name",
    ),
    (
        "mdn-css-properties.json",
        "$",
        "status",
        "\"nonstandard\"",
        "syntax",
    ),
    ("world-countries.json", "$", "region", "\"Europe\"", "cca3"),
    // Committed in fixtures/payloads/.
    ("emojibase-ja-data.json", "$", "type", "1", "hexcode"),
    ("octokit-paginate-issues.json", "$", "status", "200", "path"),
];

fn stats(mut xs: Vec<f64>) -> String {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    format!("{:.2} ({:.2})", xs[0], xs[xs.len() / 2])
}

#[test]
fn simd_filter_against_the_index() {
    let (dir, rounds) = match std::env::var("SYMFONIC_REAL_PAYLOADS") {
        Ok(dir) => (dir, 21),
        Err(_) => (
            concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/payloads").to_string(),
            1,
        ),
    };
    let mut checked = 0;
    eprintln!(
        "| payload | filter | selected | index: min (median) ms | simd-json per candidate: min (median) ms |"
    );
    eprintln!("| --- | --- | --- | --- | --- |");
    for &(file, container, key, want, collect) in CASES {
        let Ok(text) = std::fs::read_to_string(format!("{dir}/{file}")) else {
            continue;
        };
        let d = doc(&text);
        let b = text.as_bytes();
        let query = format!("{container}[?@.{key}=={want}].{collect}");
        let Ok(Selection::Node(node)) = select(b, &d.index, container) else {
            panic!("{file}: {container}")
        };
        let at = node.as_ptr() as usize - b.as_ptr() as usize;
        let want_value: simd_json::OwnedValue =
            simd_json::to_owned_value(&mut want.as_bytes().to_vec()).unwrap();
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        let mut counts = (0, 0);
        for _ in 0..rounds {
            let t = Instant::now();
            let got = match select(b, &d.index, &query) {
                Ok(Selection::Many(v)) => v,
                other => panic!("{query}: {other:?}"),
            };
            ours.push(t.elapsed().as_secs_f64() * 1e3);
            counts.0 = serde_json::from_slice::<Vec<serde_json::Value>>(&got)
                .unwrap()
                .len();
            // simd-json: each candidate copied (its parser writes into its
            // input), parsed to a value, the member compared, the other kept.
            let t = Instant::now();
            let mut buf = Vec::new();
            let mut picked = Vec::new();
            let mut cur = d.index.children_from(b, at, 0);
            while let Some(c) = cur.next_child() {
                let end = d.index.value_end(b, c.value);
                buf.clear();
                buf.extend_from_slice(&b[c.value..end]);
                let Ok(v) = simd_json::to_borrowed_value(&mut buf) else {
                    continue;
                };
                if v.get(key).is_some_and(|x| *x == want_value) {
                    if let Some(x) = v.get(collect) {
                        picked.push(x.to_string());
                    }
                }
            }
            theirs.push(t.elapsed().as_secs_f64() * 1e3);
            counts.1 = picked.len();
        }
        assert_eq!(counts.0, counts.1, "{query}");
        assert!(counts.0 > 0, "{query} selects nothing in {file}");
        checked += 1;
        eprintln!(
            "| {file} ({:.1} MB) | `{query}` | {} | {} | {} |",
            b.len() as f64 / (1 << 20) as f64,
            counts.0,
            stats(ours),
            stats(theirs)
        );
    }
    assert!(checked >= 2, "no payloads found in {dir}");
}
