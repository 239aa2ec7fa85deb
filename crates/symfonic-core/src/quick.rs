//! Which answers are cheap enough to compute on the calling thread. A trip
//! through the libuv pool costs tens of microseconds (a wake-up on each
//! side), more than answering an indexed json path, a range, or a query
//! that the query index confines to a few blocks; an answer whose cost grows
//! with the payload still goes to the pool, so the JS thread never scans or
//! copies megabytes.

use crate::entry::{Entry, INDEX_MIN_BYTES};
use crate::json::path::parse;
use crate::recall::{fetch_entry, json_answer, Answer, FetchSpec};
use crate::search;

/// Payloads up to this many bytes are answered on the calling thread
/// whatever is asked, and no quick answer copies more than this. The bound is
/// the slowest scan: a case-insensitive query with no exact match reads
/// 64 KiB in ~20 µs (aho-corasick at ~3 GB/s), under the pool's ~40 µs round
/// trip (`npm run bench -- ledger`); an exact query reads it in ~2 µs.
pub const QUICK_BYTES: usize = INDEX_MIN_BYTES;
/// A query with non-ASCII letters may fall back to the folded scan (~1 GB/s),
/// so it is quick on payloads a quarter that size.
const QUICK_FOLDED_BYTES: usize = QUICK_BYTES / 4;

/// The answer to `spec` from `e` if it is cheap (see the module docs), else
/// `None`. `max_output` is the recall cap in code points (`usize::MAX` for
/// `fetch`), which bounds what a full read or a range copies.
pub fn quick_answer<'a>(e: &'a Entry, spec: &'a FetchSpec, max_output: usize) -> Option<Answer<'a>> {
    let bytes = e.text.as_bytes();
    if spec.json_path.is_none() {
        // A regex compiles in up to milliseconds (Unicode classes), and a
        // line range is found by counting lines from the start.
        if spec.pattern.is_some() {
            return None;
        }
        if spec.lines.is_some() && bytes.len() > QUICK_BYTES {
            return None;
        }
        if let Some(q) = &spec.query {
            let q = q.as_bytes();
            let limit = if q.is_ascii() {
                QUICK_BYTES
            } else {
                QUICK_FOLDED_BYTES
            };
            // On a large payload, an ASCII query is quick once the query index
            // shows that little of the payload can hold a match, either case.
            let indexed = || {
                let regions = e.built_blocks()?.regions(bytes.len(), q, true)?;
                (search::scanned(&regions) <= QUICK_BYTES).then_some(())
            };
            let quick = bytes.len() <= limit || (q.is_ascii() && indexed().is_some());
            return quick.then(|| fetch_entry(e, spec, max_output));
        }
    }
    if bytes.len() <= QUICK_BYTES {
        return Some(fetch_entry(e, spec, max_output));
    }
    if let Some(path) = &spec.json_path {
        let bounded = match (&e.json, parse(path)) {
            // Answered by a message: "not JSON", or the path's syntax error.
            (None, _) | (_, Err(_)) => true,
            (Some(doc), Ok(q)) => q.is_singular() && doc.index.key_lookups_bounded(bytes),
        };
        return if bounded {
            json_answer(e, spec, path, max_output, QUICK_BYTES)
        } else {
            None
        };
    }
    let answer = fetch_entry(e, spec, max_output);
    match &answer {
        // A slice is borrowed; a copy of it is cut at `max_output` code points
        // of at most 4 bytes each.
        Answer::Part { text, .. } if text.len().min(max_output.saturating_mul(4)) > QUICK_BYTES => None,
        _ => Some(answer),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::ledger::{Ledger, LedgerConfig, RecordRequest};
    use crate::recall::FetchSpec;
    use crate::wtf8::Wtf8Buf;

    /// A ledger (1 GiB) holding `content`, and its id.
    pub(crate) fn ledger_with(content: String) -> (Ledger, String) {
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

    /// A ~1.2 MB catalog: an object of two members, one a big array of rows.
    fn catalog() -> String {
        let rows: Vec<String> = (0..12_000)
            .map(|i| format!(r#"{{"id":{i},"title":"widget {i}","tags":["a","b"]}}"#))
            .collect();
        format!(r#"{{"meta":{{"n":{}}},"rows":[{}]}}"#, rows.len(), rows.join(","))
    }

    #[test]
    fn quick_answers_equal_the_pool_answers_and_count_once() {
        let (l, id) = ledger_with(catalog());
        let specs = [
            path("rows[-1]"),
            path("rows.11999.title"),
            path("meta"),
            path("rows[5].nope"),
            path("rows[[bad"),
            path("$.rows[?@.id=="),
            path("#/rows/11999/title"),
            path("$['rows'][0]['tags'][-1]"),
            FetchSpec::new(None, None, Some(1000.0), Some(500.0), None),
            FetchSpec::new(None, None, Some(9e9), None, None),
            FetchSpec::default(),
        ];
        for spec in &specs {
            let before = l.stats().hits;
            let quick = l
                .answer_quick("", &id, spec, usize::MAX)
                .expect("bounded work is quick");
            assert_eq!(l.stats().hits, before + 1, "{spec:?}");
            assert_eq!(quick, l.fetch("", &id, spec), "{spec:?}");
            let capped = l.answer_quick("", &id, spec, 300).expect("quick");
            assert_eq!(capped, l.recall("", &id, spec, 300), "{spec:?}");
        }
        // A recall of the whole payload is cut at the cap, so it is quick too.
        let full = FetchSpec::new(Some("full"), None, None, None, None);
        assert_eq!(
            l.answer_quick("", &id, &full, 8000),
            Some(l.recall("", &id, &full, 8000))
        );
    }

    #[test]
    fn work_that_grows_with_the_payload_goes_to_the_pool_uncounted() {
        let (l, id) = ledger_with(catalog());
        let full = FetchSpec::new(Some("full"), None, None, None, None);
        let before = l.stats();
        for spec in [
            query("widget 11999"),
            path("rows[*].id"),
            path("rows[::2]"),
            // Filters and descendant segments scan the nodes they apply to.
            path("$.rows[?@.id==5].title"),
            path("$..title"),
            path("$.meta..n"),
            path("rows"), // the node is the whole array: a copy of megabytes
            full.clone(),
            FetchSpec::new(None, None, Some(0.0), Some(1e6), None),
        ] {
            assert_eq!(l.answer_quick("", &id, &spec, usize::MAX), None, "{spec:?}");
        }
        let after = l.stats();
        assert_eq!((after.hits, after.misses), (before.hits, before.misses));
    }

    #[test]
    fn small_payloads_are_quick_for_every_request_and_misses_answer_not_found() {
        let (l, id) = ledger_with("x".repeat(5_000) + " needle " + &"y".repeat(5_000));
        for spec in [
            query("NEEDLE"),
            query("née"),
            FetchSpec::new(Some("full"), None, None, None, None),
        ] {
            assert_eq!(
                l.answer_quick("", &id, &spec, usize::MAX),
                Some(l.fetch("", &id, &spec))
            );
        }
        // A non-ASCII query may scan folded, at a quarter of the speed.
        let (l2, id2) = ledger_with("x".repeat(30_000));
        assert!(l2.answer_quick("", &id2, &query("xx"), usize::MAX).is_some());
        assert_eq!(l2.answer_quick("", &id2, &query("née"), usize::MAX), None);
        let misses = l.stats().misses;
        assert_eq!(
            l.answer_quick("", "trm_000000000000", &query("x"), usize::MAX),
            Some(l.fetch("", "trm_000000000000", &query("x")))
        );
        assert_eq!(l.stats().misses, misses + 2);
    }

    #[test]
    fn a_rare_query_is_quick_once_the_query_index_is_built() {
        let mut log: String = (0..40_000)
            .map(|i| format!("INFO worker-{} request {i}\n", i % 8))
            .collect();
        log.insert_str(log.len() / 2, "ERROR code=E1234 upstream timeout\n");
        let (l, id) = ledger_with(log);
        let rare = query("CODE=e1234");
        assert_eq!(
            l.answer_quick("", &id, &rare, usize::MAX),
            None,
            "no index before the first query"
        );
        let from_pool = l.fetch("", &id, &rare);
        assert!(from_pool.to_string_lossy().contains("upstream timeout"));
        assert_eq!(l.answer_quick("", &id, &rare, usize::MAX), Some(from_pool));
        // Bytes that every block holds still mean a scan of the whole payload.
        assert_eq!(l.answer_quick("", &id, &query("request 12"), usize::MAX), None);
    }

    #[test]
    fn an_object_with_many_small_members_is_not_a_bounded_lookup() {
        let members: Vec<String> = (0..100_000).map(|i| format!(r#""k{i}":{i}"#)).collect();
        let (l, id) = ledger_with(format!("{{{}}}", members.join(",")));
        assert_eq!(l.answer_quick("", &id, &path("k99999"), usize::MAX), None);
        assert_eq!(l.fetch("", &id, &path("k99999")), "99999");
    }
}
