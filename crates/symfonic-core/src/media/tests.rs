//! The facts read from real images (fixtures/images, where README.md cites
//! each one's source and license) against what independent tools read from
//! them (expected.json, written by oracle.py), and bad data described as
//! opaque.

use serde_json::Value;

use super::*;

fn fixtures() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/images")
}

#[test]
fn facts_match_independent_tools_on_every_fixture() {
    let expected: serde_json::Map<String, Value> =
        serde_json::from_slice(&std::fs::read(fixtures().join("expected.json")).unwrap()).unwrap();
    assert!(expected.len() >= 20, "{} fixtures", expected.len());
    let mut formats = std::collections::BTreeSet::new();
    for (file, want) in &expected {
        let bytes = std::fs::read(fixtures().join(file)).unwrap();
        let declared = want.get("declared").and_then(Value::as_str);
        let facts = describe(&bytes, declared);
        let f = facts.format.unwrap_or_else(|| panic!("{file}: not sniffed"));
        formats.insert(f.name());
        assert_eq!(f.name(), want["format"], "{file}");
        let h = facts.header.as_ref().unwrap_or_else(|e| panic!("{file}: {e:?}"));
        let num = |k: &str| want.get(k).and_then(Value::as_u64);
        if f == Format::Pdf {
            assert_eq!(h.pages.map(u64::from), num("pages"), "{file}");
        } else {
            assert_eq!(
                (u64::from(h.width), u64::from(h.height)),
                (num("width").unwrap(), num("height").unwrap()),
                "{file}"
            );
            assert_eq!(
                u64::from(h.frames.unwrap_or(1)),
                num("frames").unwrap_or(1),
                "{file}"
            );
        }
        if f == Format::Jpeg {
            assert_eq!(Some(h.progressive), want["progressive"].as_bool(), "{file}");
            assert_eq!(
                u64::from(h.orientation.unwrap_or(1)),
                num("orientation").unwrap(),
                "{file}"
            );
        }
        let disagrees = declared.is_some_and(|d| Format::from_mime(d) != Some(f));
        assert_eq!(facts.mismatch, disagrees, "{file}");
        assert_eq!(facts.bytes, bytes.len());
    }
    assert_eq!(formats.len(), 5, "{formats:?}");
}

#[test]
fn the_odd_ones_read_as_they_are() {
    let read =
        |f: &str, declared: Option<&str>| describe(&std::fs::read(fixtures().join(f)).unwrap(), declared);
    let rotated = read("exif-rotated-6.jpg", None);
    assert_eq!(rotated.shown_size(), Some((600, 512)));
    assert_eq!(
        rotated.line(),
        "jpeg 512×600 (EXIF orientation 6: shown 600×512), 61,406 bytes"
    );
    assert_eq!(
        read("rust-embedded-f3-progressive.jpg", None).line(),
        "jpeg 720×477 progressive, 259,494 bytes"
    );
    assert_eq!(
        read("animated-idle.gif", None).line(),
        "gif 48×48, 3 frames, 2,719 bytes"
    );
    assert_eq!(read("screenshot-1x1.png", None).line(), "png 1×1, 87 bytes");
    assert_eq!(
        read("screenshot-fullpage-600x4000.png", Some("image/png")).line(),
        "png 600×4000, 522,417 bytes"
    );
    assert_eq!(
        read("cpython-python.png", Some("image/jpeg")).line(),
        "png 16×16 [declared image/jpeg, bytes disagree], 1,020 bytes"
    );
    assert_eq!(
        read("book-ch03-02.pdf", None).line(),
        "pdf, 9 pages, 231,787 bytes"
    );
}

#[test]
fn bad_data_is_opaque_with_its_reason() {
    let png = std::fs::read(fixtures().join("cpython-python.png")).unwrap();
    assert_eq!(describe(b"", Some("image/png")).header, Err(Opaque::Empty));
    assert_eq!(describe(b"", Some("image/png")).line(), "opaque (empty), 0 bytes");
    assert_eq!(describe(&png[..20], None).header, Err(Opaque::Truncated));
    assert_eq!(
        describe(&png[..20], None).line(),
        "opaque (png magic, truncated or malformed header), 20 bytes"
    );
    let unknown = describe(b"iVBORw0KGgo not decoded", Some("image/png"));
    assert_eq!(unknown.header, Err(Opaque::Unknown));
    assert!(unknown.mismatch);
    assert_eq!(
        unknown.line(),
        "opaque (format not recognised) [declared image/png, bytes disagree], 23 bytes"
    );
    // A header claiming 2^31 - 1 pixels a side.
    let mut huge = png.clone();
    huge[16..20].copy_from_slice(&0x7fff_ffffu32.to_be_bytes());
    assert_eq!(describe(&huge, None).header, Err(Opaque::AbsurdSize));
    // A zero width.
    let mut zero = png;
    zero[16..20].copy_from_slice(&0u32.to_be_bytes());
    assert_eq!(describe(&zero, None).header, Err(Opaque::AbsurdSize));
    // A declaration nobody can read is cut, on one line.
    let odd = describe(b"GIF89a", Some("image/png;\n\u{7}x"));
    assert_eq!(
        odd.line(),
        "opaque (gif magic, truncated or malformed header) [declared image/png;??x, bytes disagree], 6 bytes"
    );
}

#[test]
fn mime_aliases_and_parameters() {
    assert_eq!(Format::from_mime("IMAGE/JPG"), Some(Format::Jpeg));
    assert_eq!(Format::from_mime("image/png; charset=binary"), Some(Format::Png));
    assert_eq!(Format::from_mime("application/octet-stream"), None);
    // A generic declaration is no claim: nothing disagrees.
    let png = std::fs::read(fixtures().join("cpython-python.png")).unwrap();
    assert!(!describe(&png, Some("application/octet-stream")).mismatch);
}

#[test]
fn a_gif_cut_before_its_trailer_keeps_its_size_without_frames() {
    let gif = std::fs::read(fixtures().join("animated-idle.gif")).unwrap();
    let h = describe(&gif[..gif.len() - 40], None).header.unwrap();
    assert_eq!((h.width, h.height, h.frames), (48, 48, None));
}
