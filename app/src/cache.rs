//! A bounded cache of folded games, least recently used out first: memory stays within a
//! setting however many games a server touches. A game in use (a command holds its lock, a
//! reader its handle) is never put out, so one game is never folded twice at once.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The games kept folded unless the settings say otherwise: about 2 KB each, so some 10 MB.
pub const DEFAULT_CAPACITY: usize = 5_000;

pub struct Lru<V> {
    capacity: usize,
    /// id -> (value, the tick of its last use, the id shared with `by_use`).
    entries: HashMap<Arc<str>, (Arc<V>, u64, Arc<str>)>,
    /// tick of last use -> id: the oldest first.
    by_use: BTreeMap<u64, Arc<str>>,
    tick: u64,
}

impl<V> Lru<V> {
    pub fn new(capacity: usize) -> Lru<V> {
        Lru {
            capacity: capacity.max(1),
            entries: HashMap::new(),
            by_use: BTreeMap::new(),
            tick: 0,
        }
    }

    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// The value of `id`, now the most recently used.
    pub fn get(&mut self, id: &str) -> Option<Arc<V>> {
        let tick = self.next_tick();
        let (value, used, key) = self.entries.get_mut(id)?;
        self.by_use.remove(used);
        *used = tick;
        self.by_use.insert(tick, Arc::clone(key));
        Some(Arc::clone(value))
    }

    /// The value of `id` if there is one, else `value` put in; either way the one kept.
    pub fn get_or_insert(&mut self, id: &str, value: V) -> Arc<V> {
        if let Some(kept) = self.get(id) {
            return kept;
        }
        let tick = self.next_tick();
        let value = Arc::new(value);
        let key: Arc<str> = Arc::from(id);
        self.entries.insert(
            Arc::clone(&key),
            (Arc::clone(&value), tick, Arc::clone(&key)),
        );
        self.by_use.insert(tick, key);
        self.shrink();
        value
    }

    pub fn remove(&mut self, id: &str) {
        if let Some((_, used, _)) = self.entries.remove(id) {
            self.by_use.remove(&used);
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Puts out the least recently used values beyond the capacity, skipping those in use.
    fn shrink(&mut self) {
        let mut excess = self.entries.len().saturating_sub(self.capacity);
        if excess == 0 {
            return;
        }
        let mut out = Vec::new();
        for (tick, id) in &self.by_use {
            if excess == 0 {
                break;
            }
            let in_use = self
                .entries
                .get(id)
                .is_some_and(|(value, _, _)| Arc::strong_count(value) > 1);
            if !in_use {
                out.push((*tick, Arc::clone(id)));
                excess -= 1;
            }
        }
        for (tick, id) in out {
            self.by_use.remove(&tick);
            self.entries.remove(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Lru;

    #[test]
    fn the_least_recently_used_game_goes_first() {
        let mut cache = Lru::new(2);
        drop(cache.get_or_insert("a", 1));
        drop(cache.get_or_insert("b", 2));
        drop(cache.get("a"));
        drop(cache.get_or_insert("c", 3));
        assert_eq!(cache.len(), 2);
        assert!(cache.get("b").is_none(), "b was used least recently");
        assert!(cache.get("a").is_some() && cache.get("c").is_some());
    }

    #[test]
    fn a_game_in_use_stays_until_it_is_let_go() {
        let mut cache = Lru::new(1);
        let held = cache.get_or_insert("a", 1);
        drop(cache.get_or_insert("b", 2));
        assert!(cache.get("a").is_some(), "a is held, so it stays");
        drop(held);
        drop(cache.get_or_insert("c", 3));
        assert_eq!(cache.len(), 1);
    }
}
