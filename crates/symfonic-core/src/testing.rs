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
