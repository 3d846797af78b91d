//! The sled store behind the seam: each method of the traits is the store's own.

use std::time::Duration;

use tokio::sync::watch;

use crate::envelope::{Appended, Batch, Envelope, StoredCommand};
use crate::error::{AppendError, StorageError};
use crate::event_store::{BoxFuture, EventStore, RecordStore};
use crate::sled_store::store::SledStore;

impl EventStore for SledStore {
    fn store_id(&self) -> u64 {
        self.inner.store_id
    }

    fn append<'a>(
        &'a self,
        stream: &'a str,
        expected_version: u64,
        batch: Batch,
    ) -> BoxFuture<'a, Result<Appended, AppendError>> {
        Box::pin(SledStore::append(self, stream, expected_version, batch))
    }

    fn retag<'a>(
        &'a self,
        stream: &'a str,
        expected_version: u64,
        tags: Vec<(String, String)>,
    ) -> BoxFuture<'a, Result<(), AppendError>> {
        Box::pin(SledStore::retag(self, stream, expected_version, tags))
    }

    fn append_blocking(
        &self,
        stream: &str,
        expected_version: u64,
        batch: Batch,
    ) -> Result<Appended, AppendError> {
        SledStore::append_blocking(self, stream, expected_version, batch)
    }

    fn head(&self, stream: &str) -> Result<u64, StorageError> {
        SledStore::head(self, stream)
    }

    fn appended_for(
        &self,
        stream: &str,
        command_id: &str,
    ) -> Result<Option<Appended>, StorageError> {
        SledStore::appended_for(self, stream, command_id)
    }

    fn read_stream(
        &self,
        stream: &str,
        after_version: u64,
        limit: usize,
    ) -> Result<Vec<Envelope>, StorageError> {
        SledStore::read_stream(self, stream, after_version, limit)
    }

    fn read_all(&self, after_position: u64, limit: usize) -> Result<Vec<Envelope>, StorageError> {
        SledStore::read_all(self, after_position, limit)
    }

    fn command(&self, stream: &str, version: u64) -> Result<Option<StoredCommand>, StorageError> {
        SledStore::command(self, stream, version)
    }

    fn streams_tagged(
        &self,
        name: &str,
        value: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StorageError> {
        SledStore::streams_tagged(self, name, value, after, limit)
    }

    fn tags(&self, stream: &str) -> Result<Vec<(String, String)>, StorageError> {
        SledStore::tags(self, stream)
    }

    fn secret(&self, stream: &str, name: &str) -> Result<Option<Vec<u8>>, StorageError> {
        SledStore::secret(self, stream, name)
    }

    fn replace_secret(&self, stream: &str, name: &str, value: &[u8]) -> Result<bool, StorageError> {
        SledStore::replace_secret(self, stream, name, value)
    }

    fn wait_for<'a>(
        &'a self,
        stream: &'a str,
        after_version: u64,
        timeout: Duration,
    ) -> BoxFuture<'a, u64> {
        Box::pin(SledStore::wait_for(self, stream, after_version, timeout))
    }

    fn subscribe_all(&self) -> watch::Receiver<u64> {
        SledStore::subscribe_all(self)
    }
}

// Only this process writes the store (see `SingleProcess`).
impl crate::broadcasts::SingleProcess for SledStore {
    fn broadcasts(&self) -> &crate::broadcasts::Broadcasts {
        &self.inner.broadcasts
    }
}

impl RecordStore for SledStore {
    fn put_record(&self, tree: &str, key: &str, value: &[u8]) -> Result<(), StorageError> {
        SledStore::put_record(self, tree, key, value)
    }

    fn put_record_async<'a>(
        &'a self,
        tree: &'a str,
        key: &'a str,
        value: &'a [u8],
    ) -> BoxFuture<'a, Result<(), StorageError>> {
        Box::pin(SledStore::put_record_async(self, tree, key, value))
    }

    fn get_record(&self, tree: &str, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        SledStore::get_record(self, tree, key)
    }

    fn records_with_prefix(
        &self,
        tree: &str,
        prefix: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, StorageError> {
        SledStore::records_with_prefix(self, tree, prefix)
    }

    fn remove_record_async<'a>(
        &'a self,
        tree: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, StorageError>> {
        Box::pin(SledStore::remove_record_async(self, tree, key))
    }
}
