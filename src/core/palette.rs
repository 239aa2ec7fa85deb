//! palette
