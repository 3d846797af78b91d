//! Moving up: copies a whole sled store into an empty PostgreSQL store, exactly, then audits
//! the copy against the original. Batches are appended in the order of the global log, so
//! every event keeps its version and its position; the PostgreSQL store adopts the sled
//! store's id, so every event keeps its id too.

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

/// Copies every stream (events, commands, tags, secrets) and every record of `from` into the
/// empty store `to`, then compares both in full. Refuses a target that holds anything.
pub fn copy_sled_to_postgres(
    from: &SledStore,
    to: &PostgresStore,
) -> Result<CopyReport, CopyError> {
    if !to.is_empty()? {
        return Err(CopyError::TargetNotEmpty);
    }
    to.adopt_store_id(from.store_id())?;
    let mut report = CopyReport::default();
    for tree in from.record_trees()? {
        for (key, value) in from.records_with_prefix(&tree, "")? {
            to.put_record(&tree, &key, &value)?;
            report.records += 1;
        }
    }
    let mut heads: HashMap<String, u64> = HashMap::new();
    let mut pending: Vec<Envelope> = Vec::new();
    let mut after = 0;
    loop {
        let page = from.read_all(after, PAGE)?;
        let Some(last) = page.last() else { break };
        after = last.position;
        for envelope in page {
            pending.push(envelope);
            let first = &pending[0];
            let command = from.command(&first.stream, first.version)?.ok_or_else(|| {
                CopyError::Mismatch(format!("{} v{}: no command", first.stream, first.version))
            })?;
            if command.first_version != first.version {
                return Err(CopyError::Mismatch(format!(
                    "{} v{}: the log does not begin a batch here",
                    first.stream, first.version
                )));
            }
            if (pending.len() as u64) < command.last_version - command.first_version + 1 {
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
            let appended = to.append_blocking(&stream, command.first_version - 1, batch)?;
            if appended.duplicate
                || appended.first_version != command.first_version
                || appended.last_version != command.last_version
                || appended.last_position != last_position
            {
                return Err(CopyError::Mismatch(format!(
                    "{stream} v{}..{}: appended as {appended:?}",
                    command.first_version, command.last_version
                )));
            }
        }
    }
    if let Some(open) = pending.first() {
        return Err(CopyError::Mismatch(format!(
            "{} v{}: the log ends inside a batch",
            open.stream, open.version
        )));
    }
    audit_copy(from, to, &heads)?;
    Ok(report)
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
        let mut version = 1;
        while version <= *head {
            let command = from.command(stream, version)?;
            if command != to.command(stream, version)? {
                return Err(differs(&format!("the command of v{version}")));
            }
            version = command.map_or(*head, |c| c.last_version) + 1;
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
