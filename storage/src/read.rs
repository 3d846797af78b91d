//! Reading: a stream in pages, the global log in pages, heads, commands, tags and secrets.

use std::collections::HashMap;

use crate::append::decode_stream;
use crate::codec::{self, BatchRecord, EventRecord};
use crate::envelope::{Envelope, StoredCommand};
use crate::error::StorageError;
use crate::keys;
use crate::store::Store;

impl Store {
    /// The version of the stream's last event; 0 when the stream does not exist.
    pub fn head(&self, stream: &str) -> Result<u64, StorageError> {
        Ok(self.stream(stream)?.map_or(0, |(_, head)| head))
    }

    fn stream(&self, stream: &str) -> Result<Option<(u64, u64)>, StorageError> {
        match self.inner.trees.streams.get(stream.as_bytes())? {
            Some(value) => decode_stream(&value).map(Some),
            None => Ok(None),
        }
    }

    pub(crate) fn stream_id(&self, stream: &str) -> Result<Option<u64>, StorageError> {
        Ok(self.stream(stream)?.map(|(stream_id, _)| stream_id))
    }

    /// Up to `limit` events of the stream with versions above `after_version`, in order.
    pub fn read_stream(
        &self,
        stream: &str,
        after_version: u64,
        limit: usize,
    ) -> Result<Vec<Envelope>, StorageError> {
        let Some(stream_id) = self.stream_id(stream)? else {
            return Ok(Vec::new());
        };
        let Some(first) = after_version.checked_add(1) else {
            return Ok(Vec::new());
        };
        let range =
            keys::stream_version(stream_id, first)..=keys::stream_version(stream_id, u64::MAX);
        let mut envelopes = Vec::new();
        for item in self.inner.trees.events.range(range).take(limit) {
            let (key, value) = item?;
            let version = key
                .get(8..)
                .and_then(keys::read_u64)
                .ok_or_else(short_key)?;
            envelopes.push(self.envelope(stream.to_string(), version, &value)?);
        }
        Ok(envelopes)
    }

    /// Up to `limit` events of every stream with positions above `after_position`, in order.
    /// Only durable events are read, so a reader never sees a position before those below it.
    pub fn read_all(
        &self,
        after_position: u64,
        limit: usize,
    ) -> Result<Vec<Envelope>, StorageError> {
        let durable = self.inner.group_commit.durable_position();
        if after_position >= durable || limit == 0 {
            return Ok(Vec::new());
        }
        let trees = &self.inner.trees;
        let range = keys::position(after_position + 1)..=keys::position(durable);
        let mut names: HashMap<u64, String> = HashMap::new();
        let mut envelopes = Vec::new();
        for item in trees.log.range(range).take(limit) {
            let (_, event_key) = item?;
            let stream_id = keys::read_u64(&event_key).ok_or_else(short_key)?;
            let version = event_key
                .get(8..)
                .and_then(keys::read_u64)
                .ok_or_else(short_key)?;
            let name = match names.get(&stream_id) {
                Some(name) => name.clone(),
                None => {
                    let name = trees
                        .stream_names
                        .get(stream_id.to_be_bytes())?
                        .ok_or_else(|| StorageError::Corrupt("a stream without a name".into()))?;
                    let name = String::from_utf8(name.to_vec())
                        .map_err(|_| StorageError::Corrupt("a stream name is not UTF-8".into()))?;
                    names.insert(stream_id, name.clone());
                    name
                }
            };
            let value = trees
                .events
                .get(&event_key)?
                .ok_or_else(|| StorageError::Corrupt("the log names a missing event".into()))?;
            envelopes.push(self.envelope(name, version, &value)?);
        }
        Ok(envelopes)
    }

    fn envelope(
        &self,
        stream: String,
        version: u64,
        value: &[u8],
    ) -> Result<Envelope, StorageError> {
        let record = EventRecord::decode(value)?;
        Ok(Envelope {
            stream,
            version,
            position: record.position,
            event_id: format!("{:016x}{:016x}", self.inner.store_id, record.position),
            event_type: record.event_type,
            schema_version: record.schema_version,
            recorded_at: record.recorded_at,
            actor: record.actor,
            command_id: record.command_id,
            payload: record.payload,
        })
    }

    /// The command that produced the event at `version` of the stream, with the versions it produced.
    pub fn command(
        &self,
        stream: &str,
        version: u64,
    ) -> Result<Option<StoredCommand>, StorageError> {
        let Some(stream_id) = self.stream_id(stream)? else {
            return Ok(None);
        };
        if version == 0 {
            return Ok(None);
        }
        let range = keys::stream_version(stream_id, 1)..=keys::stream_version(stream_id, version);
        let Some(item) = self.inner.trees.batches.range(range).next_back() else {
            return Ok(None);
        };
        let (key, value) = item?;
        let first_version = key
            .get(8..)
            .and_then(keys::read_u64)
            .ok_or_else(short_key)?;
        let record = BatchRecord::decode(&value)?;
        if record.last_version < version {
            return Ok(None);
        }
        Ok(Some(StoredCommand {
            command_id: record.command_id,
            actor: record.actor,
            command: record.command,
            recorded_at: record.recorded_at,
            first_version,
            last_version: record.last_version,
            last_position: record.last_position,
        }))
    }

    /// Names of the streams tagged `name = value`, in name order, after the stream `after`.
    pub fn streams_tagged(
        &self,
        name: &str,
        value: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StorageError> {
        let prefix = keys::tag_prefix(name, value);
        let start = match after {
            // The smallest key above `prefix + after`.
            Some(after) => {
                let mut start = keys::tag_entry(name, value, after);
                start.push(0);
                start
            }
            None => prefix.clone(),
        };
        let mut streams = Vec::new();
        for item in self.inner.trees.tag_index.range(start..).take(limit) {
            let (key, _) = item?;
            let Some(stream) = key.strip_prefix(prefix.as_slice()) else {
                break;
            };
            let stream = String::from_utf8(stream.to_vec())
                .map_err(|_| StorageError::Corrupt("a stream name is not UTF-8".into()))?;
            streams.push(stream);
        }
        Ok(streams)
    }

    /// The stream's tags, as its last batch with tags set them.
    pub fn tags(&self, stream: &str) -> Result<Vec<(String, String)>, StorageError> {
        let Some(stream_id) = self.stream_id(stream)? else {
            return Ok(Vec::new());
        };
        match self.inner.trees.stream_tags.get(stream_id.to_be_bytes())? {
            Some(bytes) => codec::decode_tags(&bytes),
            None => Ok(Vec::new()),
        }
    }

    /// A secret written with one of the stream's batches.
    pub fn secret(&self, stream: &str, name: &str) -> Result<Option<Vec<u8>>, StorageError> {
        let Some(stream_id) = self.stream_id(stream)? else {
            return Ok(None);
        };
        let secret = self
            .inner
            .trees
            .secrets
            .get(keys::stream_name(stream_id, name))?;
        Ok(secret.map(|value| value.to_vec()))
    }
}

fn short_key() -> StorageError {
    StorageError::Corrupt("a key is too short".into())
}
