use super::*;

#[test]
fn ascii_offsets_are_bytes() {
    let t = Text::new("0123456789".into());
    assert_eq!(t.char_len(), 10);
    assert_eq!(t.slice(5, 9), b"5678");
    assert_eq!(t.slice(8, 100), b"89");
    assert_eq!(t.slice(100, 200), b"");
    assert_eq!(t.char_of(4), 4);
}

#[test]
fn multibyte_and_emoji_count_as_one() {
    let s = "aé😀b€".to_string();
    let t = Text::new(s);
    assert_eq!(t.char_len(), 5);
    assert_eq!(t.slice(1, 3), "é😀".as_bytes());
    assert_eq!(t.slice(2, 3), "😀".as_bytes());
    assert_eq!(t.slice(3, 5), "b€".as_bytes());
    assert_eq!(t.char_of(t.byte_of(4)), 4);
}

#[test]
fn sparse_index_agrees_with_a_naive_walk() {
    let mut s = String::new();
    for i in 0..20_000 {
        s.push(match i % 5 {
            0 => 'a',
            1 => 'ß',
            2 => '€',
            3 => '😀',
            _ => '\n',
        });
    }
    let t = Text::new(s.clone());
    let chars: Vec<char> = s.chars().collect();
    assert_eq!(t.char_len(), chars.len());
    for &(a, b) in &[
        (0, 1),
        (4095, 4097),
        (4096, 8192),
        (12_345, 12_400),
        (19_990, 25_000),
    ] {
        let want: String = chars[a.min(chars.len())..b.min(chars.len())].iter().collect();
        assert_eq!(t.slice(a, b), want.as_bytes(), "slice {a}..{b}");
        assert_eq!(t.char_of(t.byte_of(a)), a.min(chars.len()));
    }
}

#[test]
fn a_text_counted_ahead_is_the_text_built_at_once() {
    let long: String = "aé😀b€\n".repeat(5_000);
    let kinds = || {
        vec![
            Settled::Ascii("plain".into()),
            Settled::Utf8("ascii held as UTF-8, as a Buffer's is".into()),
            Settled::Utf8(long.clone()),
            Settled::Utf8(String::new()),
            Settled::Wtf8(vec![b'a', 0xED, 0xA0, 0x80, b'b']),
        ]
    };
    for (p, q) in kinds().into_iter().zip(kinds()) {
        let counted = Text::count(&p);
        let want = format!("{:?}", Text::from_payload(q));
        assert_eq!(format!("{:?}", Text::from_counted(p, counted)), want);
    }
    assert!(matches!(Text::count(&Settled::Utf8(long)), Counted::Marked(n, _) if n == 30_000));
}

#[test]
fn ellipsize_counts_code_points() {
    assert_eq!(ellipsize("😀😀😀😀", 4), "😀😀😀😀");
    assert_eq!(ellipsize("😀😀😀😀😀", 4), "😀...");
    assert_eq!(take_chars("é😀x", 2), "é😀");
    assert_eq!(take_chars_bytes("é😀x".as_bytes(), 2), "é😀".as_bytes());
    assert_eq!(take_chars_bytes(b"ab", 5), b"ab");
}

#[test]
fn lone_surrogates_are_one_code_point_each() {
    // "a\u{D800}😀\u{DFFF}b": Array.from gives 5 elements.
    let units = [0x61, 0xD800, 0xD83D, 0xDE00, 0xDFFF, 0x62];
    let (b, lone) = wtf8::from_utf16(&units);
    assert!(lone);
    let t = Text::from_wtf8(b);
    assert!(!t.is_utf8());
    assert_eq!(t.char_len(), 5);
    let u16_of = |s: &[u8]| wtf8::to_utf16(s);
    assert_eq!(u16_of(t.slice(1, 2)), [0xD800]);
    assert_eq!(u16_of(t.slice(2, 3)), [0xD83D, 0xDE00]);
    assert_eq!(u16_of(t.slice(3, 5)), [0xDFFF, 0x62]);
    assert_eq!(t.lossy(), "a\u{FFFD}😀\u{FFFD}b");
    // Valid UTF-8 bytes become a plain UTF-8 text.
    assert!(Text::from_wtf8("é".as_bytes().to_vec()).is_utf8());
    // The sparse index agrees with a naive walk on long WTF-8 too.
    let mut long = Vec::new();
    for i in 0..20_000u32 {
        long.push(if i % 3 == 0 { 0xDC00 + (i % 7) as u16 } else { 0x61 });
    }
    let t = Text::from_wtf8(wtf8::from_utf16(&long).0);
    assert_eq!(t.char_len(), 20_000);
    for (a, b) in [(0, 1), (4095, 4097), (12_345, 12_400), (19_990, 25_000)] {
        let want = &long[a..b.min(long.len())];
        assert_eq!(u16_of(t.slice(a, b)), want, "slice {a}..{b}");
    }
}
