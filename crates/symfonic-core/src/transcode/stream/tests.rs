//! The streamed transcoder against the whole-string one (`from_utf16`, itself
//! tested against the scalar references in `transcode::tests`): the same
//! stored form, byte for byte and kind for kind, however the units are cut,
//! with the cuts tried where they matter (inside a pair, next to a lone
//! surrogate, at SIMD block edges) and a bounded property test for the rest.

use proptest::prelude::*;

use super::*;
use crate::ids::mem_id_for;
use crate::transcode::from_utf16;

fn units(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

/// The stored form of `units` given in pieces cut at `cuts` (sorted); with
/// `narrow`, each piece whose units are all at most U+00FF is given as
/// Latin-1, as the crossing copies such a slice.
fn in_pieces(units: &[u16], cuts: &[usize], narrow: bool) -> Settled {
    let mut enc = Encoder::default();
    let mut at = 0;
    for &c in cuts.iter().chain([&units.len()]) {
        let piece = &units[at..c];
        if narrow && piece.iter().all(|&u| u <= 0xFF) {
            enc.push_latin1(&piece.iter().map(|&u| u as u8).collect::<Vec<u8>>());
        } else {
            enc.push(piece);
        }
        at = c;
    }
    enc.finish()
}

fn check(units: &[u16], cuts: &[usize]) {
    let want = from_utf16(units);
    for narrow in [false, true] {
        let got = in_pieces(units, cuts, narrow);
        assert_eq!(got, want, "units {units:04x?} cut at {cuts:?}, narrow {narrow}");
        let cap = match &got {
            Settled::Ascii(s) | Settled::Utf8(s) => s.capacity(),
            Settled::Wtf8(b) => b.capacity(),
        };
        assert_eq!(cap, got.as_bytes().len(), "cut to size");
    }
}

/// Texts with every kind of unit: ASCII, 2- and 3-byte UTF-8, pairs, lone
/// highs and lows (at the start, the end, in the middle, doubled), BOM, NUL.
fn samples() -> Vec<Vec<u16>> {
    let mut v = vec![
        units(""),
        units("plain ascii"),
        units("café — édition"),
        units("不锈钢 🔥 😀"),
        units("\u{FEFF}bom first"),
        units("nul\0inside\0"),
        vec![0xD800],
        vec![0xDC00],
        vec![0xD83D, 0xD83D, 0xDE00],
        vec![0xDE00, 0xD83D],
        vec![b'a' as u16, 0xD800, b'b' as u16, 0xDFFF, 0xD83D, 0xDE00, 0xD83D],
    ];
    // Long enough to cross SIMD blocks and the narrowing's yields.
    let long: Vec<u16> = units("aé日😀 x").into_iter().cycle().take(3000).collect();
    let mut with_lone = long.clone();
    with_lone[1700] = 0xDC01;
    v.extend([long, with_lone, vec![b'q' as u16; 300_000]]);
    v
}

#[test]
fn every_cut_of_short_texts_matches_the_whole() {
    for u in samples().iter().filter(|u| u.len() < 64) {
        for c in 0..=u.len() {
            check(u, &[c]);
            for d in c..=u.len() {
                check(u, &[c, d]);
            }
        }
    }
}

#[test]
fn long_texts_cut_around_pairs_and_lone_units_match_the_whole() {
    for u in samples().iter().filter(|u| u.len() >= 64) {
        let near: Vec<usize> = (1..u.len())
            .filter(|&i| (0xD800..0xE000).contains(&u[i]) || i % 1024 == 0)
            .flat_map(|i| [i - 1, i, i + 1])
            .filter(|&i| i <= u.len())
            .take(200)
            .collect();
        for &c in &near {
            check(u, &[c]);
        }
        check(u, &near.iter().copied().step_by(7).collect::<Vec<_>>());
    }
}

#[test]
fn empty_pieces_change_nothing() {
    let u = units("a😀b");
    check(&u, &[0, 0, 1, 1, 2, 2, 4, 4]);
}

#[test]
fn a_pair_cut_across_many_pieces_is_whole_and_a_trailing_high_is_lone() {
    let u = vec![0xD83D, 0xDE00, 0xD83D];
    assert_eq!(
        in_pieces(&u, &[1, 2], false),
        Settled::Wtf8(vec![0xF0, 0x9F, 0x98, 0x80, 0xED, 0xA0, 0xBD])
    );
    // Well-formed pieces that are each ill-formed alone.
    let pair = in_pieces(&[0xD83D, 0xDE00], &[1], false);
    assert_eq!(pair, Settled::Utf8("😀".to_string()));
}

#[test]
fn latin1_pieces_are_converted_and_end_a_carried_surrogate() {
    // Latin-1 above ASCII takes two bytes; ASCII pieces stay ASCII.
    let mut enc = Encoder::default();
    enc.push_latin1(b"caf\xe9 ");
    enc.push_latin1(b"plain");
    assert_eq!(enc.finish(), Settled::Utf8("café plain".to_string()));
    let mut enc = Encoder::default();
    enc.push_latin1(b"only ascii");
    enc.push_latin1(b"");
    assert_eq!(enc.finish(), Settled::Ascii("only ascii".to_string()));
    // A high surrogate that ended the last piece is lone before Latin-1.
    let mut enc = Encoder::default();
    enc.push(&[b'a' as u16, 0xD83D]);
    enc.push_latin1(b"\xff");
    assert_eq!(
        enc.finish(),
        Settled::Wtf8(vec![b'a', 0xED, 0xA0, 0xBD, 0xC3, 0xBF])
    );
}

/// One test for all that uses the process-wide slice list, so that no
/// other test's stream is in flight meanwhile.
#[test]
fn the_thread_transcodes_the_slices_and_gives_their_buffers_back() {
    let chunks = recycle::chunks();
    let slice = |n: usize| {
        let mut b = Stream::buffer(n);
        b.resize(n, 0);
        b
    };
    let text: Vec<u16> = units("Crème brûlée — café 不锈钢 😀 ")
        .into_iter()
        .cycle()
        .take(1_000_003)
        .collect();
    let stream = Stream::start(None).unwrap();
    assert_eq!(chunks.in_flight(), 1);
    // Latin-1 slices first (copied narrow into the slice buffers' memory), then UTF-16.
    let latin: Vec<u16> = "Crème brûlée café, "
        .encode_utf16()
        .cycle()
        .take(300_001)
        .collect();
    for part in latin.chunks(recycle::MIN_UNITS + 7) {
        let mut b = Stream::buffer(part.len() / 2 + 1);
        let room = latin1_room(&mut b);
        for (dst, &u) in room.iter_mut().zip(part) {
            dst.write(u as u8);
        }
        assert!(stream.push_latin1(b, part.len()));
    }
    for part in text.chunks(recycle::MIN_UNITS * 2 + 1) {
        let mut b = Stream::buffer(part.len() + 1);
        b.extend_from_slice(part);
        assert!(stream.push(b));
    }
    let whole: Vec<u16> = latin.iter().chain(&text).copied().collect();
    assert_eq!(stream.finish().settle().0, from_utf16(&whole));
    // The slice buffers are kept for the next crossing, within the bound.
    assert_eq!(chunks.in_flight(), 0);
    // The list's bound in bytes: KEEP_CHUNKS slice buffers of this test's size.
    let bound = recycle::KEEP_CHUNKS * 2 * (recycle::MIN_UNITS * 2 + 2);
    let kept = chunks.kept_bytes();
    assert!(kept >= 2 * (recycle::MIN_UNITS * 2 + 1), "{kept}");
    assert!(kept <= bound, "{kept}");
    // The next crossing's first slice reuses one of them.
    let b = slice(recycle::MIN_UNITS * 2 + 1);
    assert!(chunks.kept_bytes() < kept);
    chunks.give_back(b);
    assert_eq!(chunks.kept_bytes(), kept);

    // Many slices given back at once: never more than KEEP_CHUNKS kept.
    let many: Vec<Vec<u16>> = (0..recycle::KEEP_CHUNKS + 5)
        .map(|_| slice(recycle::MIN_UNITS))
        .collect();
    many.into_iter().for_each(|b| chunks.give_back(b));
    assert!(chunks.kept_bytes() <= bound);

    // Abandoned after a slice: its thread is stopped and joined.
    let stream = Stream::start(None).unwrap();
    let mut b = Stream::buffer(recycle::MIN_UNITS);
    b.extend_from_slice(&text[..recycle::MIN_UNITS]);
    assert!(stream.push(b));
    drop(stream);
    assert_eq!(chunks.in_flight(), 0);
}

#[test]
fn a_hashing_stream_gives_the_id_of_what_it_stored() {
    // Latin-1 slices, then UTF-16 ones cut inside pairs (999 units, the
    // pattern 7), ending with a high surrogate that is lone.
    let latin: Vec<u16> = "Crème brûlée, ".encode_utf16().cycle().take(5_001).collect();
    let mut text: Vec<u16> = units("不锈钢 😀 ").into_iter().cycle().take(9_000).collect();
    text.push(0xD83D);
    let whole: Vec<u16> = latin.iter().chain(&text).copied().collect();
    for call in ["call_1", ""] {
        let stream = Stream::start(Some(call.to_string())).unwrap();
        for part in latin.chunks(1_000) {
            let mut b = Stream::buffer(part.len() / 2 + 1);
            for (dst, &u) in latin1_room(&mut b).iter_mut().zip(part) {
                dst.write(u as u8);
            }
            assert!(stream.push_latin1(b, part.len()));
        }
        for part in text.chunks(999) {
            let mut b = Stream::buffer(part.len());
            b.extend_from_slice(part);
            assert!(stream.push(b));
        }
        let (settled, hashed) = stream.finish().settle();
        assert_eq!(settled, from_utf16(&whole));
        assert!(matches!(settled, Settled::Wtf8(_)), "the lone surrogate is kept");
        let expected = HashedAhead {
            tool_call_id: call.to_string(),
            mem_id: mem_id_for(call, settled.as_bytes()),
        };
        assert_eq!(hashed, Some(expected), "call id {call:?}");
    }
    let stream = Stream::start(None).unwrap();
    let mut b = Stream::buffer(3);
    b.extend_from_slice(&units("abc"));
    assert!(stream.push(b));
    assert_eq!(stream.finish().settle(), (Settled::Ascii("abc".into()), None));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_units_cut_anywhere_match_the_whole(
        u in prop::collection::vec(prop_oneof![
            4 => 0u16..0x80,
            2 => 0x80u16..0x800,
            1 => 0x800u16..0xD800,
            2 => 0xD800u16..0xDC00,
            2 => 0xDC00u16..0xE000,
            1 => 0xE000u16..=0xFFFF,
        ], 0..600),
        mut cuts in prop::collection::vec(0usize..600, 0..8),
    ) {
        cuts.iter_mut().for_each(|c| *c = (*c).min(u.len()));
        cuts.sort_unstable();
        check(&u, &cuts);
    }
}
