//! Appending a batch: checked and encoded here, written by the committer, answered once flushed.

use std::sync::mpsc;

use tokio::sync::oneshot;

use crate::envelope::{Appended, Batch};
use crate::error::{AppendError, StorageError};
use crate::sled_store::codec;
use crate::sled_store::committer::{Reply, Request};
use crate::sled_store::store::SledStore;

impl SledStore {
    /// Appends `batch` to `stream` if its head is `expected_version`; returns once it is on disk.
    pub async fn append(
        &self,
        stream: &str,
        expected_version: u64,
        batch: Batch,
    ) -> Result<Appended, AppendError> {
        let (sender, receiver) = oneshot::channel();
        let request = prepare(stream, expected_version, batch, Reply::Async(sender))?;
        self.inner.queue.push(request);
        let (appended, ticket) = receiver.await.map_err(|_| StorageError::Closed)??;
        if let Some(ticket) = ticket {
            self.inner.group_commit.wait(ticket).await?;
        }
        Ok(appended)
    }

    /// Replaces the stream's tag index entries if its head is `expected_version`; returns once
    /// on disk. Goes through the committer like an append (with no events), so that it is
    /// ordered with the appends that set tags.
    pub async fn retag(
        &self,
        stream: &str,
        expected_version: u64,
        tags: Vec<(String, String)>,
    ) -> Result<(), AppendError> {
        crate::limits::validate_retag(stream, &tags)?;
        let (sender, receiver) = oneshot::channel();
        self.inner.queue.push(Request {
            stream: stream.to_string(),
            expected_version,
            command_id: None,
            tags: Some(tags),
            secrets: Vec::new(),
            events: 0,
            body: Vec::new(),
            reply: Reply::Async(sender),
        });
        let (_, ticket) = receiver.await.map_err(|_| StorageError::Closed)??;
        if let Some(ticket) = ticket {
            self.inner.group_commit.wait(ticket).await?;
        }
        Ok(())
    }

    /// `append` for callers outside an async runtime.
    pub fn append_blocking(
        &self,
        stream: &str,
        expected_version: u64,
        batch: Batch,
    ) -> Result<Appended, AppendError> {
        let (sender, receiver) = mpsc::sync_channel(1);
        let request = prepare(stream, expected_version, batch, Reply::Blocking(sender))?;
        self.inner.queue.push(request);
        let (appended, ticket) = receiver.recv().map_err(|_| StorageError::Closed)??;
        if let Some(ticket) = ticket {
            self.inner.group_commit.wait_blocking(ticket)?;
        }
        Ok(appended)
    }
}

/// Checks and encodes a batch in the appender's thread, so the committer has less to do.
fn prepare(
    stream: &str,
    expected_version: u64,
    batch: Batch,
    reply: Reply,
) -> Result<Request, AppendError> {
    crate::limits::validate(stream, &batch)?;
    let body = codec::encode_batch_body(&batch)?;
    Ok(Request {
        stream: stream.to_string(),
        expected_version,
        command_id: batch.command_id,
        tags: batch.tags,
        secrets: batch.secrets,
        events: batch.events.len() as u64,
        body,
        reply,
    })
}
