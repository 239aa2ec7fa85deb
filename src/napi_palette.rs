//! napi bindings for tool palettes.
