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

/// A failure of the storage itself: the disk, the database server, or data that cannot be
/// decoded. Each says which [`FailureKind`] it is, so that a caller tells a client the truth.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StorageError {
    /// The database refused the request or failed in a way that is nobody's outage: a bug of
    /// ours or of the schema.
    #[error("database error: {0}")]
    Database(String),
    /// The store cannot be reached or refuses writes now (a stopped database server, a full
    /// disk); nothing was written. Trying again later may succeed.
    #[error("the store is unavailable: {0}")]
    Unavailable(String),
    /// A write was sent but its answer was lost (the connection dropped around the commit):
    /// it may or may not have been recorded.
    #[error("the outcome of a write is unknown: {0}")]
    OutcomeUnknown(String),
    /// The disk failed under sled; sled takes no write again until the store is reopened.
    #[error("the disk failed: {0}")]
    Io(String),
    /// Flushing a write to disk failed: it may or may not be on disk, and sled takes no write
    /// again until the store is reopened.
    #[error("flushing to disk failed: {0}")]
    Flush(String),
    #[error("stored data is damaged: {0}")]
    Corrupt(String),
    /// The store is shut down (or stopped appending after a failed write).
    #[error("the event store is shut down")]
    Closed,
}

/// What a failure of the store means for the request that met it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// Nothing was written; the same request may succeed later (503 with `Retry-After`).
    Unavailable,
    /// A write may or may not have been recorded: retry it with the same idempotency key.
    OutcomeUnknown,
    /// A bug or damaged data: retrying does not help.
    Bug,
}

impl StorageError {
    /// Which kind of failure this is.
    pub fn kind(&self) -> FailureKind {
        match self {
            StorageError::Unavailable(_) | StorageError::Io(_) | StorageError::Closed => {
                FailureKind::Unavailable
            }
            StorageError::OutcomeUnknown(_) | StorageError::Flush(_) => FailureKind::OutcomeUnknown,
            StorageError::Database(_) | StorageError::Corrupt(_) => FailureKind::Bug,
        }
    }

    /// Whether the store takes no write again until it is reopened (sled after a failed write
    /// or flush): the process must restart to recover.
    pub fn needs_reopen(&self) -> bool {
        matches!(
            self,
            StorageError::Io(_) | StorageError::Flush(_) | StorageError::Closed
        )
    }
}

impl From<sled::Error> for StorageError {
    fn from(error: sled::Error) -> Self {
        match error {
            sled::Error::Corruption { .. } => StorageError::Corrupt(error.to_string()),
            sled::Error::Io(_) => StorageError::Io(error.to_string()),
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
