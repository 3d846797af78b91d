//! The events of a tournament's stream, as stored.

use super::state::Format;
use crate::table::TimeControl;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// What a tournament is, fixed at its creation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Settings {
    pub name: String,
    /// The player who created it (and may start it).
    pub creator: String,
    /// The game id: see `GET /v1/kinds`.
    pub kind: String,
    #[serde(default)]
    pub variant: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    pub format: Format,
    /// Seats at each table (each game).
    pub seats: usize,
    /// Rounds to play: Swiss and a round robin of tables of three or more; a round robin of
    /// two seats plays every pair once (rounds absent) or twice with colours swapped (rounds
    /// twice the single count); a knock-out plays until one is left.
    #[serde(default)]
    pub rounds: Option<u32>,
    #[serde(default)]
    pub time_control: TimeControl,
    #[serde(default)]
    pub rated: bool,
    /// Joins are taken until then.
    pub entry_until: DateTime<Utc>,
    pub min_players: usize,
    pub max_players: usize,
    /// SHA-256 of the tournament's seed, as lowercase hex; the seed is revealed at the end.
    pub seed_commitment: String,
    /// When set, the tournament starts by itself then (at or after `entry_until`) if it has
    /// its minimum of players, and is cancelled otherwise.
    #[serde(default)]
    pub starts_at: Option<DateTime<Utc>>,
    /// A league's divisions and its link to the edition before (format `league` only).
    #[serde(default)]
    pub league: Option<League>,
}

/// A league: a round robin in divisions, played again edition after edition with promotion
/// and relegation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct League {
    /// The most players of a division (the first edition's divisions are as even as the count
    /// allows; a lowest division larger than this is cut in two or more).
    pub division_size: usize,
    /// How many of each division but the first go up one division at the next edition.
    pub promoted: usize,
    /// How many of each division but the last go down one division at the next edition.
    pub relegated: usize,
    /// 1 for the first edition.
    #[serde(default = "first_edition")]
    pub edition: u32,
    /// The tournament id of the edition before, for the second edition on.
    #[serde(default)]
    #[schema(example = "t-3f9a0c11d2e4b5a6")]
    pub previous: Option<String>,
    /// The edition before's final standings by division (first division first, each best
    /// first), without the players who withdrew from it: they enter this edition at its
    /// creation.
    #[serde(default)]
    pub carried: Vec<Vec<String>>,
}

fn first_edition() -> u32 {
    1
}

/// Where a player of a league's edition comes from and goes to, written out at its start.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LeagueMove {
    pub player: String,
    /// Their division at the edition before (none: a new entrant).
    pub from: Option<usize>,
    /// Their division in this edition (none: they left before it started).
    pub to: Option<usize>,
}

/// One table of a round: its game and its players in seat order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PairedTable {
    /// From 1.
    pub table: usize,
    #[schema(example = "g-3f9a0c11d2e4b5a6")]
    pub game: String,
    pub players: Vec<String>,
}

/// A game's result, copied from the game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct GameResultEvent {
    pub round: u32,
    pub table: usize,
    pub game: String,
    /// Each seat's place (1 is first; equal places share), in seat order.
    pub places: Vec<usize>,
    /// The game's own scores by seat, for games that score.
    #[serde(default)]
    pub scores: Option<Vec<i64>>,
    pub draw: bool,
    pub reason: String,
}

/// One line of the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct StandingRow {
    /// From 1; players who cannot be told apart share a rank.
    pub rank: usize,
    pub player: String,
    /// Tournament points: per game, one for each player placed below, a half for each placed
    /// equal (a win 1, a draw ½ at two seats); a Swiss bye 1.
    pub points: f64,
    /// The format's tie-breaks, in order (see `tie_breaks` of the tournament).
    pub tie_breaks: Vec<f64>,
    pub games: u32,
    /// The round a knock-out player went out in (none for the winner and other formats).
    #[serde(default)]
    pub out_in_round: Option<u32>,
    /// A league player's division (from 1; ranks count within it).
    #[serde(default)]
    pub division: Option<usize>,
}

/// The events of a tournament's stream (`t-` and 16 hexadecimal digits).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TournamentEvent {
    TournamentCreated(Box<Settings>),
    PlayerJoined {
        player: String,
    },
    PlayerWithdrew {
        player: String,
    },
    /// The seeding order, drawn from the seed (a league: its divisions one after another).
    TournamentStarted {
        order: Vec<String>,
        /// A league's divisions, the first (highest) first.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        divisions: Vec<Vec<String>>,
        /// A league's promotions, relegations, entrants and leavers since the edition before.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        moves: Vec<LeagueMove>,
    },
    /// Its start time came without its minimum of players (or without a pairing).
    TournamentCancelled {
        reason: String,
    },
    RoundPaired {
        round: u32,
        tables: Vec<PairedTable>,
        /// Players without a game this round.
        byes: Vec<String>,
    },
    /// A table's game was taken back by consent and play went on in `by`, its continuation:
    /// `by` is the table's game from then on, and the table's result is `by`'s. Only the game
    /// the table is played in now, only while its round is under way and its result is not in,
    /// and only by a game new to the tournament (see the decider's `ReplaceGame`).
    GameReplaced {
        round: u32,
        table: usize,
        /// The game replaced: the one paired, or the continuation of an earlier takeback.
        game: String,
        /// The game that goes on from it (its `forked` event names `game` as its parent).
        by: String,
    },
    GameFinished(GameResultEvent),
    /// A game lost by forfeit: its player withdrew after the start. The other seats share
    /// first place, the player who forfeited is last; games played before stand.
    Forfeited {
        round: u32,
        table: usize,
        game: String,
        player: String,
        reason: String,
    },
    RoundClosed {
        round: u32,
    },
    TournamentFinished {
        standings: Vec<StandingRow>,
        /// The seed, revealed: its SHA-256 is the commitment.
        seed: String,
    },
}

impl TournamentEvent {
    /// The stored event type.
    pub fn type_name(&self) -> &'static str {
        match self {
            TournamentEvent::TournamentCreated(_) => "tournament_created",
            TournamentEvent::PlayerJoined { .. } => "player_joined",
            TournamentEvent::PlayerWithdrew { .. } => "player_withdrew",
            TournamentEvent::TournamentStarted { .. } => "tournament_started",
            TournamentEvent::TournamentCancelled { .. } => "tournament_cancelled",
            TournamentEvent::RoundPaired { .. } => "round_paired",
            TournamentEvent::GameReplaced { .. } => "game_replaced",
            TournamentEvent::GameFinished(_) => "game_finished",
            TournamentEvent::Forfeited { .. } => "forfeited",
            TournamentEvent::RoundClosed { .. } => "round_closed",
            TournamentEvent::TournamentFinished { .. } => "tournament_finished",
        }
    }
}
