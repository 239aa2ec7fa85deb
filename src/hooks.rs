//! Test hooks, compiled only with the cargo feature `test-hooks` (the test
//! build `__test__/support/hooks.js` makes; never `npm run build`): ways for
//! a test to reach what no public call can.

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::{guard, Code, JsResult};
use crate::ledger::{spawn, Ledger, ToolResultHandle};

#[napi]
impl Ledger {
    /// Every following record of this ledger gets `memId` instead of its hash
    /// (`null` restores hashing), so that the collision refusal can be exercised.
    #[napi(js_name = "__forceMemIdForTest", skip_typescript, catch_unwind)]
    pub fn force_mem_id_for_test(&self, mem_id: Option<String>) -> Result<(), Code> {
        guard(|| {
            self.inner.force_mem_id(mem_id);
            Ok(())
        })
    }

    /// While `held`, every record's analysis waits at its start (holding its
    /// slot of the record lane), so that a test can show what does not wait.
    #[napi(js_name = "__holdRecordsForTest", skip_typescript, catch_unwind)]
    pub fn hold_records_for_test(&self, held: bool) -> Result<(), Code> {
        guard(|| {
            self.inner.hold_records(held);
            Ok(())
        })
    }

    /// Panics, on the calling thread (`onRuntime` false) or on the runtime
    /// (true, returning a promise), to show that a panic becomes a JS error
    /// rather than an abort.
    #[napi(js_name = "__panicForTest", skip_typescript, catch_unwind)]
    pub fn panic_for_test<'env>(
        &self,
        env: &'env Env,
        on_runtime: bool,
    ) -> Result<Either<(), Object<'env>>, Code> {
        guard(|| {
            if !on_runtime {
                panic!("deliberate panic for a test (sync)")
            }
            spawn(env, async { boom() }, |_, ()| Ok(())).map(Either::B)
        })
    }
}

fn boom() -> JsResult<()> {
    panic!("deliberate panic for a test (async)")
}

/// The seal a store writes beside the row of `handle` (with `wtf8`: a payload
/// holding lone surrogates), so that a test can write a row as an earlier
/// release did (a v1 stub) that reads back as sound.
#[napi(js_name = "__rowSealForTest", skip_typescript)]
pub fn row_seal_for_test(handle: ToolResultHandle, wtf8: bool) -> String {
    let text = |v: Either<String, Null>| match v {
        Either::A(s) => Some(s),
        Either::B(Null) => None,
    };
    let h = symfonic_core::api::Handle {
        mem_id: handle.mem_id,
        namespace: handle.namespace,
        tool_name: handle.tool_name,
        tool_call_id: handle.tool_call_id,
        size_chars: handle.size_chars as usize,
        summary: handle.summary,
        schema: text(handle.schema),
        preview: text(handle.preview),
        stub: handle.stub,
    };
    use symfonic_core::api::Form;
    symfonic_core::api::seal_row(&h, if wtf8 { Form::Wtf8 } else { Form::Utf8 })
}

/// The external memory V8 counts for this isolate, in bytes.
#[napi(js_name = "__externalMemoryForTest", skip_typescript)]
pub fn external_memory_for_test(env: Env) -> Result<f64> {
    env.adjust_external_memory(0).map(|n| n as f64)
}
