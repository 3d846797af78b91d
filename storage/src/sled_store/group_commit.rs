//! Group commit: one flush of sled at a time while writers wait, so concurrent appends share
//! each fsync.
//!
//! Every write done in sled takes a ticket (a sequence number) right after it is done. A flush
//! notes the last ticket handed out, flushes, and then declares every ticket up to the noted
//! one durable: each of those writes finished before that flush started. Writers that arrive
//! during a flush are served together by the next one.
//!
//! The flusher thread flushes for every writer; the committer flushes its own groups in its
//! own thread ([`GroupCommit::flush_blocking`]), which spares two thread hand-offs a group (the
//! committer waking the flusher, the flusher waking the committer). Only one flush runs at a
//! time, whoever runs it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;

use crate::error::StorageError;
use crate::sled_store::disk_sync::DiskSync;
use crate::watchers::Watchers;

/// How far flushing got, as seen by waiting writers.
#[derive(Clone, Debug, Default)]
struct Mark {
    flushed: u64,
    failed: u64,
    error: Option<Arc<str>>,
}

impl Mark {
    fn outcome(&self, ticket: u64) -> Option<Result<(), StorageError>> {
        if self.flushed >= ticket {
            Some(Ok(()))
        } else if self.failed >= ticket {
            let error = self.error.as_deref().unwrap_or("unknown error");
            Some(Err(StorageError::Flush(error.to_string())))
        } else {
            None
        }
    }
}

#[derive(Default)]
struct State {
    /// The last ticket handed out: every write up to it is done in sled.
    written: u64,
    /// The global position of the last append done in sled.
    written_position: u64,
    /// The highest ticket somebody waits for.
    requested: u64,
    mark: Mark,
    durable_position: u64,
    /// Flushes done, for benchmarks.
    flushes: u64,
    /// Stream heads to announce once their ticket is durable: (ticket, stream, head).
    heads: Vec<(u64, Arc<str>, u64)>,
    /// Whether a flush is under way (in the flusher or in the committer).
    flushing: bool,
    shutdown: bool,
}

impl State {
    /// Whether a written ticket is not yet flushed (nor failed).
    fn pending(&self) -> bool {
        self.requested > self.mark.flushed.max(self.mark.failed)
    }
}

/// What a flush needs: the database, what sled's flush leaves undone, and who to tell of new
/// stream heads.
pub(crate) struct Flush {
    pub db: sled::Db,
    /// Used by one flush at a time (see `State::flushing`): never contended.
    pub disk_sync: Mutex<Option<DiskSync>>,
    pub watchers: Arc<Watchers>,
}

pub(crate) struct GroupCommit {
    state: Mutex<State>,
    flush: Flush,
    /// Wakes the flusher.
    work: Condvar,
    /// Wakes blocking writers.
    done: Condvar,
    /// Wakes async writers.
    marks: watch::Sender<Mark>,
    /// The last durable global position, for background readers.
    positions: watch::Sender<u64>,
}

fn lock(mutex: &Mutex<State>) -> MutexGuard<'_, State> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl GroupCommit {
    pub(crate) fn new(durable_position: u64, flush: Flush) -> GroupCommit {
        GroupCommit {
            state: Mutex::new(State {
                written_position: durable_position,
                durable_position,
                ..State::default()
            }),
            flush,
            work: Condvar::new(),
            done: Condvar::new(),
            marks: watch::channel(Mark::default()).0,
            positions: watch::channel(durable_position).0,
        }
    }

    /// Takes a ticket for a write that is done in sled, and asks for a flush covering it.
    /// Only the committer appends, one group after the other, so tickets follow positions.
    pub(crate) fn written(&self, position: Option<u64>, heads: Vec<(Arc<str>, u64)>) -> u64 {
        let ticket = self.take_ticket(position, heads);
        self.work.notify_one();
        ticket
    }

    /// [`GroupCommit::written`] without waking the flusher: for the committer, which flushes
    /// its group itself ([`GroupCommit::flush_blocking`]).
    pub(crate) fn written_quietly(
        &self,
        position: Option<u64>,
        heads: Vec<(Arc<str>, u64)>,
    ) -> u64 {
        self.take_ticket(position, heads)
    }

    fn take_ticket(&self, position: Option<u64>, heads: Vec<(Arc<str>, u64)>) -> u64 {
        let mut state = lock(&self.state);
        state.written += 1;
        let ticket = state.written;
        if let Some(position) = position {
            state.written_position = state.written_position.max(position);
        }
        state.heads.extend(
            heads
                .into_iter()
                .map(|(stream, head)| (ticket, stream, head)),
        );
        state.requested = ticket;
        ticket
    }

    /// Asks for a flush of everything written so far, for a writer that found its work
    /// already done by someone else (a repeated command) and must not answer before it is durable.
    pub(crate) fn flush_all(&self, position: u64) -> Option<u64> {
        let state = lock(&self.state);
        if state.durable_position >= position {
            return None;
        }
        drop(state);
        Some(self.written(None, Vec::new()))
    }

    /// Waits in this thread until `ticket` is durable (the flusher, or the committer, flushes).
    pub(crate) fn wait_blocking(&self, ticket: u64) -> Result<(), StorageError> {
        self.until_durable(ticket, false)
    }

    /// Makes `ticket` durable in this thread: flushes here unless a flush is already under
    /// way (then waits for it, and flushes again if it did not cover the ticket).
    pub(crate) fn flush_blocking(&self, ticket: u64) -> Result<(), StorageError> {
        self.until_durable(ticket, true)
    }

    /// [`GroupCommit::wait_blocking`] and, with `may_flush`, [`GroupCommit::flush_blocking`]:
    /// only one flush runs at a time (`flushing`), whoever runs it.
    fn until_durable(&self, ticket: u64, may_flush: bool) -> Result<(), StorageError> {
        let mut state = lock(&self.state);
        loop {
            if let Some(outcome) = state.mark.outcome(ticket) {
                return outcome;
            }
            if may_flush && !state.flushing && state.pending() {
                let target = (state.written, state.written_position);
                state.flushing = true;
                drop(state);
                self.flush_round(target);
                state = lock(&self.state);
                continue;
            }
            if state.shutdown && !state.pending() {
                return Err(StorageError::Closed);
            }
            state = self
                .done
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    pub(crate) async fn wait(&self, ticket: u64) -> Result<(), StorageError> {
        let mut marks = self.marks.subscribe();
        let mark = marks
            .wait_for(|mark| mark.outcome(ticket).is_some())
            .await
            .map_err(|_| StorageError::Closed)?;
        mark.outcome(ticket).unwrap_or(Err(StorageError::Closed))
    }

    pub(crate) fn flushes(&self) -> u64 {
        lock(&self.state).flushes
    }

    pub(crate) fn durable_position(&self) -> u64 {
        lock(&self.state).durable_position
    }

    pub(crate) fn subscribe_positions(&self) -> watch::Receiver<u64> {
        self.positions.subscribe()
    }

    pub(crate) fn shut_down(&self) {
        lock(&self.state).shutdown = true;
        self.work.notify_all();
    }

    /// The flusher thread's loop; returns after `shut_down` once nothing is left to flush.
    pub(crate) fn run_flusher(self: Arc<Self>) {
        loop {
            let target = {
                let mut state = lock(&self.state);
                while state.flushing || !state.pending() {
                    if state.shutdown && !state.flushing && !state.pending() {
                        return;
                    }
                    state = self
                        .work
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                state.flushing = true;
                (state.written, state.written_position)
            };
            self.flush_round(target);
        }
    }

    /// One flush, claimed by the caller (`State::flushing` set): flushes sled, then finishes
    /// its job with the disk sync, declares every ticket up to `target`'s durable (or
    /// failed), wakes the writers waiting and announces the stream heads now durable.
    fn flush_round(&self, (target, position): (u64, u64)) {
        let result = match catch_unwind(AssertUnwindSafe(|| self.flush.db.flush())) {
            Ok(Ok(_)) => {
                let mut disk_sync = self
                    .flush
                    .disk_sync
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                match disk_sync.as_mut() {
                    Some(disk_sync) => disk_sync.sync().map_err(|e| format!("fsync: {e}")),
                    None => Ok(()),
                }
            }
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err("the database library panicked while flushing".to_string()),
        };
        let (mark, durable, heads, more) = {
            let mut state = lock(&self.state);
            let mut heads = Vec::new();
            state.flushes += 1;
            state.flushing = false;
            match result {
                Ok(()) => {
                    state.mark.flushed = state.mark.flushed.max(target);
                    state.durable_position = state.durable_position.max(position);
                    let (ready, pending) = std::mem::take(&mut state.heads)
                        .into_iter()
                        .partition(|(ticket, _, _)| *ticket <= target);
                    state.heads = pending;
                    heads = ready;
                }
                Err(error) => {
                    tracing::error!(%error, "flushing the event store failed");
                    state.mark.failed = state.mark.failed.max(target);
                    state.mark.error = Some(error.into());
                }
            }
            (
                state.mark.clone(),
                state.durable_position,
                heads,
                state.pending() || state.shutdown,
            )
        };
        // The watchers hear of the durable position before any writer waiting is woken: a
        // writer answers its client once woken, and the client's next read (the club's book
        // follows `positions`) must then see what it wrote.
        self.marks.send_replace(mark);
        crate::watchers::raise(&self.positions, durable);
        for (_, stream, head) in heads {
            self.flush.watchers.announce(&stream, head);
        }
        self.done.notify_all();
        if more {
            // Writes that came during this flush (or a shutdown) are the flusher's now.
            self.work.notify_one();
        }
    }
}
