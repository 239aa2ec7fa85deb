//! A JS Buffer held by a record and read on the runtime's threads. V8 frees
//! a Buffer's memory when its thread's env ends (a worker terminated, the
//! process exiting) whatever references it, so that env's teardown waits for
//! the reads in progress and refuses later ones.

use std::cell::RefCell;
use std::sync::{Arc, Condvar, Mutex};

use napi::bindgen_prelude::*;
use napi::Env;
use symfonic_core::api::Held;

/// One per JS thread: is its env alive, and how many reads are in progress.
#[derive(Default)]
struct Gate {
    state: Mutex<Reads>,
    idle: Condvar,
}

#[derive(Default)]
struct Reads {
    ended: bool,
    active: usize,
}

thread_local! {
    static GATE: RefCell<Option<Arc<Gate>>> = const { RefCell::new(None) };
}

impl Gate {
    /// This thread's gate, its teardown hook registered with `env` on first use.
    fn of(env: sys::napi_env) -> Result<Arc<Gate>> {
        GATE.with(|cell| {
            if let Some(gate) = cell.borrow().as_ref() {
                return Ok(gate.clone());
            }
            let gate = Arc::new(Gate::default());
            Env::from_raw(env).add_env_cleanup_hook(gate.clone(), |gate| gate.end())?;
            *cell.borrow_mut() = Some(gate.clone());
            Ok(gate)
        })
    }

    /// Runs on the JS thread as its env ends: waits out reads in progress.
    fn end(&self) {
        let mut reads = self.state.lock().unwrap_or_else(|e| e.into_inner());
        reads.ended = true;
        while reads.active > 0 {
            reads = self.idle.wait(reads).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// `f`'s output, unless the env has ended.
    fn read<T>(&self, f: impl FnOnce() -> T) -> Option<T> {
        {
            let mut reads = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if reads.ended {
                return None;
            }
            reads.active += 1;
        }
        let out = f();
        let mut reads = self.state.lock().unwrap_or_else(|e| e.into_inner());
        reads.active -= 1;
        if reads.active == 0 {
            self.idle.notify_all();
        }
        Some(out)
    }
}

/// A Buffer kept alive by a reference (released on the JS thread once
/// dropped) and read only through its thread's gate.
pub(crate) struct HeldBuffer {
    buffer: Buffer,
    gate: Arc<Gate>,
}

impl HeldBuffer {
    /// # Safety
    /// `value` is a Buffer argument of the call running on this thread.
    pub(crate) unsafe fn new(env: sys::napi_env, value: sys::napi_value) -> Result<HeldBuffer> {
        let gate = Gate::of(env)?;
        let buffer = unsafe { Buffer::from_napi_value(env, value)? };
        Ok(HeldBuffer { buffer, gate })
    }
}

impl Held for HeldBuffer {
    fn size(&self) -> usize {
        self.buffer.len()
    }

    fn copy(&self) -> Option<Vec<u8>> {
        self.gate.read(|| self.buffer.as_ref().to_vec())
    }
}
