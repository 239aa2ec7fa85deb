//! The index on big generated payloads, against a reference walk of
//! simd-json's value tree; its heap stays small; a mismatched payload never panics.

use super::*;

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
    assert!(err(s, "rows.99999").ends_with("'$.rows' is an array of length 12000]"));
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
