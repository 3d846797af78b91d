//! Reading: a stream in pages, the global log in pages, heads, commands, tags and secrets.

use std::collections::HashMap;

use crate::envelope::{Appended, Envelope, StoredCommand};
use crate::error::StorageError;
use crate::event_store::EventStore;
use crate::sled_store::codec::{self, BatchRecord};
use crate::sled_store::keys;
use crate::sled_store::keys::decode_stream;
use crate::sled_store::store::SledStore;

impl SledStore {
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

    /// The original result of the batch that carried `command_id` in `stream`, if any: lets a
    /// caller answer a retried command without deciding it again.
    pub fn appended_for(
        &self,
        stream: &str,
        command_id: &str,
    ) -> Result<Option<Appended>, StorageError> {
        let Some(stream_id) = self.stream_id(stream)? else {
            return Ok(None);
        };
        let key = keys::stream_name(stream_id, command_id);
        let Some(value) = self.inner.trees.command_ids.get(key)? else {
            return Ok(None);
        };
        let (first_version, last_version, last_position) = codec::decode_appended(&value)?;
        Ok(Some(Appended {
            first_version,
            last_version,
            last_position,
            duplicate: true,
        }))
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
        let trees = &self.inner.trees;
        // Start at the batch holding `first`: the last one that begins at or before it.
        let start = match trees
            .stream_batches
            .range(keys::stream_version(stream_id, 0)..=keys::stream_version(stream_id, first))
            .next_back()
        {
            Some(item) => item?.0.to_vec(),
            None => keys::stream_version(stream_id, first).to_vec(),
        };
        let end = keys::stream_version(stream_id, u64::MAX);
        let mut envelopes = Vec::new();
        for item in trees
            .stream_batches
            .range(start.as_slice()..=end.as_slice())
        {
            if envelopes.len() >= limit {
                break;
            }
            let (_, position) = item?;
            let first_position = keys::read_u64(&position).ok_or_else(short_key)?;
            let record = trees
                .log
                .get(keys::position(first_position))?
                .ok_or_else(|| StorageError::Corrupt("a stream names a missing batch".into()))?;
            let batch = codec::decode_batch(&record)?;
            self.unpack(
                &mut envelopes,
                stream,
                first_position,
                batch,
                limit,
                |version, _| version > after_version,
            );
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
        let first = keys::position(after_position + 1);
        // Start at the batch holding `first`: the last one that begins at or before it.
        let start = match trees.log.range(..=first).next_back() {
            Some(item) => item?.0.to_vec(),
            None => first.to_vec(),
        };
        let end = keys::position(durable);
        let mut names: HashMap<u64, String> = HashMap::new();
        let mut envelopes = Vec::new();
        for item in trees.log.range(start.as_slice()..=end.as_slice()) {
            if envelopes.len() >= limit {
                break;
            }
            let (key, record) = item?;
            let first_position = keys::read_u64(&key).ok_or_else(short_key)?;
            let batch = codec::decode_batch(&record)?;
            let name = match names.get(&batch.stream_id) {
                Some(name) => name.clone(),
                None => {
                    let name = trees
                        .stream_names
                        .get(batch.stream_id.to_be_bytes())?
                        .ok_or_else(|| StorageError::Corrupt("a stream without a name".into()))?;
                    let name = String::from_utf8(name.to_vec())
                        .map_err(|_| StorageError::Corrupt("a stream name is not UTF-8".into()))?;
                    names.insert(batch.stream_id, name.clone());
                    name
                }
            };
            self.unpack(
                &mut envelopes,
                &name,
                first_position,
                batch,
                limit,
                |_, position| position > after_position && position <= durable,
            );
        }
        Ok(envelopes)
    }

    /// Adds the batch's events that `wanted(version, position)` picks, up to `limit` in all.
    fn unpack(
        &self,
        envelopes: &mut Vec<Envelope>,
        stream: &str,
        first_position: u64,
        batch: BatchRecord,
        limit: usize,
        wanted: impl Fn(u64, u64) -> bool,
    ) {
        for (offset, event) in (0u64..).zip(batch.events) {
            if envelopes.len() >= limit {
                return;
            }
            let version = batch.first_version + offset;
            let position = first_position + offset;
            if !wanted(version, position) {
                continue;
            }
            envelopes.push(Envelope {
                stream: stream.to_string(),
                version,
                position,
                event_id: self.event_id(position),
                event_type: event.event_type,
                schema_version: event.schema_version,
                recorded_at: batch.recorded_at,
                actor: batch.actor.clone(),
                command_id: batch.command_id.clone(),
                payload: event.payload,
            });
        }
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
        let trees = &self.inner.trees;
        let range = keys::stream_version(stream_id, 1)..=keys::stream_version(stream_id, version);
        let Some(item) = trees.stream_batches.range(range).next_back() else {
            return Ok(None);
        };
        let (_, position) = item?;
        let first_position = keys::read_u64(&position).ok_or_else(short_key)?;
        let record = trees
            .log
            .get(keys::position(first_position))?
            .ok_or_else(|| StorageError::Corrupt("a stream names a missing batch".into()))?;
        let batch = codec::decode_batch(&record)?;
        let last_version = batch.last_version();
        if last_version < version {
            return Ok(None);
        }
        Ok(Some(StoredCommand {
            command_id: batch.command_id,
            actor: batch.actor,
            command: batch.command,
            recorded_at: batch.recorded_at,
            first_version: batch.first_version,
            last_version,
            last_position: first_position + batch.events.len() as u64 - 1,
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
