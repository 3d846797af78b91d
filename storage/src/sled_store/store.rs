//! The store handle: opening, the committer and flusher threads, records, waiting for a stream.

use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use tokio::sync::watch;

use crate::error::{OpenError, StorageError};
use crate::sled_store::committer::{Committer, Queue};
use crate::sled_store::disk_sync::DiskSync;
use crate::sled_store::group_commit::{Flush, GroupCommit};
use crate::sled_store::keys;
use crate::sled_store::open::{self, Opened};
use crate::sled_store::recovery;
use crate::sled_store::trees::{Trees, RECORD_TREE_PREFIX};
use crate::watchers::Watchers;

/// The event store. Cloning is cheap: clones share one database, committer and flusher.
#[derive(Clone)]
pub struct SledStore {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub db: sled::Db,
    pub trees: Trees,
    pub store_id: u64,
    /// Appends wait here for the committer thread.
    pub queue: Arc<Queue>,
    pub group_commit: Arc<GroupCommit>,
    pub watchers: Arc<Watchers>,
    /// This process's subscribers of broadcasts (it is the store's only process).
    pub broadcasts: crate::broadcasts::Broadcasts,
    committer: Mutex<Option<JoinHandle<()>>>,
    flusher: Mutex<Option<JoinHandle<()>>>,
}

fn join(thread: &Mutex<Option<JoinHandle<()>>>, name: &str) {
    let handle = thread.lock().unwrap_or_else(PoisonError::into_inner).take();
    if let Some(handle) = handle {
        if handle.join().is_err() {
            tracing::error!("the event store's {name} thread panicked");
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // The committer first: what it writes last still needs a flush.
        self.queue.shut_down();
        join(&self.committer, "committer");
        self.group_commit.shut_down();
        join(&self.flusher, "flusher");
    }
}

impl SledStore {
    /// Sled's page cache unless told otherwise, in MiB: recent streams and the indexes stay
    /// in memory, while the server's resident size stays well under 100 MB however many games
    /// it holds (sled's own default is 1 GiB).
    pub const DEFAULT_CACHE_MB: u64 = 16;

    /// Opens (or creates) the event store in the directory `path`, with sled's page cache
    /// at [`SledStore::DEFAULT_CACHE_MB`].
    pub fn open(path: &Path) -> Result<SledStore, OpenError> {
        SledStore::open_with_cache(path, SledStore::DEFAULT_CACHE_MB * 1024 * 1024)
    }

    /// Opens (or creates) the event store in `path` with a page cache of at most
    /// `cache_bytes`.
    pub fn open_with_cache(path: &Path, cache_bytes: u64) -> Result<SledStore, OpenError> {
        let opened = open::open(path, cache_bytes)?;
        let disk_sync = DiskSync::open(path).map_err(|e| OpenError::Storage {
            path: path.to_path_buf(),
            detail: format!("cannot sync the database files: {e}"),
        })?;
        SledStore::start(opened, Some(disk_sync), path)
    }

    /// Creates a new store in the directory `path` (empty or missing) with the id `store_id`,
    /// so that events appended in the original's order get the original's ids: the restore
    /// of a backup. A directory that holds a store is refused.
    pub fn create_with_store_id(path: &Path, store_id: u64) -> Result<SledStore, OpenError> {
        let opened =
            open::create_with_id(path, SledStore::DEFAULT_CACHE_MB * 1024 * 1024, store_id)?;
        let disk_sync = DiskSync::open(path).map_err(|e| OpenError::Storage {
            path: path.to_path_buf(),
            detail: format!("cannot sync the database files: {e}"),
        })?;
        SledStore::start(opened, Some(disk_sync), path)
    }

    /// A store in a temporary directory, deleted when the last clone is dropped.
    pub fn temporary() -> Result<SledStore, OpenError> {
        let opened = open::temporary()?;
        // In memory (tmpfs) and deleted on drop: nothing to fsync.
        SledStore::start(opened, None, Path::new("(temporary)"))
    }

    fn start(
        opened: Opened,
        disk_sync: Option<DiskSync>,
        path: &Path,
    ) -> Result<SledStore, OpenError> {
        let Opened { db, store_id, .. } = opened;
        let failed = |e: sled::Error| OpenError::Storage {
            path: path.to_path_buf(),
            detail: e.to_string(),
        };
        let trees = Trees::open(&db).map_err(failed)?;
        let damaged = |detail: String| OpenError::Damaged {
            path: path.to_path_buf(),
            detail,
        };
        let opening = |error: StorageError| match error {
            StorageError::Corrupt(detail) => damaged(detail),
            other => OpenError::Storage {
                path: path.to_path_buf(),
                detail: other.to_string(),
            },
        };
        let removed = recovery::recover(&trees, &db).map_err(opening)?;
        if removed > 0 {
            tracing::warn!(
                batches = removed,
                "removed the batches of a group of appends cut short by a crash (none of them had been acknowledged)"
            );
        }
        let last_position = recovery::log_end(&trees).map_err(opening)?;
        let last_stream_id = match trees.stream_names.last().map_err(failed)? {
            None => 0,
            Some((key, _)) => keys::read_u64(&key)
                .ok_or_else(|| damaged("a stream id of the wrong size".into()))?,
        };
        let watchers = Arc::new(Watchers::default());
        let flush = Flush {
            db: db.clone(),
            disk_sync: Mutex::new(disk_sync),
            watchers: Arc::clone(&watchers),
        };
        let group_commit = Arc::new(GroupCommit::new(last_position, flush));
        let queue = Arc::new(Queue::default());
        let inner = Arc::new(Inner {
            db: db.clone(),
            trees: trees.clone(),
            store_id,
            queue: Arc::clone(&queue),
            group_commit: Arc::clone(&group_commit),
            watchers: Arc::clone(&watchers),
            broadcasts: crate::broadcasts::Broadcasts::default(),
            committer: Mutex::new(None),
            flusher: Mutex::new(None),
        });
        let cannot_start = |e: std::io::Error| OpenError::Storage {
            path: path.to_path_buf(),
            detail: format!("cannot start a thread: {e}"),
        };
        let flusher = {
            let group_commit = Arc::clone(&group_commit);
            std::thread::Builder::new()
                .name("event-store-flusher".into())
                .spawn(move || group_commit.run_flusher())
                .map_err(cannot_start)?
        };
        *inner.flusher.lock().unwrap_or_else(PoisonError::into_inner) = Some(flusher);
        let committer = Committer {
            trees,
            group_commit,
            queue,
            last_position,
            last_stream_id,
            heads: Default::default(),
        };
        let committer = std::thread::Builder::new()
            .name("event-store-committer".into())
            .spawn(move || committer.run())
            .map_err(cannot_start)?;
        *inner
            .committer
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(committer);
        Ok(SledStore { inner })
    }

    /// Waits (without polling the disk) until the stream's head is above `after_version`,
    /// or until `timeout`; returns the head either way.
    pub async fn wait_for(
        &self,
        stream: &str,
        after_version: u64,
        timeout: std::time::Duration,
    ) -> u64 {
        let mut watch = self
            .inner
            .watchers
            .watch(stream, || self.head(stream).unwrap_or(0));
        watch.head_after(after_version, timeout).await
    }

    /// The last durable global position; it changes after each flush that made events durable.
    pub fn subscribe_all(&self) -> watch::Receiver<u64> {
        self.inner.group_commit.subscribe_positions()
    }

    /// Stores a small record (a player, a token) durably: it is on disk when this returns.
    pub fn put_record(&self, tree: &str, key: &str, value: &[u8]) -> Result<(), StorageError> {
        let records = self.record_tree(tree)?;
        records.insert(key.as_bytes(), value)?;
        let ticket = self.inner.group_commit.written(None, Vec::new());
        self.inner.group_commit.wait_blocking(ticket)
    }

    /// Replaces a stream's existing secret, durably; whether there was one.
    pub fn replace_secret(
        &self,
        stream: &str,
        name: &str,
        value: &[u8],
    ) -> Result<bool, StorageError> {
        let Some(stream_id) = self.stream_id(stream)? else {
            return Ok(false);
        };
        let key = keys::stream_name(stream_id, name);
        let secrets = &self.inner.trees.secrets;
        // Compare-and-swap: only a secret that is there is replaced, never one created.
        let Some(old) = secrets.get(&key)? else {
            return Ok(false);
        };
        if secrets
            .compare_and_swap(&key, Some(old), Some(value))?
            .is_err()
        {
            return Err(StorageError::Corrupt(format!(
                "secret {name} of {stream} changed while it was being replaced"
            )));
        }
        let ticket = self.inner.group_commit.written(None, Vec::new());
        self.inner.group_commit.wait_blocking(ticket)?;
        Ok(true)
    }

    /// Stores many records of one tree durably, with one flush: on disk when this returns.
    pub fn put_records(
        &self,
        tree: &str,
        records: Vec<(String, Vec<u8>)>,
    ) -> Result<(), StorageError> {
        let tree = self.record_tree(tree)?;
        for (key, value) in records {
            tree.insert(key.as_bytes(), value)?;
        }
        let ticket = self.inner.group_commit.written(None, Vec::new());
        self.inner.group_commit.wait_blocking(ticket)
    }

    /// `put_record` for async callers: waits for the flush without blocking the thread.
    pub async fn put_record_async(
        &self,
        tree: &str,
        key: &str,
        value: &[u8],
    ) -> Result<(), StorageError> {
        let records = self.record_tree(tree)?;
        records.insert(key.as_bytes(), value)?;
        let ticket = self.inner.group_commit.written(None, Vec::new());
        self.inner.group_commit.wait(ticket).await
    }

    pub fn get_record(&self, tree: &str, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        let records = self.record_tree(tree)?;
        Ok(records.get(key.as_bytes())?.map(|value| value.to_vec()))
    }

    /// The records of `tree` whose keys begin with `prefix`, in key order.
    pub fn records_with_prefix(
        &self,
        tree: &str,
        prefix: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, StorageError> {
        let records = self.record_tree(tree)?;
        let mut found = Vec::new();
        for item in records.scan_prefix(prefix.as_bytes()) {
            let (key, value) = item?;
            let key = String::from_utf8(key.to_vec())
                .map_err(|_| StorageError::Corrupt("a record key is not UTF-8".into()))?;
            found.push((key, value.to_vec()));
        }
        Ok(found)
    }

    /// Removes a record durably; returns whether it was there.
    pub async fn remove_record_async(&self, tree: &str, key: &str) -> Result<bool, StorageError> {
        let records = self.record_tree(tree)?;
        let removed = records.remove(key.as_bytes())?.is_some();
        let ticket = self.inner.group_commit.written(None, Vec::new());
        self.inner.group_commit.wait(ticket).await?;
        Ok(removed)
    }

    fn record_tree(&self, tree: &str) -> Result<sled::Tree, StorageError> {
        Ok(self
            .inner
            .db
            .open_tree(format!("{RECORD_TREE_PREFIX}{tree}"))?)
    }

    /// How many flushes to disk the store did since it was opened: with group commit, fewer
    /// than the writes it made durable. For benchmarks and diagnostics.
    pub fn flush_count(&self) -> u64 {
        self.inner.group_commit.flushes()
    }

    /// The bytes the database takes on disk.
    pub fn size_on_disk(&self) -> Result<u64, StorageError> {
        Ok(self.inner.db.size_on_disk()?)
    }
}
