//! Promises settled by the runtime: every async call of a ledger is a future
//! on the core's runtime (never on the libuv pool, whose four threads a hung
//! store would hold), which settles a deferred promise on the JS thread when
//! it ends. Warnings the stores queued (configuration gaps) are handed to
//! `process.emitWarning` there too.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use napi::bindgen_prelude::*;

use crate::error::{napi_error, panic_error, rejection, runtime_error, Code, JsResult};
use symfonic_core::api::{self, take_warnings};

/// A promise settled with `convert(output)` once `fut` ends (rejected with
/// its coded error, or with `ERR_SYMFONIC_INTERNAL` if it panicked).
pub(crate) fn spawn<'env, T, V, F, C>(env: &'env Env, fut: F, convert: C) -> JsResult<Object<'env>>
where
    F: Future<Output = JsResult<T>> + Send + 'static,
    T: Send + 'static,
    C: FnOnce(&Env, T) -> Result<V> + Send + 'static,
    V: ToNapiValue + 'static,
{
    let rt = api::runtime().map_err(runtime_error)?;
    let (deferred, promise) = env.create_deferred().map_err(napi_error)?;
    rt.spawn(async move {
        // A panic in the work ends here as an error, and the promise still settles.
        let out = Caught(Box::pin(fut))
            .await
            .unwrap_or_else(|p| Err(panic_error(p)));
        deferred.resolve(move |env: Env| {
            emit_warnings(&env);
            match out {
                Ok(v) => convert(&env, v),
                Err(e) => Err(rejection(&env, e)),
            }
        });
    });
    Ok(promise)
}

/// A future whose panic is its output, as an error.
struct Caught<F>(Pin<Box<F>>);

impl<F: Future> Future for Caught<F> {
    type Output = std::thread::Result<F::Output>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let fut = self.0.as_mut();
        match catch_unwind(AssertUnwindSafe(|| fut.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}

/// A promise already resolved with `v`, made on the JS thread (an answer
/// computed at the call: no other thread is woken for it).
pub(crate) fn resolved<'env, V: ToNapiValue>(env: &'env Env, v: V) -> JsResult<Object<'env>> {
    let raw = env.raw();
    let mut deferred = std::ptr::null_mut();
    let mut promise = std::ptr::null_mut();
    // SAFETY: on the JS thread, with its live env; the deferred is settled at once.
    unsafe {
        let value = V::to_napi_value(raw, v).map_err(napi_error)?;
        check_status!(sys::napi_create_promise(raw, &mut deferred, &mut promise)).map_err(napi_error)?;
        check_status!(sys::napi_resolve_deferred(raw, deferred, value)).map_err(napi_error)?;
        Ok(Object::from_raw(raw, promise))
    }
}

/// A promise rejected with `e` (for an async method called on a closed
/// ledger, or with content refused by its size).
pub(crate) fn rejected<'env>(env: &'env Env, e: Error<Code>) -> JsResult<Object<'env>> {
    spawn(env, async move { Err::<(), _>(e) }, |_, ()| Ok(()))
}

/// Each queued store warning through `process.emitWarning` (type
/// `SymfonicWarning`), so it reaches the app's logs once.
pub(crate) fn emit_warnings(env: &Env) {
    let warnings = take_warnings();
    if warnings.is_empty() {
        return;
    }
    let emit = || -> Result<()> {
        let process: Object = env.get_global()?.get_named_property("process")?;
        let f: Function<FnArgs<(String, String)>, Unknown> = process.get_named_property("emitWarning")?;
        for w in warnings {
            f.apply(process, FnArgs::from((w, "SymfonicWarning".to_string())))?;
        }
        Ok(())
    };
    // A warning that cannot be emitted must not fail the call it rode on:
    // an exception it left pending is cleared, or the promise could not settle.
    if emit().is_err() {
        let mut pending = std::ptr::null_mut();
        // SAFETY: on the JS thread, with its live env.
        unsafe { sys::napi_get_and_clear_last_exception(env.raw(), &mut pending) };
    }
}
