//! A tournament as the fold of its events.

use super::event::{
    GameResultEvent, LeagueMove, PairedTable, Settings, StandingRow, TournamentEvent,
};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How players meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Each pair meets once (circle method); tables of three or more seats are drawn so that
    /// every pair meets as evenly as the count allows.
    RoundRobin,
    /// Players of equal score meet, never twice; colours within one; a bye at most once.
    Swiss,
    /// The winner of each table goes on; a drawn two-seat game sends the higher seed on.
    KnockOut,
    /// A round robin in divisions, each division's players meeting each other; the next
    /// edition is built from its standings with promotion and relegation.
    League,
}

/// Where a tournament stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Open,
    Running,
    Finished,
    /// Its start time came without its minimum of players.
    Cancelled,
}

/// One round: its tables, byes and the results in so far.
#[derive(Clone, Debug, PartialEq)]
pub struct Round {
    pub number: u32,
    /// Each table's game is the one it is played in now: the game paired, or the last game
    /// that replaced it (`game_replaced`).
    pub tables: Vec<PairedTable>,
    /// By table index (table - 1): the games each table was played in before its game now,
    /// in order (the first the game paired), each superseded by a takeback by consent.
    pub replaced: Vec<Vec<String>>,
    pub byes: Vec<String>,
    /// By table index (table - 1).
    pub results: Vec<Option<GameResultEvent>>,
    pub closed: bool,
}

impl Round {
    pub fn complete(&self) -> bool {
        self.results.iter().all(Option::is_some)
    }
}

/// The fold.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tournament {
    pub settings: Option<Settings>,
    /// In the order they joined.
    pub players: Vec<String>,
    /// The seeding order, once started.
    pub order: Vec<String>,
    pub rounds: Vec<Round>,
    pub finished: Option<(Vec<StandingRow>, String)>,
    /// Why it was cancelled, when it was.
    pub cancelled: Option<String>,
    /// A league's divisions, the first (highest) first, once started.
    pub divisions: Vec<Vec<String>>,
    /// A league's moves since the edition before, once started.
    pub moves: Vec<LeagueMove>,
    pub version: u64,
}

impl Tournament {
    pub fn phase(&self) -> Phase {
        if self.finished.is_some() {
            Phase::Finished
        } else if self.cancelled.is_some() {
            Phase::Cancelled
        } else if self.order.is_empty() {
            Phase::Open
        } else {
            Phase::Running
        }
    }

    pub fn fold<'a>(events: impl IntoIterator<Item = &'a TournamentEvent>) -> Tournament {
        events
            .into_iter()
            .fold(Tournament::default(), |state, event| state.evolve(event))
    }

    pub fn evolve(mut self, event: &TournamentEvent) -> Tournament {
        self.version += 1;
        match event {
            TournamentEvent::TournamentCreated(settings) => {
                self.settings = Some((**settings).clone())
            }
            TournamentEvent::PlayerJoined { player } => self.players.push(player.clone()),
            TournamentEvent::PlayerWithdrew { player } => self.players.retain(|p| p != player),
            TournamentEvent::TournamentStarted {
                order,
                divisions,
                moves,
            } => {
                self.order = order.clone();
                self.divisions = divisions.clone();
                self.moves = moves.clone();
            }
            TournamentEvent::TournamentCancelled { reason } => {
                self.cancelled = Some(reason.clone())
            }
            TournamentEvent::RoundPaired {
                round,
                tables,
                byes,
            } => self.rounds.push(Round {
                number: *round,
                tables: tables.clone(),
                byes: byes.clone(),
                replaced: vec![Vec::new(); tables.len()],
                results: vec![None; tables.len()],
                closed: false,
            }),
            TournamentEvent::GameReplaced {
                round,
                table,
                game: _,
                by,
            } => {
                let at = table.wrapping_sub(1);
                if let Some(r) = self.rounds.iter_mut().find(|r| r.number == *round) {
                    if let (Some(seats), Some(before)) =
                        (r.tables.get_mut(at), r.replaced.get_mut(at))
                    {
                        before.push(std::mem::replace(&mut seats.game, by.clone()));
                    }
                }
            }
            TournamentEvent::GameFinished(result) => {
                if let Some(slot) = self
                    .rounds
                    .iter_mut()
                    .find(|r| r.number == result.round)
                    .and_then(|r| r.results.get_mut(result.table.wrapping_sub(1)))
                {
                    *slot = Some(result.clone());
                }
            }
            TournamentEvent::Forfeited {
                round,
                table,
                game,
                player,
                reason,
            } => {
                if let Some(r) = self.rounds.iter_mut().find(|r| r.number == *round) {
                    if let (Some(seats), Some(slot)) = (
                        r.tables.get(table.wrapping_sub(1)),
                        r.results.get_mut(table.wrapping_sub(1)),
                    ) {
                        let n = seats.players.len();
                        *slot = Some(GameResultEvent {
                            round: *round,
                            table: *table,
                            game: game.clone(),
                            places: seats
                                .players
                                .iter()
                                .map(|p| if p == player { n } else { 1 })
                                .collect(),
                            scores: None,
                            draw: false,
                            reason: reason.clone(),
                        });
                    }
                }
            }
            TournamentEvent::RoundClosed { round } => {
                if let Some(r) = self.rounds.iter_mut().find(|r| r.number == *round) {
                    r.closed = true;
                }
            }
            TournamentEvent::TournamentFinished { standings, seed } => {
                self.finished = Some((standings.clone(), seed.clone()))
            }
        }
        self
    }

    /// Whether `player` withdrew after the start (their games from then on are forfeited).
    pub fn withdrawn(&self, player: &str) -> bool {
        self.order.iter().any(|p| p == player) && !self.players.iter().any(|p| p == player)
    }

    /// A league player's division (from 1).
    pub fn division_of(&self, player: &str) -> Option<usize> {
        self.divisions
            .iter()
            .position(|d| d.iter().any(|p| p == player))
            .map(|i| i + 1)
    }

    /// The table of `game` (its game now, or one it replaced): its round, table number,
    /// players and game now.
    pub fn table_of(&self, game: &str) -> Option<(u32, &PairedTable)> {
        self.rounds.iter().find_map(|r| {
            r.tables
                .iter()
                .zip(&r.replaced)
                .find(|(t, before)| t.game == game || before.iter().any(|g| g == game))
                .map(|(t, _)| (r.number, t))
        })
    }

    /// Every table result so far, with its table.
    pub fn results(&self) -> impl Iterator<Item = (&PairedTable, &GameResultEvent)> {
        self.rounds.iter().flat_map(|r| {
            r.tables
                .iter()
                .zip(&r.results)
                .filter_map(|(t, res)| res.as_ref().map(|res| (t, res)))
        })
    }
}
