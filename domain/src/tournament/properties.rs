//! Property tests: thousands of random tournaments of every format, played to their ends with
//! random results, random withdrawals after the start and random games taken back by consent
//! (replaced at their tables by their continuations), each checked for the pairing rules, for
//! standings equal to a computation of their own, and for an audit that re-decides it.

use super::*;
use crate::Seed;
use chrono::{TimeZone, Utc};
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

const ID: &str = "t-0011223344556677";

/// A format to draw: (format, seats, rounds, fewest players, most players).
const SHAPES: [(Format, usize, Option<u32>, usize, usize); 9] = [
    (Format::RoundRobin, 2, None, 2, 12),
    (Format::RoundRobin, 2, Some(2), 2, 9),
    (Format::RoundRobin, 3, Some(5), 3, 13),
    (Format::RoundRobin, 4, Some(4), 4, 14),
    (Format::Swiss, 2, Some(4), 5, 20),
    (Format::Swiss, 3, Some(4), 5, 16),
    (Format::KnockOut, 2, None, 2, 17),
    (Format::KnockOut, 3, None, 3, 9),
    (Format::KnockOut, 2, None, 8, 8),
];

type Log = Vec<(TournamentEvent, chrono::DateTime<Utc>)>;

/// Plays a whole tournament; `withdraw` names a player (by index) who leaves once the given
/// number of results is in. With `takebacks`, a table's game is taken back by consent and
/// replaced by its continuation none to two times before its result (drawn apart from the
/// results, so the same results come either way), and the decider is checked to refuse every
/// other replacement on the way.
fn play(
    shape: usize,
    n: usize,
    draws: u64,
    withdraw: Option<(usize, usize)>,
    takebacks: bool,
) -> (Log, Seed) {
    let (format, seats, rounds, _, _) = SHAPES[shape];
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&draws.to_le_bytes());
    bytes[8] = shape as u8;
    bytes[9] = n as u8;
    let seed = Seed(bytes);
    let now = Utc.with_ymd_and_hms(2029, 6, 1, 0, 0, 0).unwrap();
    let settings = super::tests::settings(format, seats, rounds, &seed);
    let mut state = Tournament::default();
    let mut log = Vec::new();
    let mut apply = |state: &mut Tournament, command: Command| {
        for e in decide(state, ID, &command, now, &seed).expect("decided") {
            *state = state.clone().evolve(&e);
            log.push((e, now));
        }
    };
    apply(&mut state, Command::Create(Box::new(settings)));
    for p in 0..n {
        apply(
            &mut state,
            Command::Join {
                player: format!("p{p}"),
            },
        );
    }
    apply(&mut state, Command::Start { by: "p0".into() });
    let mut dice = seed.dealer(999);
    let mut takes = seed.dealer(998);
    let mut results = 0;
    while state.phase() == Phase::Running {
        if let Some((who, after)) = withdraw {
            if results == after {
                apply(
                    &mut state,
                    Command::Withdraw {
                        player: format!("p{who}"),
                    },
                );
                results += 1;
                continue;
            }
        }
        let round = state.rounds.last().expect("a round").clone();
        let Some(i) = (0..round.tables.len()).find(|&i| round.results[i].is_none()) else {
            panic!("a running round with every result in");
        };
        if takebacks {
            for k in 0..takes.uniform_inclusive(2) {
                let round = state.rounds.last().expect("a round").clone();
                let table = &round.tables[i];
                let replace = |game: &str, by: &str| Command::ReplaceGame {
                    round: round.number,
                    table: i + 1,
                    game: game.to_string(),
                    by: by.to_string(),
                };
                let refused = |command: Command| decide(&state, ID, &command, now, &seed).is_err();
                // Never by the game itself, another table's game, or a game it replaced;
                // never a game the table is not played in now.
                assert!(refused(replace(&table.game, &table.game)));
                for other in round.tables.iter().filter(|t| t.table != i + 1) {
                    assert!(refused(replace(&table.game, &other.game)));
                    assert!(refused(replace(&other.game, "g-unrelated")));
                }
                for before in &round.replaced[i] {
                    assert!(refused(replace(&table.game, before)));
                    assert!(refused(replace(before, "g-unrelated")));
                }
                let by = format!("g-{}-{}-{k}", round.number, i + 1);
                apply(&mut state, replace(&table.game, &by));
            }
        }
        let round = state.rounds.last().expect("a round").clone();
        let players = round.tables[i].players.len();
        let places: Vec<usize> = (0..players)
            .map(|_| 1 + dice.uniform_inclusive(players as u32 - 1) as usize)
            .collect();
        let scores = (0..players)
            .map(|_| dice.uniform_inclusive(20) as i64)
            .collect();
        let draw = places.iter().all(|&p| p == places[0]);
        apply(
            &mut state,
            Command::RecordResult(GameResultEvent {
                round: round.number,
                table: i + 1,
                game: round.tables[i].game.clone(),
                places,
                scores: Some(scores),
                draw,
                reason: "test".into(),
            }),
        );
        if takebacks {
            // The table is decided: its game is replaced no more, and no result is taken
            // from a game it replaced.
            let decided = &round.tables[i];
            let late = Command::ReplaceGame {
                round: round.number,
                table: i + 1,
                game: decided.game.clone(),
                by: "g-late".into(),
            };
            assert!(decide(&state, ID, &late, now, &seed).is_err());
        }
        results += 1;
    }
    (log, seed)
}

/// `log` with its replacements left out and every game named by the game first paired at its
/// table: what the same tournament's log is without takebacks.
fn without_replacements(log: &Log) -> Log {
    let mut paired: HashMap<String, String> = HashMap::new();
    let mut out = Vec::new();
    for (event, at) in log {
        let mut event = event.clone();
        match &mut event {
            TournamentEvent::GameReplaced { game, by, .. } => {
                let first = paired.get(game.as_str()).cloned().unwrap_or(game.clone());
                paired.insert(by.clone(), first);
                continue;
            }
            TournamentEvent::GameFinished(GameResultEvent { game, .. })
            | TournamentEvent::Forfeited { game, .. } => {
                if let Some(first) = paired.get(game.as_str()) {
                    *game = first.clone();
                }
            }
            _ => {}
        }
        out.push((event, *at));
    }
    out
}

/// Each player's points and tie-breaks, counted from the rounds on their own.
fn independent(state: &Tournament) -> HashMap<String, (f64, Vec<f64>)> {
    let settings = state.settings.as_ref().expect("settings");
    let mut points: HashMap<&str, f64> = state.order.iter().map(|p| (p.as_str(), 0.0)).collect();
    let mut own: HashMap<&str, f64> = HashMap::new();
    // (player, opponent, points scored against them)
    let mut games: Vec<(&str, &str, f64)> = Vec::new();
    for round in &state.rounds {
        for (table, result) in round.tables.iter().zip(&round.results) {
            let result = result.as_ref().expect("every result in");
            for (i, p) in table.players.iter().enumerate() {
                *own.entry(p).or_default() += result.scores.as_ref().map_or(0, |s| s[i]) as f64;
                for (j, q) in table.players.iter().enumerate() {
                    if i != j {
                        let got = if result.places[i] < result.places[j] {
                            1.0
                        } else if result.places[i] == result.places[j] {
                            0.5
                        } else {
                            0.0
                        };
                        *points.get_mut(p.as_str()).expect("a player") += got;
                        games.push((p, q, got));
                    }
                }
            }
        }
        if settings.format == Format::Swiss {
            for b in &round.byes {
                *points.get_mut(b.as_str()).expect("a player") += 1.0;
            }
        }
    }
    state
        .order
        .iter()
        .map(|p| {
            let mine = games.iter().filter(|g| g.0 == p);
            let tie_breaks = match (settings.format, settings.seats) {
                (Format::RoundRobin, 2) => vec![
                    mine.clone().map(|g| g.2 * points[g.1]).sum(),
                    mine.filter(|g| points[g.1] == points[p.as_str()])
                        .map(|g| g.2)
                        .sum(),
                ],
                (Format::Swiss, 2) => vec![mine.map(|g| points[g.1]).sum()],
                (Format::KnockOut, _) => vec![],
                _ => vec![own.get(p.as_str()).copied().unwrap_or(0.0)],
            };
            (p.clone(), (points[p.as_str()], tie_breaks))
        })
        .collect()
}

fn check(shape: usize, n: usize, draws: u64, withdraw: Option<(usize, usize)>) {
    let (format, seats, rounds, _, _) = SHAPES[shape];
    let (log, seed) = play(shape, n, draws, withdraw, false);
    let state = Tournament::fold(log.iter().map(|(e, _)| e));
    let case = format!("{format:?} of {seats}, {n} players, draws {draws}, {withdraw:?}");
    assert_eq!(state.phase(), Phase::Finished, "{case}");
    assert!(audit(ID, &log, &seed).is_ok(), "{case}: audit");
    let withdrawn: HashSet<String> = withdraw.map(|(w, _)| format!("p{w}")).into_iter().collect();

    // Pairing rules.
    let mut met: HashMap<(String, String), u32> = HashMap::new();
    let mut colour: HashMap<&str, i32> = HashMap::new();
    let mut byes: HashMap<&str, u32> = HashMap::new();
    for round in &state.rounds {
        let mut seated = HashSet::new();
        for t in &round.tables {
            assert_eq!(t.players.len(), seats, "{case}: a full table");
            for p in &t.players {
                assert!(seated.insert(p.as_str()), "{case}: {p} twice in a round");
            }
            for a in &t.players {
                for b in &t.players {
                    if a < b {
                        *met.entry((a.clone(), b.clone())).or_default() += 1;
                    }
                }
            }
            if seats == 2 {
                *colour.entry(&t.players[0]).or_default() += 1;
                *colour.entry(&t.players[1]).or_default() -= 1;
            }
        }
        for b in &round.byes {
            assert!(
                seated.insert(b.as_str()),
                "{case}: {b} has a bye and a table"
            );
            *byes.entry(b).or_default() += 1;
        }
        if format != Format::KnockOut && withdrawn.is_empty() {
            assert_eq!(seated.len(), n, "{case}: everyone plays or sits out");
            assert!(round.byes.len() < seats, "{case}: fewer byes than a table");
        }
    }
    match (format, seats) {
        (Format::RoundRobin, 2) => {
            let times = rounds.unwrap_or(1);
            assert_eq!(met.len(), n * (n - 1) / 2, "{case}: every pair meets");
            assert!(met.values().all(|&m| m == times), "{case}: {met:?}");
            if times == 1 {
                assert!(colour.values().all(|d| d.abs() <= 1), "{case}: {colour:?}");
            } else {
                // Twice through, colours swapped: every player as often white as black.
                assert!(colour.values().all(|&d| d == 0), "{case}: {colour:?}");
            }
        }
        (Format::Swiss, 2) => {
            assert!(met.values().all(|&m| m == 1), "{case}: a repeat pairing");
            assert!(colour.values().all(|d| d.abs() <= 1), "{case}: {colour:?}");
            assert!(byes.values().all(|&b| b == 1), "{case}: a second bye");
        }
        (Format::RoundRobin | Format::Swiss, _) if withdrawn.is_empty() => {
            // Byes spread: nobody sits out twice before everybody sat out once.
            let most = byes.values().copied().max().unwrap_or(0);
            let everyone = state.order.iter().all(|p| byes.contains_key(p.as_str()));
            assert!(most <= 1 || everyone, "{case}: byes {byes:?}");
            if format == Format::RoundRobin {
                // Meetings as even as the count allows: a pair meets again only once
                // the tables could not have been filled with new meetings.
                let pairs = n * (n - 1) / 2;
                let most = met.values().copied().max().unwrap_or(0) as usize;
                let all: usize = met.values().map(|&m| m as usize).sum();
                assert!(most <= all.div_ceil(pairs) + 1, "{case}: {met:?}");
            }
        }
        _ => {}
    }

    // Standings against the independent count, in order.
    let (rows, revealed) = state.finished.clone().expect("finished");
    assert_eq!(revealed, seed.to_hex(), "{case}");
    assert_eq!(rows.len(), n, "{case}");
    let expected = independent(&state);
    for row in &rows {
        let (points, tie_breaks) = &expected[&row.player];
        assert_eq!(row.points, *points, "{case}: points of {}", row.player);
        assert_eq!(
            &row.tie_breaks, tie_breaks,
            "{case}: tie-breaks of {}",
            row.player
        );
    }
    if format == Format::KnockOut {
        assert_eq!(
            rows.iter().filter(|r| r.out_in_round.is_none()).count(),
            1,
            "{case}: one winner"
        );
    } else {
        for pair in rows.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let key = |r: &StandingRow| {
                let mut k = vec![r.points];
                k.extend(&r.tie_breaks);
                k
            };
            assert!(key(a) >= key(b), "{case}: {a:?} above {b:?}");
            assert_eq!(a.rank == b.rank, key(a) == key(b), "{case}: ranks");
        }
    }
}

/// A tournament whose games are taken back and replaced at random is the same tournament: the
/// same pairings, results and standings, each result taken from the table's last game, every
/// replacement named in its log, and the log audits.
fn check_takebacks(shape: usize, n: usize, draws: u64, withdraw: Option<(usize, usize)>) {
    let (log, seed) = play(shape, n, draws, withdraw, true);
    let case = format!("shape {shape}, {n} players, draws {draws}, {withdraw:?}");
    assert!(audit(ID, &log, &seed).is_ok(), "{case}: audit");
    let (plain, _) = play(shape, n, draws, withdraw, false);
    assert_eq!(without_replacements(&log), plain, "{case}");
    let state = Tournament::fold(log.iter().map(|(e, _)| e));
    let paired: Vec<&PairedTable> = log
        .iter()
        .filter_map(|(e, _)| match e {
            TournamentEvent::RoundPaired { tables, .. } => Some(tables),
            _ => None,
        })
        .flatten()
        .collect();
    for (round, result) in state
        .rounds
        .iter()
        .flat_map(|r| r.results.iter().map(move |res| (r, res)))
    {
        let result = result.as_ref().expect("every result in");
        let at = result.table - 1;
        // The result names the game the table is played in last, and its chain goes back to
        // the game first paired there.
        assert_eq!(result.game, round.tables[at].game, "{case}");
        let first = round.replaced[at].first().unwrap_or(&result.game);
        assert!(
            paired.iter().any(|t| &t.game == first),
            "{case}: {first} was paired"
        );
    }
}

fn shape_and_players(shapes: std::ops::Range<usize>) -> impl Strategy<Value = (usize, usize)> {
    shapes.prop_flat_map(|shape| {
        let (format, seats, _, low, high) = SHAPES[shape];
        (Just(shape), low..=high).prop_filter("a playable count", move |&(_, n)| {
            format != Format::KnockOut || seats == 2 || pairing::power_of(n, seats)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn random_tournaments_keep_every_rule(
        (shape, n) in shape_and_players(0..SHAPES.len()),
        draws: u64,
    ) {
        check(shape, n, draws, None);
    }

    #[test]
    fn random_tournaments_with_a_withdrawal_keep_every_rule(
        (shape, n) in shape_and_players(0..6),
        draws: u64,
        who: usize,
        after in 0usize..12,
    ) {
        // The six round robins and Swiss come first in the shapes.
        prop_assume!(n > SHAPES[shape].1);
        check(shape, n, draws, Some((who % n, after)));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn random_tournaments_with_takebacks_are_the_same_tournament_and_audit(
        (shape, n) in shape_and_players(0..SHAPES.len()),
        draws: u64,
        who: usize,
        after in 0usize..12,
        withdraws: bool,
    ) {
        let withdraw = (withdraws && shape < 6 && n > SHAPES[shape].1).then_some((who % n, after));
        check_takebacks(shape, n, draws, withdraw);
    }
}
