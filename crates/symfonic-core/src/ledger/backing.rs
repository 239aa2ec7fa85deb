//! The store below a ledger, and its open. A ledger made over a store's name
//! starts opening it at once, in the background on the runtime (a
//! SQLite file opened and swept, a Redis server connected and its settings
//! read), so that making a ledger never waits; each call waits for the open
//! within its own bound. A failed open is remembered until the next call,
//! which tries again (a server that was down at start is used once it is up).

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::watch;

use crate::runtime::{self, Deadline, DEFAULT_TIMEOUT};
use crate::store::{Store, StoreError, StoreSpec};

type Opened = Option<Result<Arc<dyn Store>, StoreError>>;

enum State {
    /// Not open: never tried, or the last open failed (why).
    Idle(Option<StoreError>),
    /// An open in flight; its result is sent on the channel.
    Opening(watch::Receiver<Opened>),
    Open(Arc<dyn Store>),
    Closed,
}

pub(super) struct Backing {
    spec: Option<StoreSpec>,
    /// The bound on each call that reaches the store, end to end (and on each open).
    timeout: Duration,
    state: Arc<Mutex<State>>,
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Backing {
    /// A store already open.
    pub(super) fn open(store: Arc<dyn Store>) -> Backing {
        Backing {
            spec: None,
            timeout: DEFAULT_TIMEOUT,
            state: Arc::new(Mutex::new(State::Open(store))),
        }
    }

    /// The bound on each call that reaches the store.
    pub(super) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The store `spec` names, opening from now on.
    pub(super) fn opening(spec: StoreSpec, timeout: Duration) -> Backing {
        let b = Backing {
            spec: Some(spec),
            timeout,
            state: Arc::new(Mutex::new(State::Idle(None))),
        };
        let mut state = lock(&b.state);
        if let Some(rx) = b.start(&mut state) {
            *state = State::Opening(rx);
        }
        drop(state);
        b
    }

    /// Starts an open on the runtime; the channel its result comes on.
    fn start(&self, state: &mut State) -> Option<watch::Receiver<Opened>> {
        let spec = self.spec.clone()?;
        let rt = match runtime::runtime() {
            Ok(rt) => rt,
            Err(e) => {
                *state = State::Idle(Some(StoreError::new("open", e)));
                return None;
            }
        };
        let (tx, rx) = watch::channel(None);
        let slot = self.state.clone();
        let deadline = Deadline::after(self.timeout);
        rt.spawn(async move {
            let result = spec.open(deadline).await;
            let (result, orphan) = {
                let mut state = lock(&slot);
                match (&*state, result) {
                    // Closed while opening: release what was opened.
                    (State::Closed, Ok(store)) => (Err(StoreError::closed()), Some(store)),
                    (State::Closed, Err(e)) => (Err(e), None),
                    (_, Ok(store)) => {
                        *state = State::Open(store.clone());
                        (Ok(store), None)
                    }
                    (_, Err(e)) => {
                        *state = State::Idle(Some(e.clone()));
                        (Err(e), None)
                    }
                }
            };
            let _ = tx.send(Some(result));
            if let Some(store) = orphan {
                let _ = store.close().await;
            }
        });
        Some(rx)
    }

    /// The open store, waiting for the open (starting one if none is in
    /// flight) until `deadline`.
    pub(super) async fn get(&self, deadline: Deadline) -> Result<Arc<dyn Store>, StoreError> {
        let mut rx = {
            let mut state = lock(&self.state);
            match &*state {
                State::Open(s) => return Ok(s.clone()),
                State::Closed => return Err(StoreError::closed()),
                State::Opening(rx) => rx.clone(),
                State::Idle(_) => match self.start(&mut state) {
                    Some(rx) => {
                        *state = State::Opening(rx.clone());
                        rx
                    }
                    None => {
                        return Err(match &*state {
                            State::Idle(Some(e)) => e.clone(),
                            _ => StoreError::new("open", "the store could not be opened"),
                        })
                    }
                },
            }
        };
        let waited = deadline.within(rx.wait_for(Option::is_some)).await;
        match waited {
            Some(Ok(v)) => v.clone().unwrap_or_else(|| Err(StoreError::closed())),
            Some(Err(_)) => Err(StoreError::new("open", "the store's open was abandoned")),
            None => Err(StoreError::timeout("open", "opening the store", &deadline, false)),
        }
    }

    /// Closes the store (after the calls in flight: each holds it) and makes
    /// every later call fail.
    pub(super) async fn close(&self) -> Result<(), StoreError> {
        let before = std::mem::replace(&mut *lock(&self.state), State::Closed);
        match before {
            State::Open(store) => store.close().await,
            // An open in flight closes what it opens (see `start`).
            _ => Ok(()),
        }
    }
}
