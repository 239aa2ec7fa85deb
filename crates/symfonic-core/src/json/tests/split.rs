//! The walk split between two threads answers exactly as the sequential walk.

use super::*;

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
    assert_eq!(seq.outline, par.outline);
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
