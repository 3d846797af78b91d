//! Property tests: thousands of random tournaments of every format, played to their ends with
//! random results and random withdrawals after the start, each checked for the pairing rules,
//! for standings equal to a computation of their own, and for an audit that re-decides it.

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
/// number of results is in.
fn play(shape: usize, n: usize, draws: u64, withdraw: Option<(usize, usize)>) -> (Log, Seed) {
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
        results += 1;
    }
    (log, seed)
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
    let (log, seed) = play(shape, n, draws, withdraw);
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
