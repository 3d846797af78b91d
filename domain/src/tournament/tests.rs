//! Whole tournaments played with drawn results: the pairing rules and the standings checked
//! against a computation of their own, and the audit.

use super::*;
use crate::table::TimeControl;
use crate::Seed;
use chrono::{Duration, TimeZone, Utc};
use std::collections::{HashMap, HashSet};

pub(super) fn settings(format: Format, seats: usize, rounds: Option<u32>, seed: &Seed) -> Settings {
    Settings {
        name: "Autumn cup".into(),
        creator: "p0".into(),
        kind: "some-game".into(),
        variant: None,
        options: None,
        format,
        seats,
        rounds,
        time_control: TimeControl::None,
        rated: false,
        entry_until: Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap(),
        min_players: seats.max(2),
        max_players: 64,
        seed_commitment: seed.commitment(),
        starts_at: None,
        league: None,
    }
}

/// Plays a whole tournament of `n` players, each game's places drawn from `results`.
fn play(
    format: Format,
    seats: usize,
    rounds: Option<u32>,
    n: usize,
    results: u64,
) -> (Vec<(TournamentEvent, chrono::DateTime<Utc>)>, Seed) {
    let seed = Seed([results as u8; 32]);
    let id = "t-0011223344556677";
    let now = Utc.with_ymd_and_hms(2029, 6, 1, 0, 0, 0).unwrap();
    let mut log = Vec::new();
    let mut state = Tournament::default();
    let apply = |state: &mut Tournament, log: &mut Vec<_>, command: Command| {
        let events = decide(state, id, &command, now, &seed).expect("decided");
        for e in events {
            *state = state.clone().evolve(&e);
            log.push((e, now));
        }
    };
    apply(
        &mut state,
        &mut log,
        Command::Create(Box::new(settings(format, seats, rounds, &seed))),
    );
    for p in 0..n {
        apply(
            &mut state,
            &mut log,
            Command::Join {
                player: format!("p{p}"),
            },
        );
    }
    apply(&mut state, &mut log, Command::Start { by: "p0".into() });
    let mut dice = seed.dealer(999);
    while state.phase() == Phase::Running {
        let round = state.rounds.last().unwrap().clone();
        let (i, table) = round
            .tables
            .iter()
            .enumerate()
            .find(|(i, _)| round.results[*i].is_none())
            .unwrap();
        let places: Vec<usize> = (0..table.players.len())
            .map(|_| 1 + dice.uniform_inclusive(table.players.len() as u32 - 1) as usize)
            .collect();
        let scores = Some(
            (0..table.players.len())
                .map(|_| dice.uniform_inclusive(20) as i64)
                .collect(),
        );
        let draw = places.iter().all(|&p| p == places[0]);
        apply(
            &mut state,
            &mut log,
            Command::RecordResult(GameResultEvent {
                round: round.number,
                table: i + 1,
                game: table.game.clone(),
                places,
                scores,
                draw,
                reason: "test".into(),
            }),
        );
    }
    (log, seed)
}

fn state_of(log: &[(TournamentEvent, chrono::DateTime<Utc>)]) -> Tournament {
    Tournament::fold(log.iter().map(|(e, _)| e))
}

#[test]
fn a_round_robin_meets_every_pair_once_with_colours_within_one() {
    for n in 2..=11 {
        let (log, seed) = play(Format::RoundRobin, 2, None, n, n as u64);
        let state = state_of(&log);
        let mut met = HashSet::new();
        let mut colour: HashMap<String, i32> = HashMap::new();
        for round in &state.rounds {
            for t in &round.tables {
                let mut pair = t.players.clone();
                *colour.entry(pair[0].clone()).or_default() += 1;
                *colour.entry(pair[1].clone()).or_default() -= 1;
                pair.sort();
                assert!(met.insert(pair), "{n} players: a pair met twice");
            }
        }
        assert_eq!(met.len(), n * (n - 1) / 2, "{n} players: every pair meets");
        assert!(colour.values().all(|d| d.abs() <= 1), "{n}: {colour:?}");
        assert!(audit("t-0011223344556677", &log, &seed).is_ok());
    }
}

#[test]
fn a_swiss_never_repeats_a_pairing_keeps_colours_within_one_and_gives_a_bye_once() {
    for n in [5usize, 6, 9, 10, 13] {
        for results in 0..20u64 {
            let (log, seed) = play(Format::Swiss, 2, Some(4), n, results);
            let state = state_of(&log);
            assert_eq!(state.phase(), Phase::Finished);
            let mut met = HashSet::new();
            let mut colour: HashMap<String, i32> = HashMap::new();
            let mut byes: HashMap<String, u32> = HashMap::new();
            for round in &state.rounds {
                for t in &round.tables {
                    let mut pair = t.players.clone();
                    *colour.entry(pair[0].clone()).or_default() += 1;
                    *colour.entry(pair[1].clone()).or_default() -= 1;
                    pair.sort();
                    assert!(met.insert(pair), "a repeat pairing");
                    assert!(colour.values().all(|d| d.abs() <= 1), "colours: {colour:?}");
                }
                for b in &round.byes {
                    *byes.entry(b.clone()).or_default() += 1;
                }
                assert_eq!(round.tables.len() * 2 + round.byes.len(), n);
            }
            assert!(byes.values().all(|&b| b == 1));
            assert!(audit("t-0011223344556677", &log, &seed).is_ok());
        }
    }
}

/// Points computed from the log on their own: per game, 1 a win, ½ a draw; a Swiss bye 1.
fn independent_points(state: &Tournament) -> HashMap<String, f64> {
    let mut points: HashMap<String, f64> = state.order.iter().map(|p| (p.clone(), 0.0)).collect();
    for round in &state.rounds {
        for (t, r) in round.tables.iter().zip(&round.results) {
            let r = r.as_ref().unwrap();
            for (i, p) in t.players.iter().enumerate() {
                for (j, _) in t.players.iter().enumerate() {
                    if i != j {
                        *points.get_mut(p).unwrap() += if r.places[i] < r.places[j] {
                            1.0
                        } else if r.places[i] == r.places[j] {
                            0.5
                        } else {
                            0.0
                        };
                    }
                }
            }
        }
        if state.settings.as_ref().unwrap().format == Format::Swiss {
            for b in &round.byes {
                *points.get_mut(b).unwrap() += 1.0;
            }
        }
    }
    points
}

#[test]
fn standings_agree_with_an_independent_count_and_are_ordered() {
    for (format, seats, rounds, n) in [
        (Format::RoundRobin, 2, None, 6),
        (Format::RoundRobin, 2, Some(2), 5),
        (Format::Swiss, 2, Some(4), 10),
        (Format::RoundRobin, 3, Some(4), 7),
        (Format::KnockOut, 2, None, 8),
        (Format::KnockOut, 2, None, 6),
        (Format::KnockOut, 3, None, 9),
    ] {
        for results in 0..10 {
            let (log, seed) = play(format, seats, rounds, n, results);
            let state = state_of(&log);
            let (rows, revealed) = state.finished.clone().expect("finished");
            assert_eq!(revealed, seed.to_hex());
            let points = independent_points(&state);
            assert_eq!(rows.len(), n);
            for row in &rows {
                assert_eq!(row.points, points[&row.player], "{format:?}");
            }
            if format == Format::KnockOut {
                assert!(rows[0].out_in_round.is_none());
                assert!(rows[1..].iter().all(|r| r.out_in_round.is_some()));
                continue;
            }
            // Sonneborn-Berger by hand for two-seat round robins.
            if format == Format::RoundRobin && seats == 2 {
                for row in &rows {
                    let mut sb = 0.0;
                    for round in &state.rounds {
                        for (t, r) in round.tables.iter().zip(&round.results) {
                            let r = r.as_ref().unwrap();
                            if let Some(me) = t.players.iter().position(|p| p == &row.player) {
                                let them = 1 - me;
                                let mine = if r.places[me] < r.places[them] {
                                    1.0
                                } else if r.places[me] == r.places[them] {
                                    0.5
                                } else {
                                    0.0
                                };
                                sb += mine * points[&t.players[them]];
                            }
                        }
                    }
                    assert_eq!(row.tie_breaks[0], sb);
                }
            }
            for pair in rows.windows(2) {
                assert!(pair[0].points >= pair[1].points);
                assert!(pair[0].rank <= pair[1].rank);
            }
        }
    }
}

#[test]
fn card_tables_spread_meetings_evenly() {
    let (log, _) = play(Format::RoundRobin, 3, Some(4), 9, 1);
    let state = state_of(&log);
    let mut met: HashMap<(String, String), u32> = HashMap::new();
    for round in &state.rounds {
        assert_eq!(round.tables.len(), 3);
        for t in &round.tables {
            assert_eq!(t.players.len(), 3);
            for a in &t.players {
                for b in &t.players {
                    if a < b {
                        *met.entry((a.clone(), b.clone())).or_default() += 1;
                    }
                }
            }
        }
    }
    // 4 rounds of 3 tables of 3: 36 meetings over 36 pairs; nobody meets three times.
    assert!(met.values().all(|&m| m <= 2), "{met:?}");
}

#[test]
fn a_knock_out_of_eight_has_three_rounds_and_one_winner() {
    let (log, _) = play(Format::KnockOut, 2, None, 8, 3);
    let state = state_of(&log);
    assert_eq!(
        state
            .rounds
            .iter()
            .map(|r| r.tables.len())
            .collect::<Vec<_>>(),
        vec![4, 2, 1]
    );
}

#[test]
fn the_audit_finds_a_changed_pairing_and_a_wrong_seed() {
    let (mut log, seed) = play(Format::Swiss, 2, Some(3), 6, 7);
    let id = "t-0011223344556677";
    assert!(audit(id, &log, &seed).is_ok());
    assert!(audit(id, &log, &Seed([9; 32])).is_err());
    let at = log
        .iter()
        .position(|(e, _)| matches!(e, TournamentEvent::RoundPaired { round: 2, .. }))
        .unwrap();
    if let TournamentEvent::RoundPaired { tables, .. } = &mut log[at].0 {
        let (a, b) = (tables[0].players[0].clone(), tables[1].players[0].clone());
        tables[0].players[0] = b;
        tables[1].players[0] = a;
    }
    let found = audit(id, &log, &seed).unwrap_err();
    assert!(found.version as usize <= at + 1);
}

#[test]
fn joins_are_refused_after_entry_closes_and_beyond_the_maximum() {
    let seed = Seed([1; 32]);
    let mut s = settings(Format::RoundRobin, 2, None, &seed);
    s.max_players = 2;
    let now = s.entry_until - Duration::days(1);
    let mut state = Tournament::default();
    for command in [
        Command::Create(Box::new(s.clone())),
        Command::Join { player: "a".into() },
        Command::Join { player: "b".into() },
    ] {
        for e in decide(&state, "t", &command, now, &seed).unwrap() {
            state = state.evolve(&e);
        }
    }
    let full = decide(
        &state,
        "t",
        &Command::Join { player: "c".into() },
        now,
        &seed,
    );
    assert_eq!(full.unwrap_err().code, "tournament_full");
    let late = decide(
        &state,
        "t",
        &Command::Join { player: "c".into() },
        s.entry_until,
        &seed,
    );
    assert_eq!(late.unwrap_err().code, "entry_closed");
    let start = decide(&state, "t", &Command::Start { by: "a".into() }, now, &seed);
    assert_eq!(start.unwrap_err().code, "forbidden");
}

#[test]
fn a_game_id_is_derived_from_tournament_round_and_table() {
    assert_eq!(game_id("t-1", 2, 3), game_id("t-1", 2, 3));
    assert_ne!(game_id("t-1", 2, 3), game_id("t-1", 3, 2));
    assert_eq!(game_id("t-1", 1, 1).len(), 18);
}

/// Plays the first table of the current round open: seat one first, the rest second.
fn first_wins(
    state: &mut Tournament,
    log: &mut Vec<(TournamentEvent, chrono::DateTime<Utc>)>,
    id: &str,
    seed: &Seed,
) {
    let now = Utc.with_ymd_and_hms(2029, 6, 1, 0, 0, 0).unwrap();
    let round = state.rounds.last().unwrap().clone();
    let (i, table) = round
        .tables
        .iter()
        .enumerate()
        .find(|(i, _)| round.results[*i].is_none())
        .unwrap();
    let result = GameResultEvent {
        round: round.number,
        table: i + 1,
        game: table.game.clone(),
        places: (0..table.players.len())
            .map(|s| if s == 0 { 1 } else { 2 })
            .collect(),
        scores: None,
        draw: false,
        reason: "won".into(),
    };
    for e in decide(state, id, &Command::RecordResult(result), now, seed).expect("recorded") {
        *state = state.clone().evolve(&e);
        log.push((e, now));
    }
}

#[test]
fn a_player_who_withdraws_after_the_start_forfeits_the_games_left_and_played_ones_stand() {
    for format in [Format::RoundRobin, Format::Swiss] {
        let seed = Seed([7; 32]);
        let id = "t-0011223344556677";
        let now = Utc.with_ymd_and_hms(2029, 6, 1, 0, 0, 0).unwrap();
        let rounds = (format == Format::Swiss).then_some(3);
        let mut state = Tournament::default();
        let mut log = Vec::new();
        let mut commands = vec![Command::Create(Box::new(settings(
            format, 2, rounds, &seed,
        )))];
        commands.extend((0..6).map(|p| Command::Join {
            player: format!("p{p}"),
        }));
        commands.push(Command::Start { by: "p0".into() });
        for command in commands {
            for e in decide(&state, id, &command, now, &seed).expect("decided") {
                state = state.clone().evolve(&e);
                log.push((e, now));
            }
        }
        // Round one played out in full, then p3 leaves before round two is played.
        while state.rounds.len() == 1 {
            first_wins(&mut state, &mut log, id, &seed);
        }
        let played: Vec<GameResultEvent> =
            state.rounds[0].results.iter().flatten().cloned().collect();
        let withdraw = Command::Withdraw {
            player: "p3".into(),
        };
        for e in decide(&state, id, &withdraw, now, &seed).expect("withdrawn") {
            state = state.clone().evolve(&e);
            log.push((e, now));
        }
        assert_eq!(
            decide(&state, id, &withdraw, now, &seed).unwrap_err().code,
            "not_joined"
        );
        while state.phase() == Phase::Running {
            first_wins(&mut state, &mut log, id, &seed);
        }
        // Round one stands as played.
        assert_eq!(
            state.rounds[0]
                .results
                .iter()
                .flatten()
                .cloned()
                .collect::<Vec<_>>(),
            played
        );
        // Every later table of p3 is a forfeit with p3 last; a Swiss pairs p3 no more.
        let forfeits: Vec<(u32, usize)> = log
            .iter()
            .filter_map(|(e, _)| match e {
                TournamentEvent::Forfeited {
                    round,
                    table,
                    player,
                    ..
                } => {
                    assert_eq!(player, "p3");
                    Some((*round, *table))
                }
                _ => None,
            })
            .collect();
        let mut later = Vec::new();
        for round in &state.rounds[1..] {
            for (table, result) in round.tables.iter().zip(&round.results) {
                if let Some(seat) = table.players.iter().position(|p| p == "p3") {
                    let result = result.as_ref().unwrap();
                    assert_eq!(result.places[seat], table.players.len());
                    assert!(result
                        .places
                        .iter()
                        .enumerate()
                        .all(|(s, &p)| s == seat || p == 1));
                    later.push((round.number, table.table));
                }
            }
        }
        assert_eq!(forfeits, later, "{format:?}");
        if format == Format::RoundRobin {
            assert_eq!(later.len(), 4, "p3's four games left are forfeited");
        } else {
            // Round two was paired when round one closed: that game is forfeited, and no
            // later round pairs p3.
            assert_eq!(
                later,
                vec![(2, later[0].1)],
                "a Swiss pairs a withdrawn player no more"
            );
        }
        // Points count the forfeits as the rule says, and the audit re-decides every event.
        let points = independent_points(&state);
        let rows = standings::standings(&state);
        for row in &rows {
            assert_eq!(row.points, points[&row.player], "{format:?} {}", row.player);
        }
        audit(id, &log, &seed).expect("the audit re-decides the forfeits");
    }
}

/// A two-player round robin of one game, started: the log so far and its fold.
fn one_game(seed: &Seed) -> (Vec<(TournamentEvent, chrono::DateTime<Utc>)>, Tournament) {
    let id = "t-0011223344556677";
    let now = Utc.with_ymd_and_hms(2029, 6, 1, 0, 0, 0).unwrap();
    let mut log = Vec::new();
    let mut state = Tournament::default();
    for command in [
        Command::Create(Box::new(settings(Format::RoundRobin, 2, None, seed))),
        Command::Join {
            player: "p0".into(),
        },
        Command::Join {
            player: "p1".into(),
        },
        Command::Start { by: "p0".into() },
    ] {
        for e in decide(&state, id, &command, now, seed).expect("decided") {
            state = state.clone().evolve(&e);
            log.push((e, now));
        }
    }
    (log, state)
}

#[test]
fn a_game_taken_back_is_replaced_by_its_continuation_only_while_its_table_is_open() {
    let id = "t-0011223344556677";
    let seed = Seed([3; 32]);
    let now = Utc.with_ymd_and_hms(2029, 6, 2, 0, 0, 0).unwrap();
    let (mut log, mut state) = one_game(&seed);
    let paired = state.rounds[0].tables[0].game.clone();
    let code = |state: &Tournament, command: &Command| {
        decide(state, id, command, now, &seed).map_err(|e| e.code)
    };
    let replace = |game: &str, by: &str| Command::ReplaceGame {
        round: 1,
        table: 1,
        game: game.into(),
        by: by.into(),
    };
    let result = |game: &str| {
        Command::RecordResult(GameResultEvent {
            round: 1,
            table: 1,
            game: game.into(),
            places: vec![1, 2],
            scores: None,
            draw: false,
            reason: "resignation".into(),
        })
    };

    // Not another table's, round's or tournament's game; not by the game itself.
    assert_eq!(
        code(&state, &replace("g-other", "g-b")),
        Err("not_in_round")
    );
    let other_round = Command::ReplaceGame {
        round: 2,
        table: 1,
        game: paired.clone(),
        by: "g-b".into(),
    };
    assert_eq!(code(&state, &other_round), Err("not_in_round"));
    assert_eq!(
        code(&state, &replace(&paired, &paired)),
        Err("not_a_continuation")
    );

    // Replaced, the table is played in the continuation: then in its own continuation.
    for (game, by) in [(paired.as_str(), "g-b"), ("g-b", "g-c")] {
        let events = code(&state, &replace(game, by)).expect("replaced");
        assert_eq!(
            events,
            vec![TournamentEvent::GameReplaced {
                round: 1,
                table: 1,
                game: game.into(),
                by: by.into(),
            }]
        );
        state = state.clone().evolve(&events[0]);
        log.push((events[0].clone(), now));
    }
    assert_eq!(state.rounds[0].tables[0].game, "g-c");
    assert_eq!(
        state.rounds[0].replaced[0],
        vec![paired.clone(), "g-b".into()]
    );
    assert_eq!(
        state.table_of(&paired).map(|(r, t)| (r, t.table)),
        Some((1, 1))
    );
    // A game it was played in before neither goes on again nor gives the result.
    assert_eq!(
        code(&state, &replace("g-c", "g-b")),
        Err("not_a_continuation")
    );
    assert_eq!(code(&state, &replace("g-b", "g-d")), Err("not_in_round"));
    assert_eq!(code(&state, &result(&paired)), Err("not_in_round"));

    // The result is the continuation's, and the table is closed to replacement after it.
    for e in code(&state, &result("g-c")).expect("recorded") {
        state = state.clone().evolve(&e);
        log.push((e, now));
    }
    assert_eq!(state.phase(), Phase::Finished);
    assert_eq!(
        code(&state, &replace("g-c", "g-d")),
        Err("tournament_not_running")
    );
    audit(id, &log, &seed).expect("the log audits");

    // Forged logs: a replacement by another game than the log's own continuation of the
    // table, or of a game the table was not played in, or a result from a replaced game.
    let forge = |at: usize, event: TournamentEvent| {
        let mut forged = log.clone();
        forged[at].0 = event;
        audit(id, &forged, &seed)
    };
    let replaced = log
        .iter()
        .position(|(e, _)| matches!(e, TournamentEvent::GameReplaced { .. }))
        .expect("a replacement");
    let swapped = TournamentEvent::GameReplaced {
        round: 1,
        table: 1,
        game: paired.clone(),
        by: "g-unrelated".into(),
    };
    // The result then names a game the table is not played in.
    assert!(forge(replaced, swapped).is_err());
    let by_itself = TournamentEvent::GameReplaced {
        round: 1,
        table: 1,
        game: paired.clone(),
        by: paired.clone(),
    };
    assert!(forge(replaced, by_itself).is_err());
    let finished = log
        .iter()
        .position(|(e, _)| matches!(e, TournamentEvent::GameFinished(_)))
        .expect("a result");
    let TournamentEvent::GameFinished(mut stale) = log[finished].0.clone() else {
        unreachable!("found above");
    };
    stale.game = paired.clone();
    assert!(forge(finished, TournamentEvent::GameFinished(stale)).is_err());
    // A replacement after the result: nothing more is decided for the table.
    let mut late = log.clone();
    late.insert(
        finished + 1,
        (
            TournamentEvent::GameReplaced {
                round: 1,
                table: 1,
                game: "g-c".into(),
                by: "g-d".into(),
            },
            now,
        ),
    );
    assert!(audit(id, &late, &seed).is_err());
}
