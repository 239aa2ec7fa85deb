use super::build::build_entry;
use super::record::same_result;
use super::*;
use crate::ids::mem_id_for;
use crate::recall::FetchSpec;
use crate::text::{Settled, Text};

fn req(ns: &str, call: &str, content: &str) -> RecordRequest {
    RecordRequest {
        namespace: ns.into(),
        tool_call_id: call.into(),
        tool_name: "t".into(),
        tool_args: None,
        content: content.into(),
    }
}

#[test]
fn record_is_idempotent_and_namespaced() {
    let l = Ledger::new(LedgerConfig::default());
    let a = l.record(req("", "c", "body")).unwrap();
    let b = l.record(req("", "c", "body")).unwrap();
    assert_eq!(a, b);
    assert_eq!(l.stats().entries, 1);
    let other = l.record(req("ns", "c", "body")).unwrap();
    assert_eq!(other.mem_id, a.mem_id);
    assert_eq!(l.stats().entries, 2);
    assert_eq!(
        l.fetch(
            "ns",
            &a.mem_id,
            &FetchSpec {
                full: true,
                ..Default::default()
            }
        ),
        "body"
    );
    assert_eq!(
        l.fetch("zz", &a.mem_id, &FetchSpec::default()),
        format!("[tool_memory not found: {} in namespace 'zz']", a.mem_id)
    );
}

#[test]
fn a_colliding_id_with_other_content_is_refused() {
    let e = build_entry(
        "trm_aaaaaaaaaaaa".into(),
        req("", "c", ""),
        Text::from_payload(Settled::Utf8("one".into())),
        None,
        200,
    );
    let key: Key = ("".into(), "trm_aaaaaaaaaaaa".into());
    assert!(same_result(&e, &key, "c", b"one").is_ok());
    let err = same_result(&e, &key, "c", b"two").unwrap_err();
    assert_eq!(
        err,
        LedgerError::Collision {
            mem_id: "trm_aaaaaaaaaaaa".into(),
            namespace: "".into()
        }
    );
    assert!(err.to_string().contains("refusing to record"));
    assert!(same_result(&e, &key, "d", b"one").is_err());
}

#[test]
fn record_refuses_a_forced_collision_and_keeps_the_first_result() {
    let l = Ledger::new(LedgerConfig::default());
    l.force_mem_id(Some("trm_aaaaaaaaaaaa".into()));
    let a = l.record(req("ns", "c", "one")).unwrap();
    assert_eq!(a.mem_id, "trm_aaaaaaaaaaaa");
    assert_eq!(l.record(req("ns", "c", "one")).unwrap(), a);
    let err = l.record(req("ns", "c", "two")).unwrap_err();
    assert!(matches!(err, LedgerError::Collision { .. }));
    l.force_mem_id(None);
    assert_ne!(l.record(req("ns", "c", "two")).unwrap().mem_id, a.mem_id);
    assert_eq!(l.handle("ns", "trm_aaaaaaaaaaaa").unwrap(), a);
}

#[test]
fn long_namespaces_are_refused_at_the_cap() {
    let l = Ledger::new(LedgerConfig::default());
    let at_cap = "é".repeat(MAX_NAMESPACE_CHARS);
    assert!(l.record(req(&at_cap, "c", "x")).is_ok());
    let over = format!("{at_cap}a");
    let err = l.record(req(&over, "c", "x")).unwrap_err();
    assert_eq!(err, LedgerError::NamespaceTooLong { chars: 1025 });
    assert!(err.to_string().contains("at most 1024"), "{err}");
    assert_eq!(l.stats().entries, 1);
}

#[test]
fn content_past_the_size_limit_is_refused() {
    assert_eq!(check_content_len(0), Ok(()));
    assert_eq!(check_content_len(MAX_CONTENT_BYTES), Ok(()));
    // Past 4 GiB sizes no longer fit a u32 and the JSON index's offsets.
    for bytes in [
        MAX_CONTENT_BYTES + 1,
        u32::MAX as usize,
        u32::MAX as usize + 1,
        usize::MAX,
    ] {
        let err = check_content_len(bytes).unwrap_err();
        assert_eq!(err, LedgerError::ContentTooLarge { bytes });
        assert!(err.to_string().contains("at most 4000000000 bytes"), "{err}");
    }
    // Anything accepted has a size in code points that a u32 holds.
    assert!(u32::try_from(MAX_CONTENT_BYTES).is_ok());
}

#[test]
fn stub_fields_cannot_add_lines() {
    let l = Ledger::new(LedgerConfig::default());
    let mut r = req("", "call\nx", "line one\u{2028}still one\tend\nline two");
    r.tool_name = format!("x\nsummary: injected{}", "n".repeat(10_000));
    r.tool_args = Some(
        serde_json::json!({"k\ney": "v\u{85}", "n": {"a\u{2029}": "\u{7f}"}})
            .as_object()
            .unwrap()
            .clone(),
    );
    let h = l.record(r).unwrap();
    let lines: Vec<&str> = h.stub.split('\n').collect();
    assert_eq!(lines.len(), 7, "{}", h.stub);
    assert!(lines.iter().all(|x| !x
        .chars()
        .any(|c| c.is_control() || c == '\u{2028}' || c == '\u{2029}')));
    assert!(
        lines[1].starts_with("tool=x\\nsummary: injectednnn"),
        "{}",
        lines[1]
    );
    assert!(lines[1].ends_with("... call_id=call\\nx"), "{}", lines[1]);
    assert!(lines[1].chars().count() < 128 + 64 + 20);
    assert!(!h.stub.contains("\nsummary: injected"));
    assert_eq!(
        h.tool_name.chars().count(),
        10_019,
        "the handle keeps the name whole"
    );
    assert!(h.summary.contains("k\\ney='v\\u{85}'"), "{}", h.summary);
    assert!(h.summary.contains("\\u{2029}"), "{}", h.summary);
    assert!(h.summary.contains("\\u{7f}"), "{}", h.summary);
    assert_eq!(
        h.preview.as_deref(),
        Some("line one\\u{2028}still one end line two"),
        "a tab is a space in the preview, a line separator an escape"
    );
}

#[test]
fn eviction_is_least_recently_used_and_keeps_the_newest() {
    // Entries hold their payload plus ~1 KB of handle and stub.
    let l = Ledger::new(LedgerConfig {
        max_bytes: 25_000,
        preview_chars: 10,
    });
    let a = l.record(req("", "a", &"a".repeat(10_000))).unwrap();
    let b = l.record(req("", "b", &"b".repeat(10_000))).unwrap();
    assert!(l.get("", &a.mem_id).is_some()); // touch a
    let c = l.record(req("", "c", &"c".repeat(10_000))).unwrap();
    assert!(l.peek("", &b.mem_id).is_none());
    assert!(l.peek("", &a.mem_id).is_some());
    assert!(l.peek("", &c.mem_id).is_some());
    assert_eq!(l.stats().evictions, 1);
    // One entry larger than the bound evicts the rest but is itself kept.
    let d = l.record(req("", "d", &"d".repeat(30_000))).unwrap();
    assert_eq!(l.stats().entries, 1);
    assert!(l.peek("", &d.mem_id).is_some());
    assert_eq!(l.stats().evictions, 3);
}

#[test]
fn clear_and_delete_keep_byte_accounting_exact() {
    let l = Ledger::new(LedgerConfig::default());
    let a = l.record(req("x", "a", "one")).unwrap();
    l.record(req("y", "b", "two")).unwrap();
    assert!(l.delete("x", &a.mem_id));
    assert!(!l.delete("x", &a.mem_id));
    assert_eq!(l.clear(Some("x")), 0);
    assert_eq!(l.clear(None), 1);
    assert_eq!(l.stats().bytes, 0);
    assert_eq!(l.stats().entries, 0);
}

#[test]
fn recall_fits_every_answer_in_the_cap() {
    let l = Ledger::new(LedgerConfig::default());
    let h = l.record(req("", "c", "0123456789")).unwrap();
    let full = FetchSpec {
        full: true,
        ..Default::default()
    };
    assert_eq!(l.recall("", &h.mem_id, &full, 4), "0123");
    assert_eq!(l.recall("", "trm_000000000000", &full, 1), "[");
    assert_eq!(
        l.recall("", "trm_000000000000", &full, 1000),
        "[tool_memory not found: trm_000000000000 in the default namespace]"
    );
}

#[test]
fn stub_with_a_longer_preview_is_deterministic() {
    let l = Ledger::new(LedgerConfig {
        max_bytes: DEFAULT_MAX_BYTES,
        preview_chars: 5,
    });
    let h = l.record(req("", "c", &"word ".repeat(100))).unwrap();
    assert_eq!(l.stub("", &h.mem_id, None).unwrap(), h.stub);
    let long = l.stub("", &h.mem_id, Some(50)).unwrap();
    assert!(long.contains(&format!("preview: {}", "word ".repeat(10).trim())));
    assert_eq!(l.stub("", &h.mem_id, Some(50)).unwrap(), long);
}

/// The request of `req` with its content in another form.
fn req_as(call: &str, content: Payload) -> RecordRequest {
    RecordRequest {
        content,
        ..req("", call, "")
    }
}

#[test]
fn every_crossing_form_of_one_text_records_the_same_entry() {
    let full = FetchSpec {
        full: true,
        ..Default::default()
    };
    let big = format!("[{}]", r#"{"t":"café 日本 😀","n":1},"#.repeat(40_000)).replace(",]", "]");
    for s in ["", "plain ascii", "café ÿ", "日本 😀 \u{FEFF}\0", big.as_str()] {
        let units: Vec<u16> = s.encode_utf16().collect();
        let forms = [
            Payload::Utf8(s.to_string()),
            Payload::Utf16(units),
            Payload::Bytes(s.as_bytes().to_vec()),
        ];
        let mut handles = Vec::new();
        for p in forms {
            let l = Ledger::new(LedgerConfig::default());
            let h = l.record(req_as("c", p)).unwrap();
            assert_eq!(l.fetch("", &h.mem_id, &full), s);
            // What is held is the payload and its indexes, not a transient copy.
            if s.len() > 1 << 20 {
                let ratio = l.stats().bytes as f64 / s.len() as f64;
                assert!(ratio <= 1.1, "stats.bytes / payload = {ratio}");
            }
            handles.push(h);
        }
        assert!(handles.windows(2).all(|w| w[0] == w[1]), "{s:.40}");
        assert_eq!(handles[0].mem_id, mem_id_for("c", s.as_bytes()));
    }
}

#[test]
fn lone_surrogates_cross_losslessly_and_invalid_bytes_as_before() {
    let l = Ledger::new(LedgerConfig::default());
    let units = [0x61, 0xD800, 0x62, 0xDFFF];
    let h = l.record(req_as("c", Payload::Utf16(units.to_vec()))).unwrap();
    let (wtf8, _) = crate::wtf8::from_utf16(&units);
    assert_eq!(h.mem_id, mem_id_for("c", &wtf8));
    assert_eq!(h.size_chars, 4);
    let full = FetchSpec {
        full: true,
        ..Default::default()
    };
    assert_eq!(l.fetch("", &h.mem_id, &full).to_utf16(), units);
    let bad = b"x \xFF y \xE6\x97".to_vec();
    let hb = l.record(req_as("c", Payload::Bytes(bad.clone()))).unwrap();
    let lossy = String::from_utf8_lossy(&bad).into_owned();
    assert_eq!(hb.mem_id, mem_id_for("c", lossy.as_bytes()));
    assert_eq!(l.fetch("", &hb.mem_id, &full), lossy);
}

/// Whether nothing holds the entry behind `weak` any more.
fn freed(weak: &std::sync::Weak<Entry>) -> bool {
    weak.strong_count() == 0
}

#[test]
fn removed_entries_are_freed_when_removed_none_kept() {
    let l = Ledger::new(LedgerConfig {
        max_bytes: 5 << 20,
        preview_chars: 10,
    });
    let big = |tag: &str| format!("{tag}{}", "x".repeat(2 << 20));
    let weak = |mem_id: &str| Arc::downgrade(&l.peek("", mem_id).unwrap());

    let small = l.record(req("", "s", "small")).unwrap();
    let w = weak(&small.mem_id);
    assert!(l.delete("", &small.mem_id));
    assert!(freed(&w), "a deleted entry is freed");

    let a = l.record(req("", "a", &big("a"))).unwrap();
    let wa = weak(&a.mem_id);
    assert!(l.delete("", &a.mem_id));
    assert!(freed(&wa), "a deleted entry is freed");

    // Past max_bytes, the oldest is evicted; then clear removes the rest.
    let b = l.record(req("", "b", &big("b"))).unwrap();
    let c = l.record(req("", "c", &big("c"))).unwrap();
    let wb = weak(&b.mem_id);
    let d = l.record(req("", "d", &big("d"))).unwrap();
    assert!(l.peek("", &b.mem_id).is_none());
    assert_eq!(l.stats().evictions, 1);
    assert!(freed(&wb), "an evicted entry is freed");
    let (wc, wd) = (weak(&c.mem_id), weak(&d.mem_id));
    assert_eq!(l.clear(None), 2);
    assert!(freed(&wc) && freed(&wd), "cleared entries are freed");
    assert_eq!(l.stats().bytes, 0);
}

/// An entry recorded before v2 (a store's row) keeps its v1 stub: served as
/// stored, and re-rendered as v1 with another preview length, so a
/// checkpoint's offloaded v1 stub still verifies against the ledger.
#[test]
fn entries_recorded_as_v1_render_as_v1() {
    use super::build::{rebuild_entry, restub};
    use crate::store::StoredEntry;
    use crate::stub::{self, StubParts};
    let content = "line one\nline two\nline three";
    let mem_id = mem_id_for("c1", content.as_bytes());
    let v1 = |preview: &str| {
        stub::v1::render(&StubParts {
            tool_name: "read_log",
            tool_call_id: "c1",
            mem_id: &mem_id,
            size_chars: content.len(),
            schema: Some("text: lines=3"),
            summary: "read_log: text result, first line: line one",
            preview: Some(preview),
        })
    };
    let handle = Handle {
        mem_id: mem_id.clone(),
        namespace: String::new(),
        tool_name: "read_log".into(),
        tool_call_id: "c1".into(),
        size_chars: content.len(),
        summary: "read_log: text result, first line: line one".into(),
        schema: Some("text: lines=3".into()),
        preview: Some("line one line two line three".into()),
        stub: v1("line one line two line three"),
    };
    let stored = StoredEntry {
        handle: handle.clone(),
        content: content.as_bytes().to_vec(),
        form: crate::store::Form::Utf8,
        expires_at: None,
    };
    let e = rebuild_entry(stored, true).unwrap();
    assert_eq!(e.handle.stub, handle.stub);
    assert_eq!(restub(&e, 8, 200), v1("line one"));
    assert!(restub(&e, 8, 200).starts_with("[symfonic.tool_memory v1]\n"));
    // A new record of other content is v2.
    let l = Ledger::new(LedgerConfig::default());
    let h = l.record(req("", "c2", content)).unwrap();
    assert!(h.stub.starts_with("[symfonic.tool_memory v2]\n"));
    assert!(l
        .stub("", &h.mem_id, Some(8))
        .unwrap()
        .starts_with("[symfonic.tool_memory v2]\n"));
}

/// A v2 entry recorded by an earlier build (a store's row) keeps its facts:
/// re-rendered with another preview length, every line but the preview is
/// the stored one, whatever the outline of its payload says today.
#[test]
fn entries_recorded_as_v2_keep_their_lines() {
    use super::build::{rebuild_entry, restub};
    use crate::store::StoredEntry;
    use crate::stub::{self, StubParts};
    let content = "12:00:01 INFO up\n12:00:02 [Error] disk\n12:00:03 ERROR: net\n11:00:00 INFO late\n";
    let mem_id = mem_id_for("c1", content.as_bytes());
    let summary = "read_log: log, 4 lines";
    // As an earlier build wrote it: first and last line as the range, one spelling as the pattern.
    let schema = "log: 4 lines; time 12:00:01 .. 11:00:00; levels [Error] 2, INFO 2";
    let facts = [crate::outline::Fact {
        label: "errors",
        text: "2 lines, at 2, 3".into(),
    }];
    let recall = ["lines=\"1-4\"".to_string(), "pattern=\"Error\"".to_string()];
    let v2 = |preview: &str| {
        let parts = StubParts {
            tool_name: "read_log",
            tool_call_id: "c1",
            mem_id: &mem_id,
            size_chars: content.len(),
            schema: Some(schema),
            summary,
            preview: Some(preview),
        };
        stub::render(&parts, &facts, &recall)
    };
    let head = |n| stub::preview(content, n, stub::preview_style(summary), 200);
    let handle = Handle {
        mem_id: mem_id.clone(),
        namespace: String::new(),
        tool_name: "read_log".into(),
        tool_call_id: "c1".into(),
        size_chars: content.len(),
        summary: summary.into(),
        schema: Some(schema.into()),
        preview: Some(head(200)),
        stub: v2(&head(200)),
    };
    let stored = StoredEntry {
        handle: handle.clone(),
        content: content.as_bytes().to_vec(),
        form: crate::store::Form::Utf8,
        expires_at: None,
    };
    let e = rebuild_entry(stored, true).unwrap();
    assert_eq!(e.handle.stub, handle.stub);
    assert_eq!(restub(&e, 8, 200), v2("12:00:01"));
    assert_eq!(restub(&e, 2000, 200), v2(&head(2000)));
    assert_eq!(restub(&e, 0, 200), v2(""));
    // Recorded today, the same payload states other facts.
    let l = Ledger::new(LedgerConfig::default());
    let h = l.record(req("", "c2", content)).unwrap();
    assert!(h.stub.contains("pattern=\"Error|ERROR\""), "{}", h.stub);
    assert!(h.stub.contains("; time 11:00:00 .. 12:00:03;"), "{}", h.stub);
}

/// Held bytes: readable while `alive`, gone after.
struct HeldBytes {
    bytes: Vec<u8>,
    alive: bool,
}

impl crate::text::Held for HeldBytes {
    fn size(&self) -> usize {
        self.bytes.len()
    }
    fn copy(&self) -> Option<Vec<u8>> {
        self.alive.then(|| self.bytes.clone())
    }
}

#[test]
fn held_bytes_are_recorded_while_their_owner_lives_and_refused_after() {
    use crate::text::{Payload, Shared};
    let l = Ledger::new(LedgerConfig::default());
    let held = |alive| RecordRequest {
        content: Payload::Shared(Shared(Box::new(HeldBytes {
            bytes: b"held \xff body".to_vec(),
            alive,
        }))),
        ..req("", "c", "")
    };
    let h = l.record(held(true)).unwrap();
    assert_eq!(h.mem_id, mem_id_for("c", "held \u{FFFD} body".as_bytes()));
    assert_eq!(l.record(held(false)), Err(LedgerError::Closed));
    assert_eq!(l.stats().entries, 1);
}

#[test]
fn an_expired_entry_is_answered_as_expired_until_swept_and_never_as_its_content() {
    let l = Ledger::new(LedgerConfig::default());
    let h = l.record_with(req("", "c", "brief"), Ttl::Millis(1)).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    let answer = l.fetch("", &h.mem_id, &FetchSpec::default());
    assert_eq!(
        answer,
        format!(
            "[tool_memory not found: {} has expired (its time to live passed); it can no longer be recalled]",
            h.mem_id
        )
    );
    assert_eq!(
        l.fetch("", "trm_00000000000f", &FetchSpec::default()),
        "[tool_memory not found: trm_00000000000f in the default namespace]"
    );
}
