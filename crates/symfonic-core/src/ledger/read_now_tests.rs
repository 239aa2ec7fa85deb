//! `read_now`: what the calling thread answers equals what the runtime would
//! answer, bounded work only; the rest is left to the read lane, held.

use super::*;
use crate::recall::FetchSpec;
use crate::wtf8::Wtf8Buf;

/// A ledger (1 GiB) holding `content`, and its id.
fn ledger_with(content: String) -> (Ledger, String) {
    let l = Ledger::new(LedgerConfig {
        max_bytes: 1 << 30,
        ..LedgerConfig::default()
    });
    let h = l
        .record(RecordRequest {
            namespace: String::new(),
            tool_call_id: "c".into(),
            tool_name: "t".into(),
            tool_args: None,
            content: content.as_str().into(),
        })
        .unwrap();
    (l, h.mem_id)
}

fn path(p: &str) -> FetchSpec {
    FetchSpec::new(None, None, None, None, Some(p.into()))
}

fn query(q: &str) -> FetchSpec {
    FetchSpec::new(None, Some(Wtf8Buf::from(q.to_string())), None, None, None)
}

fn full() -> FetchSpec {
    FetchSpec::new(Some("full"), None, None, None, None)
}

/// A ~1.2 MB catalog: an object of two members, one a big array of rows.
fn catalog() -> String {
    let rows: Vec<String> = (0..12_000)
        .map(|i| format!(r#"{{"id":{i},"title":"widget {i}","tags":["a","b"]}}"#))
        .collect();
    format!(r#"{{"meta":{{"n":{}}},"rows":[{}]}}"#, rows.len(), rows.join(","))
}

#[test]
fn bounded_reads_are_answered_now_as_the_runtime_would_and_count_once() {
    let (l, id) = ledger_with(catalog());
    for spec in [
        path("rows[-1]"),
        path("rows.11999.title"),
        path("meta"),
        path("rows[5].nope"),
        path("rows[[bad"),
        path("#/rows/11999/title"),
        FetchSpec::new(None, None, Some(1000.0), Some(500.0), None),
        FetchSpec::new(None, None, Some(9e9), None, None),
        FetchSpec::default(),
    ] {
        let before = l.stats().hits;
        let now = l
            .read_now("", &id, &spec, Read::Fetch)
            .ok()
            .unwrap_or_else(|| panic!("{spec:?}"));
        assert_eq!(l.stats().hits, before + 1, "{spec:?}");
        assert_eq!(now, l.fetch("", &id, &spec), "{spec:?}");
        let capped = l
            .read_now("", &id, &spec, Read::Recall { cap: 300 })
            .ok()
            .unwrap_or_else(|| panic!("{spec:?}"));
        assert_eq!(capped, l.recall("", &id, &spec, 300), "{spec:?}");
    }
    // A recall of the whole payload is cut at its cap: bounded too.
    assert_eq!(
        l.read_now("", &id, &full(), Read::Recall { cap: 8000 }).ok(),
        Some(l.recall("", &id, &full(), 8000))
    );
}

#[test]
fn work_that_grows_with_the_payload_is_left_to_the_read_lane_held() {
    let (l, id) = ledger_with(catalog());
    for spec in [
        query("widget 11999"),
        path("rows[*].id"),
        path("$..title"),
        path("rows"), // the node is the whole array: a copy of megabytes
        full(),
        FetchSpec::new(None, None, Some(0.0), Some(1e6), None),
    ] {
        let before = l.stats().hits;
        match l.read_now("", &id, &spec, Read::Fetch) {
            Err(Some(e)) => assert_eq!(e.handle.mem_id, id),
            other => panic!("{spec:?}: {:?}", other.map(|t| t.as_bytes().len())),
        }
        // The hit is counted, and the entry made most recently used, at the call.
        assert_eq!(l.stats().hits, before + 1, "{spec:?}");
    }
}

#[test]
fn a_pattern_is_left_to_the_read_lane_even_on_a_small_payload() {
    let (l, id) = ledger_with("INFO ok\nERROR boom\n".repeat(10));
    let grep = FetchSpec::default().with_reads(Some(r"\p{Lu}+ boom".into()), None, None, None);
    assert!(matches!(l.read_now("", &id, &grep, Read::Fetch), Err(Some(_))));
    assert!(l.read_now("", &id, &query("boom"), Read::Fetch).is_ok());
}

#[test]
fn a_rare_query_is_answered_now_once_the_query_index_is_built() {
    let mut log: String = (0..40_000)
        .map(|i| format!("INFO worker-{} request {i}\n", i % 8))
        .collect();
    log.insert_str(log.len() / 2, "ERROR code=E1234 upstream timeout\n");
    let (l, id) = ledger_with(log);
    let rare = query("CODE=e1234");
    assert!(
        matches!(l.read_now("", &id, &rare, Read::Fetch), Err(Some(_))),
        "no index yet"
    );
    let answer = l.fetch("", &id, &rare);
    assert!(answer.to_string_lossy().contains("upstream timeout"));
    assert_eq!(l.read_now("", &id, &rare, Read::Fetch).ok(), Some(answer));
    // Bytes that every block holds still mean a scan of the whole payload.
    assert!(l.read_now("", &id, &query("request 12"), Read::Fetch).is_err());
}

#[test]
fn misses_are_answered_now_without_a_store_and_an_object_of_many_small_members_is_not_bounded() {
    let members: Vec<String> = (0..100_000).map(|i| format!(r#""k{i}":{i}"#)).collect();
    let (l, id) = ledger_with(format!("{{{}}}", members.join(",")));
    assert!(l.read_now("", &id, &path("k99999"), Read::Fetch).is_err());
    assert_eq!(l.fetch("", &id, &path("k99999")), "99999");
    let misses = l.stats().misses;
    let spec = FetchSpec::default();
    assert_eq!(
        l.read_now("", "trm_000000000000", &spec, Read::Fetch).ok(),
        Some(l.fetch("", "trm_000000000000", &spec))
    );
    assert_eq!(l.stats().misses, misses + 2);
}
