//! An event store in memory: the same contract as sled's, nothing on disk. For unit tests of
//! the application and as the reference the conformance suite checks other backends against.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::watch;

use crate::envelope::{Appended, Batch, Envelope, NewEvent, StoredCommand};
use crate::error::{AppendError, StorageError};
use crate::event_store::{BoxFuture, EventStore, RecordStore};

/// The in-memory store. Every write is "durable" the moment it returns.
pub struct MemoryStore {
    store_id: u64,
    state: Mutex<State>,
    /// The last position written, for `subscribe_all` and for waiting readers.
    positions: watch::Sender<u64>,
    broadcasts: crate::broadcasts::Broadcasts,
}

/// One batch of a stream, as a command's record.
struct StoredBatch {
    first_version: u64,
    first_position: u64,
    actor: String,
    command_id: Option<String>,
    command: Option<serde_json::Value>,
    recorded_at: DateTime<Utc>,
    events: Vec<NewEvent>,
}

impl StoredBatch {
    fn last_version(&self) -> u64 {
        self.first_version + self.events.len() as u64 - 1
    }

    fn appended(&self, duplicate: bool) -> Appended {
        Appended {
            first_version: self.first_version,
            last_version: self.last_version(),
            last_position: self.first_position + self.events.len() as u64 - 1,
            duplicate,
        }
    }
}

#[derive(Default)]
struct Stream {
    head: u64,
    batches: Vec<StoredBatch>,
    command_ids: HashMap<String, usize>,
    tags: Vec<(String, String)>,
    secrets: HashMap<String, Vec<u8>>,
}

#[derive(Default)]
struct State {
    streams: HashMap<String, Stream>,
    /// Global log: (first position of a batch) -> (stream, index of the batch in it).
    log: BTreeMap<u64, (String, usize)>,
    last_position: u64,
    /// (tag name, tag value, stream).
    tag_index: BTreeSet<(String, String, String)>,
    records: HashMap<String, BTreeMap<String, Vec<u8>>>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new()
    }
}

impl MemoryStore {
    pub fn new() -> MemoryStore {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u8(0);
        MemoryStore {
            store_id: hasher.finish(),
            state: Mutex::new(State::default()),
            positions: watch::Sender::new(0),
            broadcasts: crate::broadcasts::Broadcasts::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every change below is made whole under the lock: a panic cannot leave it torn.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn envelope(
        &self,
        stream: &str,
        batch: &StoredBatch,
        offset: u64,
        event: &NewEvent,
    ) -> Envelope {
        Envelope {
            stream: stream.to_string(),
            version: batch.first_version + offset,
            position: batch.first_position + offset,
            event_id: self.event_id(batch.first_position + offset),
            event_type: event.event_type.clone(),
            schema_version: event.schema_version,
            recorded_at: batch.recorded_at,
            actor: batch.actor.clone(),
            command_id: batch.command_id.clone(),
            payload: event.payload.clone(),
        }
    }

    fn append_now(
        &self,
        stream: &str,
        expected_version: u64,
        batch: Batch,
    ) -> Result<Appended, AppendError> {
        crate::limits::validate(stream, &batch)?;
        let mut state = self.lock();
        let state = &mut *state;
        if let (Some(existing), Some(command_id)) = (state.streams.get(stream), &batch.command_id) {
            if let Some(&index) = existing.command_ids.get(command_id) {
                return Ok(existing.batches[index].appended(true));
            }
        }
        let head = state.streams.get(stream).map_or(0, |s| s.head);
        if head != expected_version {
            return Err(AppendError::Conflict {
                expected: expected_version,
                actual: head,
            });
        }
        let first_position = state.last_position + 1;
        let count = batch.events.len() as u64;
        let entry = state.streams.entry(stream.to_string()).or_default();
        let stored = StoredBatch {
            first_version: head + 1,
            first_position,
            actor: batch.actor,
            command_id: batch.command_id.clone(),
            command: batch.command,
            recorded_at: batch.recorded_at,
            events: batch.events,
        };
        let appended = stored.appended(false);
        let index = entry.batches.len();
        entry.batches.push(stored);
        entry.head = head + count;
        if let Some(command_id) = batch.command_id {
            entry.command_ids.insert(command_id, index);
        }
        for (name, secret) in batch.secrets {
            entry.secrets.insert(name, secret);
        }
        if let Some(tags) = batch.tags {
            for (name, value) in std::mem::replace(&mut entry.tags, tags.clone()) {
                state.tag_index.remove(&(name, value, stream.to_string()));
            }
            for (name, value) in tags {
                state.tag_index.insert((name, value, stream.to_string()));
            }
        }
        state
            .log
            .insert(first_position, (stream.to_string(), index));
        state.last_position = appended.last_position;
        self.positions.send_replace(appended.last_position);
        Ok(appended)
    }
}

impl MemoryStore {
    fn retag_now(
        &self,
        stream: &str,
        expected_version: u64,
        tags: Vec<(String, String)>,
    ) -> Result<(), AppendError> {
        crate::limits::validate_retag(stream, &tags)?;
        let mut state = self.lock();
        let state = &mut *state;
        let Some(entry) = state.streams.get_mut(stream) else {
            return Err(AppendError::Invalid(format!(
                "there is no stream \"{stream}\" to retag"
            )));
        };
        if entry.head != expected_version {
            return Err(AppendError::Conflict {
                expected: expected_version,
                actual: entry.head,
            });
        }
        for (name, value) in std::mem::replace(&mut entry.tags, tags.clone()) {
            state.tag_index.remove(&(name, value, stream.to_string()));
        }
        for (name, value) in tags {
            state.tag_index.insert((name, value, stream.to_string()));
        }
        Ok(())
    }
}

impl EventStore for MemoryStore {
    fn store_id(&self) -> u64 {
        self.store_id
    }

    fn append<'a>(
        &'a self,
        stream: &'a str,
        expected_version: u64,
        batch: Batch,
    ) -> BoxFuture<'a, Result<Appended, AppendError>> {
        Box::pin(std::future::ready(self.append_now(
            stream,
            expected_version,
            batch,
        )))
    }

    fn append_blocking(
        &self,
        stream: &str,
        expected_version: u64,
        batch: Batch,
    ) -> Result<Appended, AppendError> {
        self.append_now(stream, expected_version, batch)
    }

    fn retag<'a>(
        &'a self,
        stream: &'a str,
        expected_version: u64,
        tags: Vec<(String, String)>,
    ) -> BoxFuture<'a, Result<(), AppendError>> {
        Box::pin(std::future::ready(self.retag_now(
            stream,
            expected_version,
            tags,
        )))
    }

    fn head(&self, stream: &str) -> Result<u64, StorageError> {
        Ok(self.lock().streams.get(stream).map_or(0, |s| s.head))
    }

    fn appended_for(
        &self,
        stream: &str,
        command_id: &str,
    ) -> Result<Option<Appended>, StorageError> {
        let state = self.lock();
        let Some(stream) = state.streams.get(stream) else {
            return Ok(None);
        };
        Ok(stream
            .command_ids
            .get(command_id)
            .map(|&index| stream.batches[index].appended(true)))
    }

    fn read_stream(
        &self,
        stream: &str,
        after_version: u64,
        limit: usize,
    ) -> Result<Vec<Envelope>, StorageError> {
        let state = self.lock();
        let Some(found) = state.streams.get(stream) else {
            return Ok(Vec::new());
        };
        // The batch holding the first wanted version: the last one beginning at or before it.
        let start = found
            .batches
            .partition_point(|b| b.first_version <= after_version.saturating_add(1))
            .saturating_sub(1);
        let mut envelopes = Vec::new();
        for batch in &found.batches[start.min(found.batches.len())..] {
            for (offset, event) in (0u64..).zip(&batch.events) {
                if envelopes.len() >= limit {
                    return Ok(envelopes);
                }
                if batch.first_version + offset > after_version {
                    envelopes.push(self.envelope(stream, batch, offset, event));
                }
            }
        }
        Ok(envelopes)
    }

    fn read_all(&self, after_position: u64, limit: usize) -> Result<Vec<Envelope>, StorageError> {
        let state = self.lock();
        let start = state
            .log
            .range(..=after_position.saturating_add(1))
            .next_back()
            .map_or(0, |(first, _)| *first);
        let mut envelopes = Vec::new();
        for (stream, index) in state.log.range(start..).map(|(_, at)| at) {
            let batch = &state.streams[stream].batches[*index];
            for (offset, event) in (0u64..).zip(&batch.events) {
                if envelopes.len() >= limit {
                    return Ok(envelopes);
                }
                if batch.first_position + offset > after_position {
                    envelopes.push(self.envelope(stream, batch, offset, event));
                }
            }
        }
        Ok(envelopes)
    }

    fn command(&self, stream: &str, version: u64) -> Result<Option<StoredCommand>, StorageError> {
        let state = self.lock();
        let Some(found) = state.streams.get(stream) else {
            return Ok(None);
        };
        let Some(batch) = found
            .batches
            .iter()
            .find(|b| b.first_version <= version && version <= b.last_version())
        else {
            return Ok(None);
        };
        let appended = batch.appended(false);
        Ok(Some(StoredCommand {
            command_id: batch.command_id.clone(),
            actor: batch.actor.clone(),
            command: batch.command.clone(),
            recorded_at: batch.recorded_at,
            first_version: appended.first_version,
            last_version: appended.last_version,
            last_position: appended.last_position,
        }))
    }

    fn streams_tagged(
        &self,
        name: &str,
        value: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StorageError> {
        let state = self.lock();
        let from = (
            name.to_string(),
            value.to_string(),
            after.unwrap_or_default().to_string(),
        );
        Ok(state
            .tag_index
            .range(from..)
            .take_while(|(n, v, _)| n == name && v == value)
            .filter(|(_, _, stream)| after.is_none_or(|after| stream.as_str() > after))
            .take(limit)
            .map(|(_, _, stream)| stream.clone())
            .collect())
    }

    fn tags(&self, stream: &str) -> Result<Vec<(String, String)>, StorageError> {
        Ok(self
            .lock()
            .streams
            .get(stream)
            .map(|s| s.tags.clone())
            .unwrap_or_default())
    }

    fn secret(&self, stream: &str, name: &str) -> Result<Option<Vec<u8>>, StorageError> {
        Ok(self
            .lock()
            .streams
            .get(stream)
            .and_then(|s| s.secrets.get(name).cloned()))
    }

    fn replace_secret(&self, stream: &str, name: &str, value: &[u8]) -> Result<bool, StorageError> {
        let mut inner = self.lock();
        let Some(secret) = inner
            .streams
            .get_mut(stream)
            .and_then(|s| s.secrets.get_mut(name))
        else {
            return Ok(false);
        };
        *secret = value.to_vec();
        Ok(true)
    }

    fn wait_for<'a>(
        &'a self,
        stream: &'a str,
        after_version: u64,
        timeout: Duration,
    ) -> BoxFuture<'a, u64> {
        Box::pin(async move {
            let mut positions = self.positions.subscribe();
            let waiting = async {
                loop {
                    let head = self.head(stream).unwrap_or(0);
                    if head > after_version || positions.changed().await.is_err() {
                        return head;
                    }
                }
            };
            match tokio::time::timeout(timeout, waiting).await {
                Ok(head) => head,
                Err(_) => self.head(stream).unwrap_or(0),
            }
        })
    }

    fn subscribe_all(&self) -> watch::Receiver<u64> {
        self.positions.subscribe()
    }
}

// Only this process writes the store (see `SingleProcess`).
impl crate::broadcasts::SingleProcess for MemoryStore {
    fn broadcasts(&self) -> &crate::broadcasts::Broadcasts {
        &self.broadcasts
    }
}

impl MemoryStore {
    fn put_now(&self, tree: &str, key: &str, value: &[u8]) {
        self.lock()
            .records
            .entry(tree.to_string())
            .or_default()
            .insert(key.to_string(), value.to_vec());
    }
}

impl RecordStore for MemoryStore {
    fn put_record(&self, tree: &str, key: &str, value: &[u8]) -> Result<(), StorageError> {
        self.put_now(tree, key, value);
        Ok(())
    }

    fn put_record_async<'a>(
        &'a self,
        tree: &'a str,
        key: &'a str,
        value: &'a [u8],
    ) -> BoxFuture<'a, Result<(), StorageError>> {
        self.put_now(tree, key, value);
        Box::pin(std::future::ready(Ok(())))
    }

    fn get_record(&self, tree: &str, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        Ok(self
            .lock()
            .records
            .get(tree)
            .and_then(|records| records.get(key).cloned()))
    }

    fn records_with_prefix(
        &self,
        tree: &str,
        prefix: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, StorageError> {
        let state = self.lock();
        let Some(records) = state.records.get(tree) else {
            return Ok(Vec::new());
        };
        Ok(records
            .range(prefix.to_string()..)
            .take_while(|(key, _)| key.starts_with(prefix))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect())
    }

    fn remove_record_async<'a>(
        &'a self,
        tree: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, StorageError>> {
        let removed = self
            .lock()
            .records
            .get_mut(tree)
            .is_some_and(|records| records.remove(key).is_some());
        Box::pin(std::future::ready(Ok(removed)))
    }
}
