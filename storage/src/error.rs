//! What can go wrong when opening, writing or reading the event store.

use std::path::PathBuf;

/// Why a database directory could not be opened as an event store.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("{path}: is not a directory")]
    NotADirectory { path: PathBuf },
    #[error("{path}: cannot read the directory: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: is not an event store ({detail})")]
    Foreign { path: PathBuf, detail: String },
    #[error(
        "{path}: event store format {found:?} is not supported (this build reads {expected:?})"
    )]
    UnsupportedFormat {
        path: PathBuf,
        found: String,
        expected: &'static str,
    },
    #[error("{path}: the database is damaged ({detail})")]
    Damaged { path: PathBuf, detail: String },
    #[error("{path}: the database is in use by another process")]
    Locked { path: PathBuf },
    #[error("{path}: cannot open the database ({detail})")]
    Storage { path: PathBuf, detail: String },
    /// A database server's store (`target` is its connection string without the password).
    #[error("{target}: cannot open the event store ({detail})")]
    Database { target: String, detail: String },
}

/// A failure of the storage itself: the disk, or data that cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StorageError {
    #[error("database error: {0}")]
    Database(String),
    #[error("flushing to disk failed: {0}")]
    Flush(String),
    #[error("stored data is damaged: {0}")]
    Corrupt(String),
    #[error("the event store is shut down")]
    Closed,
}

impl From<sled::Error> for StorageError {
    fn from(error: sled::Error) -> Self {
        match error {
            sled::Error::Corruption { .. } => StorageError::Corrupt(error.to_string()),
            other => StorageError::Database(other.to_string()),
        }
    }
}

/// Why a batch was not appended.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppendError {
    /// The stream moved on (or is behind) the version the caller decided on.
    #[error("expected stream version {expected}, but it is at {actual}")]
    Conflict { expected: u64, actual: u64 },
    #[error("a batch must hold at least one event")]
    EmptyBatch,
    /// The batch breaks a limit of the store (an empty name, an oversized key).
    #[error("invalid batch: {0}")]
    Invalid(String),
    #[error(transparent)]
    Storage(#[from] StorageError),
}
