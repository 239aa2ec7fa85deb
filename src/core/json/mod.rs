//! JSON: validation and shape (simd-json), the structural index and json paths.
