//! V8 external-memory reporting for every ledger of this JS thread, through
//! one `core::external::Deferral`: growth while records are in flight reaches
//! V8 after a quiet spell once the last one settles (the JS entry,
//! `lib/external.js`, marks each async record's begin and settle and times
//! the spell), decreases at once.

use std::cell::RefCell;
use std::sync::atomic::{AtomicI64, Ordering};

use napi::bindgen_prelude::*;
use napi_derive::napi;

use symfonic_core::external::Deferral;
use symfonic_core::ledger::Ledger;

/// Until `lib/ledger.js` sets it from the heap limit: V8's own soft external limit.
const DEFAULT_CAP: i64 = 64 << 20;

thread_local! {
    static DEFERRAL: RefCell<Deferral> = const { RefCell::new(Deferral::new(DEFAULT_CAP)) };
}

fn tell(env: &Env, due: Option<i64>) {
    if let Some(bytes) = due {
        // A failed hint only makes GC timing worse; never fail the call for it.
        let _ = env.adjust_external_memory(bytes);
    }
}

/// Brings the bytes reported for `inner` (in `reported`) up to what it holds now.
pub(crate) fn sync(env: &Env, inner: &Ledger, reported: &AtomicI64) {
    let now = inner.stats().bytes as i64;
    let before = reported.swap(now, Ordering::AcqRel);
    if now != before {
        tell(env, DEFERRAL.with_borrow_mut(|d| d.report(now - before)));
    }
}

/// A ledger is gone: everything reported for it is released.
pub(crate) fn release(env: &Env, reported: &AtomicI64) {
    let held = reported.swap(0, Ordering::AcqRel);
    if held != 0 {
        tell(env, DEFERRAL.with_borrow_mut(|d| d.report(-held)));
    }
}

/// Internal: an async record of this thread begins.
#[napi(js_name = "__recordBegins")]
pub fn record_begins() {
    DEFERRAL.with_borrow_mut(Deferral::begin);
}

/// Internal: an async record of this thread settled (answered or failed).
/// True when the growth it leaves pending waits for a quiet spell: the
/// caller calls `__flushExternal` when the spell ends.
#[napi(js_name = "__recordSettles")]
pub fn record_settles() -> bool {
    DEFERRAL.with_borrow_mut(Deferral::settle)
}

/// Internal: the quiet spell after this thread's last record ended; pending
/// growth reaches V8 now, unless records are in flight again.
#[napi(js_name = "__flushExternal")]
pub fn flush_external(env: Env) {
    tell(&env, DEFERRAL.with_borrow_mut(Deferral::flush));
}

/// Internal: sets the most growth held back from V8 while records are in
/// flight, in bytes (0: none); returns the previous cap.
#[napi(js_name = "__deferExternalUpTo")]
pub fn defer_external_up_to(env: Env, bytes: f64) -> f64 {
    let cap = if bytes.is_finite() && bytes > 0.0 {
        bytes as i64
    } else {
        0
    };
    let (before, due) = DEFERRAL.with_borrow_mut(|d| (d.cap(), d.set_cap(cap)));
    tell(&env, due);
    before as f64
}

/// Internal, for tests only: the external memory V8 counts for this isolate, in bytes.
#[napi(js_name = "__externalMemoryForTest")]
pub fn external_memory_for_test(env: Env) -> Result<f64> {
    env.adjust_external_memory(0).map(|n| n as f64)
}
