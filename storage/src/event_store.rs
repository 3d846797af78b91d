//! The seam between the application and a backend: what an event store and a record store
//! must do, whatever keeps the bytes. `tests/` holds the conformance suite every backend passes.
//!
//! Writes and waits are futures: they answer once the backend made the write durable (a flush
//! shared by a group of appends on sled, a transaction's commit on a database server) or once
//! another writer moved a stream on, and a server must not hold a thread meanwhile. Reads are
//! plain calls: every backend answers them from what is committed, without waiting for anyone
//! (sled from its page cache in microseconds; a database server from a pooled connection,
//! which a backend may run on its own threads as sled's runs its committer), and the callers
//! that fold, page and audit stay simple. The traits are object safe, so the application
//! holds one `Arc<dyn Storage>` and never names a backend.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::watch;

use crate::envelope::{Appended, Batch, Envelope, NewEvent, StoredCommand};
use crate::error::{AppendError, StorageError};

/// A future a backend returns from a write or a wait.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Append-only streams of envelopes with gapless versions, one global order of positions, an
/// index of tags, and secrets kept beside a stream. Knows nothing of any game.
pub trait EventStore: Send + Sync {
    /// Appends `batch` to `stream` if its head is `expected_version`, whole or not at all,
    /// with its command id, tags and secrets; answers once it is durable. A command id already
    /// in the stream appends nothing and answers as the first time, with `duplicate` set.
    fn append<'a>(
        &'a self,
        stream: &'a str,
        expected_version: u64,
        batch: Batch,
    ) -> BoxFuture<'a, Result<Appended, AppendError>>;

    /// Replaces the stream's entries in the tag index if its head is still `expected_version`,
    /// durably, without appending: for an index policy that gained an entry after the stream
    /// was written (the application's reindex at startup). A stream that does not exist, or
    /// whose head moved, is refused with a conflict.
    fn retag<'a>(
        &'a self,
        stream: &'a str,
        expected_version: u64,
        tags: Vec<(String, String)>,
    ) -> BoxFuture<'a, Result<(), AppendError>>;

    /// `append` for callers outside an async runtime (tools, tests, the audit command).
    fn append_blocking(
        &self,
        stream: &str,
        expected_version: u64,
        batch: Batch,
    ) -> Result<Appended, AppendError>;

    /// A number that names this store, the same in every process on it and kept by a copy
    /// (`copy_sled_to_postgres`): the first half of every event id.
    fn store_id(&self) -> u64;

    /// The id of the event at global `position`, as `read_stream` and `read_all` give it.
    fn event_id(&self, position: u64) -> String {
        format!("{:016x}{:016x}", self.store_id(), position)
    }

    /// The envelopes `read_stream` gives for `events`, just appended to `stream` by one batch
    /// (`actor`, `command_id`, `recorded_at`) as `appended`: made without reading them back.
    fn appended_envelopes(
        &self,
        stream: &str,
        appended: &Appended,
        actor: &str,
        command_id: Option<&str>,
        recorded_at: DateTime<Utc>,
        events: Vec<NewEvent>,
    ) -> Vec<Envelope> {
        crate::envelope::envelopes_of_batch(
            stream,
            appended,
            actor,
            command_id,
            recorded_at,
            events,
            |position| self.event_id(position),
        )
    }

    /// The version of the stream's last event; 0 when the stream does not exist.
    fn head(&self, stream: &str) -> Result<u64, StorageError>;

    /// The original result of the batch that carried `command_id` in `stream`, if any.
    fn appended_for(
        &self,
        stream: &str,
        command_id: &str,
    ) -> Result<Option<Appended>, StorageError>;

    /// Up to `limit` events of the stream with versions above `after_version`, in order.
    fn read_stream(
        &self,
        stream: &str,
        after_version: u64,
        limit: usize,
    ) -> Result<Vec<Envelope>, StorageError>;

    /// Up to `limit` events of every stream with positions above `after_position`, in order;
    /// only durable ones, so a reader never sees a position before those below it.
    fn read_all(&self, after_position: u64, limit: usize) -> Result<Vec<Envelope>, StorageError>;

    /// The command that produced the event at `version`, with the versions it produced.
    fn command(&self, stream: &str, version: u64) -> Result<Option<StoredCommand>, StorageError>;

    /// Names of the streams tagged `name = value`, in name order, after the stream `after`.
    fn streams_tagged(
        &self,
        name: &str,
        value: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StorageError>;

    /// The stream's tags, as its last batch with tags set them.
    fn tags(&self, stream: &str) -> Result<Vec<(String, String)>, StorageError>;

    /// A secret written with one of the stream's batches.
    fn secret(&self, stream: &str, name: &str) -> Result<Option<Vec<u8>>, StorageError>;

    /// Replaces secret `name` of `stream` with `value` (the same secret in another form: the
    /// application seals the secrets of a store written before it sealed them), durably;
    /// whether there was such a secret. Nothing else of the stream changes.
    fn replace_secret(&self, stream: &str, name: &str, value: &[u8]) -> Result<bool, StorageError>;

    /// Waits until the stream's head is above `after_version`, or until `timeout`; returns
    /// the head either way.
    fn wait_for<'a>(
        &'a self,
        stream: &'a str,
        after_version: u64,
        timeout: Duration,
    ) -> BoxFuture<'a, u64>;

    /// The last durable global position; it changes whenever more events became durable.
    fn subscribe_all(&self) -> watch::Receiver<u64>;
}

/// What the processes sharing a store coordinate with, beside the streams: leases (one
/// process at a time runs a job) and broadcasts (a message to every process). A store only
/// this process writes answers for itself alone.
pub trait Coordination: Send + Sync {
    /// Whether other processes may append to this store too (several servers on one
    /// database). Then what a process folded from a stream can fall behind the stream, and
    /// must be checked against [`EventStore::head`] before it answers or decides anything. A
    /// store only this process writes (sled, memory) says `false`, and its folds never lag.
    /// No default: a store that wraps another must forward this and the lease methods, or it
    /// would say "alone" for a shared database.
    fn shared(&self) -> bool;

    /// The stream's head as this process last heard it without a read (its own appends and,
    /// on a shared store, the other processes' appends it was told of), if it follows the
    /// stream. A committed head, so never ahead of the stream, but it may be behind it: a
    /// hint to catch a fold up before deciding a command on it (the append's expected
    /// version still decides), never a proof that a fold is current for a read.
    fn heard_head(&self, _stream: &str) -> Option<u64> {
        None
    }

    /// The stream's head as of a moment after this call began, when this process can tell it
    /// without reading the stream: every append committed (by any process) before the call is
    /// then known here, so a fold at this version or later answers a read as one sent now
    /// would. `None` when it cannot tell; then read the stream. A store only this process
    /// writes needs no such answer (its folds never lag) and gives none.
    fn settled_head<'a>(&'a self, _stream: &'a str) -> BoxFuture<'a, Option<u64>> {
        Box::pin(std::future::ready(None))
    }

    /// Tries to take the lease `name`: a job (the clock keeper, one webhook's deliveries) that
    /// one process at a time runs among those sharing the store. `Ok(true)` when this process
    /// holds it now (taken just now or before). A lease is held until it is released or its
    /// holder dies or loses the database; then another process's next try takes it. A store
    /// only this process writes has no one to share with: every lease is this process's.
    fn try_lease(&self, name: &str) -> Result<bool, StorageError>;

    /// Whether this process still holds lease `name`, without asking the database: false
    /// once the hold was lost (its connection broke), until a `try_lease` takes it again.
    fn holds_lease(&self, name: &str) -> bool;

    /// Gives lease `name` up, so that another process may take it.
    fn release_lease(&self, name: &str);

    /// Sends `message`, opaque text of at most [`MAX_MESSAGE`](crate::MAX_MESSAGE) bytes, to
    /// the subscribers of every process on this store, this one included (see
    /// `broadcasts.rs` for what is promised). Answers once it is sent: on a shared store, once
    /// the database took it (it delivers it to the other processes at once).
    fn broadcast<'a>(&'a self, message: &'a str) -> BoxFuture<'a, Result<(), StorageError>>;

    /// The messages [`Coordination::broadcast`] sends from now on, from any process on the store.
    fn subscribe_broadcasts(&self) -> tokio::sync::broadcast::Receiver<String>;
}

/// Small durable records by tree and key (players, tokens, webhooks, cursors), beside the
/// streams.
pub trait RecordStore: Send + Sync {
    /// Stores a record durably: it is on disk when this returns.
    fn put_record(&self, tree: &str, key: &str, value: &[u8]) -> Result<(), StorageError>;

    /// `put_record` for async callers: waits for durability without blocking the thread.
    fn put_record_async<'a>(
        &'a self,
        tree: &'a str,
        key: &'a str,
        value: &'a [u8],
    ) -> BoxFuture<'a, Result<(), StorageError>>;

    fn get_record(&self, tree: &str, key: &str) -> Result<Option<Vec<u8>>, StorageError>;

    /// The records of `tree` whose keys begin with `prefix`, in key order.
    fn records_with_prefix(
        &self,
        tree: &str,
        prefix: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, StorageError>;

    /// Removes a record durably; returns whether it was there.
    fn remove_record_async<'a>(
        &'a self,
        tree: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, StorageError>>;
}

/// A whole backend: streams and records in one place, as the application holds it.
pub trait Storage: EventStore + RecordStore + Coordination {}

impl<T: EventStore + RecordStore + Coordination> Storage for T {}
