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
    /// The seeding order, drawn from the seed.
    TournamentStarted {
        order: Vec<String>,
    },
    RoundPaired {
        round: u32,
        tables: Vec<PairedTable>,
        /// Players without a game this round.
        byes: Vec<String>,
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
            TournamentEvent::RoundPaired { .. } => "round_paired",
            TournamentEvent::GameFinished(_) => "game_finished",
            TournamentEvent::Forfeited { .. } => "forfeited",
            TournamentEvent::RoundClosed { .. } => "round_closed",
            TournamentEvent::TournamentFinished { .. } => "tournament_finished",
        }
    }
}
