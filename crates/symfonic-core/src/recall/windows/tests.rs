use super::*;

fn t(s: &str) -> Text {
    Text::new(s.to_string())
}

fn ask(q: &Wtf8Buf) -> Ask<'_> {
    Ask {
        query: q,
        ignore_case: false,
        within: None,
        from: 0,
        count_only: false,
        budget: 50_000,
    }
}

fn qw(text: &Text, q: &str) -> String {
    let q: Wtf8Buf = q.into();
    query_windows(text, &ask(&q), "trm_x", None)
        .to_string_lossy()
        .into_owned()
}

fn qw_from(text: &Text, q: &str, from: usize, budget: usize) -> String {
    let q: Wtf8Buf = q.into();
    let a = Ask {
        from,
        budget,
        ..ask(&q)
    };
    query_windows(text, &a, "trm_x", None)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn windows_cut_with_ellipses_say_where_they_start_and_merge() {
    let body = format!("{}FINDME{}", "a".repeat(1000), "b".repeat(1000));
    let w = qw(&t(&body), "FINDME");
    assert_eq!(
        w,
        format!(
            "(offset 600, line 1)\n...{}FINDME{}...",
            "a".repeat(400),
            "b".repeat(400)
        )
    );
    // Matches whose windows overlap share one: no text twice.
    let w = qw(&t("xx\nFINDME yy FINDME"), "FINDME");
    assert_eq!(w, "(offset 0, line 1)\nxx\nFINDME yy FINDME");
    let body = format!("{0}\nA{1}A{1}A\n{0}", "x".repeat(1000), "y".repeat(500));
    let w = qw(&t(&body), "A");
    assert_eq!(w.matches("(offset").count(), 1, "{w}");
    assert_eq!(w.matches('A').count(), 3);
    assert!(
        w.starts_with("(offset 601, line 1)\n...") || w.starts_with("(offset 601, line 2)\n..."),
        "{}",
        &w[..40]
    );
}

#[test]
fn windows_count_code_points_in_multibyte_text() {
    let body = format!("{}é😀HIT😀é{}", "€".repeat(500), "ß".repeat(500));
    let w = qw(&t(&body), "HIT");
    let want = format!(
        "(offset 102, line 1)\n...{}é😀HIT😀é{}...",
        "€".repeat(398),
        "ß".repeat(398)
    );
    assert_eq!(w, want);
}

#[test]
fn more_than_five_windows_continue_by_offset_to_every_match() {
    let body: String = (0..23)
        .map(|i| format!("{}hit{i:02}\n", "-".repeat(900)))
        .collect();
    let text = t(&body);
    let w = qw(&text, "hit");
    let first = w.lines().next().unwrap();
    // Read on from where the fifth window ends (400 after its match).
    let at = body.match_indices("hit").nth(4).unwrap().0 + 3 + WINDOW_CHARS;
    assert_eq!(
        first,
        format!("[recall: 23 matches for query 'hit' in trm_x; 1-5 shown; for the rest pass offset={at} with the same query]")
    );
    assert_eq!(w.matches("\n---\n").count(), 4);
    // Following the offsets shows each match once, in order, to the last.
    let (mut from, mut seen, mut calls) = (0usize, Vec::new(), 0);
    loop {
        let w = qw_from(&text, "hit", from, 3000);
        calls += 1;
        let body = w.split_once("]\n").map_or(w.as_str(), |(_, b)| b);
        for (i, _) in body.match_indices("hit") {
            let w = body;
            seen.push(w[i + 3..i + 5].parse::<usize>().unwrap());
        }
        match w.split("pass offset=").nth(1) {
            Some(rest) => from = rest.split(' ').next().unwrap().parse().unwrap(),
            None => break,
        }
    }
    assert_eq!(seen, (0..23).collect::<Vec<_>>());
    assert!(calls > 5);
    let at = body.match_indices("hit").nth(20).unwrap().0;
    let last = qw_from(&text, "hit", at, 50_000);
    assert!(
        last.starts_with(&format!(
            "[recall: 23 matches for query 'hit' in trm_x; 20 before offset={at}; 21-23 shown, the last]"
        )),
        "{}",
        &last[..200]
    );
    let q: Wtf8Buf = "hit".into();
    let a = Ask {
        count_only: true,
        ..ask(&q)
    };
    assert_eq!(
        query_windows(&text, &a, "trm_x", None),
        "[recall: 23 matches for query 'hit' in trm_x]"
    );
}

#[test]
fn case_insensitive_fallback_and_no_match() {
    let w = qw(&t("Hello ÉCOLE world"), "école");
    assert_eq!(
        w,
        "[recall: no exact match for query 'école' in trm_x; 1 case-insensitive match]\n(offset 0, line 1)\nHello ÉCOLE world"
    );
    assert_eq!(
        qw(&t("abc"), "zzz"),
        "[recall: no match for query 'zzz' in trm_x]"
    );
}

/// The implementation before the streaming matcher (it folded a copy of
/// the whole payload), kept as the oracle the new one must equal.
fn old_folded_matches(hay: &str, query: &str) -> (Vec<usize>, usize, usize) {
    let f = |c: char| char::from_u32(fold(c as u32)).unwrap();
    let fq: String = query.chars().map(f).collect();
    let fh: String = hay.chars().map(f).collect();
    let mut starts = Vec::new();
    let mut total = 0usize;
    let (mut last_b, mut last_c) = (0usize, 0usize);
    for b in memchr::memmem::find_iter(fh.as_bytes(), fq.as_bytes()) {
        if starts.len() < KEEP {
            last_c += count_chars(&fh.as_bytes()[last_b..b]);
            last_b = b;
            starts.push(last_c);
        }
        total += 1;
    }
    (starts, total, 0)
}

#[test]
fn streaming_fold_matches_the_old_folded_copy() {
    let cases = [
        ("Hello ÉCOLE world école ÉcOlE", "école"),
        ("ÄäÄäÄäÄ", "ää"),
        ("😀É😀é😀É😀", "é😀"),
        ("ΣΑΣ σας ΣΑΣ", "σα"),
        ("éaéaéaébéaéb", "éaéb"),
        ("İstanbul istanbul", "İs"),
        ("straße STRASSE", "ß"),
        ("日本語テキスト日本", "日本"),
        ("", "é"),
        ("é", "éé"),
    ];
    for (hay, q) in cases {
        assert_eq!(
            folded_matches(hay.as_bytes(), q.as_bytes(), 0),
            old_folded_matches(hay, q),
            "{hay} / {q}"
        );
    }
    // Small alphabets make many partial matches: the KMP fallbacks.
    let alphabet = ['a', 'A', 'é', 'É', '😀', 'ß'];
    let mut seed = 0x2545_f491_u64;
    let mut pick = |n: usize| {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        (seed >> 33) as usize % n
    };
    for _ in 0..2000 {
        let hay: String = (0..pick(40)).map(|_| alphabet[pick(alphabet.len())]).collect();
        let q: String = (0..1 + pick(4)).map(|_| alphabet[pick(alphabet.len())]).collect();
        assert_eq!(
            folded_matches(hay.as_bytes(), q.as_bytes(), 0),
            old_folded_matches(&hay, &q),
            "{hay} / {q}"
        );
    }
}

#[test]
fn lone_surrogates_match_only_themselves_and_come_back_whole() {
    // "a\u{D800}b\u{FFFD}c😀"
    let units = [0x61, 0xD800, 0x62, 0xFFFD, 0x63, 0xD83D, 0xDE00];
    let text = Text::from_wtf8(wtf8::from_utf16(&units).0);
    let q = |u: &[u16]| Wtf8Buf::from_bytes(wtf8::from_utf16(u).0, false);
    let located = |w: Wtf8Buf| w.to_utf16()[19..].to_vec();
    let w = query_windows(&text, &ask(&q(&[0xD800])), "trm_x", None);
    assert_eq!(located(w), units);
    let w = query_windows(&text, &ask(&q(&[0xFFFD])), "trm_x", None);
    assert_eq!(located(w), units);
    // A lone lead never matches half of a pair.
    let w = query_windows(&text, &ask(&q(&[0xD83D])), "trm_x", None);
    assert_eq!(w, "[recall: no match for query '\u{FFFD}' in trm_x]");
    // Caseless over WTF-8: surrogates fold to themselves.
    let w = query_windows(&text, &ask(&q(&[0x42, 0xFFFD])), "trm_x", None);
    assert!(w.to_utf16().ends_with(&units), "{w:?}");
    // Ranges count a lone surrogate as one code point.
    assert_eq!(wtf8::to_utf16(text.slice(1, 2)), [0xD800]);
    assert_eq!(text.char_len(), 6);
}

#[test]
fn huge_queries_answer_quickly() {
    let big = "q".repeat(2_000_000);
    assert_eq!(
        qw(&t("short"), &big),
        format!("[recall: no match for query '{}...' in trm_x]", "q".repeat(197))
    );
    let text = t(&"abc ".repeat(100_000));
    let long = "ABC ".repeat(1000);
    assert!(qw(&text, &long).starts_with("[recall: no match"));
    assert!(qw(&text, &long[..40]).starts_with("[recall: no exact match"));
}
