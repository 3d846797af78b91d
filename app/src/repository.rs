//! The repository: the one place that reads games from the store. It pages through streams,
//! folds them by kind, reads their secrets and keeps a bounded cache of folded games.
//!
//! # Folds that another server made stale
//!
//! When several servers share one database ([`storage::Coordination::shared`]), another server's
//! commands move a game's stream on without this server's cache knowing. Before a cached fold
//! answers a read ([`Repository::current`]) or decides a command (the command service's
//! [`Repository::catch_up`] under the game's lock), the events of its stream after its version
//! are read, none when it is current, and folded in: one read (on PostgreSQL sent together
//! with the other reads of the moment, one statement for them all). The
//! check is made against the store itself, not against the append notifications the servers
//! send each other: those wake waiting readers, but one may come late or be lost with a
//! connection, and a fold trusted on the strength of a notice would then answer from the past.
//! The one exception is a fence the store vouches for ([`Repository::settled`]): a head it
//! knows every append stored before the read began has reached, or no answer (then the read).
//! What remains, another server appending between the check and this server's append, is
//! caught by the store's expected version: the command service catches up and decides again.
//! A store no other process writes (sled) says it is not shared, and none of this runs.

use crate::cache::Lru;
use crate::error::ApiError;
use crate::nodes::ThisNode;
use crate::sealing::SecretsKey;
use chrono::{DateTime, Utc};
use domain::engine::{Context, Viewer};
use domain::registry::LiveGame;
use domain::table::{kind_of_stream, TurnHistory};
use domain::{Registry, Seed};
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use storage::{Envelope, FailureKind, Storage};

/// The secret under which a game's seed is stored, beside its events.
pub(crate) const SEED: &str = "seed";
/// The secret under which the seeds of a stream's earlier commitments are stored, 32 bytes
/// each, oldest first: a fork by takeback in a game with hidden cards was dealt up to the fork
/// from its parent's seed (see `domain/src/table/sealed.rs`). Absent when there are none.
pub(crate) const EARLIER_SEEDS: &str = "earlier_seeds";
/// Events read from the store at a time when folding a stream.
const PAGE: usize = 1000;

/// A game imported from elsewhere (a chess record or a game log): it is nobody's here (its
/// seats are imported players, no accounts) and counts for no rating or tournament.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
pub struct Imported {
    /// The player who imported it; absent for a game imported before the server kept it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "p-3f9a0c11d2e4b5a6")]
    pub by: Option<String>,
    /// When it was imported (absent as `by` is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<chrono::DateTime<chrono::Utc>>,
}

/// A game in memory: its folded state and its secret seeds.
pub struct Slot {
    pub id: String,
    pub game: Box<dyn LiveGame>,
    pub(crate) seed: Seed,
    /// The seeds of the stream's earlier commitments, oldest first (usually none).
    pub(crate) earlier: Vec<Seed>,
    /// Whether the game was imported, and by whom.
    pub imported: Option<Imported>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The turns played up to a version, read from the command log once and then only from
    /// the commands after it (`Games::turns_played`); `None` until first asked.
    pub(crate) turns: Option<(u64, TurnHistory)>,
}

impl Slot {
    /// How a player (or an anonymous reader) may see this game now.
    pub fn viewer(&self, player: Option<&str>) -> Viewer {
        self.game.viewer_for(player)
    }

    /// The game's secret seed: never shown, only copied into its forks or used to audit a
    /// running game without hidden information.
    pub(crate) fn secret_seed(&self) -> Seed {
        self.seed
    }

    /// The seeds of the stream's earlier commitments, oldest first: secret like the seed.
    pub(crate) fn earlier_seeds(&self) -> &[Seed] {
        &self.earlier
    }

    /// Every seed of the stream, oldest first, the current one last: what an audit of the
    /// whole stream decides with (`avalanche migrate` audits every game it copied).
    pub fn audit_seeds(&self) -> Vec<Seed> {
        let mut seeds = self.earlier.clone();
        seeds.push(self.seed);
        seeds
    }

    /// The context to decide a command on this game at its version, at `now`.
    pub(crate) fn context(&self, now: DateTime<Utc>) -> Context {
        Context::new(self.seed, self.game.facts().version, now)
            .with_earlier_seeds(self.earlier.clone())
    }
}

/// A folded game shared by the requests that use it; its lock puts one game's commands in a
/// row, in arrival order.
pub type SlotRef = Arc<tokio::sync::Mutex<Slot>>;

pub struct Repository {
    store: Arc<dyn Storage>,
    registry: Arc<Registry>,
    /// The key the games' seeds are sealed with in the store.
    key: Arc<SecretsKey>,
    cache: Mutex<Lru<tokio::sync::Mutex<Slot>>>,
    /// Uses of `slot` that found their game folded, and those that folded it (for metrics).
    hits: AtomicU64,
    misses: AtomicU64,
    /// Reads of a cached game on a shared store answered after a fence, without a read
    /// ([`Repository::settled`]), and those that read the events the fold lacked.
    fenced: AtomicU64,
    checked: AtomicU64,
    /// Whether other servers may write the store: then folds are checked before use.
    shared: bool,
    /// Set once the node stops: waiting readers are answered at once.
    stopping: tokio::sync::watch::Sender<bool>,
}

impl Repository {
    /// A repository over `store` keeping at most `cache_capacity` games folded.
    pub fn new(
        store: Arc<dyn Storage>,
        registry: Arc<Registry>,
        key: Arc<SecretsKey>,
        cache_capacity: usize,
    ) -> Repository {
        Repository {
            shared: store.shared(),
            store,
            registry,
            key,
            cache: Mutex::new(Lru::new(cache_capacity)),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            fenced: AtomicU64::new(0),
            checked: AtomicU64::new(0),
            stopping: tokio::sync::watch::channel(false).0,
        }
    }

    /// The node stops: every wait (long-polls, event streams) ends now, and later ones do
    /// not wait, so their clients reconnect to another node at once.
    pub fn stop_waiting(&self) {
        self.stopping.send_replace(true);
    }

    /// Whether the node is stopping (see [`Repository::stop_waiting`]).
    pub fn stopping(&self) -> bool {
        *self.stopping.borrow()
    }

    /// Answers once the node stops (at once if it has).
    pub async fn stopped(&self) {
        let mut stopping = self.stopping.subscribe();
        let _ = stopping.wait_for(|stopping| *stopping).await;
    }

    /// The global log's positions as they become durable (see
    /// [`storage::EventStore::subscribe_all`]).
    pub fn positions(&self) -> tokio::sync::watch::Receiver<u64> {
        self.store.subscribe_all()
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The key secrets are sealed with, for the parts that write them.
    pub(crate) fn key(&self) -> &SecretsKey {
        &self.key
    }

    /// The store, for the application's other parts (the command service appends through it).
    pub(crate) fn store(&self) -> &dyn Storage {
        self.store.as_ref()
    }

    /// Whether the store answers a read and takes a write now (the database is reachable, the
    /// disk takes writes), within `within`; why not, otherwise. The write is `node`'s record of
    /// its settings, durable like any other; the answer lists how the other nodes' settings
    /// differ from this node's.
    pub async fn store_answers(
        &self,
        node: &ThisNode,
        within: Duration,
    ) -> Result<Vec<String>, String> {
        let store = self.store.clone();
        let probe = async move {
            // A small record every store has once the server started: the key's check value.
            let reading = store.clone();
            tokio::task::spawn_blocking(move || reading.get_record("meta", "secrets_key"))
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| format!("a read failed: {e}"))?;
            node.announce(store.as_ref())
                .await
                .map_err(|e| format!("a write failed: {e}"))?;
            node.differences(&store)
                .await
                .map_err(|e| format!("a read failed: {e}"))
        };
        match tokio::time::timeout(within, probe).await {
            Ok(answer) => answer,
            Err(_) => Err(format!("no answer within {} ms", within.as_millis())),
        }
    }

    /// Writes `node`'s settings at start, and logs how other nodes' differ.
    pub async fn announce_node(&self, node: &ThisNode) {
        if let Err(error) = node.announce(self.store.as_ref()).await {
            tracing::warn!(%error, "cannot write this node's settings");
            return;
        }
        match node.differences(&self.store).await {
            Ok(differences) => {
                for difference in differences {
                    tracing::warn!(%difference, "the nodes of this store run with different settings");
                }
            }
            Err(error) => tracing::warn!(%error, "cannot read the other nodes' settings"),
        }
    }

    fn cache(&self) -> MutexGuard<'_, Lru<tokio::sync::Mutex<Slot>>> {
        // A panic while holding this lock cannot leave the cache torn: take it anyway.
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// How many games are folded in memory now.
    pub fn cached(&self) -> usize {
        self.cache().len()
    }

    /// Uses of a game that found it folded in memory, and those that folded it, so far.
    pub fn cache_counts(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// Reads of a cached game on a shared store so far: answered after a fence without a read
    /// of the store, and answered after reading the events the fold lacked.
    pub fn read_counts(&self) -> (u64, u64) {
        (
            self.fenced.load(Ordering::Relaxed),
            self.checked.load(Ordering::Relaxed),
        )
    }

    /// Whether other servers may write the store, so that a cached fold may lag its stream.
    pub(crate) fn shared(&self) -> bool {
        self.shared
    }

    /// The game `id` as its stream stands now, to answer a read: the cached fold, brought up
    /// to date first when other servers may have moved the stream on. When a command of this
    /// server holds the cached fold meanwhile, the game is folded afresh from the store for
    /// this read alone (the cached fold is brought up to date by its holder). One server
    /// alone on its store gets the cached fold as it is: nobody else moves it.
    pub fn current(&self, id: &str) -> Result<SlotRef, ApiError> {
        if !self.shared {
            return self.slot(id);
        }
        let Some(cached) = self.cache().get(id) else {
            return self.slot(id);
        };
        self.hits.fetch_add(1, Ordering::Relaxed);
        let Ok(mut slot) = cached.try_lock() else {
            return Ok(Arc::new(tokio::sync::Mutex::new(self.load(id)?)));
        };
        self.checked.fetch_add(1, Ordering::Relaxed);
        match events_after(self.store.as_ref(), id, slot.game.facts().version) {
            Ok(missing) => {
                self.fold_in(&mut slot, missing)?;
            }
            // The store is down: the fold in memory is served as it is (it may lack the last
            // moves another node stored just before), rather than no answer at all. No
            // command is decided on it: the command service reads the stream itself.
            Err(error) if error.kind() == FailureKind::Unavailable => {
                tracing::warn!(game = %id, %error, "the store is unavailable: a read is served from memory");
            }
            Err(error) => return Err(error.into()),
        }
        drop(slot);
        Ok(cached)
    }

    /// The cached fold of game `id` when the store can tell, without a read, that it holds
    /// every event stored before this call ([`storage::Coordination::settled_head`]), to answer
    /// a read; `None` when it cannot (or the game is not cached, or a command holds it): then
    /// [`Repository::current`] reads.
    pub async fn settled(&self, id: &str) -> Option<SlotRef> {
        let cached = self.cache().get(id)?;
        let head = self.store.settled_head(id).await?;
        let current = cached.try_lock().ok()?.game.facts().version >= head;
        current.then(|| {
            self.hits.fetch_add(1, Ordering::Relaxed);
            self.fenced.fetch_add(1, Ordering::Relaxed);
            cached
        })
    }

    /// Brings a fold up to its stream's head when other servers may have moved the stream on
    /// (a no-op otherwise), reading only the events it lacks: one read, which finds none when
    /// the fold is current. Returns whether it moved.
    pub(crate) fn catch_up(&self, slot: &mut Slot) -> Result<bool, ApiError> {
        if !self.shared {
            return Ok(false);
        }
        let missing = events_after(self.store.as_ref(), &slot.id, slot.game.facts().version)
            .map_err(ApiError::from)?;
        self.fold_in(slot, missing)
    }

    /// [`Repository::catch_up`] for a caller on an async worker: the read waits off its
    /// thread.
    pub(crate) async fn catch_up_async(&self, slot: &mut Slot) -> Result<bool, ApiError> {
        if !self.shared {
            return Ok(false);
        }
        let missing = self
            .events_after_async(&slot.id, slot.game.facts().version)
            .await?;
        self.fold_in(slot, missing)
    }

    /// Brings a fold up to the head this server last heard its stream at (another server's
    /// append it was told of), without reading the head: before a command is decided on the
    /// fold as it is, so that a fold known to be behind is not decided on only to conflict.
    /// The fold may still be behind after it; the append's version check tells. The read,
    /// when there is one, waits off the caller's thread.
    pub(crate) async fn catch_up_heard(&self, slot: &mut Slot) -> Result<bool, ApiError> {
        match self.store.heard_head(&slot.id) {
            Some(head) if self.shared && slot.game.facts().version < head => {
                let missing = self
                    .events_after_async(&slot.id, slot.game.facts().version)
                    .await?;
                self.fold_in(slot, missing)
            }
            _ => Ok(false),
        }
    }

    /// [`events_after`] on a blocking thread: on a shared store it waits for the
    /// database, which a worker serving other requests must not.
    async fn events_after_async(&self, id: &str, version: u64) -> Result<Vec<Envelope>, ApiError> {
        let (store, id) = (Arc::clone(&self.store), id.to_string());
        tokio::task::spawn_blocking(move || events_after(store.as_ref(), &id, version))
            .await
            .map_err(ApiError::internal)?
            .map_err(ApiError::from)
    }

    /// Folds `missing`, the events of its stream after its version, into a fold; folds the
    /// game again whole if they do not fold in. Returns whether it moved.
    fn fold_in(&self, slot: &mut Slot, missing: Vec<Envelope>) -> Result<bool, ApiError> {
        let Some(first) = missing.first() else {
            return Ok(false);
        };
        let mut game = slot.game.clone_box();
        let folded = first.version == game.facts().version + 1
            && missing.iter().all(|e| game.evolve(&e.payload).is_ok());
        if folded {
            if let Some(last) = missing.last() {
                slot.updated_at = last.recorded_at;
            }
            slot.game = game;
        } else {
            *slot = self.load(&slot.id)?;
        }
        Ok(true)
    }

    /// Brings a fold up to at least the last of `stored`, events of its stream in version order
    /// that a reader of the log saw stored: those it lacks are folded in from there when they
    /// follow its version, without reading the stream (the log holds every event of a stream,
    /// in order, so a page's events of one stream have no gap); otherwise what lies between
    /// is read. No read at all when the fold is there already. Returns whether it moved.
    pub(crate) fn catch_up_with(
        &self,
        slot: &mut Slot,
        stored: Vec<Envelope>,
    ) -> Result<bool, ApiError> {
        let version = slot.game.facts().version;
        let Some(seen) = stored.last().map(|e| e.version) else {
            return Ok(false);
        };
        if !self.shared || version >= seen {
            return Ok(false);
        }
        let missing: Vec<Envelope> = stored.into_iter().filter(|e| e.version > version).collect();
        let follows = missing.first().map(|e| e.version) == Some(version + 1)
            && missing.windows(2).all(|w| w[1].version == w[0].version + 1);
        if follows {
            return self.fold_in(slot, missing);
        }
        self.catch_up_to(slot, seen)
    }

    /// Brings a fold to at least version `head` of its stream (to its end as it is read);
    /// folds it again whole if its own events do not fold in (or the stream is somehow behind
    /// it).
    fn catch_up_to(&self, slot: &mut Slot, head: u64) -> Result<bool, ApiError> {
        let version = slot.game.facts().version;
        if head == version {
            return Ok(false);
        }
        if head < version {
            *slot = self.load(&slot.id)?;
            return Ok(true);
        }
        let missing =
            events_after(self.store.as_ref(), &slot.id, version).map_err(ApiError::from)?;
        self.fold_in(slot, missing)
    }

    /// The game `id` as this server folded it last (from the cache), or folded from its
    /// stream. For a command, which locks it and catches it up ([`Repository::catch_up`]).
    pub fn slot(&self, id: &str) -> Result<SlotRef, ApiError> {
        if let Some(slot) = self.cache().get(id) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(slot);
        }
        if !id.starts_with("g-") {
            // Other streams (a player's vacations) are not games.
            return Err(ApiError::game_not_found(id));
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let loaded = self.load(id)?;
        Ok(self.remember(loaded))
    }

    /// Keeps a game just folded or made (or the one already kept, if another request was first).
    pub(crate) fn remember(&self, slot: Slot) -> SlotRef {
        let id = slot.id.clone();
        self.cache()
            .get_or_insert(&id, tokio::sync::Mutex::new(slot))
    }

    /// Forgets a cached game, so that the next use folds it again from the store.
    pub(crate) fn forget(&self, id: &str) {
        self.cache().remove(id);
    }

    /// The envelopes of a stream from version 1, up to `up_to` (all when `None`).
    pub fn envelopes(&self, id: &str, up_to: Option<u64>) -> Result<Vec<Envelope>, ApiError> {
        let mut envelopes: Vec<Envelope> = Vec::new();
        loop {
            let from = envelopes.len() as u64;
            let want = match up_to {
                Some(last) if last <= from => break,
                Some(last) => PAGE.min((last - from) as usize),
                None => PAGE,
            };
            let page = self
                .store
                .read_stream(id, from, want)
                .map_err(ApiError::from)?;
            let done = page.len() < want;
            envelopes.extend(page);
            if done {
                break;
            }
        }
        Ok(envelopes)
    }

    /// Folds the payloads of a game's first events (from version 1) by the kind its first
    /// event names.
    pub fn fold(&self, id: &str, payloads: &[Value]) -> Result<Box<dyn LiveGame>, ApiError> {
        let Some(first) = payloads.first() else {
            return Err(ApiError::game_not_found(id));
        };
        let kind_id = kind_of_stream(first).unwrap_or_default();
        let kind = self
            .registry
            .get(&kind_id)
            .ok_or_else(|| ApiError::internal(format!("game {id} is of unknown kind {kind_id}")))?;
        kind.fold(payloads)
            .map_err(|e| ApiError::internal(format!("game {id} does not fold: {e}")))
    }

    /// Game `id` as it stood at `version`, folded from its stream.
    pub fn game_at(&self, id: &str, version: u64) -> Result<Box<dyn LiveGame>, ApiError> {
        let payloads: Vec<Value> = self
            .envelopes(id, Some(version))?
            .into_iter()
            .map(|e| e.payload)
            .collect();
        self.fold(id, &payloads)
    }

    /// The view `player` had of game `slot` at `version`.
    pub fn view_at(&self, slot: &Slot, version: u64, player: &str) -> Result<Value, ApiError> {
        let game = self.game_at(&slot.id, version)?;
        Ok(game.view(game.viewer_for(Some(player))))
    }

    /// The payloads of a game's whole stream.
    pub fn payloads(&self, id: &str) -> Result<Vec<Value>, ApiError> {
        Ok(self
            .envelopes(id, None)?
            .into_iter()
            .map(|e| e.payload)
            .collect())
    }

    /// Folds a game's whole stream, with its secrets.
    fn load(&self, id: &str) -> Result<Slot, ApiError> {
        let envelopes = self.envelopes(id, None)?;
        let (Some(first), Some(last)) = (envelopes.first(), envelopes.last()) else {
            return Err(ApiError::game_not_found(id));
        };
        let (created_at, updated_at) = (first.recorded_at, last.recorded_at);
        let payloads: Vec<Value> = envelopes.into_iter().map(|e| e.payload).collect();
        let game = self.fold(id, &payloads)?;
        let (seed, earlier) = self.secrets(id)?;
        let imported = self.imported(id, &game.facts().players)?;
        Ok(Slot {
            id: id.to_string(),
            game,
            seed,
            earlier,
            imported,
            created_at,
            updated_at,
            turns: None,
        })
    }

    /// A game's secret seed and the seeds of its earlier commitments.
    fn secrets(&self, id: &str) -> Result<(Seed, Vec<Seed>), ApiError> {
        let seed = self
            .seeds(id, SEED)?
            .ok_or_else(|| ApiError::internal(format!("game {id} has no seed")))?;
        let seed = Seed(
            seed.try_into()
                .map_err(|_| ApiError::internal(format!("game {id} has a malformed seed")))?,
        );
        let earlier = self
            .seeds(id, EARLIER_SEEDS)?
            .unwrap_or_default()
            .chunks(32)
            .map(|bytes| bytes.try_into().map(Seed))
            .collect::<Result<Vec<Seed>, _>>()
            .map_err(|_| ApiError::internal(format!("game {id} has malformed earlier seeds")))?;
        Ok((seed, earlier))
    }

    /// The seeds stored as secret `name` of game `id`, unsealed.
    fn seeds(&self, id: &str, name: &str) -> Result<Option<Vec<u8>>, ApiError> {
        let Some(stored) = self.store.secret(id, name).map_err(ApiError::from)? else {
            return Ok(None);
        };
        let seeds = self
            .key
            .open_seeds(id, name, &stored)
            .map_err(|e| ApiError::internal(format!("game {id}'s {name}: {e}")))?;
        Ok(Some(seeds))
    }

    /// Ids of games with an index entry, in id order, after `after`.
    pub fn ids_tagged(
        &self,
        name: &str,
        value: &str,
        after: Option<&str>,
        limit: usize,
    ) -> Result<Vec<String>, ApiError> {
        self.store
            .streams_tagged(name, value, after, limit)
            .map_err(ApiError::from)
    }

    /// Whether game `id` has the index entry `name = value`.
    pub fn has_entry(&self, id: &str, name: &str, value: &str) -> Result<bool, ApiError> {
        Ok(self
            .store
            .tags(id)
            .map_err(ApiError::from)?
            .iter()
            .any(|(tag, tagged)| tag == name && tagged == value))
    }

    /// Up to `limit` stored events of game `id` after version `after`.
    pub fn events(&self, id: &str, after: u64, limit: usize) -> Result<Vec<Envelope>, ApiError> {
        self.store
            .read_stream(id, after, limit)
            .map_err(ApiError::from)
    }

    /// The last position of the global log below which every event is durable.
    pub fn durable_position(&self) -> u64 {
        *self.store.subscribe_all().borrow()
    }

    /// Up to `limit` events of every stream after global position `after`, in log order.
    pub fn log_after(&self, after: u64, limit: usize) -> Result<Vec<Envelope>, ApiError> {
        self.store.read_all(after, limit).map_err(ApiError::from)
    }

    /// Waits until game `id` has an event after `after`, or until `timeout`; its head either way.
    /// Ends early, answering `after`, when the node stops.
    pub async fn wait_for(&self, id: &str, after: u64, timeout: Duration) -> u64 {
        // Biased: a node already stopping answers at once, without asking the store.
        tokio::select! {
            biased;
            () = self.stopped() => after,
            head = self.store.wait_for(id, after, timeout) => head,
        }
    }
}

/// Every event of stream `id` in `store` after `version`, read a page at a time.
fn events_after(
    store: &dyn Storage,
    id: &str,
    version: u64,
) -> Result<Vec<Envelope>, storage::StorageError> {
    let mut missing: Vec<Envelope> = Vec::new();
    loop {
        let page = store.read_stream(id, version + missing.len() as u64, PAGE)?;
        let done = page.len() < PAGE;
        missing.extend(page);
        if done {
            return Ok(missing);
        }
    }
}
