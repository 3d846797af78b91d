//! What a copy of a whole store needs beyond the traits: whether the database is empty, the
//! store's id (adopted from the store copied, so that event ids stay the same), every secret of
//! a stream and the names of the record trees.

use std::sync::atomic::Ordering;

use super::seam::column;
use super::PostgresStore;
use crate::error::StorageError;

impl PostgresStore {
    /// True when the database holds no stream and no record.
    pub fn is_empty(&self) -> Result<bool, StorageError> {
        self.inner.pool.run(|connection| {
            let rows = connection.query(
                "SELECT NOT EXISTS (SELECT 1 FROM streams) AND NOT EXISTS (SELECT 1 FROM records)",
                &[],
            )?;
            column(&rows[0], 0)
        })
    }

    /// Takes `store_id` as this store's identity, so that a copy of another store keeps its
    /// event ids; only while the database is empty.
    pub fn adopt_store_id(&self, store_id: u64) -> Result<(), StorageError> {
        let id = format!("{store_id:016x}");
        let adopted = self.inner.pool.run(move |connection| {
            let rows = connection.query(
                "UPDATE store_meta SET value = $1 WHERE key = 'store_id'
                     AND NOT EXISTS (SELECT 1 FROM streams) RETURNING 1",
                &[&id],
            )?;
            Ok(!rows.is_empty())
        })?;
        if !adopted {
            return Err(StorageError::Database(
                "the store id can change only while the database holds no stream".into(),
            ));
        }
        self.inner.store_id.store(store_id, Ordering::Relaxed);
        Ok(())
    }

    /// Every secret of the stream, in name order.
    pub fn secrets(&self, stream: &str) -> Result<Vec<(String, Vec<u8>)>, StorageError> {
        let stream = stream.to_string();
        self.inner.pool.run(move |connection| {
            connection
                .query(
                    "SELECT name, value FROM secrets WHERE stream = $1 ORDER BY name",
                    &[&stream],
                )?
                .iter()
                .map(|row| Ok((column(row, 0)?, column(row, 1)?)))
                .collect()
        })
    }

    /// The names of the record trees that hold at least one record, in name order.
    pub fn record_trees(&self) -> Result<Vec<String>, StorageError> {
        self.inner.pool.run(|connection| {
            connection
                .query("SELECT DISTINCT tree FROM records ORDER BY tree", &[])?
                .iter()
                .map(|row| column(row, 0))
                .collect()
        })
    }

    /// The bytes the store's tables and their indexes take in the database.
    pub fn size_on_disk(&self) -> Result<u64, StorageError> {
        self.inner.pool.run(|connection| {
            let rows = connection.query(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                 WHERE n.nspname = current_schema() AND c.relkind = 'r'
                   AND c.relname IN ('store_meta', 'log_head', 'streams', 'batches', 'events',
                                     'stream_tags', 'secrets', 'records')",
                &[],
            )?;
            let bytes: i64 = column(&rows[0], 0)?;
            Ok(bytes.max(0) as u64)
        })
    }
}
