//! Tournaments: each a stream of its own (`t-` and 16 hexadecimal digits) whose events
//! `domain::tournament` decides, folded into the book like challenges. A command is decided on
//! the fold and appended with the expected version (a conflict folds again and decides again).
//! The games of a paired round are created under ids derived from tournament, round and table,
//! a game taken back by consent is replaced at its table by the game that goes on from it
//! (`game_replaced`), and a finished game's result is copied into the tournament, by
//! [`Club::drive_tournaments`]:
//! it runs whenever the log grows and before every read, and does only what is missing, so a
//! crash between a pairing and its games, or two nodes at once, never makes a game twice.

use super::book::Book;
use super::Club;
use crate::commands::{NewGame, PlayerCommand};
use crate::error::{ApiCode, ApiError};
use crate::leases::Leases;
use crate::randomness;
use crate::Games;
use chrono::{DateTime, Utc};
use domain::table::TimeControl;
use domain::tournament::{
    self, standings, Command, Format, GameResultEvent, League, LeagueMove, Phase, Settings,
    StandingRow, Tournament, TournamentError, TournamentEvent,
};
use domain::Seed;
use futures_util::stream::{self, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use storage::{AppendError, Batch, NewEvent};
use utoipa::ToSchema;

pub use crate::notices::TOURNAMENT_PREFIX;
/// The name of a tournament's sealed seed among its stream's secrets.
const SEED: &str = "seed";
/// Passes of the driver at most per call.
const PASSES: usize = 4;
/// A round's games a pass of the driver starts at once, at most.
const STARTING: usize = 8;
/// The lease of the node that follows the log for the tournaments.
pub const TOURNAMENTS: &str = "tournaments";
/// How often a node without the lease asks for it again.
const LEASE_RETRY: std::time::Duration = std::time::Duration::from_secs(2);

/// A tournament as the book holds it: its events (with their times) and their fold.
#[derive(Clone, Debug, Default)]
pub struct TournamentEntry {
    pub events: Vec<(TournamentEvent, DateTime<Utc>)>,
    pub state: Tournament,
    pub created_at: Option<DateTime<Utc>>,
}

impl Book {
    /// Folds one event of a tournament's stream.
    pub(super) fn fold_tournament(&mut self, id: &str, at: DateTime<Utc>, payload: &Value) {
        let Ok(event) = TournamentEvent::deserialize(payload) else {
            return;
        };
        if let TournamentEvent::RoundPaired { round, tables, .. } = &event {
            let name = self
                .tournaments
                .get(id)
                .and_then(|t| t.state.settings.as_ref())
                .map(|s| s.name.clone())
                .unwrap_or_default();
            for table in tables {
                self.tournament_games.insert(
                    table.game.clone(),
                    GameTournament {
                        id: id.to_string(),
                        name: name.clone(),
                        round: *round,
                        table: table.table,
                    },
                );
            }
        }
        if let TournamentEvent::GameReplaced { game, by, .. } = &event {
            // Its `forked` event came first and made it the table's game; a log copied from
            // elsewhere may not have the fork.
            if let Some(paired) = self.tournament_games.get(game).cloned() {
                self.tournament_games.entry(by.clone()).or_insert(paired);
                self.tournament_continuations
                    .entry(game.clone())
                    .or_insert_with(|| by.clone());
            }
        }
        let entry = self.tournaments.entry(id.to_string()).or_default();
        entry.created_at.get_or_insert(at);
        entry.state = std::mem::take(&mut entry.state).evolve(&event);
        entry.events.push((event, at));
    }

    /// Game `fork` was forked from `parent` with `players` (not for analysis): when `parent`
    /// is a tournament's game that a takeback by consent superseded, `fork` is the game that
    /// goes on and replaces it at its table. The first such fork only, with the same players
    /// (a log imported later may name the same parent).
    pub(super) fn fold_continuation(
        &mut self,
        parent: &str,
        fork: &str,
        players: &[Option<String>],
    ) {
        let Some(paired) = self.tournament_games.get(parent).cloned() else {
            return;
        };
        let superseded = self
            .games
            .get(parent)
            .is_some_and(|g| g.superseded && g.players == players);
        if !superseded
            || self.tournament_continuations.contains_key(parent)
            || self.tournament_games.contains_key(fork)
        {
            return;
        }
        self.tournament_continuations
            .insert(parent.to_string(), fork.to_string());
        self.tournament_games.insert(fork.to_string(), paired);
    }

    /// The game a tournament's table is played in now: the game paired, or the game that
    /// went on from it after each takeback by consent.
    pub(super) fn table_game<'a>(&'a self, paired: &'a str) -> &'a str {
        let mut current = paired;
        // Each continuation is a game new to the map when it is added: no cycle.
        while let Some(next) = self.tournament_continuations.get(current) {
            current = next;
        }
        current
    }
}

/// The tournament a game was paired in: shown with the game, named in its mails.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct GameTournament {
    /// The tournament's id.
    #[schema(example = "t-3f9a0c11d2e4b5a6")]
    pub id: String,
    /// The tournament's name.
    #[schema(example = "Autumn cup")]
    pub name: String,
    /// The round, from 1.
    pub round: u32,
    /// The table of the round, from 1.
    pub table: usize,
}

/// A new tournament.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "Autumn cup", "kind": "avalanche-chess", "format": "swiss", "seats": 2, "rounds": 4, "entry_until": "2030-01-01T00:00:00Z", "min_players": 4, "max_players": 32, "time_control": {"type": "days_per_move", "days": 3}}))]
pub struct NewTournament {
    /// 1 to 80 characters.
    pub name: String,
    /// The game id: see `GET /v1/kinds`.
    pub kind: String,
    pub variant: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    pub format: Format,
    /// Seats at each table (each game): two for chess, two to six for the card games.
    pub seats: usize,
    /// Swiss: its rounds. Round robin of two seats: 1 (each pair once, the default) or 2
    /// (twice, colours swapped). Round robin of more seats: its rounds. Knock-out: absent.
    pub rounds: Option<u32>,
    pub time_control: Option<TimeControl>,
    #[serde(default)]
    pub rated: bool,
    /// Joins are taken until then.
    pub entry_until: DateTime<Utc>,
    pub min_players: usize,
    pub max_players: usize,
    /// When set (at or after `entry_until`), the tournament starts by itself then if it has
    /// `min_players`, and is cancelled otherwise.
    pub starts_at: Option<DateTime<Utc>>,
    /// A league's divisions: required with format `league`, refused with any other.
    pub league: Option<LeagueDivisions>,
}

// Not `NewLeague`: Go's generated client names the constructor of `League` so.
/// A league's divisions, promotion and relegation.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"division_size": 4, "promoted": 1, "relegated": 1}))]
pub struct LeagueDivisions {
    /// The most players of a division: 3 or more.
    pub division_size: usize,
    /// How many of each division but the first go up one at the next edition.
    pub promoted: usize,
    /// How many of each division but the last go down one at the next edition.
    pub relegated: usize,
}

/// A league's next edition: its entry (for new players; those of the edition before are in
/// already) and, if wanted, its start time.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"entry_until": "2030-02-01T00:00:00Z", "starts_at": "2030-02-01T00:00:00Z"}))]
pub struct NextEdition {
    pub entry_until: DateTime<Utc>,
    pub starts_at: Option<DateTime<Utc>>,
}

/// A table of a round as shown: its game, players and result.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TableOut {
    pub table: usize,
    /// The table's game: the one paired, or after a takeback by consent the game that went
    /// on from it (its continuation replaces it, and its result counts).
    #[schema(example = "g-3f9a0c11d2e4b5a6")]
    pub game: String,
    /// The games the table was played in before `game`, the first the one paired, each taken
    /// back by consent and gone on in the next (the log's `game_replaced` events).
    pub replaced: Vec<String>,
    /// In seat order.
    pub players: Vec<String>,
    pub result: Option<GameResultEvent>,
    /// Each seat's tournament points from this game, once it ended.
    pub points: Option<Vec<f64>>,
}

/// A round as shown.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct RoundOut {
    pub round: u32,
    pub tables: Vec<TableOut>,
    pub byes: Vec<String>,
    pub closed: bool,
}

/// One line of the crosstable: a player (in standings order), the points they scored against
/// each player of the standings in a round robin, and their every round in any format.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CrossRow {
    pub player: String,
    pub rank: usize,
    pub points: f64,
    /// A round robin's: the points scored against each player of the standings, in the same
    /// order (`null`: not met yet). Empty for a Swiss or a knock-out, where most never meet
    /// (a Swiss of 1,000 would carry a million cells): their rows are read by `rounds`.
    pub against: Vec<Option<f64>>,
    /// Each round the player was paired or given a bye in, in order.
    pub rounds: Vec<CrossRound>,
}

/// A player's round in the crosstable.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct CrossRound {
    pub round: u32,
    /// The crosstable lines (from 1) of the others at the table; empty for a bye.
    pub opponents: Vec<usize>,
    /// The player's seat at the table (0: White in chess); `null` for a bye.
    pub seat: Option<usize>,
    /// The points the player scored at the table; `null` while the game runs and for a bye.
    pub points: Option<f64>,
}

/// A tournament as it stands.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentOut {
    #[schema(example = "t-3f9a0c11d2e4b5a6")]
    pub id: String,
    pub status: Phase,
    #[serde(flatten)]
    pub settings: Settings,
    /// The seed, once the tournament has finished: its SHA-256 is `seed_commitment`.
    pub seed: Option<String>,
    /// Who has joined, in the order they joined.
    pub players: Vec<String>,
    /// The seeding order drawn at the start.
    pub seeding: Vec<String>,
    pub rounds_played: Vec<RoundOut>,
    /// The tie-breaks after points, in order.
    pub tie_breaks: Vec<String>,
    pub standings: Vec<StandingRow>,
    pub crosstable: Vec<CrossRow>,
    /// A league's divisions once started, the first (highest) first, each in its seeding.
    pub divisions: Vec<Vec<String>>,
    /// A league's promotions, relegations, entrants and leavers since the edition before,
    /// written out at the start.
    pub moves: Vec<LeagueMove>,
    /// A league's next edition, once created (the edition before is `league.previous`).
    #[schema(example = "t-3f9a0c11d2e4b5a6")]
    pub next_edition: Option<String>,
    /// Why it was cancelled (status `cancelled`): its start time came without its minimum.
    pub cancelled: Option<String>,
    pub version: u64,
    pub created_at: Option<DateTime<Utc>>,
    /// The display names of its players and of the players in `moves`, by id (a player whose
    /// account is gone has none).
    pub names: BTreeMap<String, String>,
}

impl TournamentOut {
    /// The tournament with the display names of its players and of a league's leavers (in
    /// `moves`, no longer among the players).
    pub fn named(mut self, names: super::book::Names<'_>) -> Self {
        self.names = self
            .players
            .iter()
            .chain(self.moves.iter().map(|m| &m.player))
            .filter_map(|p| Some((p.clone(), names(p)?)))
            .collect();
        self
    }
}

/// A tournament in a list.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentSummary {
    pub id: String,
    pub name: String,
    pub kind: String,
    pub format: Format,
    pub seats: usize,
    pub status: Phase,
    pub players: usize,
    pub max_players: usize,
    pub entry_until: DateTime<Utc>,
    /// Rounds paired so far.
    pub rounds: usize,
    /// Whether the player of the request's token has joined it (false without a token).
    pub joined: bool,
}

/// What the audit of a tournament found.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct TournamentAudit {
    pub id: String,
    /// True when every event was decided again exactly as recorded.
    pub valid: bool,
    pub events: usize,
    /// Whether the seed used is the revealed one (a finished tournament) rather than the
    /// server's still secret one.
    pub seed_revealed: bool,
    /// The first divergence, when not valid.
    pub divergence: Option<String>,
}

pub(super) fn not_found(id: &str) -> ApiError {
    ApiError::new(
        ApiCode::TournamentNotFound,
        format!("There is no tournament {id}."),
    )
}

/// The answer to a refusal of the tournament's rules.
fn refused(error: TournamentError) -> ApiError {
    let code = match error.code {
        "entry_closed" => ApiCode::EntryClosed,
        "tournament_full" => ApiCode::TournamentFull,
        "tournament_started" | "tournament_not_running" => ApiCode::TournamentStarted,
        "already_joined" => ApiCode::AlreadyJoined,
        "not_joined" => ApiCode::NotJoined,
        "too_few_players" => ApiCode::TooFewPlayers,
        "cannot_pair" => ApiCode::CannotPair,
        "forbidden" => ApiCode::Forbidden,
        "tournament_not_found" => ApiCode::TournamentNotFound,
        "not_a_league" => ApiCode::NotALeague,
        "edition_not_finished" => ApiCode::EditionNotFinished,
        _ => ApiCode::InvalidTournament,
    };
    ApiError::new(code, error.message)
}

/// The crosstable of `state` in the order of `rows`: every round of every player, and for a
/// round robin the points against each other player.
fn crosstable(state: &Tournament, rows: &[StandingRow]) -> Vec<CrossRow> {
    let index: HashMap<&str, usize> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r.player.as_str(), i))
        .collect();
    let dense = state
        .settings
        .as_ref()
        .is_some_and(|s| s.format == Format::RoundRobin);
    let mut cross: Vec<CrossRow> = rows
        .iter()
        .map(|r| CrossRow {
            player: r.player.clone(),
            rank: r.rank,
            points: r.points,
            against: if dense {
                vec![None; rows.len()]
            } else {
                Vec::new()
            },
            rounds: Vec::new(),
        })
        .collect();
    for round in &state.rounds {
        for (table, result) in round.tables.iter().zip(&round.results) {
            let scored = result.as_ref().map(|r| standings::table_points(&r.places));
            for (seat, player) in table.players.iter().enumerate() {
                let Some(&me) = index.get(player.as_str()) else {
                    continue;
                };
                let opponents: Vec<usize> = table
                    .players
                    .iter()
                    .filter(|other| *other != player)
                    .filter_map(|other| index.get(other.as_str()).map(|i| i + 1))
                    .collect();
                cross[me].rounds.push(CrossRound {
                    round: round.number,
                    opponents,
                    seat: Some(seat),
                    points: scored.as_ref().and_then(|s| s.get(seat).copied()),
                });
            }
        }
        for player in &round.byes {
            if let Some(&me) = index.get(player.as_str()) {
                cross[me].rounds.push(CrossRound {
                    round: round.number,
                    opponents: Vec::new(),
                    seat: None,
                    points: None,
                });
            }
        }
    }
    if dense {
        for (table, result) in state.results() {
            for (seat, player) in table.players.iter().enumerate() {
                for (other_seat, other) in table.players.iter().enumerate() {
                    let (Some(&me), Some(&them)) =
                        (index.get(player.as_str()), index.get(other.as_str()))
                    else {
                        continue;
                    };
                    if seat == other_seat {
                        continue;
                    }
                    let scored = match result.places[seat].cmp(&result.places[other_seat]) {
                        std::cmp::Ordering::Less => 1.0,
                        std::cmp::Ordering::Equal => 0.5,
                        std::cmp::Ordering::Greater => 0.0,
                    };
                    let cell = &mut cross[me].against[them];
                    *cell = Some(cell.unwrap_or(0.0) + scored);
                }
            }
        }
    }
    cross
}

/// The id of the edition after league `id`: derived, so that it is made once whoever asks.
fn next_edition_id(id: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{id}/next").as_bytes());
    format!("{TOURNAMENT_PREFIX}{}", &hex::encode(digest)[..16])
}

fn out(id: &str, entry: &TournamentEntry, book: &Book) -> Option<TournamentOut> {
    let state = &entry.state;
    let settings = state.settings.clone()?;
    let rows = match &state.finished {
        Some((rows, _)) => rows.clone(),
        None => standings::standings(state),
    };
    Some(TournamentOut {
        id: id.to_string(),
        status: state.phase(),
        seed: state.finished.as_ref().map(|(_, seed)| seed.clone()),
        players: state.players.clone(),
        seeding: state.order.clone(),
        rounds_played: state
            .rounds
            .iter()
            .map(|r| RoundOut {
                round: r.number,
                tables: r
                    .tables
                    .iter()
                    .zip(&r.results)
                    .zip(&r.replaced)
                    .map(|((t, res), replaced)| TableOut {
                        table: t.table,
                        game: t.game.clone(),
                        replaced: replaced.clone(),
                        players: t.players.clone(),
                        points: res.as_ref().map(|res| standings::table_points(&res.places)),
                        result: res.clone(),
                    })
                    .collect(),
                byes: r.byes.clone(),
                closed: r.closed,
            })
            .collect(),
        tie_breaks: standings::tie_break_names(settings.format, settings.seats)
            .into_iter()
            .map(str::to_string)
            .collect(),
        crosstable: crosstable(state, &rows),
        standings: rows,
        divisions: state.divisions.clone(),
        moves: state.moves.clone(),
        next_edition: Some(next_edition_id(id)).filter(|next| {
            book.tournaments
                .get(next)
                .is_some_and(|t| t.state.settings.is_some())
        }),
        cancelled: state.cancelled.clone(),
        version: state.version,
        created_at: entry.created_at,
        names: BTreeMap::new(),
        settings,
    })
}

/// `shown` with each table's game the one played now: a game superseded by a takeback by
/// consent is replaced by the game that went on from it, from its fork on (before the
/// tournament's log records the replacement).
fn with_continuations(book: &Book, mut shown: TournamentOut) -> TournamentOut {
    for table in shown
        .rounds_played
        .iter_mut()
        .flat_map(|round| round.tables.iter_mut())
    {
        while let Some(next) = book.tournament_continuations.get(&table.game) {
            let before = std::mem::replace(&mut table.game, next.clone());
            table.replaced.push(before);
        }
    }
    shown
}

impl Club {
    /// Tournament `id`'s secret seed.
    fn tournament_seed(&self, games: &Games, id: &str) -> Result<Seed, ApiError> {
        let stored = self
            .store()
            .secret(id, SEED)
            .map_err(ApiError::from)?
            .ok_or_else(|| ApiError::internal(format!("tournament {id} has no seed")))?;
        let bytes = games
            .repository()
            .key()
            .open_seeds(id, SEED, &stored)
            .map_err(|e| ApiError::internal(format!("tournament {id}'s seed: {e}")))?;
        let bytes: [u8; 32] = bytes
            .try_into()
            .map_err(|_| ApiError::internal(format!("tournament {id} has a malformed seed")))?;
        Ok(Seed(bytes))
    }

    /// Appends `events` to tournament `id` at `version`, with the seed's secret for a new one.
    async fn append_tournament(
        &self,
        id: &str,
        version: u64,
        actor: &str,
        events: &[TournamentEvent],
        at: DateTime<Utc>,
        secrets: Vec<(String, Vec<u8>)>,
    ) -> Result<u64, AppendError> {
        let mut new = Vec::with_capacity(events.len());
        for event in events {
            new.push(NewEvent {
                event_type: event.type_name().to_string(),
                schema_version: 1,
                payload: serde_json::to_value(event).map_err(|e| {
                    AppendError::Storage(storage::StorageError::Database(e.to_string()))
                })?,
            });
        }
        let tags = match crate::index::joins(events) {
            true => crate::index::entrant_tags(self.store().tags(id)?, events),
            false => None,
        };
        let batch = Batch {
            events: new,
            actor: actor.to_string(),
            command_id: None,
            command: None,
            recorded_at: at,
            tags,
            secrets,
        };
        self.store()
            .append(id, version, batch)
            .await
            .map(|appended| appended.last_position)
    }

    /// Creates tournament `new` by `player`.
    pub async fn create_tournament(
        &self,
        games: &Games,
        player: &str,
        new: NewTournament,
    ) -> Result<TournamentOut, ApiError> {
        let kind = self.registry().get(&new.kind).ok_or_else(|| {
            ApiError::new(
                ApiCode::UnknownKind,
                format!(
                    "There is no game \"{}\"; the games are {}.",
                    new.kind,
                    self.registry().ids().join(", ")
                ),
            )
        })?;
        let time_control = new.time_control.unwrap_or_default();
        // The same checks as each of its games' creation, by the game's rules.
        kind.create_rated(
            new.variant.clone(),
            new.options.clone(),
            new.seats,
            String::new(),
            time_control,
            new.rated,
        )?;
        let seed = randomness::seed()?;
        let settings = Settings {
            name: new.name.trim().to_string(),
            creator: player.to_string(),
            kind: new.kind,
            variant: new.variant,
            options: new.options,
            format: new.format,
            seats: new.seats,
            rounds: new.rounds,
            time_control,
            rated: new.rated,
            entry_until: new.entry_until,
            min_players: new.min_players,
            max_players: new.max_players,
            seed_commitment: seed.commitment(),
            starts_at: new.starts_at,
            league: new.league.map(|l| League {
                division_size: l.division_size,
                promoted: l.promoted,
                relegated: l.relegated,
                edition: 1,
                previous: None,
                carried: Vec::new(),
            }),
        };
        let id = format!("{TOURNAMENT_PREFIX}{}", randomness::random_hex::<8>()?);
        self.open_tournament(games, &id, player, settings, seed)
            .await
    }

    /// Appends tournament `id`'s creation from `settings` by `player`, its `seed` sealed.
    async fn open_tournament(
        &self,
        games: &Games,
        id: &str,
        player: &str,
        settings: Settings,
        seed: Seed,
    ) -> Result<TournamentOut, ApiError> {
        let id = id.to_string();
        let now = Utc::now();
        let events = tournament::decide(
            &Tournament::default(),
            &id,
            &Command::Create(Box::new(settings)),
            now,
            &seed,
        )
        .map_err(refused)?;
        let sealed = games
            .repository()
            .key()
            .seal_seeds(&id, SEED, &seed.0)
            .map_err(ApiError::internal)?;
        let position = self
            .append_tournament(
                &id,
                0,
                &format!("player:{player}"),
                &events,
                now,
                vec![(SEED.to_string(), sealed)],
            )
            .await
            .map_err(|e| match e {
                AppendError::Conflict { .. } => ApiError::new(
                    ApiCode::NextEditionExists,
                    format!("Tournament {id} exists already."),
                ),
                e => crate::commands::append_error(&id, e),
            })?;
        tracing::info!(tournament = %id, %player, "tournament created");
        self.catch_up_to(position).await?;
        self.tournament_now(&id)
    }

    /// Tournament `id` as the book folded it (a copy to decide on).
    fn tournament_state(&self, id: &str) -> Result<Tournament, ApiError> {
        self.read()
            .tournaments
            .get(id)
            .map(|t| t.state.clone())
            .filter(|t| t.settings.is_some())
            .ok_or_else(|| not_found(id))
    }

    /// Decides `command` on tournament `id` as it stands and appends its events; a conflict
    /// (another node, or the driver) folds again and decides again.
    async fn tournament_command(
        &self,
        games: &Games,
        id: &str,
        actor: &str,
        command: Command,
    ) -> Result<u64, ApiError> {
        for _ in 0..16 {
            self.catch_up().await?;
            let state = self.tournament_state(id)?;
            let seed = self.tournament_seed(games, id)?;
            let now = Utc::now();
            let events = tournament::decide(&state, id, &command, now, &seed).map_err(refused)?;
            match self
                .append_tournament(id, state.version, actor, &events, now, Vec::new())
                .await
            {
                Ok(position) => {
                    self.catch_up_to(position).await?;
                    return Ok(position);
                }
                Err(AppendError::Conflict { .. }) => continue,
                Err(error) => return Err(crate::commands::append_error(id, error)),
            }
        }
        Err(ApiError::new(
            ApiCode::ServerBusy,
            "This tournament changed too often while your command was decided; try again.",
        ))
    }

    /// `player` joins, withdraws from or (its creator) starts tournament `id`.
    pub async fn tournament_act(
        &self,
        games: &Games,
        id: &str,
        player: &str,
        act: TournamentAct,
    ) -> Result<TournamentOut, ApiError> {
        let player_id = player.to_string();
        let command = match act {
            TournamentAct::Join => Command::Join { player: player_id },
            TournamentAct::Withdraw => Command::Withdraw { player: player_id },
            TournamentAct::Start => Command::Start { by: player_id },
        };
        self.tournament_command(games, id, &format!("player:{player}"), command)
            .await?;
        tracing::info!(tournament = %id, %player, ?act, "tournament command");
        self.drive_tournaments(games).await;
        self.tournament_now(id)
    }

    /// League `id`'s next edition, created by its creator once it finished: the same game,
    /// clock and divisions, the players of `id` entered (but those who withdrew), its final
    /// standings carried for the promotion and relegation, decided at the next edition's start.
    pub async fn next_edition(
        &self,
        games: &Games,
        id: &str,
        player: &str,
        next: NextEdition,
    ) -> Result<TournamentOut, ApiError> {
        self.catch_up().await?;
        let previous = self.tournament_state(id)?;
        let seed = randomness::seed()?;
        let settings = tournament::league::next_edition(
            &previous,
            id,
            player,
            next.entry_until,
            next.starts_at,
            seed.commitment(),
        )
        .map_err(refused)?;
        let created = self
            .open_tournament(games, &next_edition_id(id), player, settings, seed)
            .await?;
        tracing::info!(tournament = %id, next = %created.id, "league's next edition");
        Ok(created)
    }

    fn tournament_now(&self, id: &str) -> Result<TournamentOut, ApiError> {
        let book = self.read();
        book.tournaments
            .get(id)
            .and_then(|entry| out(id, entry, &book))
            .map(|shown| with_continuations(&book, shown))
            .ok_or_else(|| not_found(id))
    }

    /// Tournament `id` as the log shows it. A read writes nothing: the results of its games
    /// are copied in by the node that wrote the game's end, or by the one following the log.
    pub async fn tournament(&self, id: &str) -> Result<TournamentOut, ApiError> {
        self.catch_up().await?;
        self.tournament_now(id)
    }

    /// Every tournament, newest first, in `status` when given, each saying whether `viewer`
    /// has joined it.
    pub async fn tournaments(
        &self,
        status: Option<Phase>,
        viewer: Option<&str>,
    ) -> Result<Vec<TournamentSummary>, ApiError> {
        self.catch_up().await?;
        let book = self.read();
        let mut list: Vec<(Option<DateTime<Utc>>, TournamentSummary)> = book
            .tournaments
            .iter()
            .filter_map(|(id, entry)| {
                let settings = entry.state.settings.as_ref()?;
                Some((
                    entry.created_at,
                    TournamentSummary {
                        id: id.clone(),
                        name: settings.name.clone(),
                        kind: settings.kind.clone(),
                        format: settings.format,
                        seats: settings.seats,
                        status: entry.state.phase(),
                        players: entry.state.players.len(),
                        max_players: settings.max_players,
                        entry_until: settings.entry_until,
                        rounds: entry.state.rounds.len(),
                        joined: viewer.is_some_and(|v| entry.state.players.iter().any(|p| p == v)),
                    },
                ))
            })
            .filter(|(_, s)| status.is_none_or(|status| s.status == status))
            .collect();
        list.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.id.cmp(&b.1.id)));
        Ok(list.into_iter().map(|(_, s)| s).collect())
    }

    /// Decides every event of tournament `id` again from its log: with the revealed seed once
    /// it has finished (checked against the commitment), with the server's own before.
    pub async fn audit_tournament(
        &self,
        games: &Games,
        id: &str,
    ) -> Result<TournamentAudit, ApiError> {
        self.catch_up().await?;
        let (events, revealed) = {
            let book = self.read();
            let entry = book.tournaments.get(id).ok_or_else(|| not_found(id))?;
            (
                entry.events.clone(),
                entry.state.finished.as_ref().map(|(_, seed)| seed.clone()),
            )
        };
        let seed = match &revealed {
            Some(hex) => Seed::from_hex(hex).map_err(ApiError::internal),
            None => self.tournament_seed(games, id),
        };
        let found = match seed {
            Ok(seed) => tournament::audit(id, &events, &seed)
                .err()
                .map(|d| d.to_string()),
            Err(error) => Some(format!("the seed cannot be read: {error}")),
        };
        Ok(TournamentAudit {
            id: id.to_string(),
            valid: found.is_none(),
            events: events.len(),
            seed_revealed: revealed.is_some(),
            divergence: found,
        })
    }

    /// Does what the tournaments' events ask and the log does not show yet: the games of the
    /// rounds being played, their players seated, and the results of their finished games
    /// copied in. Every step is found missing before it is done and is safe twice.
    pub async fn drive_tournaments(&self, games: &Games) {
        let _one = self.driving.lock().await;
        // A result copied in may close a round and pair the next, whose games are then
        // missing: a few passes, until nothing is (a step that fails waits for the next call).
        for _ in 0..PASSES {
            let work = {
                let book = self.read();
                missing_work(&book)
            };
            if work.is_empty() {
                return;
            }
            self.drive_once(games, work).await;
        }
    }

    async fn drive_once(&self, games: &Games, work: Vec<Step>) {
        // A round's games are streams of their own, under ids derived from their tables: they
        // are started together, `STARTING` at a time, so that their appends share the store's
        // commits instead of waiting for each other's; each is still made only when found
        // missing. The other steps write to the tournaments' streams: one after another.
        let (starts, rest): (Vec<Step>, Vec<Step>) = work
            .into_iter()
            .partition(|step| matches!(step, Step::Create { .. }));
        let mut outcomes: Vec<Result<(), ApiError>> = stream::iter(starts)
            .map(|step| self.step(games, step))
            .buffer_unordered(STARTING)
            .collect()
            .await;
        for step in rest {
            outcomes.push(self.step(games, step).await);
        }
        for error in outcomes.into_iter().filter_map(Result::err) {
            tracing::debug!(%error, "tournament step left for the next pass");
        }
        if let Err(error) = self.catch_up().await {
            tracing::warn!(%error, "tournaments: cannot fold the event log");
        }
    }

    /// Does one step of the driver.
    async fn step(&self, games: &Games, step: Step) -> Result<(), ApiError> {
        match step {
            Step::Create {
                tournament,
                game,
                players,
                seated,
            } => {
                self.start_table(games, &tournament, &game, &players, &seated)
                    .await
            }
            Step::Close {
                tournament,
                game,
                players,
                seated,
            } => {
                self.close_forfeited(games, &tournament, &game, &players, &seated)
                    .await
            }
            Step::Record { tournament, result } => self
                .tournament_command(games, &tournament, "system", Command::RecordResult(result))
                .await
                .map(|_| ()),
            Step::Replace {
                tournament,
                replace,
            } => {
                let outcome = self
                    .tournament_command(games, &tournament, "system", replace.clone())
                    .await;
                if outcome.is_ok() {
                    tracing::info!(%tournament, ?replace, "a table goes on in its continuation");
                }
                outcome.map(|_| ())
            }
            Step::StartOnTime { tournament } => self
                .tournament_command(games, &tournament, "system", Command::StartOnTime)
                .await
                .map(|_| ()),
            Step::Resign {
                tournament,
                game,
                player,
            } => {
                // The player withdrew: the tournament recorded the forfeit, the game
                // records the player's resignation.
                let outcome = games
                    .play(PlayerCommand {
                        game: &game,
                        player: &player,
                        command: serde_json::json!({"type": "resign"}),
                        expected: None,
                        key: None,
                    })
                    .await;
                if outcome.is_ok() {
                    tracing::info!(%tournament, %game, %player, "forfeited game resigned");
                }
                outcome.map(|_| ())
            }
        }
    }

    /// Drives the tournaments for as long as the node runs, while it holds the lease
    /// [`TOURNAMENTS`] (one node of those sharing a store; on sled, this one): when it takes
    /// the lease (a crash may have left a round's games unmade) and whenever the log grows (a
    /// game may have ended, by mail or on another node). Commands drive too, on the node that
    /// wrote them; reads never do.
    pub async fn follow_tournaments(&self, games: &Games, leases: &Leases) {
        let mut positions = self.store().subscribe_all();
        loop {
            if leases.hold(TOURNAMENTS) && self.catch_up().await.is_ok() {
                self.drive_tournaments(games).await;
            }
            // Woken by the log, or after a while to ask for the lease again (its holder may
            // have died).
            if let Ok(Err(_)) = tokio::time::timeout(LEASE_RETRY, positions.changed()).await {
                return;
            }
        }
    }

    /// Copies game `game`'s result into its tournament (and pairs what follows) when it is a
    /// tournament's game: called by the node that wrote a command, so that the answer's next
    /// read of the tournament shows it.
    pub async fn game_written(&self, games: &Games, game: &str) {
        if self.tournament_of(game).is_some() && self.catch_up().await.is_ok() {
            self.drive_tournaments(games).await;
        }
    }

    /// Ends game `game` of a table forfeited before it seated every one of `players`: its
    /// one seated player cancels it (it never began, so it counts for nobody); with more
    /// seated, the rest are seated and the player who withdrew resigns it, as from a game
    /// that had begun.
    async fn close_forfeited(
        &self,
        games: &Games,
        tournament: &str,
        game: &str,
        players: &[String],
        seated: &[bool],
    ) -> Result<(), ApiError> {
        let mut holders = players.iter().zip(seated).filter(|(_, s)| **s);
        if let (Some((player, _)), None) = (holders.next(), holders.next()) {
            games
                .play(PlayerCommand {
                    game,
                    player,
                    command: serde_json::json!({"type": "cancel"}),
                    expected: None,
                    key: None,
                })
                .await?;
            tracing::info!(%tournament, %game, "forfeited table's game cancelled");
            return Ok(());
        }
        self.start_table(games, tournament, game, players, seated)
            .await
    }

    /// Creates a table's game under its derived id (unless it exists) and seats the players
    /// not seated yet.
    async fn start_table(
        &self,
        games: &Games,
        tournament: &str,
        game: &str,
        players: &[String],
        seated: &[bool],
    ) -> Result<(), ApiError> {
        let settings = self
            .read()
            .tournaments
            .get(tournament)
            .and_then(|t| t.state.settings.clone())
            .ok_or_else(|| not_found(tournament))?;
        let Some(first) = players.first() else {
            return Ok(());
        };
        if seated.is_empty() {
            games
                .create_as(
                    first,
                    NewGame {
                        kind: settings.kind.clone(),
                        variant: settings.variant.clone(),
                        options: settings.options.clone(),
                        seats: settings.seats,
                        seat: Some(0),
                        time_control: Some(settings.time_control),
                        rated: settings.rated,
                        spectators_room: false,
                    },
                    Some(game.to_string()),
                )
                .await?;
            tracing::info!(%tournament, %game, "tournament game created");
        }
        for (seat, player) in players.iter().enumerate().skip(1) {
            if seated.get(seat).copied().unwrap_or(false) {
                continue;
            }
            games
                .play(PlayerCommand {
                    game,
                    player,
                    command: serde_json::json!({"type": "join", "seat": seat}),
                    expected: None,
                    key: None,
                })
                .await?;
        }
        Ok(())
    }
}

/// What a player asks of a tournament.
#[derive(Clone, Copy, Debug)]
pub enum TournamentAct {
    Join,
    Withdraw,
    Start,
}

enum Step {
    Create {
        tournament: String,
        game: String,
        players: Vec<String>,
        /// Which seats are taken (empty: the game does not exist yet).
        seated: Vec<bool>,
    },
    Record {
        tournament: String,
        result: GameResultEvent,
    },
    /// A table's game taken back by consent: its continuation replaces it in the log
    /// (`Command::ReplaceGame`).
    Replace {
        tournament: String,
        replace: Command,
    },
    /// A game whose table was forfeited before it seated everyone: cancelled when one
    /// player holds a seat, else seated in full (it starts, and `Resign` ends it for the
    /// player who withdrew).
    Close {
        tournament: String,
        game: String,
        players: Vec<String>,
        seated: Vec<bool>,
    },
    /// A tournament whose start time has come, still open.
    StartOnTime { tournament: String },
    /// A game forfeited by a player who withdrew, still running with them seated.
    Resign {
        tournament: String,
        game: String,
        player: String,
    },
}

/// The step that ends game `game` of tournament `id` when its table was forfeited before
/// the game seated every player: the game must not wait for a seat nobody will take.
fn unseated_forfeit(book: &Book, id: &str, game: &str) -> Option<Step> {
    let open = book.games.get(game)?;
    if open.started || open.outcome.is_some() {
        return None;
    }
    let (_, table) = book.tournaments.get(id)?.state.table_of(game)?;
    let seated: Vec<bool> = table
        .players
        .iter()
        .enumerate()
        .map(|(seat, p)| open.players.get(seat).cloned().flatten().as_ref() == Some(p))
        .collect();
    Some(Step::Close {
        tournament: id.to_string(),
        game: game.to_string(),
        players: table.players.clone(),
        seated,
    })
}

/// The steps the book shows missing.
fn missing_work(book: &Book) -> Vec<Step> {
    let mut steps = due_starts(book, Utc::now());
    for (id, entry) in &book.tournaments {
        let state = &entry.state;
        for (event, _) in &entry.events {
            let TournamentEvent::Forfeited { game, player, .. } = event else {
                continue;
            };
            if let Some(step) = unseated_forfeit(book, id, game) {
                steps.push(step);
                continue;
            }
            let game = book.table_game(game);
            let Some(running) = book.games.get(game) else {
                continue;
            };
            let seated = running
                .players
                .iter()
                .zip(&running.left)
                .any(|(seat, left)| seat.as_deref() == Some(player.as_str()) && !left);
            if running.started && running.outcome.is_none() && !running.superseded && seated {
                steps.push(Step::Resign {
                    tournament: id.clone(),
                    game: game.to_string(),
                    player: player.clone(),
                });
            }
        }
        if state.phase() != Phase::Running {
            continue;
        }
        let Some(round) = state.rounds.last() else {
            continue;
        };
        for (table, result) in round.tables.iter().zip(&round.results) {
            if result.is_some() {
                continue;
            }
            let Some(game) = book.games.get(&table.game) else {
                steps.push(Step::Create {
                    tournament: id.clone(),
                    game: table.game.clone(),
                    players: table.players.clone(),
                    seated: Vec::new(),
                });
                continue;
            };
            let seated: Vec<bool> = table
                .players
                .iter()
                .enumerate()
                .map(|(seat, p)| game.players.get(seat).cloned().flatten().as_ref() == Some(p))
                .collect();
            if seated.iter().any(|s| !s) {
                steps.push(Step::Create {
                    tournament: id.clone(),
                    game: table.game.clone(),
                    players: table.players.clone(),
                    seated,
                });
                continue;
            }
            // Taken back by consent: the game that went on from it (the book's continuation:
            // forked from it, not for analysis, the same players at the same seats) replaces
            // it at the table, and the result is then that game's.
            if game.superseded {
                if let Some(by) = book.tournament_continuations.get(&table.game) {
                    steps.push(Step::Replace {
                        tournament: id.clone(),
                        replace: Command::ReplaceGame {
                            round: round.number,
                            table: table.table,
                            game: table.game.clone(),
                            by: by.clone(),
                        },
                    });
                }
                continue;
            }
            let Some(outcome) = game.outcome.as_ref() else {
                continue;
            };
            let places = domain::rating::places(outcome, table.players.len())
                .unwrap_or_else(|| vec![1; table.players.len()]);
            steps.push(Step::Record {
                tournament: id.clone(),
                result: GameResultEvent {
                    round: round.number,
                    table: table.table,
                    game: table.game.clone(),
                    places,
                    scores: outcome.scores.clone(),
                    draw: outcome.draw,
                    reason: outcome.reason.clone(),
                },
            });
        }
    }
    steps
}

/// The open tournaments whose start time has come by `now`.
fn due_starts(book: &Book, now: DateTime<Utc>) -> Vec<Step> {
    book.tournaments
        .iter()
        .filter(|(_, entry)| entry.state.phase() == Phase::Open)
        .filter(|(_, entry)| {
            let starts_at = entry.state.settings.as_ref().and_then(|s| s.starts_at);
            starts_at.is_some_and(|at| at <= now)
        })
        .map(|(id, _)| Step::StartOnTime {
            tournament: id.clone(),
        })
        .collect()
}

impl Club {
    /// The tournament, round and table game `game` was paired in, when it was.
    pub fn tournament_of(&self, game: &str) -> Option<GameTournament> {
        self.read().tournament_games.get(game).cloned()
    }
}

/// Whether `format` is one the decider knows (for parsing a query).
pub fn parse_status(text: &str) -> Option<Phase> {
    match text {
        "open" => Some(Phase::Open),
        "running" => Some(Phase::Running),
        "finished" => Some(Phase::Finished),
        "cancelled" => Some(Phase::Cancelled),
        _ => None,
    }
}

#[cfg(test)]
mod faults_tests;
#[cfg(test)]
mod starting_tests;
