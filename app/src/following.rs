//! What the readers that wait and follow need of the store, for the routes that stream: a
//! game's events after a version and the wait for its next one, the global log's durable
//! position and its moves, and whether this node is stopping (every wait then ends at once).

use crate::commands::Games;
use crate::error::ApiError;
use std::time::Duration;
use storage::Envelope;

impl Games {
    /// Up to `limit` stored events of game `id` after version `after`, without waiting.
    pub fn events_after(
        &self,
        id: &str,
        after: u64,
        limit: usize,
    ) -> Result<Vec<Envelope>, ApiError> {
        self.repository().events(id, after, limit)
    }

    /// Waits until game `id` has an event after `after`, or until `timeout`; its head either
    /// way. Ends early, answering `after`, when the node stops.
    pub async fn wait_for(&self, id: &str, after: u64, timeout: Duration) -> u64 {
        self.repository().wait_for(id, after, timeout).await
    }

    /// The last position of the global log below which every event is durable: where a
    /// follower of the whole log starts when it asks for nothing older.
    pub fn durable_position(&self) -> u64 {
        self.repository().durable_position()
    }

    /// Up to `limit` events of every stream after global position `after`, in log order.
    pub fn log_after(&self, after: u64, limit: usize) -> Result<Vec<Envelope>, ApiError> {
        self.repository().log_after(after, limit)
    }

    /// Whether other nodes share this node's store (and so write games this node must follow).
    pub fn shared(&self) -> bool {
        self.repository().shared()
    }

    /// The global log's positions as they become durable.
    pub fn positions(&self) -> tokio::sync::watch::Receiver<u64> {
        self.repository().positions()
    }

    /// The node stops: every wait (long-polls, event streams) ends now, and later ones do not
    /// wait, so their clients reconnect to another node at once.
    pub fn stop_waiting(&self) {
        self.repository().stop_waiting();
    }

    /// Whether the node is stopping (see [`Games::stop_waiting`]).
    pub fn stopping(&self) -> bool {
        self.repository().stopping()
    }

    /// Answers once the node stops (at once if it has).
    pub async fn stopped(&self) {
        self.repository().stopped().await;
    }
}

/// What `GET /metrics` shows of the games in memory and of the store's connections.
pub struct StoreGauges {
    /// Games folded in memory now.
    pub cached: usize,
    /// Uses of a game that found it folded, and uses that folded it, so far.
    pub hits: u64,
    pub misses: u64,
    /// Reads of a cached game on a shared store answered after a fence without reading the
    /// store, and those that read it.
    pub reads_fenced: u64,
    pub reads_read: u64,
    /// A database store's connections (none for sled).
    pub database: Option<storage::DatabaseGauges>,
}

impl Games {
    /// The gauges of the games in memory and of the store, for `GET /metrics`.
    pub fn store_gauges(&self) -> StoreGauges {
        let repository = self.repository();
        let (hits, misses) = repository.cache_counts();
        let (reads_fenced, reads_read) = repository.read_counts();
        StoreGauges {
            cached: repository.cached(),
            hits,
            misses,
            reads_fenced,
            reads_read,
            database: self.gauges.as_ref().map(|gauges| gauges()),
        }
    }
}
