//! The next deadline of every active timed game, earliest first: what the clock keeper
//! watches (see [`crate::clock`]). Only (time, id) pairs: the games themselves need not stay
//! folded for their deadlines to be watched.

use chrono::{DateTime, Utc};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, MutexGuard, PoisonError};

#[derive(Default)]
pub struct Deadlines {
    inner: Mutex<ByTime>,
}

#[derive(Default)]
struct ByTime {
    by_time: BTreeSet<(DateTime<Utc>, String)>,
    by_game: HashMap<String, DateTime<Utc>>,
}

impl Deadlines {
    fn lock(&self) -> MutexGuard<'_, ByTime> {
        // Each change below is made whole under the lock: a panic cannot leave it torn.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Watches game `id`'s next deadline, or stops watching it (`None`).
    pub fn set(&self, id: &str, deadline: Option<DateTime<Utc>>) {
        let mut inner = self.lock();
        if let Some(old) = inner.by_game.remove(id) {
            inner.by_time.remove(&(old, id.to_string()));
        }
        if let Some(deadline) = deadline {
            inner.by_game.insert(id.to_string(), deadline);
            inner.by_time.insert((deadline, id.to_string()));
        }
    }

    /// The games whose next deadline is at or before `now`.
    pub fn due(&self, now: DateTime<Utc>) -> Vec<String> {
        self.lock()
            .by_time
            .iter()
            .take_while(|(deadline, _)| *deadline <= now)
            .map(|(_, id)| id.clone())
            .collect()
    }
}
