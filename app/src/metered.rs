//! The store as the application holds it: any backend, with each append counted and timed for
//! `GET /metrics`, and every failed write noted for `GET /health` (a store that takes no write
//! until it is reopened). Every other call goes straight through.

use std::sync::Arc;
use std::time::{Duration, Instant};

use storage::{
    AppendError, Appended, Batch, BoxFuture, Coordination, Envelope, EventStore, RecordStore,
    Storage, StorageError, StoredCommand,
};
use tokio::sync::watch;

use crate::metrics::Metrics;

pub struct Metered {
    inner: Arc<dyn Storage>,
    metrics: Arc<Metrics>,
}

impl Metered {
    pub fn wrap(inner: Arc<dyn Storage>, metrics: Arc<Metrics>) -> Arc<dyn Storage> {
        Arc::new(Metered { inner, metrics })
    }

    fn count(&self, started: Instant, result: &Result<Appended, AppendError>) {
        let events = match result {
            Ok(appended) if !appended.duplicate => {
                (appended.last_version + 1 - appended.first_version) as usize
            }
            _ => 0,
        };
        let conflict = matches!(result, Err(AppendError::Conflict { .. }));
        let failed = matches!(result, Err(AppendError::Storage(_)));
        if let Err(AppendError::Storage(error)) = result {
            self.metrics.store_failed(error);
        }
        self.metrics
            .append(started.elapsed(), events, conflict, failed);
    }
}

impl Metered {
    /// Notes a failed write of a record.
    fn written<T>(&self, result: Result<T, StorageError>) -> Result<T, StorageError> {
        if let Err(error) = &result {
            self.metrics.store_failed(error);
        }
        result
    }
}

impl EventStore for Metered {
    fn store_id(&self) -> u64 {
        self.inner.store_id()
    }

    fn append<'a>(
        &'a self,
        stream: &'a str,
        expected_version: u64,
        batch: Batch,
    ) -> BoxFuture<'a, Result<Appended, AppendError>> {
        Box::pin(async move {
            let started = Instant::now();
            let result = self.inner.append(stream, expected_version, batch).await;
            self.count(started, &result);
            result
        })
    }

    fn retag<'a>(
        &'a self,
        stream: &'a str,
        expected_version: u64,
        tags: Vec<(String, String)>,
    ) -> BoxFuture<'a, Result<(), AppendError>> {
        self.inner.retag(stream, expected_version, tags)
    }

    fn append_blocking(
        &self,
        stream: &str,
        expected_version: u64,
        batch: Batch,
    ) -> Result<Appended, AppendError> {
        let started = Instant::now();
        let result = self.inner.append_blocking(stream, expected_version, batch);
        self.count(started, &result);
        result
    }

    fn head(&self, stream: &str) -> Result<u64, StorageError> {
        self.inner.head(stream)
    }

    fn appended_for(
        &self,
        stream: &str,
        command_id: &str,
    ) -> Result<Option<Appended>, StorageError> {
        self.inner.appended_for(stream, command_id)
    }

    fn read_stream(
        &self,
        stream: &str,
        after_version: u64,
        limit: usize,
    ) -> Result<Vec<Envelope>, StorageError> {
        self.inner.read_stream(stream, after_version, limit)
    }

    fn read_all(&self, after_position: u64, limit: usize) -> Result<Vec<Envelope>, StorageError> {
        self.inner.read_all(after_position, limit)
    }

    fn command(&self, stream: &str, version: u64) -> Result<Option<StoredCommand>, StorageError> {
        self.inner.command(stream, version)
    }

    fn streams_tagged(
        &self,
        name: &str,
        value: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StorageError> {
        self.inner.streams_tagged(name, value, after, limit)
    }

    fn tags(&self, stream: &str) -> Result<Vec<(String, String)>, StorageError> {
        self.inner.tags(stream)
    }

    fn secret(&self, stream: &str, name: &str) -> Result<Option<Vec<u8>>, StorageError> {
        self.inner.secret(stream, name)
    }

    fn replace_secret(&self, stream: &str, name: &str, value: &[u8]) -> Result<bool, StorageError> {
        self.inner.replace_secret(stream, name, value)
    }

    fn wait_for<'a>(
        &'a self,
        stream: &'a str,
        after_version: u64,
        timeout: Duration,
    ) -> BoxFuture<'a, u64> {
        self.inner.wait_for(stream, after_version, timeout)
    }

    fn subscribe_all(&self) -> watch::Receiver<u64> {
        self.inner.subscribe_all()
    }
}

impl Coordination for Metered {
    fn shared(&self) -> bool {
        self.inner.shared()
    }

    fn heard_head(&self, stream: &str) -> Option<u64> {
        self.inner.heard_head(stream)
    }

    fn settled_head<'a>(&'a self, stream: &'a str) -> BoxFuture<'a, Option<u64>> {
        self.inner.settled_head(stream)
    }

    fn try_lease(&self, name: &str) -> Result<bool, StorageError> {
        self.inner.try_lease(name)
    }

    fn holds_lease(&self, name: &str) -> bool {
        self.inner.holds_lease(name)
    }

    fn release_lease(&self, name: &str) {
        self.inner.release_lease(name)
    }

    fn broadcast<'a>(&'a self, message: &'a str) -> BoxFuture<'a, Result<(), StorageError>> {
        self.inner.broadcast(message)
    }

    fn subscribe_broadcasts(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.inner.subscribe_broadcasts()
    }
}

impl RecordStore for Metered {
    fn put_record(&self, tree: &str, key: &str, value: &[u8]) -> Result<(), StorageError> {
        self.written(self.inner.put_record(tree, key, value))
    }

    fn put_record_async<'a>(
        &'a self,
        tree: &'a str,
        key: &'a str,
        value: &'a [u8],
    ) -> BoxFuture<'a, Result<(), StorageError>> {
        Box::pin(async move { self.written(self.inner.put_record_async(tree, key, value).await) })
    }

    fn get_record(&self, tree: &str, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        self.inner.get_record(tree, key)
    }

    fn records_with_prefix(
        &self,
        tree: &str,
        prefix: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, StorageError> {
        self.inner.records_with_prefix(tree, prefix)
    }

    fn remove_record_async<'a>(
        &'a self,
        tree: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, StorageError>> {
        Box::pin(async move { self.written(self.inner.remove_record_async(tree, key).await) })
    }
}
