//! How much mail one recipient is sent, whoever asks for it: the times of the mails of one
//! kind sent to one address or player in the last window, kept in the store (so every node of
//! a database, and a server after a restart, counts the same mails). A recipient is keyed by
//! the SHA-256 of its lowercased address or id, so the record names nobody.

use crate::error::ApiError;
use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;
use storage::Storage;

/// The quotas' records: `<kind>/<SHA-256 of the recipient>`, a list of times.
const QUOTAS: &str = "mail_quotas";
/// The longest window of any quota: a record older than this is pruned.
const LONGEST: chrono::Duration = chrono::Duration::days(1);

pub struct Quotas {
    store: Arc<dyn Storage>,
    /// One count at a time on this node, so that two requests at once cannot both take the
    /// last mail of a quota.
    counting: tokio::sync::Mutex<()>,
}

fn key(kind: &str, recipient: &str) -> String {
    let digest = Sha256::digest(recipient.trim().to_lowercase().as_bytes());
    format!("{kind}/{}", hex::encode(digest))
}

impl Quotas {
    pub fn new(store: Arc<dyn Storage>) -> Quotas {
        Quotas {
            store,
            counting: tokio::sync::Mutex::new(()),
        }
    }

    /// Counts one mail of `kind` to `recipient` if fewer than `most` were counted in the last
    /// `window`, and says whether it was; a mail over the quota is not counted. `most` 0: no
    /// quota.
    pub async fn take(
        &self,
        kind: &str,
        recipient: &str,
        most: u32,
        window: Duration,
    ) -> Result<bool, ApiError> {
        if most == 0 {
            return Ok(true);
        }
        let _one = self.counting.lock().await;
        let key = key(kind, recipient);
        let now = Utc::now();
        let since = now - chrono::Duration::from_std(window).unwrap_or(LONGEST);
        let mut times: Vec<DateTime<Utc>> = self
            .store
            .get_record(QUOTAS, &key)
            .map_err(ApiError::internal)?
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        times.retain(|t| *t > since);
        if times.len() >= most as usize {
            return Ok(false);
        }
        times.push(now);
        let bytes = serde_json::to_vec(&times).map_err(ApiError::internal)?;
        self.store
            .put_record_async(QUOTAS, &key, &bytes)
            .await
            .map_err(ApiError::internal)?;
        Ok(true)
    }

    /// Forgets the recipients sent nothing within the longest window.
    pub async fn prune(&self) {
        let Ok(records) = self.store.records_with_prefix(QUOTAS, "") else {
            return;
        };
        let cutoff = Utc::now() - LONGEST;
        for (key, bytes) in records {
            let times: Vec<DateTime<Utc>> = serde_json::from_slice(&bytes).unwrap_or_default();
            if times.iter().all(|t| *t < cutoff) {
                let _ = self.store.remove_record_async(QUOTAS, &key).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_recipient_is_counted_whoever_asks_and_in_any_case() {
        let quotas = Quotas::new(Arc::new(storage::MemoryStore::new()));
        let day = Duration::from_secs(86_400);
        for _ in 0..2 {
            assert!(quotas
                .take("code", "Bea@Example.org", 2, day)
                .await
                .unwrap());
        }
        assert!(!quotas
            .take("code", "bea@example.org", 2, day)
            .await
            .unwrap());
        assert!(quotas.take("code", "cy@example.org", 2, day).await.unwrap());
        assert!(quotas
            .take("invite", "bea@example.org", 2, day)
            .await
            .unwrap());
        assert!(quotas
            .take("code", "bea@example.org", 0, day)
            .await
            .unwrap());
    }
}
