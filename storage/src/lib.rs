//! The event store on sled: append-only streams of envelopes, durable and atomic.
//!
//! Streams (one per game) hold events with gapless versions 1, 2, 3, ...; every event also
//! has a position in one global log, increasing in commit order. A batch is appended whole or
//! not at all, together with its command, its idempotency key, the stream's tags and secrets,
//! in one sled transaction; `append` answers once the batch is on disk. Concurrent appends share
//! both the transaction and the flush (group commit). The store knows nothing of any game.

mod append;
mod codec;
mod committer;
mod disk_sync;
mod envelope;
mod error;
mod group_commit;
mod keys;
mod open;
mod read;
mod store;
mod watchers;

pub use envelope::{Appended, Batch, Envelope, NewEvent, StoredCommand};
pub use error::{AppendError, OpenError, StorageError};
pub use store::Store;
