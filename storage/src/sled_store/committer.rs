//! The committer: one thread turns every append waiting in the queue into one group, written
//! and flushed together.
//!
//! Each flush rolls sled's IO buffer, which costs IO of its own; one group of appends, rather
//! than one append, lets concurrent appends share that cost (see `group_commit`). Each append of
//! a group is still checked on its own (expected version, command id) against the store as the
//! group before it left it. A group is written without a sled transaction, in an order that
//! lets opening the store make it all or nothing after a crash (see `recovery`).

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard, PoisonError};

use tokio::sync::oneshot;

use crate::envelope::Appended;
use crate::error::{AppendError, StorageError};
use crate::sled_store::codec;
use crate::sled_store::group_commit::GroupCommit;
use crate::sled_store::keys;
use crate::sled_store::recovery;
use crate::sled_store::trees::{IndexTree, IndexWrite, Trees};

/// Most appends written by one group.
const MAX_GROUP: usize = 256;

/// An appended batch and the flush ticket to wait for before answering, if any.
pub(crate) type Outcome = Result<(Appended, Option<u64>), AppendError>;

/// Where the committer sends its answer.
pub(crate) enum Reply {
    Async(oneshot::Sender<Outcome>),
    Blocking(mpsc::SyncSender<Outcome>),
}

impl Reply {
    fn send(self, outcome: Outcome) {
        // The appender may have given up waiting; the batch is written all the same.
        match self {
            Reply::Async(sender) => drop(sender.send(outcome)),
            Reply::Blocking(sender) => drop(sender.send(outcome)),
        }
    }
}

/// A checked, encoded batch on its way to the committer; with no events, a retag of an
/// existing stream (only its tags are written).
pub(crate) struct Request {
    pub stream: String,
    pub expected_version: u64,
    pub command_id: Option<String>,
    pub tags: Option<Vec<(String, String)>>,
    pub secrets: Vec<(String, Vec<u8>)>,
    pub events: u64,
    /// `codec::encode_batch_body` of the batch.
    pub body: Vec<u8>,
    pub reply: Reply,
}

#[derive(Default)]
struct QueueState {
    requests: Vec<Request>,
    shutdown: bool,
}

#[derive(Default)]
pub(crate) struct Queue {
    state: Mutex<QueueState>,
    ready: Condvar,
}

impl Queue {
    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn push(&self, request: Request) {
        let mut state = self.lock();
        if state.shutdown {
            drop(state);
            request.reply.send(Err(StorageError::Closed.into()));
            return;
        }
        state.requests.push(request);
        drop(state);
        self.ready.notify_one();
    }

    pub(crate) fn shut_down(&self) {
        self.lock().shutdown = true;
        self.ready.notify_all();
    }

    /// Shuts down and answers every waiting append with `Closed`.
    fn refuse_all(&self) {
        let waiting = {
            let mut state = self.lock();
            state.shutdown = true;
            std::mem::take(&mut state.requests)
        };
        for request in waiting {
            request.reply.send(Err(StorageError::Closed.into()));
        }
    }

    /// The next group, or `None` once shut down and empty.
    fn next_group(&self) -> Option<Vec<Request>> {
        let mut state = self.lock();
        while state.requests.is_empty() {
            if state.shutdown {
                return None;
            }
            state = self
                .ready
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        let take = state.requests.len().min(MAX_GROUP);
        Some(state.requests.drain(..take).collect())
    }
}

/// What the committer keeps between groups.
pub(crate) struct Committer {
    pub trees: Trees,
    pub group_commit: Arc<GroupCommit>,
    pub queue: Arc<Queue>,
    pub last_position: u64,
    pub last_stream_id: u64,
    pub heads: KnownHeads,
}

/// Most streams [`KnownHeads`] keeps (some 100 bytes each); past it, it starts again empty.
const MAX_KNOWN_HEADS: usize = 65_536;

/// The id and head of the streams the committer wrote to lately, as it wrote them. The
/// committer is the only writer of the `streams` tree once the store is open, so these are
/// what that tree holds: a stream played on again is checked without reading it.
#[derive(Default)]
pub(crate) struct KnownHeads(HashMap<String, (u64, u64)>);

impl KnownHeads {
    fn get(&self, stream: &str) -> Option<(u64, u64)> {
        self.0.get(stream).copied()
    }

    fn remember(&mut self, stream: &str, stream_id: u64, head: u64) {
        if let Some(known) = self.0.get_mut(stream) {
            *known = (stream_id, head);
            return;
        }
        if self.0.len() >= MAX_KNOWN_HEADS {
            self.0.clear();
        }
        self.0.insert(stream.to_string(), (stream_id, head));
    }
}

type Tags = Vec<(String, String)>;

/// One accepted append of a group, ready to write.
struct Accepted {
    stream: String,
    stream_id: u64,
    new_stream: bool,
    first_version: u64,
    last_version: u64,
    first_position: u64,
    last_position: u64,
    record: Vec<u8>,
    command_key: Option<Vec<u8>>,
    /// (the tags to remove from the index, the tags to put in), when the batch sets tags.
    tags: Option<(Tags, Tags)>,
    secrets: Vec<(String, Vec<u8>)>,
}

impl Accepted {
    /// Whether this appends events; a retag only replaces the stream's tags.
    fn has_events(&self) -> bool {
        self.first_version <= self.last_version
    }

    fn appended(&self, duplicate: bool) -> Appended {
        Appended {
            first_version: self.first_version,
            last_version: self.last_version,
            last_position: self.last_position,
            duplicate,
        }
    }
}

/// How one request of a group is answered.
enum Answer {
    /// Known before writing: a conflict, a stored duplicate, a failed check.
    Now(Outcome),
    /// Written by this group: the accepted append at this index.
    Written(usize),
    /// A repeat of a command id accepted earlier in this same group.
    RepeatOf(usize),
}

/// The group's view of the store: what the database says, updated by the group's own appends.
#[derive(Default)]
struct Overlay {
    streams: HashMap<String, (u64, u64)>,
    command_ids: HashMap<(u64, String), usize>,
    tags: HashMap<u64, Tags>,
}

impl Committer {
    pub(crate) fn run(mut self) {
        while let Some(group) = self.queue.next_group() {
            let committed = catch_unwind(AssertUnwindSafe(|| self.commit_group(group)));
            match committed {
                Ok(Ok(())) => {}
                Ok(Err(error)) => {
                    // A group is written without a transaction: after a failed write, what
                    // the trees hold is known only to the recovery of the next opening (see
                    // `recovery`). Stop appending rather than write on top of it.
                    tracing::error!(%error, "the event store could not write a group; appends are refused until it is opened again");
                    self.queue.refuse_all();
                    return;
                }
                Err(_) => {
                    // Whether the group was written is unknown, and so are the next
                    // positions: stop appending rather than risk writing over it. The group's
                    // appenders see their answer dropped, as do all later ones.
                    tracing::error!("the event store's committer panicked; appends are refused");
                    self.queue.refuse_all();
                    return;
                }
            }
        }
    }

    /// Checks, writes, flushes and answers a group; an error when the group could not be
    /// written (a failed flush is answered to the appenders, and appending goes on).
    fn commit_group(&mut self, group: Vec<Request>) -> Result<(), StorageError> {
        let mut overlay = Overlay::default();
        let mut accepted: Vec<Accepted> = Vec::new();
        let mut answers = Vec::with_capacity(group.len());
        let mut replies = Vec::with_capacity(group.len());
        let mut last_position = self.last_position;
        let mut last_stream_id = self.last_stream_id;
        for request in group {
            let answer = match self.check(
                &request,
                &mut overlay,
                &accepted,
                last_position,
                last_stream_id,
            ) {
                Ok(Checked::Accept(append)) => {
                    last_position = append.last_position;
                    last_stream_id = last_stream_id.max(append.stream_id);
                    accepted.push(*append);
                    Answer::Written(accepted.len() - 1)
                }
                Ok(Checked::Repeat(index)) => Answer::RepeatOf(index),
                Ok(Checked::Stored(appended)) => Answer::Now(Ok((
                    appended,
                    self.group_commit.flush_all(appended.last_position),
                ))),
                Err(error) => Answer::Now(Err(error)),
            };
            answers.push(answer);
            replies.push(request.reply);
        }
        tracing::debug!(
            appends = accepted.len(),
            last_position,
            "committing a group"
        );
        let written = if accepted.is_empty() {
            Ok(None)
        } else {
            self.write(&accepted, last_position).map(|()| {
                self.last_position = last_position;
                self.last_stream_id = last_stream_id;
                // Heads are remembered only once written: a group that fails to write stops
                // the committer.
                let mut heads = Vec::with_capacity(accepted.len());
                for a in &accepted {
                    self.heads.remember(&a.stream, a.stream_id, a.last_version);
                    heads.push((Arc::<str>::from(a.stream.as_str()), a.last_version));
                }
                Some(
                    self.group_commit
                        .written_quietly(Some(last_position), heads),
                )
            })
        };
        // The group is flushed here, in this thread, before anyone is answered: each
        // appender is woken once, when its append is durable (not once written and again once
        // flushed), and the appends that arrive meanwhile make the next group, so that there
        // is one group a flush rather than several (each flush rolls sled's IO buffer, which
        // wakes sled's IO threads). Flushing here rather than in the flusher thread spares
        // waking it and being woken by it.
        let write_failed = written.as_ref().err().cloned();
        let durable = match written {
            Ok(Some(ticket)) => self.group_commit.flush_blocking(ticket),
            Ok(None) => Ok(()),
            Err(error) => Err(error),
        };
        for (answer, reply) in answers.into_iter().zip(replies) {
            let outcome = match (answer, &durable) {
                (Answer::Now(outcome), _) => outcome,
                (Answer::Written(index), Ok(())) => Ok((accepted[index].appended(false), None)),
                (Answer::RepeatOf(index), Ok(())) => Ok((accepted[index].appended(true), None)),
                (_, Err(error)) => Err(error.clone().into()),
            };
            reply.send(outcome);
        }
        match write_failed {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// Checks one request against the store as the group so far left it.
    fn check(
        &self,
        request: &Request,
        overlay: &mut Overlay,
        accepted: &[Accepted],
        last_position: u64,
        last_stream_id: u64,
    ) -> Result<Checked, AppendError> {
        let trees = &self.trees;
        let stream = request.stream.as_str();
        let known = overlay
            .streams
            .get(stream)
            .copied()
            .or_else(|| self.heads.get(stream));
        let existing = match known {
            Some(_) => known,
            None => match trees
                .streams
                .get(stream.as_bytes())
                .map_err(StorageError::from)?
            {
                Some(value) => Some(keys::decode_stream(&value)?),
                None => None,
            },
        };
        if let (Some((stream_id, _)), Some(command_id)) = (existing, &request.command_id) {
            if let Some(index) = overlay.command_ids.get(&(stream_id, command_id.clone())) {
                return Ok(Checked::Repeat(*index));
            }
            let key = keys::stream_name(stream_id, command_id);
            if let Some(value) = trees.command_ids.get(key).map_err(StorageError::from)? {
                let (first_version, last_version, last_position) = codec::decode_appended(&value)?;
                return Ok(Checked::Stored(Appended {
                    first_version,
                    last_version,
                    last_position,
                    duplicate: true,
                }));
            }
        }
        if request.events == 0 && existing.is_none() {
            // A retag: it names a stream that must be there already.
            return Err(AppendError::Invalid(format!(
                "there is no stream \"{stream}\" to retag"
            )));
        }
        let head = existing.map_or(0, |(_, head)| head);
        if head != request.expected_version {
            return Err(AppendError::Conflict {
                expected: request.expected_version,
                actual: head,
            });
        }
        let (stream_id, new_stream) = match existing {
            Some((stream_id, _)) => (stream_id, false),
            None => (last_stream_id + 1, true),
        };
        let tags = match &request.tags {
            None => None,
            Some(tags) => {
                let old = match overlay.tags.get(&stream_id) {
                    Some(old) => old.clone(),
                    None if new_stream => Vec::new(),
                    None => match trees
                        .stream_tags
                        .get(stream_id.to_be_bytes())
                        .map_err(StorageError::from)?
                    {
                        Some(bytes) => codec::decode_tags(&bytes)?,
                        None => Vec::new(),
                    },
                };
                overlay.tags.insert(stream_id, tags.clone());
                Some((old, tags.clone()))
            }
        };
        let first_version = head + 1;
        let last_version = head + request.events;
        let append = Accepted {
            stream: request.stream.clone(),
            stream_id,
            new_stream,
            first_version,
            last_version,
            first_position: last_position + 1,
            last_position: last_position + request.events,
            record: codec::encode_batch(stream_id, first_version, &request.body),
            command_key: request
                .command_id
                .as_deref()
                .map(|command_id| keys::stream_name(stream_id, command_id)),
            tags,
            secrets: request.secrets.clone(),
        };
        overlay
            .streams
            .insert(request.stream.clone(), (stream_id, last_version));
        if let Some(command_id) = &request.command_id {
            overlay
                .command_ids
                .insert((stream_id, command_id.clone()), accepted.len());
        }
        Ok(Checked::Accept(Box::new(append)))
    }

    /// Writes the accepted appends, in order, as one group (see `recovery`).
    fn write(&self, accepted: &[Accepted], last_position: u64) -> Result<(), StorageError> {
        let batches = accepted
            .iter()
            .filter(|append| append.has_events())
            .map(|append| (append.first_position, append.record.as_slice()));
        recovery::write_group(&self.trees, batches, last_position, &index_writes(accepted))
    }
}

/// The index writes of the accepted appends, in order. Without a transaction readers may see
/// a group half written, so each append's writes come in the order that keeps what they see
/// whole: first what nothing finds without the stream's head (its secrets, name, command id
/// and batch index), then the head, which makes the new events readable, then the tags, which
/// make the stream found by a list. A changed tag is put in before the old one is taken out, so
/// that a list shows a stream under both values for a moment rather than under neither.
fn index_writes(accepted: &[Accepted]) -> Vec<IndexWrite> {
    let mut writes = Vec::with_capacity(accepted.len() * 3);
    for append in accepted {
        let stream_key = append.stream_id.to_be_bytes();
        for (name, value) in &append.secrets {
            writes.push(IndexWrite::put(
                IndexTree::Secrets,
                keys::stream_name(append.stream_id, name),
                value.as_slice(),
            ));
        }
        if append.new_stream {
            writes.push(IndexWrite::put(
                IndexTree::StreamNames,
                stream_key,
                append.stream.as_bytes(),
            ));
        }
        if let Some(key) = &append.command_key {
            writes.push(IndexWrite::put(
                IndexTree::CommandIds,
                key.as_slice(),
                codec::encode_appended(
                    append.first_version,
                    append.last_version,
                    append.last_position,
                ),
            ));
        }
        if append.has_events() {
            writes.push(IndexWrite::put(
                IndexTree::StreamBatches,
                keys::stream_version(append.stream_id, append.first_version),
                keys::position(append.first_position),
            ));
            writes.push(IndexWrite::put(
                IndexTree::Streams,
                append.stream.as_bytes(),
                keys::stream_version(append.stream_id, append.last_version),
            ));
        }
        if let Some((old, new)) = &append.tags {
            for (name, value) in new {
                writes.push(IndexWrite::put(
                    IndexTree::TagIndex,
                    keys::tag_entry(name, value, &append.stream),
                    stream_key,
                ));
            }
            for (name, value) in old.iter().filter(|tag| !new.contains(tag)) {
                writes.push(IndexWrite::remove(
                    IndexTree::TagIndex,
                    keys::tag_entry(name, value, &append.stream),
                ));
            }
            writes.push(IndexWrite::put(
                IndexTree::StreamTags,
                stream_key,
                codec::encode_tags(new),
            ));
        }
    }
    writes
}

enum Checked {
    Accept(Box<Accepted>),
    Repeat(usize),
    Stored(Appended),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_heads_follow_each_write_and_start_again_when_full() {
        let mut heads = KnownHeads::default();
        heads.remember("game-1", 1, 3);
        heads.remember("game-1", 1, 5);
        assert_eq!(heads.get("game-1"), Some((1, 5)));
        assert_eq!(heads.get("game-2"), None);
        for n in 1..MAX_KNOWN_HEADS {
            heads.remember(&format!("other-{n}"), n as u64 + 1, 1);
        }
        assert_eq!(heads.0.len(), MAX_KNOWN_HEADS);
        // A stream already known is updated in place, without emptying the map.
        heads.remember("game-1", 1, 6);
        assert_eq!(heads.get("game-1"), Some((1, 6)));
        // A new one past the bound empties it first: what is forgotten is read from the tree.
        heads.remember("game-3", 99, 1);
        assert_eq!(heads.0.len(), 1);
        assert_eq!(heads.get("game-1"), None);
        assert_eq!(heads.get("game-3"), Some((99, 1)));
    }
}
