//! What a copy of a whole store needs beyond the traits: whether the database is empty, the
//! store's id (adopted from the store copied, so that event ids stay the same), every secret of
//! a stream and the names of the record trees.

use std::sync::atomic::Ordering;

use super::group::{append_group_or_each, AppendParams};
use super::seam::column;
use super::PostgresStore;
use crate::envelope::{Appended, Batch, StoredCommand};
use crate::error::{AppendError, StorageError};

impl PostgresStore {
    /// Appends many batches at once, in order, in one statement and one transaction (or, if
    /// the database refuses that, one by one): for a bulk copy, which would wait for a commit
    /// per batch otherwise. Each batch gets the answer it would get alone.
    pub fn append_many(
        &self,
        batches: Vec<(String, u64, Batch)>,
    ) -> Result<Vec<Result<Appended, AppendError>>, StorageError> {
        let mut group = Vec::with_capacity(batches.len());
        let mut answers: Vec<Option<Result<Appended, AppendError>>> = Vec::new();
        for (stream, expected, batch) in batches {
            match AppendParams::new(&stream, expected, batch) {
                Ok(params) => {
                    group.push(params);
                    answers.push(None);
                }
                Err(refused) => answers.push(Some(Err(refused))),
            }
        }
        let epoch = self.inner.heads.epoch();
        let (group, outcomes) = self.inner.pool.run(move |connection| {
            let outcomes = append_group_or_each(connection, &group);
            Ok((group, outcomes))
        })?;
        let mut outcomes = group.iter().zip(outcomes);
        answers
            .into_iter()
            .map(|answer| match answer {
                Some(refused) => Ok(refused),
                None => {
                    let (params, outcome) = outcomes.next().ok_or(StorageError::Closed)?;
                    let outcome = outcome?;
                    if let Ok(appended) = &outcome {
                        self.announce(params.stream(), appended, epoch);
                    }
                    Ok(outcome)
                }
            })
            .collect()
    }

    /// The commands of every batch of `stream`, in version order (one read for the stream).
    pub fn commands(&self, stream: &str) -> Result<Vec<StoredCommand>, StorageError> {
        let stream = stream.to_string();
        self.inner.pool.run(move |connection| {
            connection
                .query(
                    "SELECT command_id, actor, command, recorded_at_ns, first_version,
                            last_version, last_position
                     FROM batches WHERE stream = $1 ORDER BY first_version",
                    &[&stream],
                )?
                .iter()
                .map(|row| {
                    let number = |index| -> Result<u64, StorageError> {
                        let value: i64 = column(row, index)?;
                        u64::try_from(value)
                            .map_err(|_| StorageError::Corrupt(format!("negative number {value}")))
                    };
                    Ok(StoredCommand {
                        command_id: column(row, 0)?,
                        actor: column(row, 1)?,
                        command: column(row, 2)?,
                        recorded_at: chrono::DateTime::from_timestamp_nanos(column(row, 3)?),
                        first_version: number(4)?,
                        last_version: number(5)?,
                        last_position: number(6)?,
                    })
                })
                .collect()
        })
    }

    /// Writes many records of one tree in one statement (replacing those with the same keys).
    pub fn put_records(
        &self,
        tree: &str,
        records: Vec<(String, Vec<u8>)>,
    ) -> Result<(), StorageError> {
        let tree = tree.to_string();
        let (keys, values): (Vec<String>, Vec<Vec<u8>>) = records.into_iter().unzip();
        self.inner.pool.run(move |connection| {
            connection.query(
                "INSERT INTO records (tree, key, value)
                     SELECT $1, r.key, r.value FROM unnest($2::text[], $3::bytea[]) AS r(key, value)
                 ON CONFLICT (tree, key) DO UPDATE SET value = excluded.value",
                &[&tree, &keys, &values],
            )?;
            Ok(())
        })
    }

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
