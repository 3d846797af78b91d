//! Writing a backup of a running sled store (`GET /backup`), consistent without stopping the
//! node.
//!
//! The log is append-only: the global position made durable last is read first, and every
//! batch up to it is copied, none after, so the events are a state the store was in. What
//! changes in place is read after the log, and brought back to that position where it could
//! have moved past it:
//! - a stream's tags are those of its last copied batch: read before its head, they are kept
//!   when the head has not moved since; otherwise they are derived again from the game folded
//!   at that batch, by the index policy that wrote them;
//! - the cursors (how far the mail worker and each webhook have read the log) are lowered to
//!   the copied position, so that the notices of the events after them are sent again, at
//!   least once, as after any crash (a notice's id stays the same);
//! - every other record (players, tokens, webhooks, mail addresses and outbox, the key's
//!   check) is copied as it is when read, a moment later than the log: a player or token
//!   made in that moment is in the backup without a game of theirs, which harms nothing;
//! - the nodes' records are left out: they describe running processes, and the restored
//!   store's node writes its own.
//!
//! The secrets are copied sealed, as stored; the key is never in the backup.

use std::collections::BTreeMap;
use std::io::Write;

use storage::{EventStore, SledStore, StorageError};

use super::format::{BatchLine, EventLine, Header, Line, RecordLine, TagsLine, Writer, FORMAT};

/// The record trees whose values are global positions of the log (read up to there).
pub(crate) const CURSOR_TREES: &[&str] = &[
    crate::webhooks::CURSORS,
    crate::mail::outbound::outbox::CURSOR.0,
];
/// The record trees a backup leaves out.
const LEFT_OUT: &[&str] = &[crate::nodes::NODES];
/// Events read from the log at a time.
const PAGE: usize = 1000;

#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error("{0}")]
    Storage(#[from] StorageError),
    #[error("writing the backup: {0}")]
    Write(#[from] std::io::Error),
    #[error("the store is inconsistent: {0}")]
    Inconsistent(String),
}

/// A stream's tags (name, value), as the index policy derives them.
pub type Tags = Vec<(String, String)>;

/// Writes a backup of `store` to `out`. `tags_at(stream, version)` derives a stream's tags at
/// one of its versions, for a stream that moved on while the backup was written.
pub fn write_backup(
    store: &SledStore,
    tags_at: &dyn Fn(&str, u64) -> Option<Tags>,
    out: impl Write,
) -> Result<super::format::End, DumpError> {
    let head = *store.subscribe_all().borrow();
    let mut writer = Writer::new(out);
    writer.line(&Line::Header(Header {
        format: FORMAT.to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        store_id: format!("{:016x}", store.store_id()),
        head,
        taken_at: chrono::Utc::now(),
    }))?;
    let mut heads: BTreeMap<String, u64> = BTreeMap::new();
    let mut pending: Vec<storage::Envelope> = Vec::new();
    let mut current: Option<storage::StoredCommand> = None;
    let mut after = 0;
    'log: while after < head {
        let page = store.read_all(after, PAGE)?;
        if page.is_empty() {
            break;
        }
        for envelope in page {
            if envelope.position > head {
                break 'log;
            }
            after = envelope.position;
            pending.push(envelope);
            let command = match current.take() {
                Some(command) => command,
                None => {
                    let first = &pending[0];
                    let command =
                        store
                            .command(&first.stream, first.version)?
                            .ok_or_else(|| {
                                DumpError::Inconsistent(format!(
                                    "{} v{}: no command",
                                    first.stream, first.version
                                ))
                            })?;
                    if command.first_version != first.version {
                        return Err(DumpError::Inconsistent(format!(
                            "{} v{}: the log does not begin a batch here",
                            first.stream, first.version
                        )));
                    }
                    command
                }
            };
            let size = command.last_version - command.first_version + 1;
            if (pending.len() as u64) < size {
                current = Some(command);
                continue;
            }
            let events = std::mem::take(&mut pending);
            let stream = events[0].stream.clone();
            if events.iter().any(|e| e.stream != stream) {
                return Err(DumpError::Inconsistent(format!(
                    "{stream} v{}: a batch interleaved with another stream's events",
                    command.first_version
                )));
            }
            let secrets = if command.first_version == 1 {
                store
                    .secrets(&stream)?
                    .into_iter()
                    .map(|(name, value)| (name, hex::encode(value)))
                    .collect()
            } else {
                Vec::new()
            };
            heads.insert(stream.clone(), command.last_version);
            writer.line(&Line::Batch(BatchLine {
                stream,
                first_version: command.first_version,
                last_position: events.last().map_or(0, |e| e.position),
                actor: command.actor,
                command_id: command.command_id,
                command: command.command,
                recorded_at: command.recorded_at,
                secrets,
                events: events
                    .into_iter()
                    .map(|e| EventLine {
                        event_type: e.event_type,
                        schema_version: e.schema_version,
                        payload: e.payload,
                    })
                    .collect(),
            }))?;
        }
    }
    if let Some(open) = pending.first() {
        return Err(DumpError::Inconsistent(format!(
            "{} v{}: the log ends inside a batch",
            open.stream, open.version
        )));
    }
    for (stream, version) in &heads {
        // The tags first, then the head: a later batch writes its head before its tags, so a
        // head still at `version` means the tags read are those of `version`.
        let tags = store.tags(stream)?;
        let tags = if store.head(stream)? == *version {
            tags
        } else {
            tags_at(stream, *version).unwrap_or(tags)
        };
        if !tags.is_empty() {
            writer.line(&Line::Tags(TagsLine {
                stream: stream.clone(),
                tags,
            }))?;
        }
    }
    for tree in store.record_trees()? {
        if LEFT_OUT.contains(&tree.as_str()) {
            continue;
        }
        let cursor = CURSOR_TREES.contains(&tree.as_str());
        for (key, value) in store.records_with_prefix(&tree, "")? {
            let value = if cursor { lowered(&value, head) } else { value };
            writer.line(&Line::Record(RecordLine {
                tree: tree.clone(),
                key,
                value: hex::encode(value),
            }))?;
        }
    }
    Ok(writer.finish()?)
}

/// A cursor's value (a position in decimal) lowered to `head`; other values as they are.
fn lowered(value: &[u8], head: u64) -> Vec<u8> {
    match std::str::from_utf8(value)
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
    {
        Some(position) if position > head => head.to_string().into_bytes(),
        _ => value.to_vec(),
    }
}
