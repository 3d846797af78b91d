//! Moving up: copies a whole sled store into an empty PostgreSQL store, exactly, then audits
//! the copy against the original. Batches are appended in the order of the global log, so
//! every event keeps its version and its position; the PostgreSQL store adopts the sled
//! store's id, so every event keeps its id too.
//!
//! The batches go in groups ([`GROUP`] batches, or about [`GROUP_EVENTS`] events): each group
//! is one statement and one transaction on PostgreSQL ([`PostgresStore::append_many`]), so a
//! copy waits for one commit per group, not one per batch. Every batch still gets its own
//! answer, checked against the original's versions and position.

use std::collections::{BTreeMap, HashMap};

use crate::envelope::{Batch, Envelope, NewEvent};
use crate::error::{AppendError, StorageError};
use crate::event_store::{EventStore, RecordStore};
use crate::{PostgresStore, SledStore};

/// What a copy moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CopyReport {
    pub streams: u64,
    pub batches: u64,
    pub events: u64,
    pub secrets: u64,
    pub records: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error("the target database is not empty: a copy goes only into an empty store")]
    TargetNotEmpty,
    #[error(transparent)]
    Storage(#[from] StorageError),
    #[error("appending to the target failed: {0}")]
    Append(#[from] AppendError),
    /// The audit after the copy found a difference (or the source is inconsistent).
    #[error("the copy differs from the original: {0}")]
    Mismatch(String),
}

/// How many events a page of the global log holds while copying and auditing.
const PAGE: usize = 1000;

/// The most batches, and about the most events, one group of the copy carries.
pub const GROUP: usize = 500;
pub const GROUP_EVENTS: usize = 5000;

/// Copies every stream (events, commands, tags, secrets) and every record of `from` into the
/// empty store `to`, then compares both in full. Refuses a target that holds anything.
pub fn copy_sled_to_postgres(
    from: &SledStore,
    to: &PostgresStore,
) -> Result<CopyReport, CopyError> {
    copy_sled_to_postgres_with(from, to, &mut |_: &CopyReport, _: u64| {})
}

/// A batch sent in a group, and what the original says it must become.
struct Sent {
    stream: String,
    first_version: u64,
    last_version: u64,
    last_position: u64,
}

/// As [`copy_sled_to_postgres`], telling `progress` what was copied so far and the original's
/// last global position (the events to copy) after the records and after every group.
pub fn copy_sled_to_postgres_with(
    from: &SledStore,
    to: &PostgresStore,
    progress: &mut dyn FnMut(&CopyReport, u64),
) -> Result<CopyReport, CopyError> {
    if !to.is_empty()? {
        return Err(CopyError::TargetNotEmpty);
    }
    to.adopt_store_id(from.store_id())?;
    let total = *from.subscribe_all().borrow();
    let mut report = CopyReport::default();
    for tree in from.record_trees()? {
        let records = from.records_with_prefix(&tree, "")?;
        for chunk in records.chunks(GROUP) {
            report.records += chunk.len() as u64;
            to.put_records(&tree, chunk.to_vec())?;
        }
    }
    progress(&report, total);
    let mut group: Vec<(String, u64, Batch)> = Vec::new();
    let mut sent: Vec<Sent> = Vec::new();
    let mut group_events = 0;
    let mut current: Option<crate::envelope::StoredCommand> = None;
    let mut heads: HashMap<String, u64> = HashMap::new();
    let mut pending: Vec<Envelope> = Vec::new();
    let mut after = 0;
    loop {
        let page = from.read_all(after, PAGE)?;
        let Some(last) = page.last() else { break };
        after = last.position;
        for envelope in page {
            pending.push(envelope);
            // The command of the batch that begins with the first pending event, read once.
            let command = match current.take() {
                Some(command) => command,
                None => {
                    let first = &pending[0];
                    let command = from.command(&first.stream, first.version)?.ok_or_else(|| {
                        CopyError::Mismatch(format!(
                            "{} v{}: no command",
                            first.stream, first.version
                        ))
                    })?;
                    if command.first_version != first.version {
                        return Err(CopyError::Mismatch(format!(
                            "{} v{}: the log does not begin a batch here",
                            first.stream, first.version
                        )));
                    }
                    command
                }
            };
            if (pending.len() as u64) < command.last_version - command.first_version + 1 {
                if pending[pending.len() - 1].stream != pending[0].stream {
                    return Err(CopyError::Mismatch(format!(
                        "{} v{}: the batch is interleaved with another stream's events",
                        pending[0].stream, pending[0].version
                    )));
                }
                current = Some(command);
                continue;
            }
            let events = std::mem::take(&mut pending);
            let stream = events[0].stream.clone();
            let head = match heads.get(&stream) {
                Some(head) => *head,
                None => {
                    let head = from.head(&stream)?;
                    heads.insert(stream.clone(), head);
                    report.streams += 1;
                    head
                }
            };
            let secrets = if command.first_version == 1 {
                from.secrets(&stream)?
            } else {
                Vec::new()
            };
            report.secrets += secrets.len() as u64;
            // Only a stream's current tags can be read: its last batch sets them.
            let tags = if command.last_version == head {
                Some(from.tags(&stream)?).filter(|tags| !tags.is_empty())
            } else {
                None
            };
            let last_position = events.last().map_or(0, |e| e.position);
            report.events += events.len() as u64;
            report.batches += 1;
            let batch = Batch {
                events: events
                    .into_iter()
                    .map(|e| NewEvent {
                        event_type: e.event_type,
                        schema_version: e.schema_version,
                        payload: e.payload,
                    })
                    .collect(),
                actor: command.actor,
                command_id: command.command_id,
                command: command.command,
                recorded_at: command.recorded_at,
                tags,
                secrets,
            };
            group_events += batch.events.len();
            sent.push(Sent {
                stream: stream.clone(),
                first_version: command.first_version,
                last_version: command.last_version,
                last_position,
            });
            group.push((stream, command.first_version - 1, batch));
            if group.len() >= GROUP || group_events >= GROUP_EVENTS {
                send(to, &mut group, &mut sent)?;
                group_events = 0;
                progress(&report, total);
            }
        }
    }
    send(to, &mut group, &mut sent)?;
    progress(&report, total);
    if let Some(open) = pending.first() {
        return Err(CopyError::Mismatch(format!(
            "{} v{}: the log ends inside a batch",
            open.stream, open.version
        )));
    }
    audit_copy(from, to, &heads)?;
    Ok(report)
}

/// Appends the batches of `group` in one call and checks every answer against `sent`.
fn send(
    to: &PostgresStore,
    group: &mut Vec<(String, u64, Batch)>,
    sent: &mut Vec<Sent>,
) -> Result<(), CopyError> {
    if group.is_empty() {
        return Ok(());
    }
    let answers = to.append_many(std::mem::take(group))?;
    for (expected, answer) in sent.drain(..).zip(answers) {
        let appended = answer?;
        if appended.duplicate
            || appended.first_version != expected.first_version
            || appended.last_version != expected.last_version
            || appended.last_position != expected.last_position
        {
            return Err(CopyError::Mismatch(format!(
                "{} v{}..{}: appended as {appended:?}",
                expected.stream, expected.first_version, expected.last_version
            )));
        }
    }
    Ok(())
}

/// Compares the copy with the original: the global log envelope by envelope, and for every
/// stream its head, the command of every batch, its tags and its secrets; every record.
fn audit_copy(
    from: &SledStore,
    to: &PostgresStore,
    heads: &HashMap<String, u64>,
) -> Result<(), CopyError> {
    let mut after = 0;
    loop {
        let (original, copy) = (from.read_all(after, PAGE)?, to.read_all(after, PAGE)?);
        if original != copy {
            return Err(CopyError::Mismatch(format!(
                "the global log after position {after}"
            )));
        }
        let Some(last) = original.last() else { break };
        after = last.position;
    }
    let sorted: BTreeMap<&String, &u64> = heads.iter().collect();
    for (stream, head) in sorted {
        let differs = |what: &str| CopyError::Mismatch(format!("{stream}: {what}"));
        if to.head(stream)? != *head {
            return Err(differs("head"));
        }
        if from.tags(stream)? != to.tags(stream)? {
            return Err(differs("tags"));
        }
        if from.secrets(stream)? != to.secrets(stream)? {
            return Err(differs("secrets"));
        }
        let copied = to.commands(stream)?;
        let mut copied = copied.into_iter();
        let mut version = 1;
        while version <= *head {
            let command = from.command(stream, version)?;
            if command != copied.next() {
                return Err(differs(&format!("the command of v{version}")));
            }
            version = command.map_or(*head, |c| c.last_version) + 1;
        }
        if copied.next().is_some() {
            return Err(differs("a command past the head"));
        }
    }
    let trees = from.record_trees()?;
    if trees != to.record_trees()? {
        return Err(CopyError::Mismatch("the record trees".into()));
    }
    for tree in trees {
        if from.records_with_prefix(&tree, "")? != to.records_with_prefix(&tree, "")? {
            return Err(CopyError::Mismatch(format!("the records of {tree}")));
        }
    }
    Ok(())
}
