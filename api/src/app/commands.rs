//! The flow of one command: load the game (a cached fold of its stream), let `domain` decide,
//! append the events durably, then fold them in and answer. Commands of one game are decided
//! one at a time, in arrival order (a fair lock per game); different games run in parallel.

use crate::players::{random_bytes, random_hex};
use crate::problem::ApiError;
use crate::routes::games::NewGame;
use chrono::{DateTime, Utc};
use domain::engine::{Context, Viewer};
use domain::registry::{EventRecord, LiveGame};
use domain::table::{Actor, Status, SystemCommand};
use domain::{Registry, Seed};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use storage::{AppendError, Batch, Envelope, NewEvent, Store};

/// The secret under which a game's seed is stored, beside its events.
const SEED: &str = "seed";
/// The secret under which the seeds of a stream's earlier commitments are stored, 32 bytes
/// each, oldest first: a fork by takeback in a game with hidden cards was dealt up to the fork
/// from its parent's seed (see `domain/src/table/sealed.rs`). Absent when there are none.
pub(crate) const EARLIER_SEEDS: &str = "earlier_seeds";
/// Every event's schema version today.
const SCHEMA_VERSION: u32 = 1;
/// Events read from the store at a time when folding a stream.
const PAGE: usize = 1000;

/// A game in memory: its folded state and its secret seed.
pub struct Slot {
    pub id: String,
    pub game: Box<dyn LiveGame>,
    seed: Seed,
    /// The seeds of the stream's earlier commitments, oldest first (usually none).
    earlier: Vec<Seed>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
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

    /// The context to decide a command on this game at `version`, now.
    fn context(&self, version: u64, now: DateTime<Utc>) -> Context {
        Context::new(self.seed, version, now).with_earlier_seeds(self.earlier.clone())
    }
}

pub type SlotRef = Arc<tokio::sync::Mutex<Slot>>;

/// The answer to a command: what was appended and the caller's new view of the game.
pub struct Played {
    pub first_version: u64,
    pub envelopes: Vec<Envelope>,
    pub duplicate: bool,
}

pub struct Games {
    store: Store,
    registry: Arc<Registry>,
    slots: Mutex<HashMap<String, SlotRef>>,
    deadlines: Mutex<Deadlines>,
    /// The players on vacation now (kept by [`crate::vacation::Vacations`]).
    away: Mutex<HashSet<String>>,
}

/// The next deadline of every active timed game, earliest first: what the clock keeper
/// watches (see [`crate::clock`]).
#[derive(Default)]
struct Deadlines {
    by_time: BTreeSet<(DateTime<Utc>, String)>,
    by_game: HashMap<String, DateTime<Utc>>,
}

impl Deadlines {
    fn set(&mut self, id: &str, deadline: Option<DateTime<Utc>>) {
        if let Some(old) = self.by_game.remove(id) {
            self.by_time.remove(&(old, id.to_string()));
        }
        if let Some(deadline) = deadline {
            self.by_game.insert(id.to_string(), deadline);
            self.by_time.insert((deadline, id.to_string()));
        }
    }
}

/// The index entries of a game, kept by the store in the same write as its events.
pub fn tags(game: &dyn LiveGame) -> Vec<(String, String)> {
    let mut tags = vec![
        ("listed".to_string(), "all".to_string()),
        ("kind".to_string(), game.kind().to_string()),
        ("status".to_string(), game.status().as_str().to_string()),
    ];
    for player in game.players().into_iter().flatten() {
        tags.push(("player".to_string(), player));
    }
    if let Some(parent) = game.parent() {
        tags.push(("parent".to_string(), parent.game));
    }
    // Superseded by a takeback with its seed kept: a restart checks it is revealed in time.
    if game.sealed() {
        tags.push(("sealed".to_string(), "yes".to_string()));
    }
    // What the clock keeper must look at after a restart, without folding every game.
    if game.status() == Status::Active {
        if !game.time_control().is_none() {
            tags.push(("clock".to_string(), "running".to_string()));
        }
        if game.away().contains(&true) {
            tags.push(("vacation".to_string(), "paused".to_string()));
        }
    }
    tags
}

pub(crate) fn to_new_events(events: &[EventRecord]) -> Vec<NewEvent> {
    events
        .iter()
        .map(|e| NewEvent {
            event_type: e.event_type.clone(),
            schema_version: SCHEMA_VERSION,
            payload: e.payload.clone(),
        })
        .collect()
}

pub(crate) fn append_error(id: &str, error: AppendError) -> ApiError {
    match error {
        AppendError::Conflict { actual, .. } => ApiError::version_conflict(
            actual,
            format!("Game {id} moved on while your command was decided; look again and retry."),
        ),
        other => ApiError::internal(format!("append to {id}: {other}")),
    }
}

impl Games {
    pub fn new(store: Store, registry: Arc<Registry>) -> Games {
        Games {
            store,
            registry,
            slots: Mutex::new(HashMap::new()),
            deadlines: Mutex::new(Deadlines::default()),
            away: Mutex::new(HashSet::new()),
        }
    }

    /// Watches `game`'s next deadline (or stops watching it).
    fn watch_deadline(&self, id: &str, game: &dyn LiveGame) {
        self.deadlines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .set(id, game.next_deadline());
    }

    /// The games whose next deadline is at or before `now`.
    pub fn due(&self, now: DateTime<Utc>) -> Vec<String> {
        let deadlines = self
            .deadlines
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        deadlines
            .by_time
            .iter()
            .take_while(|(deadline, _)| *deadline <= now)
            .map(|(_, id)| id.clone())
            .collect()
    }

    /// Marks `player` as on vacation or back, for games that start while they are away.
    pub fn set_away(&self, player: &str, away: bool) {
        let mut players = self
            .away
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if away {
            players.insert(player.to_string());
        } else {
            players.remove(player);
        }
    }

    fn is_away(&self, player: &str) -> bool {
        self.away
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .contains(player)
    }

    /// Lets the server itself act on game `id`: record a timeout, stop or start a player's
    /// clocks. Returns the number of events appended (none when there was nothing to do).
    pub async fn system(&self, id: &str, command: &SystemCommand) -> Result<usize, ApiError> {
        let slot_ref = self.slot(id).await?;
        let mut slot = slot_ref.lock().await;
        let appended = self.system_locked(&mut slot, command).await;
        let torn = |e: &ApiError| e.code == "version_conflict" || e.status.is_server_error();
        if appended.as_ref().is_err_and(torn) {
            // Someone else wrote this stream (or the disk failed): fold again next time.
            drop(slot);
            self.forget(id);
            return appended;
        }
        if matches!(appended, Ok(n) if n > 0) && slot.game.revealed_seed().is_some() {
            // A timeout ended the game: the games it superseded by takebacks are unsealed.
            let parent = slot.game.parent().map(|origin| origin.game);
            drop(slot);
            self.reveal_superseded(id, parent).await;
        }
        appended
    }

    /// After a restart: a sealed game whose takeback fork has ended (revealed its seed) should
    /// have been revealed too; a crash may have come in between. Reveals those.
    async fn unseal_finished_chains(&self) -> Result<(), ApiError> {
        for id in self.ids_tagged("sealed", "yes", None, usize::MAX)? {
            for fork in self.ids_tagged("parent", &id, None, usize::MAX)? {
                let slot = self.slot(&fork).await?;
                let slot = slot.lock().await;
                let ended = slot.game.revealed_seed().is_some();
                let parent = slot.game.parent().map(|origin| origin.game);
                drop(slot);
                if ended {
                    tracing::warn!(game = %id, %fork, "revealing a sealed game's seed after a restart");
                    self.reveal_superseded(&fork, parent).await;
                }
            }
        }
        Ok(())
    }

    /// Game `id` has ended and revealed its seed: reveals the seeds of the games it superseded
    /// by takebacks (`parent`, that game's parent and so on) as long as they are sealed. A
    /// failure is ours, logged, not the player's: the ancestor stays sealed, which leaks
    /// nothing.
    pub async fn reveal_superseded(&self, id: &str, parent: Option<String>) {
        let mut next = parent;
        while let Some(ancestor) = next {
            next = match self.reveal_sealed_seed(&ancestor).await {
                Ok(parent) => parent,
                Err(error) => {
                    tracing::error!(game = %ancestor, fork = %id, %error, "a sealed game's seed could not be revealed");
                    None
                }
            };
        }
    }

    async fn system_locked(
        &self,
        slot: &mut Slot,
        command: &SystemCommand,
    ) -> Result<usize, ApiError> {
        let id = slot.id.clone();
        let version = slot.game.version();
        let now = Utc::now();
        let json = serde_json::to_value(command).map_err(ApiError::internal)?;
        let decided = slot
            .game
            .decide(&Actor::System, &json, &slot.context(version, now));
        let events = match decided {
            Ok(events) => events,
            Err(refused) => {
                // Nothing to do after all (the deadline moved): watch the new one.
                self.watch_deadline(&id, slot.game.as_ref());
                return Err(refused.into());
            }
        };
        if events.is_empty() {
            return Ok(0);
        }
        let mut after = slot.game.clone_box();
        for event in &events {
            after.evolve(&event.payload).map_err(ApiError::internal)?;
        }
        let batch = Batch {
            events: to_new_events(&events),
            actor: "system".to_string(),
            command_id: None,
            command: Some(json),
            recorded_at: now,
            tags: Some(tags(after.as_ref())),
            secrets: Vec::new(),
        };
        self.store
            .append(&id, version, batch)
            .await
            .map_err(|e| append_error(&id, e))?;
        slot.game = after;
        slot.updated_at = now;
        self.watch_deadline(&id, slot.game.as_ref());
        match command {
            SystemCommand::Timeout => {
                tracing::info!(game = %id, outcome = ?slot.game.outcome(), "deadline passed: timeout recorded")
            }
            SystemCommand::Vacation { player, away } => {
                tracing::info!(game = %id, %player, away, "vacation: clocks updated")
            }
            SystemCommand::RevealSeed => {
                tracing::info!(game = %id, "sealed game's seed revealed: the fork that superseded it has ended")
            }
        }
        Ok(events.len())
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Creates a game as asked; the creator takes a seat (the given one or the first).
    pub async fn create(&self, creator: &str, new: NewGame) -> Result<SlotRef, ApiError> {
        let NewGame {
            kind: kind_id,
            variant,
            options,
            seats,
            seat,
            time_control,
        } = new;
        let kind_id = kind_id.as_str();
        let time_control = time_control.unwrap_or_default();
        let kind = self.registry.get(kind_id).ok_or_else(|| {
            ApiError::bad_request(
                "unknown_kind",
                format!(
                    "There is no game \"{kind_id}\"; the games are {}.",
                    self.registry.ids().join(", ")
                ),
            )
        })?;
        let seed = Seed(random_bytes::<32>()?);
        let created =
            kind.create_timed(variant, options, seats, seed.commitment(), time_control)?;
        let mut game = kind
            .fold(std::slice::from_ref(&created.payload))
            .map_err(ApiError::internal)?;
        let now = Utc::now();
        let join = serde_json::json!({"type": "join", "seat": seat});
        let ctx = Context::new(seed, 1, now);
        let joined = game.decide(&Actor::player(creator), &join, &ctx)?;
        for event in &joined {
            game.evolve(&event.payload).map_err(ApiError::internal)?;
        }
        let id = format!("g-{}", random_hex::<8>()?);
        let mut events = vec![created];
        events.extend(joined);
        let batch = Batch {
            events: to_new_events(&events),
            actor: format!("player:{creator}"),
            command_id: None,
            command: Some(join),
            recorded_at: now,
            tags: Some(tags(game.as_ref())),
            secrets: vec![(SEED.to_string(), seed.0.to_vec())],
        };
        self.store
            .append(&id, 0, batch)
            .await
            .map_err(|e| append_error(&id, e))?;
        tracing::info!(game = %id, kind = kind_id, seats, ?time_control, "game created");
        self.watch_deadline(&id, game.as_ref());
        let slot = Arc::new(tokio::sync::Mutex::new(Slot {
            id: id.clone(),
            game,
            seed,
            earlier: Vec::new(),
            created_at: now,
            updated_at: now,
        }));
        self.lock_map().insert(id, slot.clone());
        Ok(slot)
    }

    fn lock_map(&self) -> std::sync::MutexGuard<'_, HashMap<String, SlotRef>> {
        // A panic while holding this lock cannot leave the map torn: take it anyway.
        self.slots
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The game `id`, folded from its stream on first use.
    pub async fn slot(&self, id: &str) -> Result<SlotRef, ApiError> {
        if let Some(slot) = self.lock_map().get(id) {
            return Ok(slot.clone());
        }
        if !id.starts_with("g-") {
            // Other streams (a player's vacations) are not games.
            return Err(ApiError::game_not_found(id));
        }
        let loaded = self.load(id)?;
        self.watch_deadline(id, loaded.game.as_ref());
        let slot = self
            .lock_map()
            .entry(id.to_string())
            .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(loaded)))
            .clone();
        Ok(slot)
    }

    /// The envelopes of a stream from version 1, up to `up_to` (all when `None`).
    fn read_envelopes(&self, id: &str, up_to: Option<u64>) -> Result<Vec<Envelope>, ApiError> {
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
                .map_err(ApiError::internal)?;
            let done = page.len() < want;
            envelopes.extend(page);
            if done {
                break;
            }
        }
        Ok(envelopes)
    }

    /// Folds the given envelopes (from version 1) into a game.
    fn fold(&self, id: &str, envelopes: &[Envelope]) -> Result<Box<dyn LiveGame>, ApiError> {
        let Some(first) = envelopes.first() else {
            return Err(ApiError::game_not_found(id));
        };
        let kind_id = first.payload["kind"].as_str().unwrap_or_default();
        let kind = self
            .registry
            .get(kind_id)
            .ok_or_else(|| ApiError::internal(format!("game {id} is of unknown kind {kind_id}")))?;
        let payloads: Vec<Value> = envelopes.iter().map(|e| e.payload.clone()).collect();
        kind.fold(&payloads)
            .map_err(|e| ApiError::internal(format!("game {id} does not fold: {e}")))
    }

    /// The view `player` had of game `slot` at `version`.
    pub fn view_at(&self, slot: &Slot, version: u64, player: &str) -> Result<Value, ApiError> {
        let envelopes = self.read_envelopes(&slot.id, Some(version))?;
        let game = self.fold(&slot.id, &envelopes)?;
        Ok(game.view(game.viewer_for(Some(player))))
    }

    /// Folds a game's whole stream.
    fn load(&self, id: &str) -> Result<Slot, ApiError> {
        let envelopes = self.read_envelopes(id, None)?;
        let game = self.fold(id, &envelopes)?;
        let (Some(first), Some(last)) = (envelopes.first(), envelopes.last()) else {
            return Err(ApiError::game_not_found(id));
        };
        let seed_bytes = self
            .store
            .secret(id, SEED)
            .map_err(ApiError::internal)?
            .ok_or_else(|| ApiError::internal(format!("game {id} has no seed")))?;
        let seed = Seed(
            seed_bytes
                .try_into()
                .map_err(|_| ApiError::internal(format!("game {id} has a malformed seed")))?,
        );
        let earlier = self
            .store
            .secret(id, EARLIER_SEEDS)
            .map_err(ApiError::internal)?
            .unwrap_or_default()
            .chunks(32)
            .map(|bytes| bytes.try_into().map(Seed))
            .collect::<Result<Vec<Seed>, _>>()
            .map_err(|_| ApiError::internal(format!("game {id} has malformed earlier seeds")))?;
        Ok(Slot {
            id: id.to_string(),
            game,
            seed,
            earlier,
            created_at: first.recorded_at,
            updated_at: last.recorded_at,
        })
    }

    /// Forgets a cached game, so the next use folds it again from the store.
    fn forget(&self, id: &str) {
        self.lock_map().remove(id);
    }

    /// Decides and durably records one command of `player` (game and table commands alike).
    /// `expected` (from `If-Match`) refuses a command made on a stale version; `key` (from
    /// `Idempotency-Key`) makes a retry return the first answer without new events.
    pub async fn play(
        &self,
        id: &str,
        player: &str,
        command: Value,
        expected: Option<u64>,
        key: Option<&str>,
    ) -> Result<(Played, SlotRef), ApiError> {
        let slot_ref = self.slot(id).await?;
        let mut slot = slot_ref.lock().await;
        let command_id = key.map(|k| format!("{player}:{k}"));
        if let Some(command_id) = &command_id {
            if let Some(done) = self
                .store
                .appended_for(id, command_id)
                .map_err(ApiError::internal)?
            {
                let envelopes = self
                    .store
                    .read_stream(
                        id,
                        done.first_version - 1,
                        (done.last_version + 1 - done.first_version) as usize,
                    )
                    .map_err(ApiError::internal)?;
                drop(slot);
                return Ok((
                    Played {
                        first_version: done.first_version,
                        envelopes,
                        duplicate: true,
                    },
                    slot_ref,
                ));
            }
        }
        let version = slot.game.version();
        if let Some(expected) = expected {
            if expected != version {
                return Err(ApiError::version_conflict(
                    version,
                    format!(
                        "You played on version {expected}, but the game is at version {version}: look at the game again."
                    ),
                ));
            }
        }
        let now = Utc::now();
        let actor = Actor::player(player);
        let events = slot
            .game
            .decide(&actor, &command, &slot.context(version, now))?;
        let changes_index = events
            .iter()
            .any(|e| matches!(e.event_type.as_str(), "seat_taken" | "started" | "finished"));
        let new_tags = if changes_index {
            let mut after = slot.game.clone_box();
            for event in &events {
                after.evolve(&event.payload).map_err(ApiError::internal)?;
            }
            Some(tags(after.as_ref()))
        } else {
            None
        };
        let actor_name = match slot.game.seat_of(player) {
            Some(seat) => format!("seat:{seat}"),
            None => format!("player:{player}"),
        };
        let started = events.iter().any(|e| e.event_type == "started");
        let batch = Batch {
            events: to_new_events(&events),
            actor: actor_name.clone(),
            command_id: command_id.clone(),
            command: Some(command),
            recorded_at: now,
            tags: new_tags,
            secrets: Vec::new(),
        };
        let appended = match self.store.append(id, version, batch).await {
            Ok(appended) if !appended.duplicate => appended,
            outcome => {
                // Someone else wrote this stream (or the disk failed): fold again next time.
                drop(slot);
                self.forget(id);
                return Err(match outcome {
                    Err(error) => append_error(id, error),
                    Ok(_) => ApiError::version_conflict(
                        version,
                        format!("Game {id} already has this command: look again."),
                    ),
                });
            }
        };
        for event in &events {
            if let Err(error) = slot.game.evolve(&event.payload) {
                drop(slot);
                self.forget(id);
                return Err(ApiError::internal(format!(
                    "{id}: own event does not fold: {error}"
                )));
            }
        }
        slot.updated_at = now;
        self.watch_deadline(id, slot.game.as_ref());
        // The answer's envelopes are made from what was just written, not read back.
        let written = events
            .into_iter()
            .map(|e| NewEvent {
                event_type: e.event_type,
                schema_version: SCHEMA_VERSION,
                payload: e.payload,
            })
            .collect();
        let envelopes = self.store.appended_envelopes(
            id,
            &appended,
            &actor_name,
            command_id.as_deref(),
            now,
            written,
        );
        if started {
            self.reconcile_vacations(&mut slot).await;
        }
        if slot.game.status() == Status::Finished && changes_index {
            tracing::info!(game = %id, outcome = ?slot.game.outcome(), "game finished");
        }
        drop(slot);
        Ok((
            Played {
                first_version: appended.first_version,
                envelopes,
                duplicate: appended.duplicate,
            },
            slot_ref,
        ))
    }

    /// Puts the clocks of game `slot` in line with its players' vacations: stopped for those
    /// away, running for the others. Called when a game starts and, for every active game,
    /// when the server starts (a crash may have come between a vacation and its games). A
    /// failure is logged: the command that led here is already durable.
    async fn reconcile_vacations(&self, slot: &mut Slot) {
        let players: Vec<String> = slot.game.players().into_iter().flatten().collect();
        for player in players {
            let away = self.is_away(&player);
            let command = SystemCommand::Vacation { player, away };
            if let Err(error) = self.system_locked(slot, &command).await {
                tracing::error!(game = %slot.id, %error, "could not set an away player's clock");
            }
        }
    }

    /// After a restart: folds every active timed game, so that the clock keeper watches its
    /// deadline, and puts in line with vacations every game with a stopped clock (a crash may
    /// have come between a player's return and their games). Games of players still away are
    /// put in line by [`Games::apply_vacation`]. Returns how many games it looked at.
    pub async fn watch_active(&self) -> Result<usize, ApiError> {
        let timed = self.ids_tagged("clock", "running", None, usize::MAX)?;
        for id in &timed {
            self.slot(id).await?;
        }
        let paused = self.ids_tagged("vacation", "paused", None, usize::MAX)?;
        for id in &paused {
            let slot = self.slot(id).await?;
            let mut slot = slot.lock().await;
            self.reconcile_vacations(&mut slot).await;
        }
        let away: Vec<String> = self
            .away
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .iter()
            .cloned()
            .collect();
        for player in away {
            self.apply_vacation(&player, true).await?;
        }
        self.unseal_finished_chains().await?;
        Ok(timed.len() + paused.len())
    }

    /// Brings every seat of `player`'s games in line with their vacation: clocks stopped while
    /// away, running again once back. Returns the games changed.
    pub async fn apply_vacation(&self, player: &str, away: bool) -> Result<usize, ApiError> {
        let mut changed = 0;
        for id in self.ids_tagged("player", player, None, usize::MAX)? {
            let command = SystemCommand::Vacation {
                player: player.to_string(),
                away,
            };
            if self.system(&id, &command).await? > 0 {
                changed += 1;
            }
        }
        Ok(changed)
    }

    /// Reveals the seed of game `id` if it is sealed (superseded by a takeback in a game with
    /// hidden cards, its seed kept), as the system: called once the fork that goes on from it
    /// has ended. Returns the game it was forked from, if any, which may be sealed too.
    pub async fn reveal_sealed_seed(&self, id: &str) -> Result<Option<String>, ApiError> {
        let slot_ref = self.slot(id).await?;
        let mut slot = slot_ref.lock().await;
        let parent = slot.game.parent().map(|origin| origin.game);
        if !slot.game.sealed() {
            return Ok(None);
        }
        self.system_locked(&mut slot, &SystemCommand::RevealSeed)
            .await
            .inspect_err(|_| self.forget(id))?;
        Ok(parent)
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
            .map_err(ApiError::internal)
    }
}
