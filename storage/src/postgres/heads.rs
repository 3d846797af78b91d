//! The heads of streams this process knows to be current, without asking the database.
//!
//! Every append commits a head and sends it (`NOTIFY`, delivered in commit order) to every
//! listening process; this process learns its own appends' heads at once too. So once a head
//! of a stream is noted here, every later head of that stream reaches this map too, for as long
//! as the listener stays connected: an entry is the stream's head as of the last notification
//! delivered. A head read from the database is kept only when the stream was being tracked
//! from before the read began ([`KnownHeads::track`]), so that no append can commit between the
//! read and the tracking unseen. When the listener reconnects (notifications sent meanwhile
//! are lost) the map is cleared and its epoch moves on: a head read, or an own append's head,
//! learnt across a reconnect is not kept (an append of another process may have committed
//! after it, unheard). When it grows past [`CAPACITY`] streams it is cleared too: a stream
//! missing here is read from the database.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The most streams remembered at once.
pub(crate) const CAPACITY: usize = 100_000;

#[derive(Default)]
pub(crate) struct KnownHeads {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// `None`: tracked since a read began, head not known yet.
    heads: HashMap<Arc<str>, Option<u64>>,
    /// How many times the listener reconnected (and the map was cleared).
    epoch: u64,
}

impl KnownHeads {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The epoch now: taken before an append is sent, given back with its head.
    pub(crate) fn epoch(&self) -> u64 {
        self.lock().epoch
    }

    /// A head this process appended, sent in `epoch`: noted unless the listener reconnected
    /// since (then it may have missed later appends of other processes).
    pub(crate) fn note_own(&self, stream: &str, head: u64, epoch: u64) {
        if self.lock().epoch == epoch {
            self.note(stream, head);
        }
    }

    /// A head that committed, as its notification told the listener: the stream's head as of
    /// that commit, and every later one will be noted too.
    pub(crate) fn note(&self, stream: &str, head: u64) {
        let mut state = self.lock();
        let heads = &mut state.heads;
        match heads.get_mut(stream) {
            Some(known) => *known = Some(known.map_or(head, |k| k.max(head))),
            None => {
                if heads.len() >= CAPACITY {
                    heads.clear();
                }
                heads.insert(Arc::from(stream), Some(head));
            }
        }
    }

    /// The stream's head, when known without a read.
    pub(crate) fn get(&self, stream: &str) -> Option<u64> {
        self.lock().heads.get(stream).copied().flatten()
    }

    /// The stream's head, when known without a read and the listener has not reconnected
    /// since `epoch` (notifications sent meanwhile may be lost).
    pub(crate) fn get_in(&self, stream: &str, epoch: u64) -> Option<u64> {
        let state = self.lock();
        if state.epoch != epoch {
            return None;
        }
        state.heads.get(stream).copied().flatten()
    }

    /// Starts tracking `stream` before its head is read from the database; the epoch to give
    /// back with the head read.
    pub(crate) fn track(&self, stream: &str) -> u64 {
        let mut state = self.lock();
        let epoch = state.epoch;
        let heads = &mut state.heads;
        if !heads.contains_key(stream) {
            if heads.len() >= CAPACITY {
                heads.clear();
            }
            heads.insert(Arc::from(stream), None);
        }
        epoch
    }

    /// The head read from the database after [`KnownHeads::track`] gave `epoch`: kept if the
    /// stream is still tracked and the listener did not reconnect in between.
    pub(crate) fn read(&self, stream: &str, head: u64, epoch: u64) {
        let mut state = self.lock();
        if state.epoch != epoch {
            return;
        }
        if let Some(known) = state.heads.get_mut(stream) {
            *known = Some(known.map_or(head, |k| k.max(head)));
        }
    }

    /// Forgets everything and moves to the next epoch: notifications may have been lost.
    pub(crate) fn clear(&self) {
        let mut state = self.lock();
        state.heads.clear();
        state.epoch += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_read_counts_only_when_tracked_from_before_the_read() {
        let heads = KnownHeads::default();
        heads.read("g-1", 3, heads.epoch());
        assert_eq!(heads.get("g-1"), None, "not tracked: unknown");
        let epoch = heads.track("g-1");
        assert_eq!(heads.get("g-1"), None, "tracked, not read yet");
        heads.note("g-1", 5);
        heads.read("g-1", 4, epoch);
        assert_eq!(heads.get("g-1"), Some(5), "a head never goes back");
        let epoch = heads.track("g-2");
        heads.clear();
        heads.track("g-2");
        heads.read("g-2", 7, epoch);
        assert_eq!(
            heads.get("g-2"),
            None,
            "a read across a reconnect is not kept"
        );
        let epoch = heads.epoch();
        heads.clear();
        heads.note_own("g-3", 2, epoch);
        assert_eq!(
            heads.get("g-3"),
            None,
            "an own append across a reconnect is not kept"
        );
        heads.note_own("g-3", 2, heads.epoch());
        assert_eq!(heads.get("g-3"), Some(2));
    }

    #[test]
    fn a_noted_head_is_known_and_only_grows() {
        let heads = KnownHeads::default();
        heads.note("g-1", 2);
        heads.note("g-1", 1);
        assert_eq!(heads.get("g-1"), Some(2));
    }
}
