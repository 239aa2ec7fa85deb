//! The transcoder against scalar references: `char::decode_utf16` (through
//! `String::from_utf16`) for well-formed UTF-16, `wtf8::from_utf16` for any
//! UTF-16, `String::from_utf8_lossy` for bytes. SIMD kernels work in blocks
//! (16 to 64 units), so every edge is tried at every position across several
//! blocks, and a property test covers the rest with a bounded case count.

use proptest::prelude::*;

use super::*;

/// What the stored form must be: the scalar WTF-8 (UTF-8 when well-formed),
/// `Ascii` exactly when every unit is ASCII, `Wtf8` exactly when a unit is lone.
fn check(units: &[u16]) {
    let (want, lone) = wtf8::from_utf16(units);
    let got = from_utf16(units);
    assert_eq!(got.as_bytes(), &want[..], "units {units:04x?}");
    match (&got, lone) {
        (Settled::Wtf8(b), true) => assert_eq!(b.capacity(), b.len(), "WTF-8 cut to size"),
        (Settled::Ascii(s), false) => {
            assert!(units.iter().all(|&u| u < 0x80));
            assert_eq!(s.capacity(), s.len(), "exactly sized");
        }
        (Settled::Utf8(s), false) => {
            assert!(units.iter().any(|&u| u >= 0x80));
            assert_eq!(s.as_bytes(), String::from_utf16(units).unwrap().as_bytes());
            assert_eq!(s.capacity(), s.len(), "exactly sized");
        }
        (other, _) => panic!("{units:04x?}: lone={lone} but {other:?}"),
    }
}

fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// Fillers whose UTF-8 takes 1, 2 and 3 bytes a unit, and a mix.
fn fillers(len: usize) -> Vec<Vec<u16>> {
    let mixed: Vec<u16> = units("aé日😀 x").into_iter().cycle().take(len).collect();
    vec![vec![b'a' as u16; len], vec![0xE9; len], vec![0x65E5; len], mixed]
}

#[test]
fn well_formed_text_is_its_utf8() {
    for s in [
        "",
        "a",
        "plain ASCII payload {\"a\":1}",
        "café crème brûlée ÀÉÎÕÜ ÿ",
        "日本語のテキスト 中文 한국어",
        "emoji 😀🎉👩‍💻 and 🇯🇵",
        "\u{FEFF}a byte order mark is content",
        "NUL \0 inside\0",
        "\u{FFFD} a real replacement character",
        "edges \u{7F}\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{FFFF}\u{10000}\u{10FFFF}",
    ] {
        check(&units(s));
        assert_eq!(from_utf16(&units(s)).as_bytes(), s.as_bytes());
    }
    assert!(matches!(from_utf16(&units("abc\0")), Settled::Ascii(_)));
    assert!(matches!(from_utf16(&units("\u{FEFF}")), Settled::Utf8(_)));
}

#[test]
fn a_pair_at_every_position_across_block_edges() {
    for base in fillers(300) {
        for at in 0..=130 {
            for pair in [[0xD800, 0xDC00], [0xD83D, 0xDE00], [0xDBFF, 0xDFFF]] {
                let mut u = base.clone();
                u.splice(at..at + 2, pair);
                check(&u);
                // The same at the end of the buffer, and two pairs back to back.
                let end = u.len() - 2 - at.min(u.len() - 2);
                let mut v = base.clone();
                v.splice(end..end + 2, pair);
                check(&v);
                let mut w = base.clone();
                w.splice(at..at + 4, [pair[0], pair[1], pair[0], pair[1]]);
                check(&w);
            }
        }
    }
}

#[test]
fn a_lone_surrogate_at_every_position_across_block_edges() {
    for base in fillers(300) {
        for at in 0..=130 {
            for lone in [0xD800, 0xDBFF, 0xDC00, 0xDFFF] {
                let mut u = base.clone();
                u[at] = lone;
                check(&u);
                let mut v = base.clone();
                let end = v.len() - 1 - at;
                v[end] = lone;
                check(&v);
                // Next to a real pair: a lone high before it, a lone low after it.
                let mut w = base.clone();
                w.splice(at..at + 3, [0xD83D, 0xD83D, 0xDE00]);
                check(&w);
                let mut x = base.clone();
                x.splice(at..at + 3, [0xD83D, 0xDE00, 0xDE00]);
                check(&x);
                // Reversed halves: two lone surrogates.
                let mut y = base.clone();
                y.splice(at..at + 2, [0xDC00, 0xD800]);
                check(&y);
            }
        }
    }
}

#[test]
fn lone_surrogates_at_the_start_the_end_and_everywhere() {
    let cases: [&[u16]; 10] = [
        &[0xD800],
        &[0xDC00],
        &[0xD800, 0x61],
        &[0x61, 0xD800],
        &[0x61, 0xDFFF],
        &[0xD800, 0xD800],
        &[0xDC00, 0xDC00, 0xDC00],
        &[0xD83D, 0xDE00, 0xD83D],
        &[0xDE00, 0xD83D, 0xDE00],
        &[0xFEFF, 0xD800, 0x0000, 0xDFFF, 0xFEFF],
    ];
    for u in cases {
        check(u);
    }
    // Every other unit lone, and nothing but surrogates, over many blocks.
    let alternating: Vec<u16> = (0..1000)
        .map(|i| if i % 2 == 0 { 0xD800 } else { 0x61 })
        .collect();
    check(&alternating);
    let surrogates: Vec<u16> = (0..1000u32)
        .map(|i| 0xD800 + ((i * 7919) % 0x800) as u16)
        .collect();
    check(&surrogates);
}

#[test]
fn the_ascii_path_hands_over_at_any_block() {
    let edge = ASCII_BLOCK;
    for len in [edge - 1, edge, edge + 1, 3 * edge + 5] {
        check(&vec![b'x' as u16; len]);
        for at in [0, 1, edge - 1, edge, edge + 1, 2 * edge, len - 1] {
            if at >= len {
                continue;
            }
            for unit in [0x80, 0xFF, 0x7FF, 0xFEFF, 0xD800, 0xDC00] {
                let mut u = vec![b'x' as u16; len];
                u[at] = unit;
                check(&u);
            }
        }
    }
}

#[test]
fn a_long_text_with_sparse_lone_surrogates() {
    let mut u = units(&"product 😀 café 日本 {\"k\": [1, 2]} ".repeat(20_000));
    for i in (997..u.len()).step_by(65_521) {
        u[i] = if i % 2 == 0 { 0xDABC } else { 0xDEAD };
    }
    check(&u);
    check(&units(&"ascii only, quite long ".repeat(50_000)));
}

#[test]
fn bytes_keep_their_lossy_text() {
    let cases: [&[u8]; 8] = [
        b"",
        b"plain",
        "café 日本 😀".as_bytes(),
        b"bad \xFF byte",
        b"truncated \xE6\x97",
        b"overlong \xC0\xAF",
        b"a surrogate in UTF-8 \xED\xA0\x80 is invalid",
        b"\xF4\x90\x80\x80 past U+10FFFF",
    ];
    for b in cases {
        let want = String::from_utf8_lossy(b);
        match from_utf8_lossy(b.to_vec()) {
            Settled::Utf8(s) => {
                assert_eq!(s, want, "{b:?}");
                assert_eq!(s.capacity(), s.len());
            }
            other => panic!("{b:?}: {other:?}"),
        }
        assert_eq!(utf8_lossy(b), want);
        assert_eq!(is_utf8(b), std::str::from_utf8(b).is_ok());
    }
}

/// UTF-16 rich in what is hard: surrogates of both kinds, pairs, ASCII, BMP.
fn units_strategy() -> impl Strategy<Value = Vec<u16>> {
    let unit = prop_oneof![
        4 => 0x20u16..0x7F,
        2 => 0x80u16..0x800,
        2 => 0x800u16..0xD800,
        1 => 0xE000u16..=0xFFFF,
        2 => 0xD800u16..0xDC00,
        2 => 0xDC00u16..0xE000,
        1 => prop::sample::select(vec![0u16, 0xFEFF, 0xFFFD, 0xD7FF, 0xE000]),
    ];
    let pair = (0xD800u16..0xDC00, 0xDC00u16..0xE000).prop_map(|(h, l)| vec![h, l]);
    let piece = prop_oneof![3 => unit.prop_map(|u| vec![u]), 2 => pair];
    prop::collection::vec(piece, 0..400).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn agrees_with_the_scalar_reference(u in units_strategy()) {
        check(&u);
    }

    #[test]
    fn well_formed_agrees_with_decode_utf16(s in any::<String>()) {
        let u = units(&s);
        prop_assert_eq!(from_utf16(&u).into_bytes(), s.into_bytes());
    }

    #[test]
    fn bytes_agree_with_from_utf8_lossy(b in prop::collection::vec(any::<u8>(), 0..300)) {
        let want = String::from_utf8_lossy(&b).into_owned();
        prop_assert_eq!(from_utf8_lossy(b).into_bytes(), want.into_bytes());
    }
}
