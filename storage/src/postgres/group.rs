//! Group commit: the appends of this process go to PostgreSQL together.
//!
//! Appends are queued; the appender threads (one, see `APPEND_CONNECTIONS`), each with a
//! connection of its own, take everything waiting (up to [`MAX_GROUP`] batches) and write it with one call of
//! `avalanche_append_group` (`migrations/0003_*.sql`): one prepared statement, one round trip,
//! one transaction, one WAL flush, and one lock of the global log's head for the whole group.
//! While one group commits, the next gathers, as the sled committer batches its writes; while
//! appends come together, the appender also waits [`GATHER`] for more before it sends one. Every
//! batch still gets its own answer (appended, duplicate or conflict), exactly as if it had
//! been appended alone, and batches to one stream in one group are applied in queue order.
//!
//! The appender also carries fences (`Appender::fence`): a reader that must see every append
//! acknowledged anywhere before it asked waits for the next group of this process, whose
//! notice comes after theirs (`PostgresStore::settled_head`), instead of reading.
//!
//! A group is one transaction, so one batch the database refuses (an error, not a conflict:
//! conflicts and duplicates are answers) would refuse the others with it: then each batch of
//! the group is sent again alone, and only the faulty one fails. A connection lost during the
//! call leaves the outcome of every batch in it unknown; each caller gets that error.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use postgres::Row;

use super::pool::{Connection, Failure};
use super::seam::column;
use crate::envelope::{Appended, Batch};
use crate::error::{AppendError, StorageError};

/// The most batches one group carries.
pub(crate) const MAX_GROUP: usize = 256;

/// While appends come together (the last group held more than one), how long the appender
/// waits after it finds one for others to join its group, unless [`GATHERED`] are waiting:
/// each group costs PostgreSQL and both processes a fixed share (a statement, a commit, the
/// wake-ups of every node's listener), and on 2 cores a millisecond's wait served 4-9% more
/// commands on three nodes and 5-19% more on one (BENCHMARKS.md), as PostgreSQL's own
/// `commit_delay` does for its commits. An append alone is sent at once.
const GATHER: Duration = Duration::from_millis(1);

/// Appends enough for a group: the appender stops gathering when this many wait.
const GATHERED: usize = 64;

/// How long fences asked for while no append waits or is on its way wait for one to come
/// (a group to ride on) before they are answered that none came.
const FENCE_WAIT: Duration = Duration::from_millis(1);

/// After how long without a group a fence is answered at once that none is coming: a quiet
/// node's reads read rather than wait [`FENCE_WAIT`] first.
const QUIET: Duration = Duration::from_millis(10);

/// The group append: arrays of batches in, arrays of answers out.
pub(crate) const APPEND_GROUP: &str =
    "SELECT outcomes, first_versions, last_versions, last_positions
     FROM avalanche_append_group($1::text[], $2::bigint[], $3::text[], $4::text[], $5::json[],
         $6::bigint[], $7::boolean[], $8::integer[], $9::integer[], $10::text[], $11::integer[],
         $12::json[], $13::integer[], $14::integer[], $15::text[], $16::text[], $17::integer[],
         $18::integer[], $19::text[], $20::bytea[])";

/// What an append answers: appended (or a duplicate), refused (a conflict), or a storage error.
pub(crate) type Outcome = Result<Result<Appended, AppendError>, StorageError>;

/// One batch, checked and ready to be sent.
pub(crate) struct AppendParams {
    stream: String,
    expected: i64,
    actor: String,
    command_id: Option<String>,
    command: Option<serde_json::Value>,
    recorded_at_ns: i64,
    types: Vec<String>,
    schema_versions: Vec<i32>,
    payloads: Vec<serde_json::Value>,
    tags: Option<Vec<(String, String)>>,
    secrets: Vec<(String, Vec<u8>)>,
}

impl AppendParams {
    /// Checks `batch` against the limits; the batch as the group function's arguments.
    pub(crate) fn new(
        stream: &str,
        expected_version: u64,
        batch: Batch,
    ) -> Result<Self, AppendError> {
        crate::limits::validate(stream, &batch)?;
        let recorded_at_ns = batch.recorded_at.timestamp_nanos_opt().ok_or_else(|| {
            AppendError::Invalid("the time recorded is outside 1677-2262".to_string())
        })?;
        // A secret named twice keeps its last value, as a write of each in turn would.
        let mut secrets: Vec<(String, Vec<u8>)> = Vec::new();
        for (name, value) in batch.secrets {
            match secrets.iter_mut().find(|(known, _)| *known == name) {
                Some(slot) => slot.1 = value,
                None => secrets.push((name, value)),
            }
        }
        let mut types = Vec::with_capacity(batch.events.len());
        let mut schema_versions = Vec::with_capacity(batch.events.len());
        let mut payloads = Vec::with_capacity(batch.events.len());
        for event in batch.events {
            types.push(event.event_type);
            // Kept bit for bit in SQL's signed `integer`.
            schema_versions.push(event.schema_version as i32);
            payloads.push(event.payload);
        }
        Ok(AppendParams {
            stream: stream.to_string(),
            expected: i64::try_from(expected_version).unwrap_or(i64::MAX),
            actor: batch.actor,
            command_id: batch.command_id,
            command: batch.command,
            recorded_at_ns,
            types,
            schema_versions,
            payloads,
            tags: batch.tags,
            secrets,
        })
    }

    pub(crate) fn stream(&self) -> &str {
        &self.stream
    }

    fn expected(&self) -> u64 {
        u64::try_from(self.expected).unwrap_or_default()
    }
}

/// A 1-based index into a group's flattened arrays, as SQL's `integer`.
fn index(n: usize) -> Result<i32, StorageError> {
    i32::try_from(n + 1).map_err(|_| StorageError::Database("a group too large".into()))
}

/// Writes `group` with one call of the group function on `connection`: every batch's answer,
/// in order. `Err(Failure::Refused)` when the database refused the statement (nothing was
/// written), `Err(Failure::Broken)` when the outcome is unknown.
pub(crate) fn append_group(
    connection: &mut Connection,
    group: &[AppendParams],
) -> Result<Vec<Result<Appended, AppendError>>, Failure> {
    let n = group.len();
    let mut streams = Vec::with_capacity(n);
    let mut expected = Vec::with_capacity(n);
    let mut actors = Vec::with_capacity(n);
    let mut command_ids = Vec::with_capacity(n);
    let mut commands = Vec::with_capacity(n);
    let mut recorded = Vec::with_capacity(n);
    let mut set_tags = Vec::with_capacity(n);
    let (mut event_from, mut event_count) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut types, mut schema_versions, mut payloads) = (Vec::new(), Vec::new(), Vec::new());
    let (mut tag_from, mut tag_count) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut tag_names, mut tag_values) = (Vec::new(), Vec::new());
    let (mut secret_from, mut secret_count) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut secret_names, mut secret_values) = (Vec::new(), Vec::new());
    for params in group {
        streams.push(params.stream.as_str());
        expected.push(params.expected);
        actors.push(params.actor.as_str());
        command_ids.push(params.command_id.as_deref());
        commands.push(params.command.as_ref());
        recorded.push(params.recorded_at_ns);
        set_tags.push(params.tags.is_some());
        event_from.push(index(types.len()).map_err(Failure::Refused)?);
        event_count.push(params.types.len() as i32);
        types.extend(params.types.iter().map(String::as_str));
        schema_versions.extend(params.schema_versions.iter().copied());
        payloads.extend(params.payloads.iter());
        let tags = params.tags.as_deref().unwrap_or_default();
        tag_from.push(index(tag_names.len()).map_err(Failure::Refused)?);
        tag_count.push(tags.len() as i32);
        for (name, value) in tags {
            tag_names.push(name.as_str());
            tag_values.push(value.as_str());
        }
        secret_from.push(index(secret_names.len()).map_err(Failure::Refused)?);
        secret_count.push(params.secrets.len() as i32);
        for (name, value) in &params.secrets {
            secret_names.push(name.as_str());
            secret_values.push(value.as_slice());
        }
    }
    let rows = connection.query_or_refused(
        APPEND_GROUP,
        &[
            &streams,
            &expected,
            &actors,
            &command_ids,
            &commands,
            &recorded,
            &set_tags,
            &event_from,
            &event_count,
            &types,
            &schema_versions,
            &payloads,
            &tag_from,
            &tag_count,
            &tag_names,
            &tag_values,
            &secret_from,
            &secret_count,
            &secret_names,
            &secret_values,
        ],
    )?;
    answers(&rows, group).map_err(Failure::Broken)
}

/// The group function's row as one answer per batch.
fn answers(
    rows: &[Row],
    group: &[AppendParams],
) -> Result<Vec<Result<Appended, AppendError>>, StorageError> {
    let row = rows
        .first()
        .ok_or_else(|| StorageError::Database("the group append answered nothing".into()))?;
    let outcomes: Vec<Option<String>> = column(row, 0)?;
    let firsts: Vec<Option<i64>> = column(row, 1)?;
    let lasts: Vec<Option<i64>> = column(row, 2)?;
    let positions: Vec<Option<i64>> = column(row, 3)?;
    let number = |numbers: &[Option<i64>], i: usize| -> Result<u64, StorageError> {
        let value = numbers.get(i).copied().flatten().unwrap_or_default();
        u64::try_from(value).map_err(|_| StorageError::Corrupt(format!("negative number {value}")))
    };
    group
        .iter()
        .enumerate()
        .map(|(i, params)| {
            let outcome = outcomes.get(i).cloned().flatten().unwrap_or_default();
            Ok(match outcome.as_str() {
                "conflict" => Err(AppendError::Conflict {
                    expected: params.expected(),
                    actual: number(&lasts, i)?,
                }),
                "appended" | "duplicate" => Ok(Appended {
                    first_version: number(&firsts, i)?,
                    last_version: number(&lasts, i)?,
                    last_position: number(&positions, i)?,
                    duplicate: outcome == "duplicate",
                }),
                other => {
                    return Err(StorageError::Corrupt(format!(
                        "the group append answered {other:?} for batch {i}"
                    )))
                }
            })
        })
        .collect()
}

/// Writes `group`, and when the database refuses the group as a whole, each batch alone, so
/// that one faulty batch fails alone. One outcome per batch, in order.
pub(crate) fn append_group_or_each(
    connection: &mut Connection,
    group: &[AppendParams],
) -> Vec<Outcome> {
    match append_group(connection, group) {
        Ok(answers) => answers.into_iter().map(Ok).collect(),
        Err(Failure::Refused(error)) if group.len() > 1 => {
            tracing::warn!(%error, batches = group.len(), "a group append was refused; appending its batches one by one");
            group
                .iter()
                .map(
                    |params| match append_group(connection, std::slice::from_ref(params)) {
                        Ok(mut answers) => answers.pop().ok_or(StorageError::Closed),
                        Err(Failure::Refused(error) | Failure::Broken(error)) => Err(error),
                    },
                )
                .collect()
        }
        Err(Failure::Refused(error) | Failure::Broken(error)) => {
            group.iter().map(|_| Err(error.clone())).collect()
        }
    }
}

/// A batch waiting for its group, and where its answer goes.
struct Pending {
    params: AppendParams,
    answer: Box<dyn FnOnce(Outcome) + Send>,
}

/// Where a fence's answer goes: the last global position of the first group sent after it
/// was asked for, once that group has committed; `None` when no group follows at once.
type Fence = tokio::sync::oneshot::Sender<Option<u64>>;

#[derive(Default)]
struct Queue {
    pending: VecDeque<Pending>,
    /// Fences asked for since the last group was taken: the next group answers them.
    fences: Vec<Fence>,
    /// Appender threads sending a group now.
    sending: usize,
    /// When the last group was sent and answered.
    last_sent: Option<Instant>,
    closed: bool,
}

type SharedQueue = Arc<(Mutex<Queue>, Condvar)>;

/// The queue of appends and its threads; dropping it ends them once the queue is empty.
pub(crate) struct Appender {
    queue: SharedQueue,
}

impl Appender {
    /// Starts `threads` appender threads on `url` (each connects on its first group).
    pub(crate) fn start(url: &str, threads: usize) -> Result<Appender, StorageError> {
        let queue: SharedQueue = Arc::default();
        let url: Arc<str> = Arc::from(url);
        for n in 0..threads.max(1) {
            let queue = Arc::clone(&queue);
            let mut connection = Connection::new(Arc::clone(&url));
            std::thread::Builder::new()
                .name(format!("postgres-append-{n}"))
                .spawn(move || {
                    let mut together = false;
                    while let Some((group, fences)) = next_group(&queue, together) {
                        together = group.len() > 1;
                        let (params, answers): (Vec<AppendParams>, Vec<_>) =
                            group.into_iter().map(|p| (p.params, p.answer)).unzip();
                        let outcomes = if params.is_empty() {
                            Vec::new()
                        } else {
                            append_group_or_each(&mut connection, &params)
                        };
                        let last_position = committed_position(&outcomes);
                        for (answer, outcome) in answers.into_iter().zip(outcomes) {
                            answer(outcome);
                        }
                        for fence in fences {
                            let _ = fence.send(last_position);
                        }
                        if !params.is_empty() {
                            let (lock, _) = &*queue;
                            let mut queue = lock.lock().unwrap_or_else(PoisonError::into_inner);
                            queue.sending -= 1;
                            queue.last_sent = Some(Instant::now());
                        }
                    }
                })
                .map_err(|e| StorageError::Database(format!("cannot start a thread: {e}")))?;
        }
        Ok(Appender { queue })
    }

    fn submit(
        &self,
        params: AppendParams,
        answer: Box<dyn FnOnce(Outcome) + Send>,
    ) -> Result<(), StorageError> {
        let (lock, ready) = &*self.queue;
        let mut queue = lock.lock().unwrap_or_else(PoisonError::into_inner);
        if queue.closed {
            return Err(StorageError::Closed);
        }
        queue.pending.push_back(Pending { params, answer });
        // The appender waits for a first append, or for enough while it gathers.
        if queue.pending.len() == 1 || queue.pending.len() == GATHERED {
            ready.notify_one();
        }
        Ok(())
    }

    /// A fence: resolves with the last global position of the first group of appends sent
    /// after this call, once it has committed (its notice is then on its way to every
    /// listener, behind the notices of every append committed before this call: see
    /// `PostgresStore::settled_head`). `None` when no append came within [`FENCE_WAIT`] while
    /// none was waiting or on its way, at once when none came for [`QUIET`] (the caller
    /// reads rather than wait for appends that are not coming), and when the group appended
    /// nothing or failed.
    pub(crate) fn fence(&self) -> impl Future<Output = Option<u64>> + Send + 'static {
        let (lock, ready) = &*self.queue;
        let mut queue = lock.lock().unwrap_or_else(PoisonError::into_inner);
        let idle = queue.pending.is_empty() && queue.sending == 0;
        let quiet = idle && queue.last_sent.is_none_or(|at| at.elapsed() > QUIET);
        let answered = if queue.closed || quiet {
            None
        } else {
            let (fence, answered) = tokio::sync::oneshot::channel();
            queue.fences.push(fence);
            if idle {
                // The appender waits for an append: it starts the fences' wait for one.
                ready.notify_one();
            }
            Some(answered)
        };
        async move { answered?.await.ok().flatten() }
    }

    /// Appends with the next group; resolves when its group has committed (or failed).
    pub(crate) fn append(
        &self,
        params: AppendParams,
    ) -> impl Future<Output = Outcome> + Send + 'static {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let submitted = self.submit(
            params,
            Box::new(move |outcome| {
                let _ = answer.send(outcome);
            }),
        );
        async move {
            submitted?;
            answered.await.map_err(|_| StorageError::Closed)?
        }
    }

    /// Appends with the next group, blocking the calling thread until it is done.
    pub(crate) fn append_blocking(&self, params: AppendParams) -> Outcome {
        let (answer, answered) = std::sync::mpsc::sync_channel(1);
        self.submit(
            params,
            Box::new(move |outcome| {
                let _ = answer.send(outcome);
            }),
        )?;
        answered.recv().map_err(|_| StorageError::Closed)?
    }
}

impl Drop for Appender {
    fn drop(&mut self) {
        let (lock, ready) = &*self.queue;
        lock.lock().unwrap_or_else(PoisonError::into_inner).closed = true;
        ready.notify_all();
    }
}

/// Waits for appends and takes every one waiting (at most [`MAX_GROUP`]), after [`GATHER`]
/// for more when appends come `together`, with the fences asked for meanwhile (a group with
/// no appends when fences wait and no append does); `None` once the queue is closed and
/// empty.
fn next_group(queue: &SharedQueue, together: bool) -> Option<(Vec<Pending>, Vec<Fence>)> {
    let (lock, ready) = &**queue;
    let mut queue = lock.lock().unwrap_or_else(PoisonError::into_inner);
    while queue.pending.is_empty() {
        if !queue.fences.is_empty() {
            queue = wait_until(queue, ready, FENCE_WAIT, |queue| !queue.pending.is_empty());
            if queue.pending.is_empty() {
                // No append came: no group for these fences to ride on.
                return Some((Vec::new(), std::mem::take(&mut queue.fences)));
            }
            break;
        }
        if queue.closed {
            return None;
        }
        queue = ready.wait(queue).unwrap_or_else(PoisonError::into_inner);
    }
    if together {
        queue = wait_until(queue, ready, GATHER, |queue| {
            queue.pending.len() >= GATHERED
        });
    }
    let take = queue.pending.len().min(MAX_GROUP);
    queue.sending += 1;
    let fences = std::mem::take(&mut queue.fences);
    Some((queue.pending.drain(..take).collect(), fences))
}

/// Waits on `ready` until `enough` holds of the queue, the queue closes, or `wait` has passed.
fn wait_until<'a>(
    mut queue: MutexGuard<'a, Queue>,
    ready: &Condvar,
    wait: Duration,
    enough: impl Fn(&Queue) -> bool,
) -> MutexGuard<'a, Queue> {
    let until = Instant::now() + wait;
    while !enough(&queue) && !queue.closed {
        let Some(left) = until.checked_duration_since(Instant::now()) else {
            break;
        };
        queue = ready
            .wait_timeout(queue, left)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
    queue
}

/// The last global position the appends of a group took (each took it after the group's
/// fences were asked for), if it appended anything: `None` when every batch was refused, a
/// duplicate or failed.
fn committed_position(outcomes: &[Outcome]) -> Option<u64> {
    outcomes
        .iter()
        .filter_map(|outcome| match outcome {
            Ok(Ok(appended)) if !appended.duplicate => Some(appended.last_position),
            _ => None,
        })
        .max()
}
