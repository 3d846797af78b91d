//! The next deadline of every active timed game, earliest first: what the clock keeper
//! watches (see [`crate::clock`]). Only (time, id) pairs: the games themselves need not stay
//! folded for their deadlines to be watched.

use chrono::{DateTime, Utc};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Mutex, MutexGuard, PoisonError};

#[derive(Default)]
pub struct Deadlines {
    inner: Mutex<ByTime>,
    /// When each game's next clock gets low (see [`crate::notices`]).
    warnings: Mutex<ByTime>,
}

#[derive(Default)]
struct ByTime {
    by_time: BTreeSet<(DateTime<Utc>, String)>,
    by_game: HashMap<String, DateTime<Utc>>,
}

impl ByTime {
    fn set(&mut self, id: &str, at: Option<DateTime<Utc>>) {
        if let Some(old) = self.by_game.remove(id) {
            self.by_time.remove(&(old, id.to_string()));
        }
        if let Some(at) = at {
            self.by_game.insert(id.to_string(), at);
            self.by_time.insert((at, id.to_string()));
        }
    }

    fn due(&self, now: DateTime<Utc>) -> Vec<String> {
        self.by_time
            .iter()
            .take_while(|(at, _)| *at <= now)
            .map(|(_, id)| id.clone())
            .collect()
    }
}

fn lock(times: &Mutex<ByTime>) -> MutexGuard<'_, ByTime> {
    // Each change is made whole under the lock: a panic cannot leave it torn.
    times.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Deadlines {
    /// Watches game `id`'s next deadline, or stops watching it (`None`).
    pub fn set(&self, id: &str, deadline: Option<DateTime<Utc>>) {
        lock(&self.inner).set(id, deadline);
    }

    /// The games whose next deadline is at or before `now`.
    pub fn due(&self, now: DateTime<Utc>) -> Vec<String> {
        lock(&self.inner).due(now)
    }

    /// Watches when game `id`'s next clock gets low, or stops watching it (`None`).
    pub fn set_warning(&self, id: &str, at: Option<DateTime<Utc>>) {
        lock(&self.warnings).set(id, at);
    }

    /// The games one of whose clocks got low at or before `now`.
    pub fn warnings_due(&self, now: DateTime<Utc>) -> Vec<String> {
        lock(&self.warnings).due(now)
    }
}
