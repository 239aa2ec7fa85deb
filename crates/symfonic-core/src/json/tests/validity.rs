//! Validation: exactly what `JSON.parse` accepts, against simd-json where
//! both accept the document, at every alignment of the eight-byte string scan.

use super::*;

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
        "[1.5,2.25]",
        "{\"a\":10.01,\"b\":[3.0],\"c\":7.5}",
        "[1.5 ]",
        "{\"a\":1.5\n}",
        "[12.5e3,4.0E-1]",
        "{ \"a\" : 1 , \"b\" :\t2 }",
        "[ 1 , 2 ]",
        "{\"a\":1 }",
        "{\"a\":{\"b\":1} ,\n\"c\":2}",
        "[[1] , [2]]",
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
        "[1.]",
        "[1.,2]",
        "{\"a\":12.}",
        "[1.5.5]",
        "[1.5e]",
        "[1.5x]",
        "{\"a\":2.5-1}",
        "[3.]]",
        "[1 ,]",
        "{\"a\":1 ,}",
        "{\"a\":1, }",
        "{\"a\":1 , 2}",
        "{\"a\" :}",
        "[1 , ,2]",
        "{\"a\":1 \"b\":2}",
        "{\"a\":{} \"b\":2}",
    ] {
        assert!(analyze(bad.as_bytes()).is_none(), "{bad:?}");
    }
    assert!(analyze(b"\"\xff\"").is_none());
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
    // One-element wrappers are followed a bounded number of levels.
    assert!(d
        .outline
        .schema
        .starts_with(&format!("${}: array[1] of array", "[0]".repeat(32))));
    let deep_obj = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
    assert_eq!(node(&deep_obj, &"a.".repeat(depth)), "1");
    assert!(analyze(&b"[".repeat(depth)).is_none());
    assert!(analyze(format!("{}1{}", "[".repeat(depth), "]".repeat(depth - 1)).as_bytes()).is_none());
}

fn simd_ok(v: &[u8]) -> bool {
    let mut copy = v.to_vec();
    simd_json::to_tape(&mut copy).is_ok()
}

#[test]
fn string_validation_at_every_alignment() {
    // A special byte at each offset of strings up to 48 bytes long, so the
    // sixteen- and eight-byte scans meet it in every lane, and the bytes at
    // the edge of the control range (0x1f is one, a space is not).
    let specials: [&[u8]; 12] = [
        b"\"",
        b"\\n",
        b"\\\"",
        b"\\u00e9",
        b"\x01",
        b"\t",
        b"\\q",
        b"\\u12g4",
        "é".as_bytes(),
        b"\x1f",
        b" ",
        b"\x7f\xc3\xbf",
    ];
    for len in 0..48 {
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
