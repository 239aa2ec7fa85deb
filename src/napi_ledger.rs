//! napi bindings for the Ledger.
