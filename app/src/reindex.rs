//! Bringing the index of a store written by an older server up to the current index policy,
//! at startup, without appending an event: streams stay byte for byte as they were.
//!
//! Version 2 of the policy added the `status_kind` entry (a list filtered by status and kind
//! reads only what it shows), version 3 the `open_seat` entries (a player's open seats are
//! counted for their quota). A store written before has games without them until each is
//! touched again. The reindex adds them to every such game, from the entries it has (`status`,
//! `kind`, `player`), then records the policy's version, so that it runs once per store. Until
//! it has finished, a list filtered by both walks the status and keeps the kind, as before,
//! and the quota of open seats counts only the games indexed already. Version 4 added the
//! `invited` entries of challenges (a player's stream finds the challenges issued to them
//! without reading the whole log): the reindex walks the log once for the challenges issued
//! before, and until it has, the player's stream reads the whole log as before.

use crate::commands::Games;
use crate::error::ApiError;
use crate::index;
use domain::table::Status;
use std::sync::atomic::Ordering;
use storage::AppendError;

/// The version of the index policy this server writes.
pub const INDEX_VERSION: u32 = 4;
/// Where the store records the index policy's version.
const META: (&str, &str) = ("meta", "index_version");
/// Games looked at per page of the index.
const PAGE: usize = 500;
/// Events of the log read per page while looking for challenges to index.
const LOG_PAGE: usize = 1000;

impl Games {
    /// Whether every game's index entries follow the current policy (the reindex is done).
    pub fn index_is_current(&self) -> bool {
        self.index_current.load(Ordering::Acquire)
    }

    /// Adds what the current index policy has and an older one lacked to every game, unless
    /// the store says it was done; returns how many games it changed. Safe while commands
    /// run: a game whose stream moves on meanwhile gets its entries from its own new batch.
    pub async fn reindex(&self) -> Result<usize, ApiError> {
        let store = self.repository().store();
        let recorded = store
            .get_record(META.0, META.1)
            .map_err(ApiError::from)?
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .and_then(|text| text.parse::<u32>().ok());
        if recorded.is_some_and(|version| version >= INDEX_VERSION) {
            self.index_current.store(true, Ordering::Release);
            return Ok(0);
        }
        let mut changed = 0;
        let mut looked = 0;
        let mut after: Option<String> = None;
        loop {
            let (name, value) = index::LISTED;
            let page = self
                .repository()
                .ids_tagged(name, value, after.as_deref(), PAGE)?;
            // A page at once, so that its retags share the store's flushes.
            let added =
                futures_util::future::join_all(page.iter().map(|id| self.add_missing_entries(id)))
                    .await;
            for added in added {
                if added? {
                    changed += 1;
                }
            }
            looked += page.len();
            if changed > 0 && page.len() == PAGE {
                tracing::info!(looked, changed, "reindexing the games of an older store");
            }
            match page.last() {
                Some(last) if page.len() == PAGE => after = Some(last.clone()),
                _ => break,
            }
        }
        if recorded.is_none_or(|version| version < 4) {
            changed += self.tag_challenges().await?;
        }
        store
            .put_record_async(META.0, META.1, INDEX_VERSION.to_string().as_bytes())
            .await
            .map_err(ApiError::from)?;
        self.index_current.store(true, Ordering::Release);
        Ok(changed)
    }

    /// Gives every challenge issued by an older server, which has no index entries, its
    /// `invited` ones: one walk of the log; how many it changed.
    async fn tag_challenges(&self) -> Result<usize, ApiError> {
        let repository = self.repository();
        let store = repository.store();
        let (mut after, mut changed) = (0, 0);
        loop {
            let page = repository.log_after(after, LOG_PAGE)?;
            let Some(last) = page.last() else {
                return Ok(changed);
            };
            after = last.position;
            for issued in page.iter().filter(|e| {
                e.version == 1 && e.stream.starts_with(crate::notices::CHALLENGE_PREFIX)
            }) {
                let invited: Vec<String> = issued
                    .payload
                    .get("invited")
                    .and_then(|invited| serde_json::from_value(invited.clone()).ok())
                    .unwrap_or_default();
                let stream = issued.stream.as_str();
                if invited.is_empty() || !store.tags(stream).map_err(ApiError::from)?.is_empty() {
                    continue;
                }
                let head = store.head(stream).map_err(ApiError::from)?;
                let tags = crate::club::challenges::invited_tags(&invited);
                match store.retag(stream, head, tags).await {
                    Ok(()) => changed += 1,
                    // Its stream moved on meanwhile: asked again, at its new head.
                    Err(AppendError::Conflict { .. }) => {
                        let head = store.head(stream).map_err(ApiError::from)?;
                        let tags = crate::club::challenges::invited_tags(&invited);
                        store.retag(stream, head, tags).await.map_err(|error| {
                            ApiError::internal(format!("reindex {stream}: {error}"))
                        })?;
                        changed += 1;
                    }
                    Err(error) => {
                        return Err(ApiError::internal(format!("reindex {stream}: {error}")))
                    }
                }
            }
        }
    }

    /// Gives game `id` the entries the current policy derives from those it has (its
    /// `status_kind`, and an `open_seat` for each player while it is open), if it lacks any;
    /// whether it changed anything.
    async fn add_missing_entries(&self, id: &str) -> Result<bool, ApiError> {
        let store = self.repository().store();
        // The head first: if the game moves on after it, the retag is refused and the new
        // batch has written the whole current entries itself.
        let head = store.head(id).map_err(ApiError::from)?;
        let mut tags = store.tags(id).map_err(ApiError::from)?;
        let missing: Vec<(String, String)> = derived(&tags)
            .into_iter()
            .filter(|entry| !tags.contains(entry))
            .collect();
        if missing.is_empty() {
            return Ok(false);
        }
        tags.extend(missing);
        match store.retag(id, head, tags).await {
            Ok(()) => Ok(true),
            Err(AppendError::Conflict { .. }) => Ok(false),
            Err(error) => Err(ApiError::internal(format!("reindex {id}: {error}"))),
        }
    }
}

/// The entries the current policy derives from a game's `status`, `kind` and `player` ones.
fn derived(tags: &[(String, String)]) -> Vec<(String, String)> {
    let value_of = |name: &str| {
        tags.iter()
            .find(|(tag, _)| tag == name)
            .map(|(_, value)| value.as_str())
    };
    let status = [Status::Open, Status::Active, Status::Finished]
        .into_iter()
        .find(|status| value_of(index::STATUS) == Some(status.as_str()));
    let (Some(status), Some(kind)) = (status, value_of(index::KIND)) else {
        return Vec::new();
    };
    let mut derived = vec![(
        index::STATUS_KIND.to_string(),
        index::status_kind(status, kind),
    )];
    if status == Status::Open {
        for (_, player) in tags.iter().filter(|(tag, _)| tag == index::PLAYER) {
            derived.push((index::OPEN_SEAT.to_string(), player.clone()));
        }
    }
    derived
}
