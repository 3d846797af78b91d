//! `EventStore` and `RecordStore` for [`PostgresStore`]: each call is one statement run on a
//! connection thread.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::{DateTime, Utc};
use postgres::types::FromSql;
use postgres::Row;
use tokio::sync::watch;

use super::group::AppendParams;
use super::pool::Connection;
use super::PostgresStore;
use crate::envelope::{Appended, Batch, Envelope, StoredCommand};
use crate::error::{AppendError, StorageError};
use crate::event_store::{BoxFuture, Coordination, EventStore, RecordStore};

/// The store's statements, each prepared once per connection.
pub(super) mod sql {
    pub const STORE_ID: &str = "WITH proposed AS (
             INSERT INTO store_meta (key, value) VALUES ('store_id', $1)
             ON CONFLICT (key) DO NOTHING RETURNING value)
         SELECT value FROM proposed
         UNION ALL SELECT value FROM store_meta WHERE key = 'store_id'";
    pub const LOG_HEAD: &str = "SELECT position FROM log_head";
    pub const HEAD: &str = "SELECT head FROM streams WHERE name = $1";
    pub const HEADS: &str = "SELECT name, head FROM streams WHERE name = ANY($1)";
    pub const APPENDED_FOR: &str = "SELECT first_version, last_version, last_position
         FROM batches WHERE stream = $1 AND command_id = $2";
    /// The next events of several streams at once, a question in the `n`th of each array: of
    /// stream `$1[n]`, after version `$2[n]`, at most `$3[n]`.
    pub const READ_STREAMS: &str = "SELECT x.*, w.n
         FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS w(stream, after, lim, n)
         CROSS JOIN LATERAL (
             SELECT e.stream, e.version, e.position, e.event_type,
                 e.schema_version, e.payload, b.actor, b.command_id, b.recorded_at_ns
             FROM (SELECT * FROM events WHERE stream = w.stream AND version > w.after
                   ORDER BY version LIMIT w.lim) e
             -- Each event's batch by its key (a join would scan the stream's batches).
             CROSS JOIN LATERAL (SELECT actor, command_id, recorded_at_ns FROM batches
                 WHERE stream = e.stream AND first_version = e.batch_first_version) b) x
         ORDER BY w.n, x.version";
    pub const READ_ALL: &str = "SELECT e.stream, e.version, e.position, e.event_type,
                e.schema_version, e.payload, b.actor, b.command_id, b.recorded_at_ns
         FROM events e
         JOIN batches b ON b.stream = e.stream AND b.first_version = e.batch_first_version
         WHERE e.position > $1 ORDER BY e.position LIMIT $2";
    pub const COMMAND: &str = "SELECT command_id, actor, command, recorded_at_ns, first_version,
                last_version, last_position
         FROM batches WHERE stream = $1 AND first_version <= $2 AND last_version >= $2";
    pub const TAGGED: &str = "SELECT stream FROM stream_tags
         WHERE name = $1 AND value = $2 AND stream > $3 ORDER BY stream LIMIT $4";
    pub const TAGS: &str = "SELECT tag_names, tag_values FROM streams WHERE name = $1";
    pub const LOCK_HEAD: &str = "SELECT head FROM streams WHERE name = $1 FOR UPDATE";
    pub const SET_TAGS: &str = "UPDATE streams SET tag_names = $2, tag_values = $3 WHERE name = $1";
    pub const CLEAR_TAG_INDEX: &str = "DELETE FROM stream_tags WHERE stream = $1";
    pub const FILL_TAG_INDEX: &str = "INSERT INTO stream_tags (name, value, stream)
        SELECT t.name, t.value, $1 FROM unnest($2::text[], $3::text[]) AS t(name, value)
        ON CONFLICT DO NOTHING";
    pub const SECRET: &str = "SELECT value FROM secrets WHERE stream = $1 AND name = $2";
    pub const REPLACE_SECRET: &str =
        "UPDATE secrets SET value = $3 WHERE stream = $1 AND name = $2 RETURNING name";
    pub const PUT_RECORD: &str = "INSERT INTO records (tree, key, value) VALUES ($1, $2, $3)
         ON CONFLICT (tree, key) DO UPDATE SET value = excluded.value";
    pub const GET_RECORD: &str = "SELECT value FROM records WHERE tree = $1 AND key = $2";
    pub const RECORDS_WITH_PREFIX: &str = "SELECT key, value FROM records
         WHERE tree = $1 AND key >= $2 AND starts_with(key, $2) ORDER BY key";
    pub const REMOVE_RECORD: &str = "DELETE FROM records WHERE tree = $1 AND key = $2 RETURNING 1";
}

/// Column `index` of `row`, or `Corrupt` when it does not hold what the schema says.
pub(super) fn column<'a, T: FromSql<'a>>(row: &'a Row, index: usize) -> Result<T, StorageError> {
    row.try_get(index)
        .map_err(|e| StorageError::Corrupt(format!("column {index}: {e}")))
}

/// A version, position or limit as SQL's `bigint`; beyond it, the largest (no row is there).
fn bigint<T: TryInto<i64>>(value: T) -> i64 {
    value.try_into().unwrap_or(i64::MAX)
}

fn from_bigint(value: i64) -> Result<u64, StorageError> {
    u64::try_from(value).map_err(|_| StorageError::Corrupt(format!("negative number {value}")))
}

fn time_of(nanos: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_nanos(nanos)
}

impl PostgresStore {
    fn envelope(&self, row: &Row) -> Result<Envelope, StorageError> {
        let position = from_bigint(column(row, 2)?)?;
        Ok(Envelope {
            stream: column(row, 0)?,
            version: from_bigint(column(row, 1)?)?,
            position,
            event_id: self.event_id(position),
            event_type: column(row, 3)?,
            schema_version: column::<i32>(row, 4)? as u32,
            payload: column(row, 5)?,
            actor: column(row, 6)?,
            command_id: column(row, 7)?,
            recorded_at: time_of(column(row, 8)?),
        })
    }

    /// Tells this process's waiting readers about an append that committed.
    /// `epoch` is the known heads' epoch from before the append was sent.
    pub(super) fn announce(&self, stream: &str, appended: &Appended, epoch: u64) {
        if appended.duplicate {
            return;
        }
        self.inner
            .heads
            .note_own(stream, appended.last_version, epoch);
        self.inner.watchers.announce(stream, appended.last_version);
        crate::watchers::raise(&self.inner.positions, appended.last_position);
    }

    /// Runs one read on a connection thread, blocking the caller until it answers.
    fn read<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, StorageError> + Send + 'static,
    ) -> Result<T, StorageError> {
        self.inner.pool.run(work)
    }
}

impl EventStore for PostgresStore {
    fn store_id(&self) -> u64 {
        self.inner.store_id.load(Ordering::Relaxed)
    }

    fn append<'a>(
        &'a self,
        stream: &'a str,
        expected_version: u64,
        batch: Batch,
    ) -> BoxFuture<'a, Result<Appended, AppendError>> {
        Box::pin(async move {
            let params = AppendParams::new(stream, expected_version, batch)?;
            let epoch = self.inner.heads.epoch();
            let appended = self.inner.appender.append(params).await??;
            self.announce(stream, &appended, epoch);
            Ok(appended)
        })
    }

    fn retag<'a>(
        &'a self,
        stream: &'a str,
        expected_version: u64,
        tags: Vec<(String, String)>,
    ) -> BoxFuture<'a, Result<(), AppendError>> {
        Box::pin(async move {
            crate::limits::validate_retag(stream, &tags)?;
            let stream = stream.to_string();
            let (names, values): (Vec<String>, Vec<String>) = tags.into_iter().unzip();
            // One transaction holding the stream's row, as an append does: a concurrent append
            // waits for it, or it finds the head moved.
            self.inner
                .pool
                .run_async(move |connection| {
                    let failed = |e: postgres::Error| super::pool::database_error(&e);
                    let mut transaction = connection.client()?.transaction().map_err(failed)?;
                    let rows = transaction
                        .query(sql::LOCK_HEAD, &[&stream])
                        .map_err(failed)?;
                    let Some(row) = rows.first() else {
                        return Ok(Err(AppendError::Invalid(format!(
                            "there is no stream \"{stream}\" to retag"
                        ))));
                    };
                    let head = from_bigint(column(row, 0)?)?;
                    if head != expected_version {
                        return Ok(Err(AppendError::Conflict {
                            expected: expected_version,
                            actual: head,
                        }));
                    }
                    transaction
                        .execute(sql::SET_TAGS, &[&stream, &names, &values])
                        .map_err(failed)?;
                    transaction
                        .execute(sql::CLEAR_TAG_INDEX, &[&stream])
                        .map_err(failed)?;
                    transaction
                        .execute(sql::FILL_TAG_INDEX, &[&stream, &names, &values])
                        .map_err(failed)?;
                    transaction.commit().map_err(failed)?;
                    Ok(Ok(()))
                })
                .await?
        })
    }

    fn append_blocking(
        &self,
        stream: &str,
        expected_version: u64,
        batch: Batch,
    ) -> Result<Appended, AppendError> {
        let params = AppendParams::new(stream, expected_version, batch)?;
        let epoch = self.inner.heads.epoch();
        let appended = self.inner.appender.append_blocking(params)??;
        self.announce(stream, &appended, epoch);
        Ok(appended)
    }

    fn head(&self, stream: &str) -> Result<u64, StorageError> {
        // With the heads other callers ask for meanwhile, in one statement (`together.rs`).
        self.inner.head_reads.ask(stream.to_string(), |streams| {
            self.read(move |connection| {
                connection
                    .read(sql::HEADS, &[&streams])?
                    .iter()
                    .map(|row| Ok((column(row, 0)?, from_bigint(column(row, 1)?)?)))
                    .collect()
            })
        })
    }

    fn appended_for(
        &self,
        stream: &str,
        command_id: &str,
    ) -> Result<Option<Appended>, StorageError> {
        let (stream, command_id) = (stream.to_string(), command_id.to_string());
        self.read(move |connection| {
            let rows = connection.read(sql::APPENDED_FOR, &[&stream, &command_id])?;
            rows.first()
                .map(|row| {
                    Ok(Appended {
                        first_version: from_bigint(column(row, 0)?)?,
                        last_version: from_bigint(column(row, 1)?)?,
                        last_position: from_bigint(column(row, 2)?)?,
                        duplicate: true,
                    })
                })
                .transpose()
        })
    }

    fn read_stream(
        &self,
        stream: &str,
        after_version: u64,
        limit: usize,
    ) -> Result<Vec<Envelope>, StorageError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        // With the reads other callers ask for meanwhile, in one statement (`together.rs`).
        let question = (stream.to_string(), after_version, limit);
        self.inner.stream_reads.ask(question, |questions| {
            let store = self.clone();
            self.read(move |connection| {
                let (mut streams, mut afters, mut limits) = (Vec::new(), Vec::new(), Vec::new());
                for (stream, after, limit) in &questions {
                    streams.push(stream.as_str());
                    afters.push(bigint(*after));
                    limits.push(bigint(*limit));
                }
                let rows = connection.read(sql::READ_STREAMS, &[&streams, &afters, &limits])?;
                let mut answers: HashMap<(String, u64, usize), Vec<Envelope>> = HashMap::new();
                for row in &rows {
                    // The question's number, from 1.
                    let n = from_bigint(column(row, 9)?)? as usize;
                    let question = questions.get(n.wrapping_sub(1)).ok_or_else(|| {
                        StorageError::Database(format!("no question {n} in a read of streams"))
                    })?;
                    answers
                        .entry(question.clone())
                        .or_default()
                        .push(store.envelope(row)?);
                }
                Ok(answers)
            })
        })
    }

    fn read_all(&self, after_position: u64, limit: usize) -> Result<Vec<Envelope>, StorageError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let store = self.clone();
        self.read(move |connection| {
            let rows =
                connection.read(sql::READ_ALL, &[&bigint(after_position), &bigint(limit)])?;
            rows.iter().map(|row| store.envelope(row)).collect()
        })
    }

    fn command(&self, stream: &str, version: u64) -> Result<Option<StoredCommand>, StorageError> {
        let stream = stream.to_string();
        self.read(move |connection| {
            let rows = connection.read(sql::COMMAND, &[&stream, &bigint(version)])?;
            rows.first()
                .map(|row| {
                    Ok(StoredCommand {
                        command_id: column(row, 0)?,
                        actor: column(row, 1)?,
                        command: column(row, 2)?,
                        recorded_at: time_of(column(row, 3)?),
                        first_version: from_bigint(column(row, 4)?)?,
                        last_version: from_bigint(column(row, 5)?)?,
                        last_position: from_bigint(column(row, 6)?)?,
                    })
                })
                .transpose()
        })
    }

    fn streams_tagged(
        &self,
        name: &str,
        value: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, StorageError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        // Stream names are never empty, so "after the empty name" is "from the first".
        let (name, value) = (name.to_string(), value.to_string());
        let after = after.unwrap_or_default().to_string();
        self.read(move |connection| {
            connection
                .read(sql::TAGGED, &[&name, &value, &after, &bigint(limit)])?
                .iter()
                .map(|row| column(row, 0))
                .collect()
        })
    }

    fn tags(&self, stream: &str) -> Result<Vec<(String, String)>, StorageError> {
        let stream = stream.to_string();
        self.read(move |connection| {
            let rows = connection.read(sql::TAGS, &[&stream])?;
            let Some(row) = rows.first() else {
                return Ok(Vec::new());
            };
            let names: Vec<String> = column(row, 0)?;
            let values: Vec<String> = column(row, 1)?;
            Ok(names.into_iter().zip(values).collect())
        })
    }

    fn secret(&self, stream: &str, name: &str) -> Result<Option<Vec<u8>>, StorageError> {
        let (stream, name) = (stream.to_string(), name.to_string());
        self.read(move |connection| {
            connection
                .read(sql::SECRET, &[&stream, &name])?
                .first()
                .map(|row| column(row, 0))
                .transpose()
        })
    }

    fn replace_secret(&self, stream: &str, name: &str, value: &[u8]) -> Result<bool, StorageError> {
        let (stream, name, value) = (stream.to_string(), name.to_string(), value.to_vec());
        self.read(move |connection| {
            let replaced = connection.query(sql::REPLACE_SECRET, &[&stream, &name, &value])?;
            Ok(!replaced.is_empty())
        })
    }

    fn wait_for<'a>(
        &'a self,
        stream: &'a str,
        after_version: u64,
        timeout: Duration,
    ) -> BoxFuture<'a, u64> {
        Box::pin(async move {
            // Watch first, then learn the head and announce it: an append that commits after
            // that is announced to this watch; one before it is in the head learnt. The head is
            // known without a read when this process heard every append of the stream since
            // it last knew it (`heads.rs`); otherwise it is read once, tracked from before.
            let mut watch = self.inner.watchers.watch(stream, || 0);
            if let Some(head) = self.inner.heads.get(stream) {
                self.inner.watchers.announce(stream, head);
                return watch.head_after(after_version, timeout).await;
            }
            let epoch = self.inner.heads.track(stream);
            let name = stream.to_string();
            let head = self
                .inner
                .pool
                .run_async(
                    move |connection| match connection.read(sql::HEAD, &[&name])?.first() {
                        Some(row) => from_bigint(column(row, 0)?),
                        None => Ok(0),
                    },
                )
                .await;
            match head {
                Ok(head) => {
                    self.inner.heads.read(stream, head, epoch);
                    self.inner.watchers.announce(stream, head);
                    watch.head_after(after_version, timeout).await
                }
                Err(error) => {
                    // The head is unknown: wait for an append to be announced, else answer
                    // "nothing new" rather than a head of 0.
                    tracing::warn!(%error, stream, "cannot read the head of a waited stream");
                    watch
                        .head_after(after_version, timeout)
                        .await
                        .max(after_version)
                }
            }
        })
    }

    fn subscribe_all(&self) -> watch::Receiver<u64> {
        self.inner.positions.subscribe()
    }
}

/// How long [`Coordination::settled_head`] waits for its fence before the caller reads
/// instead: a group's commit and its notice take a few milliseconds under load.
const SETTLE: Duration = Duration::from_millis(250);

impl Coordination for PostgresStore {
    fn shared(&self) -> bool {
        true
    }

    fn heard_head(&self, stream: &str) -> Option<u64> {
        self.inner.heads.get(stream)
    }

    // A fence on the notices instead of a read: notices reach every listener in commit order
    // (PostgreSQL queues a transaction's notices as it commits, one committing transaction at
    // a time, and a listener is handed them in that order). The first group of this
    // process's appends sent after this call takes its positions after every append
    // committed before the call, whose locks on the log's head it waits for (see "A global
    // order" in mod.rs); so once this process's listener has heard that group's last
    // position, it has heard every one of those appends and noted its stream's head, unless
    // it reconnected meanwhile (the epoch then moved, and the heads heard may miss some). No
    // query: the fence rides on a group that goes anyway. With no group waiting or on its
    // way, or when the group or the listener is slow, it gives up and the caller reads.
    fn settled_head<'a>(&'a self, stream: &'a str) -> BoxFuture<'a, Option<u64>> {
        Box::pin(async move {
            let epoch = self.inner.heads.epoch();
            let fence = self.inner.appender.fence();
            let settled = async {
                let position = fence.await?;
                let mut heard = self.inner.heard.subscribe();
                heard.wait_for(|heard| *heard >= position).await.ok()?;
                self.inner.heads.get_in(stream, epoch)
            };
            tokio::time::timeout(SETTLE, settled).await.ok().flatten()
        })
    }

    fn try_lease(&self, name: &str) -> Result<bool, StorageError> {
        self.inner.leases.try_take(name)
    }

    fn holds_lease(&self, name: &str) -> bool {
        self.inner.leases.holds(name)
    }

    fn release_lease(&self, name: &str) {
        self.inner.leases.release(name);
    }

    // Handed to this process's subscribers at once, and sent with NOTIFY, marked with this
    // store's sender id so that its own listener passes it over.
    fn broadcast<'a>(&'a self, message: &'a str) -> BoxFuture<'a, Result<(), StorageError>> {
        Box::pin(async move {
            crate::broadcasts::check(message)?;
            self.inner.broadcasts.deliver(message);
            let payload = format!("{:016x} {message}", self.inner.sender);
            self.inner
                .pool
                .run_async(move |connection| {
                    connection.query(
                        "SELECT pg_notify($1, $2)",
                        &[&super::listener::BROADCASTS, &payload],
                    )?;
                    Ok(())
                })
                .await
        })
    }

    fn subscribe_broadcasts(&self) -> tokio::sync::broadcast::Receiver<String> {
        self.inner.broadcasts.subscribe()
    }
}

impl RecordStore for PostgresStore {
    fn put_record(&self, tree: &str, key: &str, value: &[u8]) -> Result<(), StorageError> {
        let (tree, key, value) = (tree.to_string(), key.to_string(), value.to_vec());
        self.read(move |connection| {
            connection.query(sql::PUT_RECORD, &[&tree, &key, &value])?;
            Ok(())
        })
    }

    fn put_record_async<'a>(
        &'a self,
        tree: &'a str,
        key: &'a str,
        value: &'a [u8],
    ) -> BoxFuture<'a, Result<(), StorageError>> {
        let (tree, key, value) = (tree.to_string(), key.to_string(), value.to_vec());
        Box::pin(self.inner.pool.run_async(move |connection| {
            connection.query(sql::PUT_RECORD, &[&tree, &key, &value])?;
            Ok(())
        }))
    }

    fn get_record(&self, tree: &str, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        let (tree, key) = (tree.to_string(), key.to_string());
        self.read(move |connection| {
            connection
                .read(sql::GET_RECORD, &[&tree, &key])?
                .first()
                .map(|row| column(row, 0))
                .transpose()
        })
    }

    fn records_with_prefix(
        &self,
        tree: &str,
        prefix: &str,
    ) -> Result<Vec<(String, Vec<u8>)>, StorageError> {
        let (tree, prefix) = (tree.to_string(), prefix.to_string());
        self.read(move |connection| {
            connection
                .read(sql::RECORDS_WITH_PREFIX, &[&tree, &prefix])?
                .iter()
                .map(|row| Ok((column(row, 0)?, column(row, 1)?)))
                .collect()
        })
    }

    fn remove_record_async<'a>(
        &'a self,
        tree: &'a str,
        key: &'a str,
    ) -> BoxFuture<'a, Result<bool, StorageError>> {
        let (tree, key) = (tree.to_string(), key.to_string());
        Box::pin(self.inner.pool.run_async(move |connection| {
            Ok(!connection
                .query(sql::REMOVE_RECORD, &[&tree, &key])?
                .is_empty())
        }))
    }
}
