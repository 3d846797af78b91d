//! Appending a batch: checks, then one sled transaction over every tree, then a wait for the flush.

use std::sync::Arc;

use sled::transaction::{ConflictableTransactionError, TransactionError, Transactional};

use crate::codec;
use crate::envelope::{Appended, Batch};
use crate::error::{AppendError, StorageError};
use crate::keys;
use crate::store::Store;

/// Longest stream name, tag, command id or secret name, in bytes: keys stay small.
const MAX_NAME: usize = 512;

/// What the commit step did: a new batch waits for its own flush ticket.
enum Committed {
    New(Appended, u64),
    Duplicate(Appended),
}

impl Store {
    /// Appends `batch` to `stream` if its head is `expected_version`; returns once it is on disk.
    pub async fn append(
        &self,
        stream: &str,
        expected_version: u64,
        batch: Batch,
    ) -> Result<Appended, AppendError> {
        let (appended, ticket) = self.commit_batch(stream, expected_version, &batch)?;
        if let Some(ticket) = ticket {
            self.inner.group_commit.wait(ticket).await?;
        }
        Ok(appended)
    }

    /// `append` for callers outside an async runtime.
    pub fn append_blocking(
        &self,
        stream: &str,
        expected_version: u64,
        batch: Batch,
    ) -> Result<Appended, AppendError> {
        let (appended, ticket) = self.commit_batch(stream, expected_version, &batch)?;
        if let Some(ticket) = ticket {
            self.inner.group_commit.wait_blocking(ticket)?;
        }
        Ok(appended)
    }

    /// Commits in memory and returns the flush ticket to wait for, if any.
    fn commit_batch(
        &self,
        stream: &str,
        expected_version: u64,
        batch: &Batch,
    ) -> Result<(Appended, Option<u64>), AppendError> {
        validate(stream, batch)?;
        match self.commit(stream, expected_version, batch)? {
            Committed::New(appended, ticket) => Ok((appended, Some(ticket))),
            Committed::Duplicate(appended) => {
                // The original may still be on its way to disk.
                let ticket = self.inner.group_commit.flush_all(appended.last_position);
                Ok((appended, ticket))
            }
        }
    }

    fn commit(
        &self,
        stream: &str,
        expected_version: u64,
        batch: &Batch,
    ) -> Result<Committed, AppendError> {
        let trees = &self.inner.trees;
        // Every writer of these trees holds this lock, so what is read here stays true
        // until the transaction below commits.
        let mut counters = self.lock_commit();
        let existing = match trees
            .streams
            .get(stream.as_bytes())
            .map_err(StorageError::from)?
        {
            Some(value) => Some(decode_stream(&value)?),
            None => None,
        };
        if let (Some((stream_id, _)), Some(command_id)) = (existing, &batch.command_id) {
            if let Some(appended) = self.find_command(stream_id, command_id)? {
                return Ok(Committed::Duplicate(appended));
            }
        }
        let head = existing.map_or(0, |(_, head)| head);
        if head != expected_version {
            return Err(AppendError::Conflict {
                expected: expected_version,
                actual: head,
            });
        }
        let stream_id = match existing {
            Some((stream_id, _)) => stream_id,
            None => counters.last_stream_id + 1,
        };
        let first_version = head + 1;
        let count = batch.events.len() as u64;
        let last_version = head + count;
        let first_position = counters.last_position + 1;
        let last_position = counters.last_position + count;

        let record = codec::encode_batch(stream_id, first_version, batch)?;
        let appended = codec::encode_appended(first_version, last_version, last_position);
        let old_tags = match (&batch.tags, existing) {
            (Some(_), Some((stream_id, _))) => match trees
                .stream_tags
                .get(stream_id.to_be_bytes())
                .map_err(StorageError::from)?
            {
                Some(bytes) => codec::decode_tags(&bytes)?,
                None => Vec::new(),
            },
            _ => Vec::new(),
        };
        let stream_value = keys::stream_version(stream_id, last_version);
        let stream_key = stream_id.to_be_bytes();

        let outcome = (
            &trees.log,
            &trees.stream_batches,
            &trees.streams,
            &trees.stream_names,
            &trees.command_ids,
            &trees.tag_index,
            &trees.stream_tags,
            &trees.secrets,
        )
            .transaction(
                |(
                    tx_log,
                    tx_stream_batches,
                    tx_streams,
                    tx_names,
                    tx_command_ids,
                    tx_tag_index,
                    tx_stream_tags,
                    tx_secrets,
                )|
                 -> Result<(), ConflictableTransactionError<()>> {
                    tx_log.insert(&keys::position(first_position), record.as_slice())?;
                    tx_stream_batches.insert(
                        &keys::stream_version(stream_id, first_version),
                        &keys::position(first_position),
                    )?;
                    tx_streams.insert(stream.as_bytes(), &stream_value)?;
                    if existing.is_none() {
                        tx_names.insert(&stream_key, stream.as_bytes())?;
                    }
                    if let Some(command_id) = &batch.command_id {
                        tx_command_ids.insert(
                            keys::stream_name(stream_id, command_id),
                            appended.as_slice(),
                        )?;
                    }
                    if let Some(tags) = &batch.tags {
                        for (name, value) in &old_tags {
                            tx_tag_index.remove(keys::tag_entry(name, value, stream))?;
                        }
                        for (name, value) in tags {
                            tx_tag_index
                                .insert(keys::tag_entry(name, value, stream), &stream_key)?;
                        }
                        tx_stream_tags.insert(&stream_key, codec::encode_tags(tags))?;
                    }
                    for (name, value) in &batch.secrets {
                        tx_secrets.insert(keys::stream_name(stream_id, name), value.as_slice())?;
                    }
                    Ok(())
                },
            );
        match outcome {
            Ok(()) => {}
            Err(TransactionError::Storage(error)) => return Err(StorageError::from(error).into()),
            Err(TransactionError::Abort(())) => {
                return Err(StorageError::Database("the transaction was aborted".into()).into())
            }
        }
        counters.last_position = last_position;
        counters.last_stream_id = counters.last_stream_id.max(stream_id);
        let ticket = self
            .inner
            .group_commit
            .written(Some(last_position), Some((Arc::from(stream), last_version)));
        drop(counters);
        tracing::debug!(
            stream,
            first_version,
            last_version,
            last_position,
            "appended"
        );
        Ok(Committed::New(
            Appended {
                first_version,
                last_version,
                last_position,
                duplicate: false,
            },
            ticket,
        ))
    }

    /// The original result of the batch carrying `command_id` in the stream, if any.
    fn find_command(
        &self,
        stream_id: u64,
        command_id: &str,
    ) -> Result<Option<Appended>, StorageError> {
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
}

/// The stream id and head stored under a stream's name.
pub(crate) fn decode_stream(value: &[u8]) -> Result<(u64, u64), StorageError> {
    match (
        keys::read_u64(value),
        value.get(8..).and_then(keys::read_u64),
    ) {
        (Some(stream_id), Some(head)) => Ok((stream_id, head)),
        _ => Err(StorageError::Corrupt("a stream entry is too short".into())),
    }
}

fn validate(stream: &str, batch: &Batch) -> Result<(), AppendError> {
    if batch.events.is_empty() {
        return Err(AppendError::EmptyBatch);
    }
    let name = |what: &str, text: &str| {
        if text.is_empty() {
            Err(AppendError::Invalid(format!("{what} is empty")))
        } else if text.len() > MAX_NAME {
            Err(AppendError::Invalid(format!(
                "{what} is longer than {MAX_NAME} bytes"
            )))
        } else {
            Ok(())
        }
    };
    name("the stream name", stream)?;
    for event in &batch.events {
        name("an event type", &event.event_type)?;
    }
    if let Some(command_id) = &batch.command_id {
        name("the command id", command_id)?;
    }
    for (tag, value) in batch.tags.iter().flatten() {
        name("a tag name", tag)?;
        if value.len() > MAX_NAME {
            return Err(AppendError::Invalid(format!(
                "a tag value is longer than {MAX_NAME} bytes"
            )));
        }
    }
    for (secret, _) in &batch.secrets {
        name("a secret name", secret)?;
    }
    Ok(())
}
