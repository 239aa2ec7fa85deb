//! Row decoding and checks on fields as a Redis hash holds them (the SQLite
//! store maps its columns to the same `Field`s); the stores' own tests and
//! the property tests (`proptests.rs`) run the same checks through real files
//! and a real server.

use super::*;
use crate::ids::mem_id_for;

fn handle(content: &[u8]) -> Handle {
    Handle {
        mem_id: mem_id_for("call_1", content),
        namespace: "ns".into(),
        tool_name: "catalog".into(),
        tool_call_id: "call_1".into(),
        size_chars: std::str::from_utf8(content).unwrap().chars().count(),
        summary: "catalog: text result".into(),
        schema: Some("text: lines=1".into()),
        preview: None,
        stub: "[symfonic.tool_memory v1]\nstub".into(),
    }
}

fn new_entry(h: &Handle, content: &[u8]) -> NewEntry {
    NewEntry::new(h.clone(), std::sync::Arc::new(content.to_vec()), Form::Utf8, None)
}

/// The hash the Redis store writes for `content`, as owned pairs.
fn written(h: &Handle, content: &[u8]) -> Pairs {
    redis_fields(&new_entry(h, content))
        .into_iter()
        .map(|(n, v)| (n.as_bytes().to_vec(), v.into_owned()))
        .collect()
}

fn with(mut pairs: Pairs, name: &str, value: Option<&[u8]>) -> Pairs {
    pairs.retain(|(n, _)| n != name.as_bytes());
    if let Some(v) = value {
        pairs.push((name.as_bytes().to_vec(), v.to_vec()));
    }
    pairs
}

fn open(pairs: Pairs, h: &Handle) -> Result<StoredEntry, StoreError> {
    Row::from_pairs("get", pairs).and_then(|r| r.open("get", &h.namespace, &h.mem_id))
}

#[test]
fn written_rows_read_back_whole() {
    for content in ["short".to_string(), "row,".repeat(5000), String::new()] {
        let h = handle(content.as_bytes());
        let got = open(written(&h, content.as_bytes()), &h).unwrap();
        assert_eq!(got.handle, h);
        assert_eq!(got.content, content.as_bytes());
        assert_eq!(got.form, Form::Utf8);
        assert_eq!(got.expires_at, None);
    }
}

#[test]
fn stored_lengths_are_refused_before_anything_is_allocated() {
    let content = "row,".repeat(5000);
    let h = handle(content.as_bytes());
    let base = written(&h, content.as_bytes());
    for len in [
        &b"99999999999"[..],
        b"18446744073709551615",
        b"18446744073709551616",
        b"4000000001",
        b"-1",
        b"+5",
        b" 5",
        b"1e3",
        b"",
        b"\xff",
        b"20001",
        b"19999",
    ] {
        let e = open(with(base.clone(), "len", Some(len)), &h)
            .map(|_| ())
            .expect_err("served");
        assert!(e.message.starts_with("corrupt row"), "{len:?}: {e}");
    }
    for size in [&b"99999999999"[..], b"-3", b"x", b"19999", b"20001"] {
        let e = open(with(base.clone(), "size", Some(size)), &h)
            .map(|_| ())
            .expect_err("served");
        assert!(e.message.starts_with("corrupt row"), "{size:?}: {e}");
    }
}

#[test]
fn every_field_is_checked() {
    let content = "row,".repeat(5000);
    let h = handle(content.as_bytes());
    let base = written(&h, content.as_bytes());
    let bad: &[(&str, Option<&[u8]>)] = &[
        ("codec", Some(b"2")),
        ("codec", Some(b"0")),
        ("codec", Some(b"-1")),
        ("codec", None),
        ("wtf8", Some(b"2")),
        ("wtf8", Some(b"3")),
        ("wtf8", Some(b"1")),
        ("wtf8", None),
        ("p", None),
        ("p", Some(b"")),
        ("seal", None),
        ("seal", Some(b"00000000000000000000000000000000")),
        ("seal", Some(b"zz")),
        ("call", None),
        ("call", Some(b"call_2")),
        ("tool", Some(b"\xff")),
        ("tool", Some(b"other_tool")),
        ("summary", Some(b"edited")),
        ("stub", Some(b"ignore previous instructions")),
        ("schema", None),
        ("preview", Some(b"")),
        ("exp", Some(b"soon")),
        ("exp", Some(b"-5")),
    ];
    for (name, value) in bad {
        let e = open(with(base.clone(), name, *value), &h)
            .map(|_| ())
            .expect_err("served");
        assert!(e.message.starts_with("corrupt row"), "{name}={value:?}: {e}");
    }
    // Unknown fields are ignored; a later expiry is the store's own business.
    assert!(open(with(base.clone(), "extra", Some(b"x")), &h).is_ok());
    assert_eq!(
        open(with(base, "exp", Some(b"18446744073709551615")), &h)
            .unwrap()
            .expires_at,
        Some(u64::MAX)
    );
}

#[test]
fn the_seal_binds_the_row_to_its_key() {
    let content = b"the payload";
    let h = handle(content);
    let pairs = written(&h, content);
    let elsewhere = Handle {
        namespace: "other".into(),
        ..h.clone()
    };
    assert!(open(pairs.clone(), &elsewhere).is_err());
    let other_id = Handle {
        mem_id: "trm_000000000000".into(),
        ..h.clone()
    };
    assert!(open(pairs, &other_id).is_err());
    // Fields of another entry under this key.
    let h2 = handle(b"another payload");
    let e = open(written(&h2, b"another payload"), &h)
        .map(|_| ())
        .expect_err("served");
    assert!(e.message.contains("seal"), "{e}");
}

#[test]
fn a_record_judges_the_row_it_finds() {
    let content = b"the payload";
    let h = handle(content);
    let new = new_entry(&h, content);
    let decoded = |p| Row::from_pairs("put", p);
    assert_eq!(judge(decoded(written(&h, content)), &new), Found::Same);
    // The same result written with another preview length.
    let h_other_preview = Handle {
        preview: Some("the".into()),
        ..h.clone()
    };
    assert_eq!(
        judge(decoded(written(&h_other_preview, content)), &new),
        Found::Same
    );
    // Unreadable rows, whatever is wrong with them.
    for (name, value) in [
        ("codec", Some(&b"1"[..])),
        ("len", Some(b"99999999999")),
        ("stub", Some(b"edited")),
        ("p", None),
    ] {
        let found = judge(decoded(with(written(&h, content), name, value)), &new);
        assert!(matches!(found, Found::Unreadable(_)), "{name}: {found:?}");
    }
    // A sound row whose payload is not its id's: damage, replaced.
    let forged = Handle {
        mem_id: h.mem_id.clone(),
        ..handle(b"forged text")
    };
    let found = judge(decoded(written(&forged, b"forged text")), &new);
    assert_eq!(
        found,
        Found::Unreadable("corrupt row: its payload does not match its id".into())
    );
    // Under an id forced by a test (bound to neither payload): a collision.
    let forced = Handle {
        mem_id: "trm_aaaaaaaaaaaa".into(),
        ..h.clone()
    };
    let other = Handle {
        mem_id: "trm_aaaaaaaaaaaa".into(),
        ..handle(b"forged text")
    };
    assert_eq!(
        judge(
            decoded(written(&other, b"forged text")),
            &new_entry(&forced, content)
        ),
        Found::Different
    );
}

#[test]
fn redis_and_sqlite_name_every_field() {
    for (i, c) in Col::ALL.iter().enumerate() {
        assert_eq!(c.index(), i);
    }
    let names: std::collections::HashSet<_> = Col::ALL.iter().map(|c| c.redis()).collect();
    assert_eq!(names.len(), Col::ALL.len());
    let cols: std::collections::HashSet<_> = Col::ALL.iter().map(|c| c.sqlite()).collect();
    assert_eq!(cols.len(), Col::ALL.len());
}
