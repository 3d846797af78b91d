//! The decider: a command and the tournament so far give its events, or a refusal.

use super::event::{GameResultEvent, PairedTable, Settings, TournamentEvent};
use super::league;
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
    /// Its `starts_at` came: started with its minimum of players, else cancelled.
    StartOnTime,
    /// A game of the tournament ended (copied from the game).
    RecordResult(GameResultEvent),
    /// Table `table` of round `round`, played in `game`, goes on in `by`: `game` was taken
    /// back by consent and `by` is the game that goes on from it (its continuation).
    ReplaceGame {
        round: u32,
        table: usize,
        game: String,
        by: String,
    },
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
        // A league's next edition: the players of the one before enter with its creation.
        let carried = settings
            .league
            .iter()
            .flat_map(|l| l.carried.iter().flatten());
        return Ok(
            std::iter::once(TournamentEvent::TournamentCreated(settings.clone()))
                .chain(carried.map(|player| TournamentEvent::PlayerJoined {
                    player: player.clone(),
                }))
                .collect(),
        );
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
            start(state, settings, id, seed)
        }
        Command::StartOnTime => {
            open(state)?;
            if settings.starts_at.is_none_or(|at| now < at) {
                return Err(refuse(
                    "not_time",
                    "This tournament has no start time, or it has not come.",
                ));
            }
            start(state, settings, id, seed).or_else(|refusal| {
                Ok(vec![TournamentEvent::TournamentCancelled {
                    reason: refusal.message,
                }])
            })
        }
        Command::RecordResult(result) => {
            let table = open_table(state, result.round, result.table, &result.game)?;
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
        Command::ReplaceGame {
            round,
            table,
            game,
            by,
        } => {
            open_table(state, *round, *table, game)?;
            // A continuation is a game of its own, new to the tournament: never the game it
            // replaces, another table's game, nor a game a table was played in before.
            let known = state.rounds.iter().any(|r| {
                r.tables.iter().any(|t| &t.game == by)
                    || r.replaced.iter().flatten().any(|g| g == by)
            });
            if by.is_empty() || known {
                return Err(refuse(
                    "not_a_continuation",
                    "A table's game is replaced only by the game that goes on from it, a game \
                     new to the tournament.",
                ));
            }
            Ok(vec![TournamentEvent::GameReplaced {
                round: *round,
                table: *table,
                game: game.clone(),
                by: by.clone(),
            }])
        }
    }
}

/// Table `table` of round `round` while it is open: the tournament under way, the round the
/// one being played, `game` the game the table is played in now (the one paired, or the game
/// that last replaced it), and its result not in yet.
fn open_table<'a>(
    state: &'a Tournament,
    round: u32,
    table: usize,
    game: &str,
) -> Result<&'a PairedTable, TournamentError> {
    if state.phase() != Phase::Running {
        return Err(refuse(
            "tournament_not_running",
            "This tournament is not under way.",
        ));
    }
    let played = state
        .rounds
        .last()
        .filter(|r| r.number == round && !r.closed)
        .ok_or_else(|| {
            refuse(
                "not_in_round",
                "That game is not of the round being played.",
            )
        })?;
    let at = table.wrapping_sub(1);
    let paired = played
        .tables
        .get(at)
        .filter(|t| t.game == game)
        .ok_or_else(|| {
            refuse(
                "not_in_round",
                "That game is not the game of this table of the round being played.",
            )
        })?;
    if played.results[at].is_some() {
        return Err(refuse(
            "result_recorded",
            "That table's result is recorded already.",
        ));
    }
    Ok(paired)
}

/// The start: the seeding order drawn from the seed (a league: its divisions), then the first
/// round; refused without the minimum of players or a pairing.
fn start(
    state: &Tournament,
    settings: &Settings,
    id: &str,
    seed: &Seed,
) -> Result<Vec<TournamentEvent>, TournamentError> {
    let n = state.players.len();
    if n < settings.min_players {
        return Err(refuse(
            "too_few_players",
            format!(
                "{n} joined, fewer than the {} players this tournament starts with.",
                settings.min_players
            ),
        ));
    }
    check_count(settings, n)?;
    let mut order = state.players.clone();
    seed.dealer(0).shuffle(&mut order);
    let started = match &settings.league {
        Some(l) if l.carried.is_empty() => TournamentEvent::TournamentStarted {
            divisions: league::first_divisions(&order, l.division_size),
            order,
            moves: Vec::new(),
        },
        Some(l) => {
            let (divisions, moves) = league::next_divisions(l, &order);
            TournamentEvent::TournamentStarted {
                order: divisions.concat(),
                divisions,
                moves,
            }
        }
        None => TournamentEvent::TournamentStarted {
            order,
            divisions: Vec::new(),
            moves: Vec::new(),
        },
    };
    let after = state.clone().evolve(&started);
    let mut events = vec![started];
    events.extend(next_round(&after, id, seed));
    Ok(events)
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
    if settings
        .starts_at
        .is_some_and(|at| at < settings.entry_until)
    {
        return Err(invalid(
            "starts_at is at or after entry_until (entry closes before the start).".into(),
        ));
    }
    check_league(settings).map_err(invalid)?;
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
        (Format::League, 2, None | Some(1) | Some(2)) => {}
        (Format::League, 2, _) => return Err(invalid(
            "A league's divisions play each pair once (rounds 1 or absent) or twice (rounds 2)."
                .into(),
        )),
        (Format::League, _, _) => {
            return Err(invalid("A league is played at tables of two seats.".into()))
        }
    }
    Ok(())
}

/// A league names its divisions (and only a league does).
fn check_league(settings: &Settings) -> Result<(), String> {
    let Some(league) = &settings.league else {
        return match settings.format {
            Format::League => Err(
                "A league names its divisions: league.division_size, promoted and relegated."
                    .into(),
            ),
            _ => Ok(()),
        };
    };
    if settings.format != Format::League {
        return Err("Only a league (format league) has divisions.".into());
    }
    if !(3..=MOST_PLAYERS).contains(&league.division_size) {
        return Err(format!(
            "A league's division_size is 3 to {MOST_PLAYERS} players."
        ));
    }
    if league.promoted + league.relegated >= league.division_size {
        return Err(format!(
            "promoted and relegated together are fewer than a division's {} players.",
            league.division_size
        ));
    }
    let carried: Vec<&String> = league.carried.iter().flatten().collect();
    let unique: std::collections::HashSet<&&String> = carried.iter().collect();
    if league.edition == 0
        || (league.edition == 1) != league.previous.is_none()
        || (league.previous.is_none() && !carried.is_empty())
        || unique.len() != carried.len()
        || league.carried.iter().any(Vec::is_empty)
        || carried.len() > settings.max_players
    {
        return Err(
            "A league's next edition names the one before and carries its players once each, \
             no more than max_players."
                .into(),
        );
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
        Format::League => {
            let times = settings.rounds.unwrap_or(1);
            (round <= league::rounds(&state.divisions, times))
                .then(|| league::pair(&state.divisions, round, times))
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
