//! The expiry clock every process shares: Unix time in milliseconds.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, as Unix time in milliseconds.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis().min(u64::MAX as u128) as u64)
}

/// Whether an entry expiring at `expires_at` is gone at `now`.
pub fn expired(expires_at: Option<u64>, now: u64) -> bool {
    expires_at.is_some_and(|t| t <= now)
}
