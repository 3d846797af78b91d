//! The decider: a command and the tournament so far give its events, or a refusal.

use super::event::{GameResultEvent, PairedTable, Settings, TournamentEvent};
use super::pairing::{self, Pairing};
use super::standings::{self, table_winner};
use super::state::{Format, Phase, Tournament};
use crate::Seed;
use chrono::{DateTime, Utc};

/// What may be asked of a tournament.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Create(Box<Settings>),
    Join {
        player: String,
    },
    Withdraw {
        player: String,
    },
    Start {
        by: String,
    },
    /// A game of the tournament ended (copied from the game).
    RecordResult(GameResultEvent),
}

/// A refusal: a stable code and a sentence.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct TournamentError {
    pub code: &'static str,
    pub message: String,
}

fn refuse(code: &'static str, message: impl Into<String>) -> TournamentError {
    TournamentError {
        code,
        message: message.into(),
    }
}

/// The most players a tournament takes.
pub const MOST_PLAYERS: usize = 1000;

/// Decides `command` for tournament `id` as it stands in `state`, at `now`, with its seed.
pub fn decide(
    state: &Tournament,
    id: &str,
    command: &Command,
    now: DateTime<Utc>,
    seed: &Seed,
) -> Result<Vec<TournamentEvent>, TournamentError> {
    if let Command::Create(settings) = command {
        if state.settings.is_some() {
            return Err(refuse(
                "tournament_exists",
                "This tournament exists already.",
            ));
        }
        check_settings(settings, now, seed)?;
        return Ok(vec![TournamentEvent::TournamentCreated(settings.clone())]);
    }
    let settings = state
        .settings
        .as_ref()
        .ok_or_else(|| refuse("tournament_not_found", "There is no such tournament."))?;
    match command {
        Command::Create(_) => unreachable!("decided above"),
        Command::Join { player } => {
            open(state)?;
            if now >= settings.entry_until {
                return Err(refuse(
                    "entry_closed",
                    format!("Entry closed at {}.", settings.entry_until.to_rfc3339()),
                ));
            }
            if state.players.contains(player) {
                return Err(refuse(
                    "already_joined",
                    "You have joined this tournament already.",
                ));
            }
            if state.players.len() >= settings.max_players {
                return Err(refuse(
                    "tournament_full",
                    format!(
                        "This tournament is full: it takes {} players.",
                        settings.max_players
                    ),
                ));
            }
            Ok(vec![TournamentEvent::PlayerJoined {
                player: player.clone(),
            }])
        }
        Command::Withdraw { player } => {
            if state.phase() == Phase::Finished {
                return Err(refuse("tournament_not_running", "This tournament is over."));
            }
            if !state.players.contains(player) {
                return Err(refuse("not_joined", "You have not joined this tournament."));
            }
            let withdrew = TournamentEvent::PlayerWithdrew {
                player: player.clone(),
            };
            let after = state.clone().evolve(&withdrew);
            let mut events = vec![withdrew];
            if after.phase() == Phase::Running {
                events.extend(settle(after, id, seed));
            }
            Ok(events)
        }
        Command::Start { by } => {
            open(state)?;
            if by != &settings.creator {
                return Err(refuse(
                    "forbidden",
                    "Only the player who created a tournament may start it.",
                ));
            }
            let n = state.players.len();
            if n < settings.min_players {
                return Err(refuse(
                    "too_few_players",
                    format!(
                        "{n} players have joined; this tournament starts with {} or more.",
                        settings.min_players
                    ),
                ));
            }
            check_count(settings, n)?;
            let mut order = state.players.clone();
            seed.dealer(0).shuffle(&mut order);
            let started = TournamentEvent::TournamentStarted { order };
            let after = state.clone().evolve(&started);
            let mut events = vec![started];
            events.extend(next_round(&after, id, seed));
            Ok(events)
        }
        Command::RecordResult(result) => {
            if state.phase() != Phase::Running {
                return Err(refuse(
                    "tournament_not_running",
                    "This tournament is not under way.",
                ));
            }
            let round = state
                .rounds
                .last()
                .filter(|r| r.number == result.round)
                .ok_or_else(|| {
                    refuse(
                        "not_in_round",
                        "That game is not of the round being played.",
                    )
                })?;
            let table = round
                .tables
                .get(result.table.wrapping_sub(1))
                .filter(|t| t.game == result.game)
                .ok_or_else(|| {
                    refuse(
                        "not_in_round",
                        "That game is not of this tournament's round.",
                    )
                })?;
            if round.results[result.table - 1].is_some() {
                return Err(refuse(
                    "result_recorded",
                    "That game's result is recorded already.",
                ));
            }
            if result.places.len() != table.players.len()
                || result
                    .places
                    .iter()
                    .any(|&p| p == 0 || p > table.players.len())
            {
                return Err(refuse(
                    "invalid_result",
                    "A result places every seat of the table.",
                ));
            }
            let finished = TournamentEvent::GameFinished(result.clone());
            let after = state.clone().evolve(&finished);
            let mut events = vec![finished];
            events.extend(settle(after, id, seed));
            Ok(events)
        }
    }
}

/// Forfeits every open game of the current round that has a withdrawn player, closes the
/// round once complete and pairs the next, until a round waits for a game or the end.
fn settle(mut state: Tournament, id: &str, seed: &Seed) -> Vec<TournamentEvent> {
    let mut events = Vec::new();
    while let Some(round) = state.rounds.last().filter(|r| !r.closed) {
        let forfeits: Vec<TournamentEvent> = round
            .tables
            .iter()
            .zip(&round.results)
            .filter(|(_, result)| result.is_none())
            .filter_map(|(table, _)| {
                let player = table.players.iter().find(|p| state.withdrawn(p))?;
                Some(TournamentEvent::Forfeited {
                    round: round.number,
                    table: table.table,
                    game: table.game.clone(),
                    player: player.clone(),
                    reason: "withdrawal".into(),
                })
            })
            .collect();
        let number = round.number;
        for event in forfeits {
            state = state.evolve(&event);
            events.push(event);
        }
        if !state.rounds.last().is_some_and(|r| r.complete()) {
            break;
        }
        let closed = TournamentEvent::RoundClosed { round: number };
        state = state.evolve(&closed);
        events.push(closed);
        let next = next_round(&state, id, seed);
        for event in next {
            state = state.evolve(&event);
            events.push(event);
        }
    }
    events
}

fn open(state: &Tournament) -> Result<(), TournamentError> {
    if state.phase() != Phase::Open {
        return Err(refuse(
            "tournament_started",
            "This tournament has started already.",
        ));
    }
    Ok(())
}

fn check_settings(
    settings: &Settings,
    now: DateTime<Utc>,
    seed: &Seed,
) -> Result<(), TournamentError> {
    let invalid = |m: String| refuse("invalid_tournament", m);
    let name = settings.name.trim();
    if name.is_empty() || name.chars().count() > 80 || name.chars().any(char::is_control) {
        return Err(invalid(
            "A tournament's name is 1 to 80 characters, on one line.".into(),
        ));
    }
    if settings.seats < 2 {
        return Err(invalid(
            "A tournament's tables have two seats or more.".into(),
        ));
    }
    if settings.min_players < settings.seats.max(2) || settings.max_players < settings.min_players {
        return Err(invalid(format!(
            "min_players is at least the seats ({}) and at most max_players.",
            settings.seats
        )));
    }
    if settings.max_players > MOST_PLAYERS {
        return Err(invalid(format!(
            "A tournament takes at most {MOST_PLAYERS} players."
        )));
    }
    if settings.entry_until <= now {
        return Err(invalid("entry_until is in the future.".into()));
    }
    if !seed.matches(&settings.seed_commitment) {
        return Err(invalid("The seed commitment is not the seed's.".into()));
    }
    match (settings.format, settings.seats, settings.rounds) {
        (Format::Swiss, _, Some(r)) if r >= 1 => {}
        (Format::Swiss, _, _) => {
            return Err(invalid("A Swiss names its rounds (1 or more).".into()))
        }
        (Format::RoundRobin, 2, None | Some(1) | Some(2)) => {}
        (Format::RoundRobin, 2, _) => {
            return Err(invalid(
                "A two-seat round robin is played once (rounds 1 or absent) or twice (rounds 2)."
                    .into(),
            ))
        }
        (Format::RoundRobin, _, Some(r)) if r >= 1 => {}
        (Format::RoundRobin, _, _) => {
            return Err(invalid(
                "A round robin at tables of three or more names its rounds.".into(),
            ))
        }
        (Format::KnockOut, _, None) => {}
        (Format::KnockOut, _, Some(_)) => {
            return Err(invalid(
                "A knock-out plays until one is left: leave rounds out.".into(),
            ))
        }
    }
    Ok(())
}

fn check_count(settings: &Settings, n: usize) -> Result<(), TournamentError> {
    let refuse_count = |m: String| refuse("cannot_pair", m);
    match settings.format {
        Format::Swiss if settings.rounds.unwrap_or(0) as usize >= n => Err(refuse_count(format!(
            "{n} players cannot play {} Swiss rounds without meeting twice.",
            settings.rounds.unwrap_or(0)
        ))),
        Format::KnockOut if settings.seats > 2 && !pairing::power_of(n, settings.seats) => {
            Err(refuse_count(format!(
                "A knock-out at tables of {} needs a power of {} players, not {n}.",
                settings.seats, settings.seats
            )))
        }
        _ => Ok(()),
    }
}

/// Rounds a round robin plays.
fn round_robin_total(settings: &Settings, n: usize) -> u32 {
    if settings.seats == 2 {
        pairing::round_robin_rounds(n) * settings.rounds.unwrap_or(1)
    } else {
        settings.rounds.unwrap_or(1)
    }
}

/// After a round closed (or at the start): the next round's pairing, or the end.
fn next_round(state: &Tournament, id: &str, seed: &Seed) -> Vec<TournamentEvent> {
    let Some(settings) = &state.settings else {
        return Vec::new();
    };
    let round = state.rounds.len() as u32 + 1;
    let pairing: Option<Pairing> = match settings.format {
        Format::RoundRobin => {
            (round <= round_robin_total(settings, state.order.len())).then(|| {
                if settings.seats == 2 {
                    pairing::round_robin(&state.order, round)
                } else {
                    pairing::round_robin_tables(state, settings.seats, round, seed)
                }
            })
        }
        Format::Swiss => {
            if round > settings.rounds.unwrap_or(0) {
                None
            } else {
                let ranked: Vec<String> = {
                    let rows = standings::standings(state);
                    let mut players: Vec<(usize, f64, String)> = state
                        .order
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| !state.withdrawn(p))
                        .map(|(i, p)| {
                            let points = rows
                                .iter()
                                .find(|r| &r.player == p)
                                .map_or(0.0, |r| r.points);
                            (i, points, p.clone())
                        })
                        .collect();
                    players.sort_by(|a, b| {
                        b.1.partial_cmp(&a.1)
                            .unwrap_or(std::cmp::Ordering::Equal)
                            .then(a.0.cmp(&b.0))
                    });
                    players.into_iter().map(|p| p.2).collect()
                };
                if settings.seats == 2 {
                    pairing::swiss(state, &ranked, round)
                } else {
                    Some(pairing::swiss_tables(state, &ranked, settings.seats))
                }
            }
        }
        Format::KnockOut => {
            let remaining = remaining(state);
            (remaining.len() > 1).then(|| pairing::knock_out(&remaining, settings.seats, round))
        }
    };
    match pairing {
        Some(pairing) => vec![TournamentEvent::RoundPaired {
            round,
            tables: pairing
                .tables
                .into_iter()
                .enumerate()
                .map(|(i, players)| PairedTable {
                    table: i + 1,
                    game: super::game_id(id, round, i + 1),
                    players,
                })
                .collect(),
            byes: pairing.byes,
        }],
        None => vec![TournamentEvent::TournamentFinished {
            standings: standings::standings(state),
            seed: seed.to_hex(),
        }],
    }
}

/// The players still in a knock-out, in seeding order.
fn remaining(state: &Tournament) -> Vec<String> {
    let Some(last) = state.rounds.last() else {
        return state.order.clone();
    };
    let mut on: Vec<&String> = last.byes.iter().collect();
    for (table, result) in last.tables.iter().zip(&last.results) {
        if let Some(winner) = result
            .as_ref()
            .and_then(|r| table_winner(&state.order, &table.players, r))
        {
            on.push(winner);
        }
    }
    state
        .order
        .iter()
        .filter(|p| on.contains(p) && !state.withdrawn(p))
        .cloned()
        .collect()
}
