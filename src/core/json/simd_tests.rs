//! The walk over simd-json's structural offsets (`index/tokens.rs`) against
//! the byte walk (`index/scalar.rs`): the same verdict and the identical
//! index on every document, one thread or two, including the documents
//! simd-json's own parser refuses and `JSON.parse` accepts.

use super::index::{build_inner, simd_stage1, JsonIndex};

/// Small xorshift generator (as in `tests.rs`).
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

fn walk(b: &[u8], parallel_min: usize, simd: bool) -> Option<JsonIndex> {
    build_inner(b, parallel_min, simd, &mut || ())
}

/// Both walks give the same verdict and index, sequential and split (a
/// split walk's samples may differ from a sequential walk's, never from
/// the other grammar's split at the same comma).
fn same(b: &[u8]) -> bool {
    let show = || String::from_utf8_lossy(&b[..b.len().min(200)]).into_owned();
    let bytes = walk(b, usize::MAX, false);
    assert!(walk(b, usize::MAX, true) == bytes, "structural walk: {}", show());
    assert!(walk(b, 0, true) == walk(b, 0, false), "split walks: {}", show());
    bytes.is_some()
}

#[test]
fn the_walks_agree_on_20000_mutated_documents() {
    let seeds = [
        r#"{"a": [1, 2.5, -3e2, true, false, null], "b": {"c": "d\n\u0041"}, "e": []}"#,
        r#"[{"x": "y"}, [], {}, "\\", 0, -0.0, "\"", "\ud800", 123456789012345678901234567890]"#,
        "{\"k\" :\t[ 1e400 , {\"\\/\": \"caf\u{e9} 😀\"} ]\r\n, \"z\": [[[[]]]]}",
    ];
    let alphabet = b"{}[]:,\"\\ 01-.eEtrufalsnx\t\n/u";
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut valid = 0;
    for round in 0..20_000 {
        let mut v = seeds[round % seeds.len()].as_bytes().to_vec();
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
        // The walks take UTF-8 (the callers check it); a cut emoji is not.
        if std::str::from_utf8(&v).is_ok() && same(&v) {
            valid += 1;
        }
    }
    assert!(valid > 2_000 && valid < 18_000, "{valid} valid");
}

/// Documents simd-json's parser refuses and `JSON.parse` accepts.
#[test]
fn the_structural_walk_takes_what_simd_json_refuses() {
    let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
    let deep_obj = format!("{}1{}", "{\"a\":".repeat(3000), "}".repeat(3000));
    let filler = format!("\"{}\"", "x, [y], ".repeat(20_000));
    for doc in [
        "123456789012345678901234567890".to_string(),
        "[-123456789012345678901234567890, 1e400, -1e-400, 1E+999]".to_string(),
        r#"["\ud800", "\udfff", "\uDC00\uD800", {"\ud83d": 1}]"#.to_string(),
        deep.clone(),
        deep_obj,
        // The same past the first stage-1 chunk, after a long string of cut bytes.
        format!("[{filler}, 123456789012345678901234567890, 1e400, \"\\ud800\", {deep}]"),
    ] {
        let mut copy = doc.clone().into_bytes();
        assert!(
            simd_json::to_tape(&mut copy).is_err(),
            "simd-json takes {}",
            &doc[..60.min(doc.len())]
        );
        assert!(same(doc.as_bytes()), "{}", &doc[..60.min(doc.len())]);
    }
}

#[test]
fn the_walks_agree_on_big_documents_and_their_damage() {
    let rows: Vec<String> = (0..4000)
        .map(|i| {
            format!(
                "{{\"id\":{i},\"s\":\"a, [b] \\\"c\\\" {}\",\"v\":[{{\"k\":{i}}},{{\"k\":-{i}.5e3}}],\"u\":\"\\u00e9\\n\"}}",
                "é日😀,".repeat(i % 50)
            )
        })
        .collect();
    let pretty = format!(
        "{{\n  \"rows\": [\n    {}\n  ],\n  \"n\": null\n}}\n",
        rows.join(",\n    ")
    );
    assert!(pretty.len() > 600_000 && same(pretty.as_bytes()));
    let compact = format!("[{}]", rows.join(","));
    assert!(same(compact.as_bytes()));
    let mut rng = Rng(7);
    for doc in [&pretty, &compact] {
        for _ in 0..10 {
            let mut v = doc.as_bytes().to_vec();
            let i = rng.below(v.len() as u64) as usize;
            let c = b"{}[]:,\"\\x\x01"[rng.below(10) as usize];
            if rng.below(2) == 0 {
                v[i] = c;
            } else {
                v.insert(i, c);
            }
            if std::str::from_utf8(&v).is_ok() {
                same(&v);
            }
            same(&doc.as_bytes()[..i]);
        }
    }
}

#[test]
fn strings_and_escapes_at_chunk_edges() {
    // Long strings full of cut bytes (`,` `[` `]`), escapes straddling
    // 64-byte blocks, and no cut byte at all for a whole chunk.
    for len in [60_000, 65_530, 65_536, 65_541, 70_000, 140_000] {
        for tail in [
            "\\\"", "\\\\", "\\u0041", "\\ud800", ",", "\\x", "\\u00g0", "\u{1}",
        ] {
            let body = "ab, [c] ".repeat(len / 8);
            let doc = format!("[\"{body}{tail}\", {{\"k\": \"{body}\"}}, 1]");
            same(doc.as_bytes());
            let plain = format!("[\"{}{tail}\"]", "z".repeat(len));
            same(plain.as_bytes());
        }
    }
    same(format!("[{}]", " ".repeat(200_000)).as_bytes());
    same(format!("{}\"", "[\"".repeat(50_000)).as_bytes());
}

#[test]
fn stage1_is_picked_at_run_time() {
    // The binary must not need AVX2: simd-json chooses it per CPU.
    #[cfg(target_arch = "x86_64")]
    {
        const { assert!(!cfg!(target_feature = "avx2"), "built for AVX2 CPUs only") };
        let want = if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("pclmulqdq") {
            simd_json::Implementation::AVX2
        } else if std::is_x86_feature_detected!("sse4.2") {
            simd_json::Implementation::SSE42
        } else {
            simd_json::Implementation::Native
        };
        assert_eq!(simd_json::Deserializer::algorithm(), want);
        assert_eq!(simd_stage1(), want != simd_json::Implementation::Native);
    }
}
