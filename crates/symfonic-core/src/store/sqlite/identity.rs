//! Whether the database file at the store's path is still the one the store
//! opened. SQLite keeps writing through its open file descriptors after the
//! file is unlinked, or after another file is renamed over its path: commits
//! succeed, and land in a file no process will open again. So every
//! operation first compares the path's device and inode with the ones seen
//! at open (one `stat`, about a microsecond beside a query or an fsync), and
//! a record compares them again once committed, so that it is never
//! acknowledged into a file that was swapped while it ran.

use std::io::ErrorKind;

use super::super::StoreError;

/// The device and inode of the file at `path` when the store opened it.
pub struct FileIdentity {
    path: String,
    id: Option<(u64, u64)>,
}

#[cfg(unix)]
fn id_of(path: &str) -> std::io::Result<Option<(u64, u64)>> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path)?;
    Ok(Some((m.dev(), m.ino())))
}

/// Elsewhere (Windows) an open file cannot be unlinked or replaced.
#[cfg(not(unix))]
fn id_of(path: &str) -> std::io::Result<Option<(u64, u64)>> {
    std::fs::metadata(path).map(|_| None)
}

impl FileIdentity {
    /// The identity of the file at `path` now (just opened by the store).
    pub fn of(path: &str) -> Result<FileIdentity, StoreError> {
        let id = id_of(path).map_err(|e| StoreError::new("open", format!("{path}: {e}")))?;
        Ok(FileIdentity {
            path: path.to_string(),
            id,
        })
    }

    /// Ok if the path still names the file the store opened; an error saying
    /// what happened otherwise.
    pub fn check(&self, op: &'static str) -> Result<(), StoreError> {
        let path = &self.path;
        let what = match id_of(path) {
            Ok(id) if id == self.id => return Ok(()),
            Ok(_) => "was replaced by another file",
            Err(e) if e.kind() == ErrorKind::NotFound => "was deleted",
            Err(e) => return Err(StoreError::new(op, format!("{path}: {e}"))),
        };
        Err(StoreError::new(
            op,
            format!(
                "{path} {what} after this ledger opened it: what it writes would go into a file no process opens again, so it refuses; open a new Ledger on the file"
            ),
        ))
    }
}
