//! The nodes of one store and the settings they must agree on (limits, the webhooks' allowed
//! addresses): nodes with different limits treat one player differently depending on which
//! node a request reaches. Each node writes its settings in a record of its own
//! (`nodes/<node id>`) at start and with every readiness probe, and compares them with those of
//! the other nodes seen lately: a difference is logged at start and shown in `/ready`'s detail.

use crate::limits::LimitSettings;
use crate::webhooks::address::AddressPolicy;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use storage::{Storage, StorageError};

/// The record tree of the nodes' settings.
pub(crate) const NODES: &str = "nodes";
/// A node whose record is older than this is taken as gone.
const FRESH_SECONDS: i64 = 300;

/// What a node writes of itself.
#[derive(Debug, Serialize, Deserialize)]
struct NodeRecord {
    at: DateTime<Utc>,
    /// The settings the nodes of one store must agree on, by the name of their option.
    settings: BTreeMap<String, String>,
}

/// This node: its id (random, new at each start) and the settings it must agree on.
pub struct ThisNode {
    id: String,
    settings: BTreeMap<String, String>,
}

impl ThisNode {
    pub fn new(limits: &LimitSettings, addresses: &AddressPolicy) -> ThisNode {
        let mut hosts = addresses.allowed_hosts.clone();
        hosts.sort();
        let settings = [
            (
                "limit-players-per-hour",
                limits.players_per_hour_per_address.to_string(),
            ),
            (
                "limit-games-per-hour",
                limits.games_per_hour_per_player.to_string(),
            ),
            ("limit-open-seats", limits.open_seats_per_player.to_string()),
            (
                "limit-commands-per-second",
                limits.commands_per_second_per_player.to_string(),
            ),
            ("limit-streams", limits.streams_per_player.to_string()),
            ("webhook-allow-http", addresses.allow_http.to_string()),
            ("webhook-allow-host", hosts.join(",")),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect();
        let id = crate::randomness::random_hex::<8>()
            .unwrap_or_else(|_| format!("pid-{}", std::process::id()));
        ThisNode { id, settings }
    }

    /// Writes this node's record (durably: it is also the readiness probe's write).
    pub async fn announce(&self, store: &dyn Storage) -> Result<(), StorageError> {
        let record = NodeRecord {
            at: Utc::now(),
            settings: self.settings.clone(),
        };
        let bytes = serde_json::to_vec(&record)
            .map_err(|e| StorageError::Database(format!("cannot write JSON: {e}")))?;
        store.put_record_async(NODES, &self.id, &bytes).await
    }

    /// How the other nodes seen in the last minutes differ from this one, one sentence each.
    /// The records of nodes not seen for longer are removed, so that they do not pile up with
    /// every start (a live node writes its record again at its next readiness probe). The
    /// records are read on a blocking thread: a database's reads block.
    pub async fn differences(&self, store: &Arc<dyn Storage>) -> Result<Vec<String>, StorageError> {
        let reading = store.clone();
        let records = tokio::task::spawn_blocking(move || reading.records_with_prefix(NODES, ""))
            .await
            .map_err(|e| StorageError::Database(format!("the read of the nodes failed: {e}")))??;
        let now = Utc::now();
        let mut differences = Vec::new();
        for (id, bytes) in records {
            if id == self.id {
                continue;
            }
            let other = serde_json::from_slice::<NodeRecord>(&bytes).ok();
            let Some(other) = other.filter(|o| (now - o.at).num_seconds() <= FRESH_SECONDS) else {
                store.remove_record_async(NODES, &id).await?;
                continue;
            };
            for (name, ours) in &self.settings {
                let theirs = other.settings.get(name).map_or("(not set)", String::as_str);
                if theirs != ours {
                    differences.push(format!(
                        "node {id} runs with --{name} {theirs:?}, this node with {ours:?}"
                    ));
                }
            }
        }
        Ok(differences)
    }
}

impl crate::Games {
    /// Writes `node`'s settings at start, and logs how other nodes' differ.
    pub async fn announce_node(&self, node: &ThisNode) {
        self.repository().announce_node(node).await;
    }

    /// Whether this node can serve now, for readiness: it is not stopping, and its store
    /// answers a read and takes a write (`node`'s record of its settings) within `within`.
    /// Ready, with how the other nodes' settings differ from this node's; or why not.
    pub async fn readiness(
        &self,
        node: &ThisNode,
        within: Duration,
    ) -> Result<Vec<String>, String> {
        if self.stopping() {
            return Err("This node is stopping.".into());
        }
        self.repository()
            .store_answers(node, within)
            .await
            .map_err(|why| {
                format!("The store does not answer or takes no write ({why}): this node cannot serve now.")
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn nodes_with_other_limits_are_told_apart_and_alike_ones_are_not() {
        let store: Arc<dyn Storage> = Arc::new(storage::MemoryStore::new());
        let limits = LimitSettings::default();
        let policy = AddressPolicy::default();
        let first = ThisNode::new(&limits, &policy);
        let alike = ThisNode::new(&limits, &policy);
        let other = ThisNode::new(
            &LimitSettings {
                streams_per_player: limits.streams_per_player + 1,
                ..limits
            },
            &policy,
        );
        first.announce(store.as_ref()).await.unwrap();
        alike.announce(store.as_ref()).await.unwrap();
        assert_eq!(
            first.differences(&store).await.unwrap(),
            Vec::<String>::new()
        );
        other.announce(store.as_ref()).await.unwrap();
        let differences = first.differences(&store).await.unwrap();
        assert_eq!(differences.len(), 1, "{differences:?}");
        assert!(
            differences[0].contains("--limit-streams"),
            "{differences:?}"
        );
    }
}
