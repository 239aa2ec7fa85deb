//! Fuzzing of the readers: whatever the bytes (random, real files cut or
//! with bytes flipped, magic followed by noise, huge declared sizes),
//! `describe` returns and says the same thing twice. `PROPTEST_CASES=100000
//! cargo test -p symfonic-core media::proptests` is the long run.

use proptest::prelude::*;

use super::*;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(2048),
        ..ProptestConfig::default()
    }
}

fn real() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/images");
    let mut out: Vec<Vec<u8>> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x != "json" && x != "md" && x != "py")
        })
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    out.sort();
    out
}

const MAGICS: &[&[u8]] = &[
    b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR",
    &[0xff, 0xd8, 0xff],
    &[
        0xff, 0xd8, 0xff, 0xe1, 0x00, 0x10, b'E', b'x', b'i', b'f', 0, 0, b'I', b'I', b'*', 0,
    ],
    b"GIF89a",
    b"RIFF\0\0\0\0WEBPVP8X",
    b"RIFF\0\0\0\0WEBPVP8L",
    b"RIFF\0\0\0\0WEBPVP8 ",
    b"%PDF-1.7\n1 0 obj << /Type /Pages /Count ",
];

/// Bytes that reach deep into the readers: real files mutated, or a magic then noise.
fn blocks() -> impl Strategy<Value = Vec<u8>> {
    let files = real();
    let n = files.len();
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..64),
        (
            prop::sample::select(MAGICS.to_vec()),
            prop::collection::vec(any::<u8>(), 0..256)
        )
            .prop_map(|(m, tail)| [m, &tail[..]].concat()),
        (
            0..n,
            any::<prop::sample::Index>(),
            prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8)
        )
            .prop_map(move |(i, cut, flips)| {
                let f = &files[i];
                let mut b = f[..cut.index(f.len().min(4096)) + 1].to_vec();
                for (at, v) in flips {
                    let k = at.index(b.len());
                    b[k] = v;
                }
                b
            }),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn describing_never_panics_and_is_stable(b in blocks(), declared in prop::option::of("[ -~\n]{0,80}")) {
        let facts = describe(&b, declared.as_deref());
        prop_assert_eq!(facts.bytes, b.len());
        prop_assert_eq!(&facts, &describe(&b, declared.as_deref()));
        let line = facts.line();
        prop_assert!(!line.contains('\n'), "{:?}", line);
        if let Ok(h) = &facts.header {
            if facts.format != Some(Format::Pdf) {
                prop_assert!((1..=MAX_SIDE).contains(&h.width) && (1..=MAX_SIDE).contains(&h.height));
            }
        }
    }
}
