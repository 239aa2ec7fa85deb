//! Helpers shared by the core's tests.

/// A deterministic xorshift generator: `rnd(n)` is below `n`.
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    }
}

/// A ledger (1 GiB) holding `content`, and its id.
pub(crate) fn ledger_with(content: String) -> (crate::ledger::Ledger, String) {
    use crate::ledger::{Ledger, LedgerConfig, RecordRequest};
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

/// A record request in namespace `ns` for a `catalog` call, as the store tests make them.
pub(crate) fn req(call: &str, content: crate::text::Payload) -> crate::ledger::RecordRequest {
    crate::ledger::RecordRequest {
        namespace: "ns".into(),
        tool_call_id: call.into(),
        tool_name: "catalog".into(),
        tool_args: serde_json::json!({"page": 1}).as_object().cloned(),
        content,
    }
}

/// A fetch of the whole payload.
pub(crate) fn full() -> crate::recall::FetchSpec {
    crate::recall::FetchSpec {
        full: true,
        ..crate::recall::FetchSpec::default()
    }
}
