//! The command service: the flow of every command in one place, in the spirit of cqrs-es's
//! `CqrsFramework::execute`. Load the game (a cached fold of its stream), let `domain` decide,
//! append the events durably with the expected version, fold them in, then react to what the
//! table says happened: an agreed takeback forks, a revealed seed unseals the games it
//! superseded, a start puts the clocks in line with vacations. Commands of one game are
//! decided one at a time, in arrival order (a fair lock per game); games run in parallel.

use crate::deadlines::Deadlines;
use crate::error::{ApiCode, ApiError};
use crate::index::{self, tags};
use crate::notices;
use crate::randomness;
use crate::repository::{Repository, Slot, SlotRef, SEED};
use crate::sealing::SecretsKey;
use chrono::{DateTime, Utc};
use domain::engine::{Context, ErrorCode, Seat};
use domain::log::GameLog;
use domain::registry::{EventRecord, LiveGame};
use domain::table::{Actor, MessageRoom, SystemCommand, TableCommand, TableFact, TimeControl};
use domain::{Registry, RuleError, Seed};
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use storage::{AppendError, Appended, Batch, Envelope, NewEvent, Storage};
use utoipa::ToSchema;

/// Every event's schema version today.
const SCHEMA_VERSION: u32 = 1;
/// How many times a command is decided again when another server appended to its game
/// between this server's look at the game and its append (several servers on one database).
const RETRIES: usize = 8;

/// A new game. The creator takes a seat: `seat`, or the first one.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"kind": "avalanche-chess", "variant": "balanced", "seats": 2}))]
pub struct NewGame {
    /// The game id: see `GET /v1/kinds`.
    pub kind: String,
    /// A variant of the game (its default when absent).
    pub variant: Option<String>,
    /// The game's own options (see its `Options` schema); defaults when absent.
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    /// The number of seats (players).
    pub seats: usize,
    /// The seat the creator takes (the first free one when absent).
    pub seat: Option<Seat>,
    /// How long each move may take: `none` (the default), `days_per_move` (1 to 14) or
    /// `seconds_per_move` (1 to 86400). A seat that lets its deadline pass loses on time.
    pub time_control: Option<TimeControl>,
    /// Whether the game counts for its players' ratings once it ends (false when absent). A
    /// game of one seat is never rated.
    #[serde(default)]
    pub rated: bool,
    /// Whether those who watch without a seat may speak in the game's spectators' room, in a
    /// game with hidden cards (false when absent: the room is closed there, and the table
    /// never reads it anyway). A game without hidden cards always has its room open.
    #[serde(default)]
    pub spectators_room: bool,
}

/// What a command left: the events appended (or, for a retry, those of the first time) and the
/// game, folded to after them.
pub struct Played {
    pub first_version: u64,
    /// The events, their payloads as the player who gave the command may see them.
    pub envelopes: Vec<Envelope>,
    /// True when this answers a retry of an `Idempotency-Key` already played.
    pub duplicate: bool,
    pub slot: SlotRef,
}

/// [`Played`] for a retry, before it is given its slot.
struct Replayed {
    first_version: u64,
    envelopes: Vec<Envelope>,
}

impl Replayed {
    fn with_slot(self, slot: SlotRef) -> Played {
        Played {
            first_version: self.first_version,
            envelopes: self.envelopes,
            duplicate: true,
            slot,
        }
    }
}

/// What [`Games::execute`] did with a command.
enum Executed<T> {
    /// Appended as decided: what the store answered, and what the decision kept for after.
    Appended(Appended, T),
    /// Stored before under the same command id (an `Idempotency-Key`): its first append.
    Stored(Appended),
}

/// What a player's decided command keeps for after its append: its events with their typed
/// form, the facts they state, who wrote them and when.
struct Decided {
    events: Vec<EventRecord>,
    facts: Vec<TableFact>,
    actor: String,
    now: DateTime<Utc>,
}

/// One command of a player: the game, who, what, and the guards that came with it.
pub struct PlayerCommand<'a> {
    pub game: &'a str,
    pub player: &'a str,
    pub command: Value,
    /// From `If-Match`: refuses a command made on a stale version.
    pub expected: Option<u64>,
    /// From `Idempotency-Key`: a retry returns the first answer without new events.
    pub key: Option<&'a str>,
}

/// A message said with a player's command (see [`crate::messages`]): its id and its text
/// sealed under a key of its own. It is recorded as a `said` event after the command's
/// events, in the same append, so that both are stored or neither.
pub struct SealedMessage {
    pub message: String,
    pub sealed: String,
}

pub struct Games {
    repository: Repository,
    deadlines: Deadlines,
    /// The players on vacation now (kept by [`crate::vacations::Vacations`]).
    away: Mutex<HashSet<String>>,
    /// Whether the store's index follows the current policy (see [`crate::reindex`]).
    pub(crate) index_current: std::sync::atomic::AtomicBool,
    /// The takeback forks this server owes (see [`crate::forks`]).
    owed_forks: crate::forks::OwedForks,
    /// The running sled store, for backups (see `archive.rs`): `None` on other backends.
    pub(crate) backup: Option<storage::SledStore>,
    /// The gauges of the store's connections to its database server, if it has one.
    pub(crate) gauges: Option<storage::Gauges>,
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

/// [`to_new_events`] that moves the payloads out of records that no longer need them: those
/// that carry their typed event (see [`EventRecord::is_typed`]). Others are copied.
fn take_new_events(events: &mut [EventRecord]) -> Vec<NewEvent> {
    events
        .iter_mut()
        .map(|e| NewEvent {
            event_type: e.event_type.clone(),
            schema_version: SCHEMA_VERSION,
            payload: if e.is_typed() {
                std::mem::take(&mut e.payload)
            } else {
                e.payload.clone()
            },
        })
        .collect()
}

pub(crate) fn append_error(id: &str, error: AppendError) -> ApiError {
    match error {
        AppendError::Conflict { actual, .. } => ApiError::version_conflict(
            actual,
            format!("Game {id} moved on while your command was decided; look again and retry."),
        ),
        AppendError::Storage(error) => ApiError::store(error),
        other => ApiError::internal(format!("append to {id}: {other}")),
    }
}

/// Why a command decided on version `version` of game `id` was not appended: the store's
/// refusal (`Err`), or, on a store of its own, a command it had stored before.
fn not_appended(id: &str, version: u64, outcome: Result<Appended, AppendError>) -> ApiError {
    match outcome {
        Err(error) => append_error(id, error),
        Ok(_) => ApiError::version_conflict(
            version,
            format!("Game {id} already has this command: look again."),
        ),
    }
}

/// Folds `events` into a copy of `game`: the game as it will be once they are stored.
fn after(game: &dyn LiveGame, events: &[EventRecord]) -> Result<Box<dyn LiveGame>, ApiError> {
    let mut after = game.clone_box();
    for event in events {
        after.evolve_record(event).map_err(ApiError::internal)?;
    }
    Ok(after)
}

impl Games {
    pub fn new(
        store: Arc<dyn Storage>,
        registry: Arc<Registry>,
        key: Arc<SecretsKey>,
        cache_capacity: usize,
    ) -> Games {
        Games {
            repository: Repository::new(store, registry, key, cache_capacity),
            deadlines: Deadlines::default(),
            away: Mutex::new(HashSet::new()),
            index_current: std::sync::atomic::AtomicBool::new(false),
            owed_forks: crate::forks::OwedForks::default(),
            backup: None,
            gauges: None,
        }
    }

    /// These games over a store whose startup knows its backend: `backup`, the sled store
    /// itself (for `avalanche backup`), and `gauges`, those of its database connections.
    pub fn with_backend(
        mut self,
        backup: Option<storage::SledStore>,
        gauges: Option<storage::Gauges>,
    ) -> Games {
        self.backup = backup;
        self.gauges = gauges;
        self
    }

    pub(crate) fn owed_forks(&self) -> &crate::forks::OwedForks {
        &self.owed_forks
    }

    /// `seeds` sealed as secret `name` of game `id`, for the store.
    fn seal_seeds(&self, id: &str, name: &str, seeds: &[u8]) -> Result<Vec<u8>, ApiError> {
        self.repository
            .key()
            .seal_seeds(id, name, seeds)
            .map_err(ApiError::internal)
    }

    /// Where games are read: folds, logs, events, lists. Only the application layer reaches
    /// it: routes and the server's other parts ask `Games`, which answers typed refusals.
    pub(crate) fn repository(&self) -> &Repository {
        &self.repository
    }

    pub fn registry(&self) -> &Registry {
        self.repository.registry()
    }

    /// The game `id` as its stream stands now, to answer a read (see
    /// [`Repository::current`]).
    pub fn slot(&self, id: &str) -> Result<SlotRef, ApiError> {
        self.repository.current(id)
    }

    /// The game `id`'s cached fold when it is known current without a read (see
    /// [`Repository::settled`]).
    pub async fn settled(&self, id: &str) -> Option<SlotRef> {
        self.repository.settled(id).await
    }

    /// Brings a locked game up to its stream when another server may have moved it on, and
    /// watches its deadline if it moved.
    fn catch_up(&self, slot: &mut Slot) -> Result<(), ApiError> {
        if self.repository.catch_up(slot)? {
            self.watch_deadline(&slot.id.clone(), slot.game.as_ref());
        }
        Ok(())
    }

    /// Brings game `id` up to its stream (or up to `stored`, its events the log was read
    /// through, folded in from there) and watches its deadline: what the clock keeper does for
    /// every game another server wrote, so that their timeouts are kept too.
    pub async fn refresh_deadline(
        &self,
        id: &str,
        stored: Option<Vec<Envelope>>,
    ) -> Result<(), ApiError> {
        let slot_ref = self.repository.slot(id)?;
        let mut slot = slot_ref.lock().await;
        if stored.is_some() && slot.game.facts().time_control.is_none() {
            // A game without a clock (set when it is made, for good) has no deadline, nor a
            // clock to warn of, whatever else comes: nothing to fold for the keeper.
            return Ok(());
        }
        match stored {
            Some(events) => self.repository.catch_up_with(&mut slot, events)?,
            None => self.repository.catch_up(&mut slot)?,
        };
        self.watch_deadline(id, slot.game.as_ref());
        Ok(())
    }

    fn lock_away(&self) -> MutexGuard<'_, HashSet<String>> {
        self.away.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Watches the next deadline of game `slot` (or stops watching it).
    pub(crate) fn watch(&self, id: &str, slot: &Slot) {
        self.watch_deadline(id, slot.game.as_ref());
    }

    /// Watches `game`'s next deadline and when its next clock gets low (or stops watching).
    fn watch_deadline(&self, id: &str, game: &dyn LiveGame) {
        self.deadlines.set(id, game.facts().next_deadline);
        self.deadlines
            .set_warning(id, notices::warning_at(game, Utc::now(), false));
    }

    /// The games whose next deadline is at or before `now`.
    pub fn due(&self, now: DateTime<Utc>) -> Vec<String> {
        self.deadlines.due(now)
    }

    /// The games one of whose clocks got low at or before `now`.
    pub fn warnings_due(&self, now: DateTime<Utc>) -> Vec<String> {
        self.deadlines.warnings_due(now)
    }

    /// Writes a warning for each clock of game `id` that is low at `now` (once per clock run:
    /// one written already is not written again), beside the game (see
    /// [`crate::notices`]), and watches when the next one gets low. Returns how many
    /// were written.
    pub async fn warn_low_clocks(&self, id: &str, now: DateTime<Utc>) -> Result<usize, ApiError> {
        let slot_ref = self.repository.slot(id)?;
        let mut slot = slot_ref.lock().await;
        self.repository.catch_up(&mut slot)?;
        // The next one watched first: a warning that cannot be written is not tried again and
        // again (it is logged).
        self.deadlines
            .set_warning(id, notices::warning_at(slot.game.as_ref(), now, true));
        let store = self.repository.store();
        let stream = notices::clock_stream(id);
        let mut written = 0;
        for warning in notices::low_clocks(id, slot.game.as_ref(), now) {
            let key = warning.key();
            if store
                .appended_for(&stream, &key)
                .map_err(ApiError::from)?
                .is_some()
            {
                continue;
            }
            let payload = serde_json::to_value(&warning).map_err(ApiError::internal)?;
            let mut batch = Batch::new(
                "system",
                vec![NewEvent {
                    event_type: notices::CLOCK_LOW.to_string(),
                    schema_version: SCHEMA_VERSION,
                    payload,
                }],
            );
            batch.command_id = Some(key);
            batch.recorded_at = now;
            let head = store.head(&stream).map_err(ApiError::from)?;
            match store.append(&stream, head, batch).await {
                Ok(appended) if !appended.duplicate => {
                    written += 1;
                    tracing::info!(game = %id, seat = warning.seat, deadline = %warning.deadline, "clock low: warning written");
                }
                Ok(_) => {}
                // Written by another server meanwhile: its warning stands.
                Err(AppendError::Conflict { .. }) => {}
                Err(error) => return Err(append_error(&stream, error)),
            }
        }
        Ok(written)
    }

    /// Marks `player` as on vacation or back, for games that start while they are away.
    pub fn set_away(&self, player: &str, away: bool) {
        let mut players = self.lock_away();
        if away {
            players.insert(player.to_string());
        } else {
            players.remove(player);
        }
    }

    /// Whether `player` is on vacation; with other servers on the store, as the store says
    /// (the vacation may have been taken on one of them).
    fn is_away(&self, player: &str) -> bool {
        if self.repository.shared() {
            match crate::vacations::away_in_store(self.repository.store(), player) {
                Ok(away) => return away,
                Err(error) => {
                    tracing::warn!(%player, %error, "cannot read whether a player is away")
                }
            }
        }
        self.lock_away().contains(player)
    }

    /// Creates a game as asked; the creator takes a seat (the given one or the first).
    pub async fn create(&self, creator: &str, new: NewGame) -> Result<SlotRef, ApiError> {
        self.create_as(creator, new, None).await
    }

    /// Creates a game as [`Games::create`] does, under `id` when given (a tournament's table
    /// derives its game's id, so that a second try finds the game there and creates none).
    pub async fn create_as(
        &self,
        creator: &str,
        new: NewGame,
        id: Option<String>,
    ) -> Result<SlotRef, ApiError> {
        let NewGame {
            kind: kind_id,
            variant,
            options,
            seats,
            seat,
            time_control,
            rated,
            spectators_room,
        } = new;
        let kind_id = kind_id.as_str();
        let time_control = time_control.unwrap_or_default();
        let registry = self.registry();
        let kind = registry.get(kind_id).ok_or_else(|| {
            ApiError::new(
                ApiCode::UnknownKind,
                format!(
                    "There is no game \"{kind_id}\"; the games are {}.",
                    registry.ids().join(", ")
                ),
            )
        })?;
        let seed = randomness::seed()?;
        let created = kind.create_table(
            variant,
            options,
            seats,
            seed.commitment(),
            domain::registry::TableSettings {
                time_control,
                rated,
                spectators_room,
            },
        )?;
        let mut game = kind
            .fold(std::slice::from_ref(&created.payload))
            .map_err(ApiError::internal)?;
        let now = Utc::now();
        // Written as it always was: stored commands stay byte for byte what they were.
        let join = serde_json::json!({"type": "join", "seat": seat});
        let ctx = Context::new(seed, 1, now);
        let joined = game.decide(&Actor::player(creator), &join, &ctx)?;
        for event in &joined {
            game.evolve_record(event).map_err(ApiError::internal)?;
        }
        let id = match id {
            Some(id) => id,
            None => randomness::game_id()?,
        };
        let mut events = vec![created];
        events.extend(joined);
        let batch = Batch {
            events: to_new_events(&events),
            actor: format!("player:{creator}"),
            command_id: None,
            command: Some(join),
            recorded_at: now,
            tags: Some(tags(game.as_ref())),
            secrets: vec![(SEED.to_string(), self.seal_seeds(&id, SEED, &seed.0)?)],
        };
        self.repository
            .store()
            .append(&id, 0, batch)
            .await
            .map_err(|e| append_error(&id, e))?;
        tracing::info!(game = %id, kind = kind_id, seats, ?time_control, rated, "game created");
        self.watch_deadline(&id, game.as_ref());
        Ok(self.repository.remember(Slot {
            id,
            game,
            seed,
            earlier: Vec::new(),
            imported: None,
            created_at: now,
            updated_at: now,
            turns: None,
        }))
    }

    /// Decides and durably records one command of a player (game and table commands alike),
    /// then does what follows from it: an agreed takeback forks the game, a revealed seed
    /// unseals the games it superseded. What follows is ours: a failure there is logged, as
    /// the command itself is already durable.
    pub async fn play(&self, command: PlayerCommand<'_>) -> Result<Played, ApiError> {
        self.play_saying(command, None).await
    }

    /// [`Games::play`] with `message` said at the table beside the command, in the same
    /// append (see [`crate::messages::Messages::play`], which seals it).
    pub async fn play_saying(
        &self,
        command: PlayerCommand<'_>,
        message: Option<SealedMessage>,
    ) -> Result<Played, ApiError> {
        let (id, player) = (command.game, command.player);
        // Only a takeback request is read here (the others are read once, by the rules).
        let takeback = command.command["type"] == "request_takeback";
        if let Some(Ok(TableCommand::RequestTakeback {
            version: Some(version),
            ..
        })) = takeback.then(|| TableCommand::deserialize(&command.command))
        {
            return Err(RuleError::new(
                ErrorCode::BadTakebackVersion,
                format!("A takeback is asked for in turns now, not to a stream version ({version}): post {{\"type\": \"request_takeback\"}} to take back your last turn, or add \"turns\": N to go back N of your turns."),
            )
            .into());
        }
        let (played, facts) = self.decide_and_append(command, message.as_ref()).await?;
        if played.duplicate {
            return Ok(played);
        }
        for fact in &facts {
            match fact {
                TableFact::TakebackAgreed { version } => {
                    // The same players at the same seats go on in a fork at the agreed
                    // version; one that fails is owed, and written later.
                    let slot = played.slot.lock().await;
                    self.fork_agreed_takeback(&slot, *version, player).await;
                }
                TableFact::SeedRevealed { .. } => {
                    let parent = played.slot.lock().await.game.facts().parent.map(|o| o.game);
                    self.reveal_superseded(id, parent).await;
                }
                _ => {}
            }
        }
        Ok(played)
    }

    /// Load, decide, append, fold: the heart of [`Games::play`]. Returns the facts the
    /// decided events state.
    async fn decide_and_append(
        &self,
        command: PlayerCommand<'_>,
        message: Option<&SealedMessage>,
    ) -> Result<(Played, Vec<TableFact>), ApiError> {
        let PlayerCommand {
            game: id,
            player,
            command,
            expected,
            key,
        } = command;
        let slot_ref = self.repository.slot(id)?;
        let command_id = key.map(|k| format!("{player}:{k}"));
        let decide = |slot: &mut Slot| {
            let ids = (command_id.as_deref(), message);
            self.decide_for(slot, player, &command, expected, ids)
        };
        let (mut slot, executed) = self
            .execute(&slot_ref, command_id.as_deref(), decide)
            .await?;
        let (appended, decided) = match executed {
            Executed::Appended(appended, decided) => (appended, decided),
            Executed::Stored(done) => {
                let played = self.replayed(id, player, done, &command, &slot)?;
                drop(slot);
                return Ok((played.with_slot(slot_ref), Vec::new()));
            }
        };
        for event in &decided.events {
            if let Err(error) = slot.game.evolve_record(event) {
                drop(slot);
                self.repository.forget(id);
                return Err(ApiError::internal(format!(
                    "{id}: own event does not fold: {error}"
                )));
            }
        }
        slot.updated_at = decided.now;
        self.watch_deadline(id, slot.game.as_ref());
        let envelopes = self
            .answer(
                &mut slot,
                player,
                &appended,
                command_id.as_deref(),
                &decided,
            )
            .await;
        drop(slot);
        let played = Played {
            first_version: appended.first_version,
            envelopes,
            duplicate: false,
            slot: slot_ref,
        };
        Ok((played, decided.facts))
    }

    /// The answer to a player's command just appended (`appended`) and folded in, made from
    /// what was `decided`, not read back; and what its facts ask for after it: a start puts
    /// the clocks in line with vacations.
    async fn answer(
        &self,
        slot: &mut Slot,
        player: &str,
        appended: &Appended,
        command_id: Option<&str>,
        decided: &Decided,
    ) -> Vec<Envelope> {
        let Decided {
            events,
            facts,
            actor,
            now,
        } = decided;
        let id = slot.id.clone();
        // The answer's envelopes are made from what was just written, not read back, with
        // the events as the player may see them, redacted from their typed form.
        let viewer = slot.viewer(Some(player));
        let seen = events
            .iter()
            .map(|event| NewEvent {
                event_type: event.event_type.clone(),
                schema_version: SCHEMA_VERSION,
                payload: slot.game.redact_record(event, viewer),
            })
            .collect();
        let store = self.repository.store();
        let envelopes = store.appended_envelopes(&id, appended, actor, command_id, *now, seen);
        if facts.contains(&TableFact::Started) {
            self.reconcile_vacations(slot).await;
        }
        if let Some(TableFact::Finished { outcome }) = facts
            .iter()
            .find(|f| matches!(f, TableFact::Finished { .. }))
        {
            tracing::info!(game = %id, ?outcome, "game finished");
        }
        envelopes
    }

    /// What a player's command does to the game as `slot` folds it: the batch to append, and
    /// what [`Games::decide_and_append`] keeps of the decision for after the append. A message
    /// with it is said after its events, by the game as they leave it (a `join` with "hello"
    /// speaks from the seat it takes).
    fn decide_for(
        &self,
        slot: &mut Slot,
        player: &str,
        command: &Value,
        expected: Option<u64>,
        (command_id, message): (Option<&str>, Option<&SealedMessage>),
    ) -> Result<(Batch, Decided), ApiError> {
        let version = slot.game.facts().version;
        if let Some(expected) = expected.filter(|expected| *expected != version) {
            return Err(ApiError::version_conflict(
                version,
                format!(
                    "You played on version {expected}, but the game is at version {version}: look at the game again."
                ),
            ));
        }
        let now = Utc::now();
        let mut ctx = slot.context(now);
        if command["type"] == "request_takeback" {
            // A takeback counted in turns goes back to where the log says a turn began.
            ctx = ctx.with_turns(self.repository.turns(slot)?.clone());
        }
        let mut events = slot.game.decide(&Actor::player(player), command, &ctx)?;
        if let Some(said) = message {
            let say = SystemCommand::Say {
                player: player.to_string(),
                room: MessageRoom::Table,
                message: said.message.clone(),
                sealed: said.sealed.clone(),
            };
            let say = serde_json::to_value(&say).map_err(ApiError::internal)?;
            let after = after(slot.game.as_ref(), &events)?;
            events.extend(after.decide(&Actor::System, &say, &ctx)?);
        }
        let facts: Vec<TableFact> = events.iter().filter_map(|e| e.fact.clone()).collect();
        let new_tags = if facts.iter().any(TableFact::changes_index) {
            Some(tags(after(slot.game.as_ref(), &events)?.as_ref()))
        } else {
            None
        };
        let actor = match slot.game.seat_of(player) {
            Some(seat) => format!("seat:{seat}"),
            None => format!("player:{player}"),
        };
        let batch = Batch {
            // The records keep their typed events: folding and redacting them after the
            // append needs no payload.
            events: take_new_events(&mut events),
            actor: actor.clone(),
            command_id: command_id.map(str::to_string),
            command: Some(command.clone()),
            recorded_at: now,
            tags: new_tags,
            secrets: Vec::new(),
        };
        let decided = Decided {
            events,
            facts,
            actor,
            now,
        };
        Ok((batch, decided))
    }

    /// The optimistic-concurrency loop under every player's command, in the spirit of
    /// cqrs-es's `execute`: lock the game, catch its fold up, `decide` on it, append at the
    /// version it was decided on; on a conflict with another server, read what the fold lacks
    /// and decide again. With other servers on the store, the first attempt decides on the
    /// cached fold as it is, without a read (a fold this server heard is behind catches up
    /// first, by the events it lacks, rather than be decided on and conflict): the append
    /// checks the version it was decided on (and answers a repeated `command_id`), so a fold
    /// another server moved on ends in a conflict, never in a wrong append. A conflict, or a refusal that a fresher fold might
    /// not give, reads what the fold lacks and decides again. A command another server stored
    /// meanwhile (the same `command_id`) is caught up with first, or its answer would leave out
    /// the events not folded yet and show the game before them. A failed append forgets the
    /// fold.
    async fn execute<'s, T>(
        &self,
        slot_ref: &'s SlotRef,
        command_id: Option<&str>,
        mut decide: impl FnMut(&mut Slot) -> Result<(Batch, T), ApiError>,
    ) -> Result<(tokio::sync::MutexGuard<'s, Slot>, Executed<T>), ApiError> {
        let store = self.repository.store();
        let mut slot = slot_ref.lock().await;
        let id = slot.id.clone();
        let mut unchecked = self.repository.shared();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let moved = match unchecked {
                true => self.repository.catch_up_heard(&mut slot).await?,
                false => self.repository.catch_up_async(&mut slot).await?,
            };
            if moved {
                self.watch_deadline(&id, slot.game.as_ref());
            }
            let stored = command_id.filter(|_| !unchecked);
            let stored = stored.map(|command_id| store.appended_for(&id, command_id));
            if let Some(done) = stored.transpose().map_err(ApiError::from)?.flatten() {
                return Ok((slot, Executed::Stored(done)));
            }
            let version = slot.game.facts().version;
            let (batch, decided) = match decide(&mut slot) {
                Ok(decided) => decided,
                Err(_) if unchecked => {
                    unchecked = false;
                    continue;
                }
                Err(refused) => return Err(refused),
            };
            match store.append(&id, version, batch).await {
                Ok(appended) if !appended.duplicate => {
                    return Ok((slot, Executed::Appended(appended, decided)))
                }
                // The same command, stored meanwhile by another server: caught up with first.
                Ok(done) if self.repository.shared() => {
                    self.catch_up(&mut slot)?;
                    return Ok((slot, Executed::Stored(done)));
                }
                // Another server appended since this one looked: catch up and decide again.
                Err(AppendError::Conflict { .. })
                    if self.repository.shared() && attempt < RETRIES =>
                {
                    unchecked = false;
                }
                outcome => {
                    // Someone else wrote this stream (or the disk failed): fold again next time.
                    drop(slot);
                    self.repository.forget(&id);
                    return Err(not_appended(&id, version, outcome));
                }
            }
        }
    }

    /// The first answer to a command already stored with the same Idempotency-Key (`done`):
    /// built from what the store keeps, so that a retry gets it on any server; its events as
    /// `player` may see them in the game (`slot`).
    fn replayed(
        &self,
        id: &str,
        player: &str,
        done: Appended,
        command: &Value,
        slot: &Slot,
    ) -> Result<Replayed, ApiError> {
        let store = self.repository.store();
        // The same key for another command is the client's mistake, not a retry.
        let first = store
            .command(id, done.first_version)
            .map_err(ApiError::from)?;
        if first.and_then(|c| c.command).as_ref() != Some(command) {
            return Err(ApiError::new(ApiCode::IdempotencyKeyReused,
                "This Idempotency-Key was used for another command in this game: a retry sends the same body, a new command a new key.",
            ));
        }
        let viewer = slot.viewer(Some(player));
        let envelopes = self
            .repository
            .events(
                id,
                done.first_version - 1,
                (done.last_version + 1 - done.first_version) as usize,
            )?
            .into_iter()
            .map(|mut e| {
                e.payload = slot.game.redact(&e.payload, viewer);
                e
            })
            .collect();
        Ok(Replayed {
            first_version: done.first_version,
            envelopes,
        })
    }

    /// Lets the server itself act on game `id`: record a timeout, stop or start a player's
    /// clocks. Returns the number of events appended (none when there was nothing to do).
    /// With other servers on the store, a conflict (one of them appended first) is caught up
    /// with and the command decided again: a timeout another server recorded is then refused
    /// as nothing to do.
    pub async fn system(&self, id: &str, command: &SystemCommand) -> Result<usize, ApiError> {
        let slot_ref = self.repository.slot(id)?;
        let mut slot = slot_ref.lock().await;
        let mut attempt = 0;
        let appended = loop {
            attempt += 1;
            self.catch_up(&mut slot)?;
            let appended = self.system_locked(&mut slot, command).await;
            let conflict = appended
                .as_ref()
                .is_err_and(|e| e.code == ApiCode::VersionConflict);
            if !(conflict && self.repository.shared() && attempt < RETRIES) {
                break appended;
            }
        };
        let torn = |e: &ApiError| e.code == ApiCode::VersionConflict || e.code.is_ours();
        if appended.as_ref().is_err_and(torn) {
            // Someone else wrote this stream (or the disk failed): fold again next time.
            drop(slot);
            self.repository.forget(id);
            return appended.map(|(n, _)| n);
        }
        let ended = matches!(&appended, Ok((_, facts)) if facts.iter().any(|f| matches!(f, TableFact::SeedRevealed { .. })));
        if ended {
            // A timeout ended the game: the games it superseded by takebacks are unsealed.
            let parent = slot.game.facts().parent.map(|origin| origin.game);
            drop(slot);
            self.reveal_superseded(id, parent).await;
        }
        appended.map(|(n, _)| n)
    }

    /// Decides and records a command of the server on a locked game; returns how many events
    /// it appended and the facts they state.
    async fn system_locked(
        &self,
        slot: &mut Slot,
        command: &SystemCommand,
    ) -> Result<(usize, Vec<TableFact>), ApiError> {
        let id = slot.id.clone();
        let version = slot.game.facts().version;
        let now = Utc::now();
        let json = serde_json::to_value(command).map_err(ApiError::internal)?;
        let decided = slot.game.decide(&Actor::System, &json, &slot.context(now));
        let events = match decided {
            Ok(events) => events,
            Err(refused) => {
                // Nothing to do after all (the deadline moved): watch the new one.
                self.watch_deadline(&id, slot.game.as_ref());
                return Err(refused.into());
            }
        };
        if events.is_empty() {
            return Ok((0, Vec::new()));
        }
        let facts: Vec<TableFact> = events.iter().filter_map(|e| e.fact.clone()).collect();
        let after = after(slot.game.as_ref(), &events)?;
        let batch = Batch {
            events: to_new_events(&events),
            actor: "system".to_string(),
            command_id: None,
            command: Some(json),
            recorded_at: now,
            tags: Some(tags(after.as_ref())),
            secrets: Vec::new(),
        };
        self.repository
            .store()
            .append(&id, version, batch)
            .await
            .map_err(|e| append_error(&id, e))?;
        slot.game = after;
        slot.updated_at = now;
        self.watch_deadline(&id, slot.game.as_ref());
        match command {
            SystemCommand::Timeout => {
                tracing::info!(game = %id, outcome = ?slot.game.facts().outcome, "deadline passed: timeout recorded")
            }
            SystemCommand::Vacation { player, away } => {
                tracing::info!(game = %id, %player, away, "vacation: clocks updated")
            }
            SystemCommand::RevealSeed => {
                tracing::info!(game = %id, "sealed game's seed revealed: the fork that superseded it has ended")
            }
            // Given only while a record is imported, never to a stored game.
            SystemCommand::RecordBreaks { .. } | SystemCommand::Annotate { .. } => {
                tracing::info!(game = %id, "record import command decided")
            }
            SystemCommand::Say { message, room, .. } => {
                tracing::info!(game = %id, %message, ?room, "message said")
            }
            SystemCommand::Hide { message } => {
                tracing::info!(game = %id, %message, "message hidden")
            }
        }
        Ok((events.len(), facts))
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

    /// Reveals the seed of game `id` if it is sealed (superseded by a takeback in a game with
    /// hidden cards, its seed kept), as the system: called once the fork that goes on from it
    /// has ended. Returns the game it was forked from, if any, which may be sealed too.
    async fn reveal_sealed_seed(&self, id: &str) -> Result<Option<String>, ApiError> {
        let slot_ref = self.repository.slot(id)?;
        let mut slot = slot_ref.lock().await;
        self.catch_up(&mut slot)?;
        let parent = slot.game.facts().parent.map(|origin| origin.game);
        if !slot.game.facts().sealed {
            return Ok(None);
        }
        self.system_locked(&mut slot, &SystemCommand::RevealSeed)
            .await
            .inspect_err(|_| self.repository.forget(id))?;
        Ok(parent)
    }

    /// Puts the clocks of game `slot` in line with its players' vacations: stopped for those
    /// away, running for the others. Called when a game starts and, for every active game,
    /// when the server starts (a crash may have come between a vacation and its games). A
    /// failure is logged: the command that led here is already durable.
    async fn reconcile_vacations(&self, slot: &mut Slot) {
        let players: Vec<String> = slot.game.facts().players.into_iter().flatten().collect();
        for player in players {
            let away = self.is_away(&player);
            let command = SystemCommand::Vacation { player, away };
            if let Err(error) = self.system_locked(slot, &command).await {
                tracing::error!(game = %slot.id, %error, "could not set an away player's clock");
            }
        }
    }

    /// Brings every seat of `player`'s games in line with their vacation: clocks stopped while
    /// away, running again once back. Returns the games changed.
    pub async fn apply_vacation(&self, player: &str, away: bool) -> Result<usize, ApiError> {
        let mut changed = 0;
        let mut after: Option<String> = None;
        loop {
            let page = self
                .repository
                .ids_tagged(index::PLAYER, player, after.as_deref(), 500)?;
            for id in &page {
                let command = SystemCommand::Vacation {
                    player: player.to_string(),
                    away,
                };
                if self.system(id, &command).await? > 0 {
                    changed += 1;
                }
            }
            match page.last() {
                Some(last) if page.len() == 500 => after = Some(last.clone()),
                _ => return Ok(changed),
            }
        }
    }

    /// After a restart: watches the deadline of every active timed game (each folded once, on
    /// its way through the bounded cache), puts in line with vacations every game with a
    /// stopped clock (a crash may have come between a player's return and their games), and
    /// unseals what a crash left sealed. Games of players still away are put in line by
    /// [`Games::apply_vacation`]. Returns how many games it looked at.
    pub async fn watch_active(&self) -> Result<usize, ApiError> {
        let mut looked = 0;
        let mut after: Option<String> = None;
        loop {
            let (name, value) = index::CLOCK_RUNNING;
            let page = self
                .repository
                .ids_tagged(name, value, after.as_deref(), 500)?;
            for id in &page {
                self.refresh_deadline(id, None).await?;
            }
            looked += page.len();
            match page.last() {
                Some(last) if page.len() == 500 => after = Some(last.clone()),
                _ => break,
            }
        }
        let (name, value) = index::VACATION_PAUSED;
        let paused = self.repository.ids_tagged(name, value, None, usize::MAX)?;
        for id in &paused {
            let slot = self.repository.slot(id)?;
            let mut slot = slot.lock().await;
            self.catch_up(&mut slot)?;
            self.reconcile_vacations(&mut slot).await;
        }
        let away: Vec<String> = self.lock_away().iter().cloned().collect();
        for player in away {
            self.apply_vacation(&player, true).await?;
        }
        self.unseal_finished_chains().await?;
        Ok(looked + paused.len())
    }

    /// After a restart: a sealed game whose takeback fork has ended (revealed its seed) should
    /// have been revealed too; a crash may have come in between. Reveals those.
    async fn unseal_finished_chains(&self) -> Result<(), ApiError> {
        let (name, value) = index::SEALED;
        for id in self.repository.ids_tagged(name, value, None, usize::MAX)? {
            for fork in self
                .repository
                .ids_tagged(index::PARENT, &id, None, usize::MAX)?
            {
                let slot = self.slot(&fork)?;
                let slot = slot.lock().await;
                let ended = slot.game.facts().revealed_seed.is_some();
                let parent = slot.game.facts().parent.map(|origin| origin.game);
                drop(slot);
                if ended {
                    tracing::warn!(game = %id, %fork, "revealing a sealed game's seed after a restart");
                    self.reveal_superseded(&fork, parent).await;
                }
            }
        }
        Ok(())
    }

    /// Stores an audited finished game from elsewhere (`log`, dealt from `seed` and the
    /// `earlier` seeds), imported by `importer`; returns it folded. Every seat of `log` must
    /// be held by an imported player ([`domain::log::GameLog::as_imported`]): an imported
    /// game is nobody's here.
    pub async fn import(
        &self,
        log: &GameLog,
        seed: Seed,
        earlier: &[Seed],
        importer: &str,
    ) -> Result<SlotRef, ApiError> {
        let imported = crate::repository::Imported {
            by: Some(importer.to_string()),
            at: Some(chrono::Utc::now()),
        };
        let id = self
            .repository
            .write_game(log, seed, earlier, Some(&imported))
            .await?;
        tracing::info!(game = %id, kind = %log.kind, %importer, "game imported");
        self.slot(&id)
    }
}
