//! The club: ratings, players' pages and leaderboards as a projection of the event log (see
//! [`book`]), held in memory and followed as the log grows, and the waiting room's challenges
//! ([`challenges`]). Each node folds the global log in its one order, from the start when it
//! starts, so every node serves the same values, and `avalanche ratings --recompute` folds it
//! again from scratch to compare.

pub mod book;
pub mod challenges;
pub mod pages;
pub mod tournament_export;
pub mod tournaments;

use crate::archive::LOGGED_GAMES;
use crate::error::ApiError;
use book::Book;
use domain::Registry;
use std::collections::HashSet;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard};
use storage::{Envelope, Storage};

/// Events read from the log at a time.
const PAGE: usize = 1000;

/// The book and how it follows the log.
pub struct Club {
    store: Arc<dyn Storage>,
    registry: Arc<Registry>,
    book: RwLock<Book>,
    /// One fold at a time: the follower's and a reader's catching up.
    following: tokio::sync::Mutex<()>,
    /// One pass of the tournaments' driver at a time on this node.
    driving: tokio::sync::Mutex<()>,
    /// Each pool's leaderboard as last sorted (`pages`).
    rankings: std::sync::Mutex<std::collections::HashMap<String, Arc<pages::Ranking>>>,
}

impl Club {
    pub fn new(store: Arc<dyn Storage>, registry: Arc<Registry>) -> Club {
        Club {
            store,
            registry,
            book: RwLock::new(Book::default()),
            following: tokio::sync::Mutex::new(()),
            driving: tokio::sync::Mutex::new(()),
            rankings: std::sync::Mutex::default(),
        }
    }

    pub(crate) fn read(&self) -> RwLockReadGuard<'_, Book> {
        self.book.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn registry(&self) -> &Registry {
        &self.registry
    }

    pub(crate) fn store(&self) -> &Arc<dyn Storage> {
        &self.store
    }

    /// Refuses a filter by a kind of game there is not (`None`: no filter).
    pub(crate) fn known_kind(&self, kind: Option<&str>) -> Result<(), ApiError> {
        match kind {
            Some(kind) if self.registry.get(kind).is_none() => Err(ApiError::new(
                crate::ApiCode::UnknownKind,
                format!(
                    "There is no game \"{kind}\": kind is one of {}.",
                    self.registry.ids().join(", ")
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Folds the log up to what is durable now: a read after a command sees what the command
    /// changed. Cheap when nothing is new (no read of the store).
    pub async fn catch_up(&self) -> Result<(), ApiError> {
        self.catch_up_to(0).await
    }

    /// Folds the log up to what is durable now and at least to `position`: an answer to the
    /// player whose append ended at `position` shows it, even before the store has told its
    /// watchers that the position is durable (it tells them a moment after the append returns).
    pub async fn catch_up_to(&self, position: u64) -> Result<(), ApiError> {
        let durable = *self.store.subscribe_all().borrow();
        if self.read().position >= durable.max(position) {
            return Ok(());
        }
        let _one = self.following.lock().await;
        loop {
            let after = self.read().position;
            let store = self.store.clone();
            let page = tokio::task::spawn_blocking(move || read_page(&store, after))
                .await
                .map_err(ApiError::internal)??;
            let done = page.events.len() < PAGE;
            let mut book = self.book.write().unwrap_or_else(PoisonError::into_inner);
            for envelope in &page.events {
                book.fold(&self.registry, envelope, &|id| page.copies.contains(id));
            }
            drop(book);
            if done {
                return Ok(());
            }
        }
    }

    /// Follows the log for as long as the node runs: from its start when the node starts
    /// (the book is in memory only), then as positions become durable.
    pub async fn follow(&self) {
        let mut positions = self.store.subscribe_all();
        let started = std::time::Instant::now();
        match self.catch_up().await {
            Ok(()) => {
                let book = self.read();
                tracing::info!(
                    games = book.games.len(),
                    players = book.players.len(),
                    took_ms = started.elapsed().as_millis() as u64,
                    "club: ratings folded from the event log"
                );
            }
            Err(error) => tracing::error!(%error, "club: cannot fold the event log"),
        }
        loop {
            if positions.changed().await.is_err() {
                return;
            }
            if let Err(error) = self.catch_up().await {
                tracing::warn!(%error, "club: cannot follow the event log");
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            }
        }
    }
}

/// A page of the log, and which of the games created in it are copies of another game's past.
struct LogPage {
    events: Vec<Envelope>,
    copies: HashSet<String>,
}

fn read_page(store: &Arc<dyn Storage>, after: u64) -> Result<LogPage, ApiError> {
    let events = store.read_all(after, PAGE).map_err(ApiError::from)?;
    let mut copies = HashSet::new();
    for envelope in &events {
        if envelope.version == 1
            && envelope.stream.starts_with("g-")
            && store
                .get_record(LOGGED_GAMES, &envelope.stream)
                .map_err(ApiError::from)?
                .is_some()
        {
            copies.insert(envelope.stream.clone());
        }
    }
    Ok(LogPage { events, copies })
}

/// Folds a whole store's log from scratch, as `avalanche ratings --recompute` does: every
/// game written from another's log is known from one read of their list.
pub fn recompute(store: &dyn Storage, registry: &Registry) -> Result<Book, ApiError> {
    let copies: HashSet<String> = store
        .records_with_prefix(LOGGED_GAMES, "")
        .map_err(ApiError::from)?
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let mut book = Book::default();
    loop {
        let page = store
            .read_all(book.position, PAGE)
            .map_err(ApiError::from)?;
        for envelope in &page {
            book.fold(registry, envelope, &|id| copies.contains(id));
        }
        if page.len() < PAGE {
            return Ok(book);
        }
    }
}

/// What `avalanche ratings --recompute` prints: the log's position folded to, and every
/// rating by pool and player.
#[derive(serde::Serialize)]
pub struct Recomputed {
    pub position: u64,
    pub games: usize,
    pub ratings: std::collections::BTreeMap<
        String,
        std::collections::BTreeMap<String, domain::rating::Standing>,
    >,
}

impl From<&Book> for Recomputed {
    fn from(book: &Book) -> Recomputed {
        Recomputed {
            position: book.position,
            games: book.games.len(),
            ratings: book.ratings(),
        }
    }
}
