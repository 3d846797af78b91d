//! A game's whole log as it is stored, exported and imported: every event with its version,
//! and every command beside the versions it produced. [`LogBuilder`] writes one the way the
//! service does, deciding each command (imports of records, tests).

use crate::engine::{Context, Fault, Refusal, RuleError, Seat};
use crate::fairness::Seed;
use crate::registry::{EventRecord, GameKind, LiveGame};
use crate::table::{Actor, TurnHistory};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use utoipa::ToSchema;

/// One stored event.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LoggedEvent {
    /// Its version in the game's stream: 1, 2, 3, ... without gaps.
    pub version: u64,
    /// Its stable type name: `created`, `seat_taken`, `game.turn_played`, ...
    #[serde(rename = "type")]
    pub event_type: String,
    /// The event itself, as stored.
    #[schema(value_type = Object)]
    pub payload: Value,
    /// When it was recorded (the time of its command); for reading only, not audited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recorded_at: Option<DateTime<Utc>>,
    /// Who caused it, as stored with it; for reading only, not audited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
}

/// One stored command and the events it produced (versions `first_version..=last_version`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LoggedCommand {
    pub first_version: u64,
    pub last_version: u64,
    /// Who gave it: `seat:<n>` (the player at that seat), `player:<id>` or `system`.
    pub actor: String,
    /// When it was decided: the time the rules were given.
    pub recorded_at: DateTime<Utc>,
    /// The command as posted (`{"type": "fork", ...}` for the event that makes a fork).
    #[schema(value_type = Object)]
    pub command: Option<Value>,
}

/// A game's whole log: what an audit needs to decide every command again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GameLog {
    /// The game id of the rules: `avalanche-chess`, `avalanche`, ...
    pub kind: String,
    /// The id the game had where it was played, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    pub events: Vec<LoggedEvent>,
    pub commands: Vec<LoggedCommand>,
}

impl GameLog {
    /// Every event payload in stream order: what [`crate::registry::GameKind::fold`] takes.
    pub fn payloads(&self) -> Vec<Value> {
        self.events.iter().map(|e| e.payload.clone()).collect()
    }

    /// This log as an import: every player it names becomes an imported player, by the first
    /// seat they hold (`imported:seat1`, with `names[seat]` when given, else the name an
    /// imported id already carried: `imported:seat2:Bea`), and a fork's parent a game of
    /// elsewhere (`imported:g-...`). A log is anyone's to edit: the ids in it prove nothing,
    /// so a game imported from one is nobody's here. The same player is the same imported one
    /// throughout, so the log decides exactly as before (the audit checks it).
    pub fn as_imported(&self, names: &[Option<String>]) -> GameLog {
        let mut players = ImportedPlayers::default();
        for event in &self.events {
            let payload = &event.payload;
            match payload["type"].as_str() {
                Some("seat_taken") => {
                    if let (Some(seat), Some(player)) =
                        (payload["seat"].as_u64(), payload["player"].as_str())
                    {
                        players.seat(player, seat as usize, names);
                    }
                }
                Some("forked") => {
                    for (seat, player) in payload["players"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .enumerate()
                    {
                        if let Some(player) = player.as_str() {
                            players.seat(player, seat, names);
                        }
                    }
                }
                _ => {}
            }
        }
        let mut log = self.clone();
        for event in &mut log.events {
            let payload = &mut event.payload;
            match payload["type"].as_str() {
                Some("seat_taken") | Some("said") => players.replace(&mut payload["player"]),
                Some("forked") => {
                    imported_game(&mut payload["parent"]);
                    for player in payload["players"].as_array_mut().into_iter().flatten() {
                        players.replace(player);
                    }
                }
                _ => {}
            }
            if let Some(actor) = &mut event.actor {
                *actor = players.actor(actor);
            }
        }
        for command in &mut log.commands {
            command.actor = players.actor(&command.actor);
            if let Some(body) = &mut command.command {
                if body["type"] == "fork" {
                    imported_game(&mut body["parent"]);
                    for player in body["players"].as_array_mut().into_iter().flatten() {
                        players.replace(player);
                    }
                }
                if body["type"] == "say" {
                    players.replace(&mut body["player"]);
                }
            }
        }
        log
    }
}

/// The imported players of a log being imported, by the ids the log gave them.
#[derive(Default)]
struct ImportedPlayers {
    ids: std::collections::HashMap<String, String>,
    taken: std::collections::HashSet<String>,
}

impl ImportedPlayers {
    /// The imported id of `player`, first met at `seat`.
    fn seat(&mut self, player: &str, seat: usize, names: &[Option<String>]) {
        if self.ids.contains_key(player) {
            return;
        }
        let name = names
            .get(seat)
            .cloned()
            .flatten()
            .or_else(|| crate::records::imported_name(player).map(str::to_string));
        let mut id = crate::records::imported_seat(seat, name.as_deref());
        // Another player met at the same seat (a fork seats others): numbered after it.
        let mut other = 1;
        while self.taken.contains(&id) {
            other += 1;
            id = format!("{}seat{}-{other}", crate::records::IMPORTED, seat + 1);
            if let Some(name) = &name {
                id = format!("{id}:{name}");
            }
        }
        self.taken.insert(id.clone());
        self.ids.insert(player.to_string(), id);
    }

    /// The imported id of a player at no seat (such as a fork's maker).
    fn other(&mut self, player: &str) -> String {
        if let Some(id) = self.ids.get(player) {
            return id.clone();
        }
        let id = format!("{}someone{}", crate::records::IMPORTED, self.ids.len() + 1);
        self.taken.insert(id.clone());
        self.ids.insert(player.to_string(), id.clone());
        id
    }

    /// Replaces a player id in JSON by its imported one.
    fn replace(&mut self, value: &mut Value) {
        if let Some(player) = value.as_str() {
            *value = Value::String(self.other(player));
        }
    }

    /// A stored actor (`seat:<n>`, `player:<id>`, `system`) with its player imported.
    fn actor(&mut self, actor: &str) -> String {
        match actor.strip_prefix("player:") {
            Some(player) => format!("player:{}", self.other(player)),
            None => actor.to_string(),
        }
    }
}

/// A game id of elsewhere: a fork's parent in an imported log is no game of this server.
fn imported_game(value: &mut Value) {
    if let Some(game) = value.as_str() {
        if !crate::records::is_imported(game) {
            *value = Value::String(format!("{}{game}", crate::records::IMPORTED));
        }
    }
}

/// The actor string the service stores for `player` giving a command to `game`.
pub fn actor_name(game: &dyn LiveGame, player: &str) -> String {
    match game.seat_of(player) {
        Some(seat) => format!("seat:{seat}"),
        None => format!("player:{player}"),
    }
}

/// The player a stored actor string names in `game` ([`actor_name`] the other way): `seat:<n>`
/// is the player at that seat. `None` for the server and for a seat nobody holds.
pub fn actor_player(game: &dyn LiveGame, actor: &str) -> Option<String> {
    if let Some(id) = actor.strip_prefix("player:") {
        return Some(id.to_string());
    }
    let seat: usize = actor.strip_prefix("seat:")?.parse().ok()?;
    game.facts().players.get(seat)?.clone()
}

/// The command that makes a copy of a game a fork of it (stored beside the `forked` event).
pub fn fork_command(
    parent: &str,
    version: u64,
    players: &[Option<String>],
    analysis: bool,
) -> Value {
    json!({"type": "fork", "parent": parent, "version": version, "players": players, "analysis": analysis})
}

/// The command the server stores beside the `seed_revealed` it appends, as the system, to a
/// game sealed by a takeback once the fork that supersedes it has ended.
pub fn reveal_seed_command() -> Value {
    json!({"type": "reveal_seed"})
}

/// Writes a game's log command by command, deciding each one as the service does: the
/// creator's `join` in the first batch with `created`, then each command with
/// `Context::new(seed, version before it, time)`.
pub struct LogBuilder {
    game: Box<dyn LiveGame>,
    seed: Seed,
    /// The seeds of the stream's earlier commitments (a fork by takeback with hidden cards).
    earlier: Vec<Seed>,
    log: GameLog,
}

impl LogBuilder {
    /// A new game of `kind`, the creator seated (at `seat`, or the first free one).
    #[allow(clippy::too_many_arguments)]
    pub fn create(
        kind: &dyn GameKind,
        variant: Option<String>,
        options: Option<Value>,
        seats: usize,
        seed: Seed,
        creator: &str,
        seat: Option<Seat>,
        now: DateTime<Utc>,
    ) -> Result<LogBuilder, Refusal> {
        let created = kind.create(variant, options, seats, seed.commitment())?;
        LogBuilder::begin(kind, created, seed, creator, seat, now)
    }

    /// A new game whose stream begins with `created`, as stored (for instance a game created
    /// under an older revision of its rules), the creator seated.
    pub fn begin(
        kind: &dyn GameKind,
        created: EventRecord,
        seed: Seed,
        creator: &str,
        seat: Option<Seat>,
        now: DateTime<Utc>,
    ) -> Result<LogBuilder, Refusal> {
        let game = kind
            .fold(std::slice::from_ref(&created.payload))
            .map_err(Refusal::fault)?;
        let mut builder = LogBuilder {
            game,
            seed,
            earlier: Vec::new(),
            log: GameLog {
                kind: kind.info().id,
                game: None,
                events: Vec::new(),
                commands: Vec::new(),
            },
        };
        let join = json!({"type": "join", "seat": seat});
        let joined =
            builder
                .game
                .decide(&Actor::player(creator), &join, &builder.context(1, now))?;
        let mut events = vec![created];
        events.extend(joined);
        builder.record(format!("player:{creator}"), Some(join), now, &events, true)?;
        Ok(builder)
    }

    /// Decides `command` of `player` and records it with its events.
    pub fn play(
        &mut self,
        player: &str,
        command: Value,
        now: DateTime<Utc>,
    ) -> Result<(), Refusal> {
        let version = self.game.facts().version;
        let mut ctx = self.context(version, now);
        if command["type"] == "request_takeback" {
            ctx = ctx.with_turns(TurnHistory::of(&self.log.commands, self.game.facts().seats));
        }
        let events = self.game.decide(&Actor::player(player), &command, &ctx)?;
        let actor = actor_name(self.game.as_ref(), player);
        Ok(self.record(actor, Some(command), now, &events, false)?)
    }

    fn context(&self, nonce: u64, now: DateTime<Utc>) -> Context {
        Context::new(self.seed, nonce, now).with_earlier_seeds(self.earlier.clone())
    }

    /// The fork of a takeback agreed in this game (of `kind`, known as `parent`) back to
    /// `version`, asked by `player`, as the service writes it: the events up to `version`,
    /// then `forked` with the same players. In a game with hidden cards the fork deals from
    /// `seed` from then on (every face-down pile reshuffled with it); otherwise it keeps this
    /// game's seed and `seed` is not used.
    pub fn takeback_fork(
        &self,
        kind: &dyn GameKind,
        parent: &str,
        version: u64,
        seed: Seed,
        player: &str,
        now: DateTime<Utc>,
    ) -> Result<LogBuilder, Refusal> {
        let mut log = self.log.clone();
        log.events.truncate(version as usize);
        log.commands.retain(|c| c.last_version <= version);
        if log.commands.last().map(|c| c.last_version) != Some(version) {
            return Err(RuleError::bad_command(format!(
                "version {version} is not the end of a command's events"
            ))
            .into());
        }
        let game = kind.fold(&log.payloads()).map_err(Refusal::fault)?;
        let (seed, earlier) = if game.facts().hidden_information {
            let mut earlier = self.earlier.clone();
            earlier.push(self.seed);
            (seed, earlier)
        } else {
            (self.seed, self.earlier.clone())
        };
        let mut fork = LogBuilder {
            game,
            seed,
            earlier,
            log,
        };
        let players = fork.game.facts().players;
        let events =
            fork.game
                .takeback_fork(parent, players.clone(), &fork.context(version, now))?;
        let command = fork_command(parent, version, &players, false);
        fork.record(
            format!("player:{player}"),
            Some(command),
            now,
            &events,
            false,
        )?;
        Ok(fork)
    }

    /// Reveals the seed of this game, sealed by a takeback, as the server does once the fork
    /// that supersedes it has ended.
    pub fn reveal_seed(&mut self, now: DateTime<Utc>) -> Result<(), Refusal> {
        let events = self
            .game
            .reveal_seed(&self.context(self.game.facts().version, now))?;
        Ok(self.record(
            "system".into(),
            Some(reveal_seed_command()),
            now,
            &events,
            false,
        )?)
    }

    /// Decides a command of the server itself (`record_breaks`, `annotate`, ...) and records
    /// it, by `system`.
    pub fn system(&mut self, command: Value, now: DateTime<Utc>) -> Result<(), Refusal> {
        let ctx = self.context(self.game.facts().version, now);
        let events = self.game.decide(&Actor::System, &command, &ctx)?;
        Ok(self.record("system".into(), Some(command), now, &events, false)?)
    }

    fn record(
        &mut self,
        actor: String,
        command: Option<Value>,
        now: DateTime<Utc>,
        events: &[EventRecord],
        first: bool,
    ) -> Result<(), Fault> {
        let first_version = if first {
            1
        } else {
            self.game.facts().version + 1
        };
        for (i, event) in events.iter().enumerate() {
            // The `created` event is already folded.
            if !(first && i == 0) {
                self.game
                    .evolve(&event.payload)
                    .map_err(|e| Fault(e.to_string()))?;
            }
            self.log.events.push(LoggedEvent {
                version: first_version + i as u64,
                event_type: event.event_type.clone(),
                payload: event.payload.clone(),
                recorded_at: Some(now),
                actor: Some(actor.clone()),
            });
        }
        self.log.commands.push(LoggedCommand {
            first_version,
            last_version: first_version + events.len() as u64 - 1,
            actor,
            recorded_at: now,
            command,
        });
        Ok(())
    }

    /// The game as it stands.
    pub fn game(&self) -> &dyn LiveGame {
        self.game.as_ref()
    }

    /// The log written so far.
    pub fn log(&self) -> &GameLog {
        &self.log
    }

    pub fn finish(self) -> GameLog {
        self.log
    }
}
