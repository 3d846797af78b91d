//! Leagues played over two editions with random results, leavers and entrants: each
//! division's round robin, the standings by division against a count of their own, the next
//! edition's divisions against the written promotion and relegation, and the audit of both;
//! and the start by time.

use super::*;
use crate::Seed;
use chrono::{DateTime, Duration, TimeZone, Utc};
use proptest::prelude::*;
use std::collections::{HashMap, HashSet};

type Log = Vec<(TournamentEvent, DateTime<Utc>)>;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2029, 6, 1, 0, 0, 0).unwrap()
}

fn league_settings(
    size: usize,
    promoted: usize,
    relegated: usize,
    twice: bool,
    seed: &Seed,
) -> Settings {
    let mut s = super::tests::settings(Format::League, 2, twice.then_some(2), seed);
    s.max_players = 200;
    s.league = Some(League {
        division_size: size,
        promoted,
        relegated,
        edition: 1,
        previous: None,
        carried: Vec::new(),
    });
    s
}

/// Creates tournament `id` with `settings`, has `entrants` join and `leavers` withdraw, starts
/// it and plays it to its end with results drawn from `seed`'s stream 999.
fn edition(
    id: &str,
    settings: Settings,
    entrants: &[String],
    leavers: &[String],
    seed: &Seed,
) -> (Log, Tournament) {
    let mut state = Tournament::default();
    let mut log = Vec::new();
    let mut apply = |state: &mut Tournament, command: Command| {
        for e in decide(state, id, &command, now(), seed).expect("decided") {
            *state = state.clone().evolve(&e);
            log.push((e, now()));
        }
    };
    apply(&mut state, Command::Create(Box::new(settings)));
    for player in entrants {
        apply(
            &mut state,
            Command::Join {
                player: player.clone(),
            },
        );
    }
    for player in leavers {
        apply(
            &mut state,
            Command::Withdraw {
                player: player.clone(),
            },
        );
    }
    apply(&mut state, Command::Start { by: "p0".into() });
    let mut dice = seed.dealer(999);
    while state.phase() == Phase::Running {
        let round = state.rounds.last().expect("a round").clone();
        let i = (0..round.tables.len())
            .find(|&i| round.results[i].is_none())
            .expect("a game to play");
        let places = match dice.uniform_inclusive(2) {
            0 => vec![1, 2],
            1 => vec![2, 1],
            _ => vec![1, 1],
        };
        apply(
            &mut state,
            Command::RecordResult(GameResultEvent {
                round: round.number,
                table: i + 1,
                game: round.tables[i].game.clone(),
                draw: places == [1, 1],
                places,
                scores: None,
                reason: "test".into(),
            }),
        );
    }
    (log, state)
}

/// Each division a round robin of its own (every pair `times`, colours even), the standings
/// by division against a count of their own, and the audit.
fn check_edition(id: &str, log: &Log, state: &Tournament, seed: &Seed, times: u32, case: &str) {
    assert_eq!(state.phase(), Phase::Finished, "{case}");
    assert!(
        audit(id, log, seed).is_ok(),
        "{case}: audit {:?}",
        audit(id, log, seed)
    );
    let division: HashMap<&str, usize> = state
        .divisions
        .iter()
        .enumerate()
        .flat_map(|(d, players)| players.iter().map(move |p| (p.as_str(), d + 1)))
        .collect();
    assert_eq!(
        division.len(),
        state.order.len(),
        "{case}: one division each"
    );
    assert!(
        state.divisions.iter().all(|d| d.len() >= 2),
        "{case}: {:?}",
        state.divisions
    );
    let mut met: HashMap<(&str, &str), u32> = HashMap::new();
    let mut colour: HashMap<&str, i32> = HashMap::new();
    let mut points: HashMap<&str, f64> = HashMap::new();
    for round in &state.rounds {
        let mut seen = HashSet::new();
        for (table, result) in round.tables.iter().zip(&round.results) {
            let [white, black] = table.players.as_slice() else {
                panic!("{case}: two seats");
            };
            assert_eq!(
                division[white.as_str()],
                division[black.as_str()],
                "{case}: across divisions"
            );
            let pair = if white < black {
                (white.as_str(), black.as_str())
            } else {
                (black.as_str(), white.as_str())
            };
            *met.entry(pair).or_default() += 1;
            *colour.entry(white).or_default() += 1;
            *colour.entry(black).or_default() -= 1;
            let places = &result.as_ref().expect("played").places;
            let got = |a: usize, b: usize| match a.cmp(&b) {
                std::cmp::Ordering::Less => 1.0,
                std::cmp::Ordering::Equal => 0.5,
                std::cmp::Ordering::Greater => 0.0,
            };
            *points.entry(white).or_default() += got(places[0], places[1]);
            *points.entry(black).or_default() += got(places[1], places[0]);
            assert!(
                seen.insert(white.as_str()) && seen.insert(black.as_str()),
                "{case}: twice in a round"
            );
        }
        for bye in &round.byes {
            assert!(seen.insert(bye.as_str()), "{case}: a bye and a table");
        }
        assert_eq!(
            seen.len(),
            state.order.len(),
            "{case}: everyone plays or sits out"
        );
    }
    for players in &state.divisions {
        for (i, a) in players.iter().enumerate() {
            for b in &players[i + 1..] {
                let pair = if a < b {
                    (a.as_str(), b.as_str())
                } else {
                    (b.as_str(), a.as_str())
                };
                assert_eq!(met.get(&pair).copied(), Some(times), "{case}: {a} and {b}");
            }
        }
    }
    assert!(
        colour
            .values()
            .all(|c| c.abs() <= if times == 1 { 1 } else { 0 }),
        "{case}: {colour:?}"
    );
    let (rows, _) = state.finished.as_ref().expect("finished");
    assert_eq!(rows.len(), state.order.len(), "{case}");
    for row in rows {
        assert_eq!(row.division, Some(division[row.player.as_str()]), "{case}");
        assert_eq!(
            row.points,
            points.get(row.player.as_str()).copied().unwrap_or(0.0),
            "{case}: {}",
            row.player
        );
    }
    for pair in rows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if a.division == b.division {
            let key = |r: &StandingRow| {
                std::iter::once(r.points)
                    .chain(r.tie_breaks.iter().copied())
                    .collect::<Vec<f64>>()
            };
            assert!(key(a) >= key(b), "{case}: {a:?} above {b:?}");
            assert_eq!(a.rank == b.rank, key(a) == key(b), "{case}: ranks");
        } else {
            assert!(a.division < b.division, "{case}: divisions in order");
            assert_eq!(b.rank, 1, "{case}: a division's ranks start at 1");
        }
    }
    assert_eq!(rows[0].rank, 1, "{case}");
}

/// The divisions the written rules give when no division falls under two players and the
/// lowest is not cut: a count of their own.
fn expected_divisions(
    league: &League,
    leavers: &[String],
    entrants: &[String],
    order: &[String],
) -> Option<Vec<HashSet<String>>> {
    let kept: Vec<Vec<&String>> = league
        .carried
        .iter()
        .map(|d| {
            d.iter()
                .filter(|p| !leavers.contains(p))
                .collect::<Vec<_>>()
        })
        .filter(|d| !d.is_empty())
        .collect();
    let k = kept.len();
    let mut next: Vec<HashSet<String>> = vec![HashSet::new(); k.max(1)];
    for (d, players) in kept.iter().enumerate() {
        for (i, p) in players.iter().enumerate() {
            let to = if d > 0 && i < league.promoted {
                d - 1
            } else if d + 1 < k && players.len() - i <= league.relegated {
                d + 1
            } else {
                d
            };
            next[to].insert((*p).clone());
        }
    }
    let lowest = next.len() - 1;
    for p in order
        .iter()
        .filter(|p| entrants.contains(p) && !leavers.contains(p))
    {
        next[lowest].insert(p.clone());
    }
    (next.iter().all(|d| d.len() >= 2) && next[lowest].len() <= league.division_size)
        .then_some(next)
}

#[allow(clippy::too_many_arguments)] // the drawn shape of a case, one argument each
fn two_editions(
    n: usize,
    size: usize,
    promoted: usize,
    relegated: usize,
    twice: bool,
    leave: u64,
    entrants: usize,
    draws: u64,
) {
    let case = format!("{n} players, divisions of {size}, up {promoted} down {relegated}, twice {twice}, leave {leave:b}, {entrants} new, draws {draws}");
    let times = if twice { 2 } else { 1 };
    let mut bytes = [7u8; 32];
    bytes[..8].copy_from_slice(&draws.to_le_bytes());
    let seed = Seed(bytes);
    let players: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
    let (log, first) = edition(
        "t-1",
        league_settings(size, promoted, relegated, twice, &seed),
        &players,
        &[],
        &seed,
    );
    check_edition("t-1", &log, &first, &seed, times, &case);
    assert_eq!(first.divisions.len(), n.div_ceil(size), "{case}");
    let sizes: Vec<usize> = first.divisions.iter().map(Vec::len).collect();
    assert!(
        sizes.windows(2).all(|w| w[0] == w[1] || w[0] == w[1] + 1),
        "{case}: {sizes:?}"
    );

    bytes[8] = 1;
    let next_seed = Seed(bytes);
    let settings = league::next_edition(
        &first,
        "t-1",
        "p0",
        first_entry(),
        None,
        next_seed.commitment(),
    )
    .expect("the next edition");
    let carried = settings.league.clone().expect("a league");
    assert_eq!(carried.edition, 2);
    assert_eq!(carried.previous.as_deref(), Some("t-1"));
    let by_division: Vec<Vec<String>> = first
        .divisions
        .iter()
        .map(|d| {
            let mut rows: Vec<&StandingRow> = first
                .finished
                .as_ref()
                .unwrap()
                .0
                .iter()
                .filter(|r| d.contains(&r.player))
                .collect();
            rows.sort_by_key(|r| {
                first
                    .finished
                    .as_ref()
                    .unwrap()
                    .0
                    .iter()
                    .position(|x| x.player == r.player)
            });
            rows.into_iter().map(|r| r.player.clone()).collect()
        })
        .collect();
    assert_eq!(
        carried.carried, by_division,
        "{case}: carried in standings order"
    );
    // Leavers (at most n - 2 of them), and entrants.
    let leavers: Vec<String> = players
        .iter()
        .enumerate()
        .filter(|(i, _)| leave >> i & 1 == 1)
        .map(|(_, p)| p.clone())
        .take(n.saturating_sub(2))
        .collect();
    let new: Vec<String> = (0..entrants).map(|i| format!("q{i}")).collect();
    let (log2, second) = edition("t-2", settings, &new, &leavers, &next_seed);
    check_edition("t-2", &log2, &second, &next_seed, times, &case);
    // Everyone in once, leavers out, entrants in the lowest division(s).
    let mut everyone: Vec<&String> = second.divisions.iter().flatten().collect();
    everyone.sort();
    let mut expected: Vec<&String> = players
        .iter()
        .chain(&new)
        .filter(|p| !leavers.contains(p))
        .collect();
    expected.sort();
    assert_eq!(everyone, expected, "{case}");
    // The moves say exactly who changed division.
    let was: HashMap<&str, usize> = carried
        .carried
        .iter()
        .enumerate()
        .flat_map(|(d, ps)| ps.iter().map(move |p| (p.as_str(), d + 1)))
        .collect();
    let mut moved: Vec<LeagueMove> = players
        .iter()
        .chain(&new)
        .filter_map(|p| {
            let from = was.get(p.as_str()).copied();
            let to = second.division_of(p);
            (from != to).then(|| LeagueMove {
                player: p.clone(),
                from,
                to,
            })
        })
        .collect();
    let mut written = second.moves.clone();
    moved.sort_by(|a, b| a.player.cmp(&b.player));
    written.sort_by(|a, b| a.player.cmp(&b.player));
    assert_eq!(written, moved, "{case}: moves");
    if let Some(expected) = expected_divisions(&carried, &leavers, &new, &second.order) {
        let got: Vec<HashSet<String>> = second
            .divisions
            .iter()
            .map(|d| d.iter().cloned().collect())
            .collect();
        assert_eq!(got, expected, "{case}: promotion and relegation");
    }
}

fn first_entry() -> DateTime<Utc> {
    now() + Duration::days(30)
}

#[test]
fn two_divisions_of_four_swap_one_up_and_one_down_with_a_leaver_and_an_entrant() {
    two_editions(8, 4, 1, 1, false, 0, 0, 1);
    let seed = Seed([3; 32]);
    let players: Vec<String> = (0..8).map(|i| format!("p{i}")).collect();
    // Divisions of at most five: eight players make two of four.
    let (_, first) = edition(
        "t-1",
        league_settings(5, 1, 1, false, &seed),
        &players,
        &[],
        &seed,
    );
    let rows = &first.finished.as_ref().unwrap().0;
    let of = |d: usize| -> Vec<String> {
        rows.iter()
            .filter(|r| r.division == Some(d))
            .map(|r| r.player.clone())
            .collect()
    };
    let (one, two) = (of(1), of(2));
    let settings = league::next_edition(
        &first,
        "t-1",
        "p0",
        first_entry(),
        None,
        Seed([4; 32]).commitment(),
    )
    .unwrap();
    // The first division's second leaves; a newcomer enters.
    let leaver = one[1].clone();
    let (_, second) = edition(
        "t-2",
        settings,
        &["new".to_string()],
        std::slice::from_ref(&leaver),
        &Seed([4; 32]),
    );
    let set = |v: &[&String]| v.iter().map(|p| p.to_string()).collect::<HashSet<String>>();
    // Division one: its first and third stay, the second division's winner comes up, and the
    // first division's last goes down (as its fourth, now third after the leaver).
    assert_eq!(
        set(&second.divisions[0].iter().collect::<Vec<_>>()),
        set(&[&one[0], &one[2], &two[0]])
    );
    assert_eq!(
        set(&second.divisions[1].iter().collect::<Vec<_>>()),
        set(&[&one[3], &two[1], &two[2], &two[3], &"new".to_string()])
    );
    assert_eq!(
        second.divisions[1][0], one[3],
        "who came down is listed first"
    );
    assert!(second.moves.contains(&LeagueMove {
        player: leaver,
        from: Some(1),
        to: None
    }));
    assert!(second.moves.contains(&LeagueMove {
        player: "new".into(),
        from: None,
        to: Some(2)
    }));
    assert!(second.moves.contains(&LeagueMove {
        player: two[0].clone(),
        from: Some(2),
        to: Some(1)
    }));
    assert!(second.moves.contains(&LeagueMove {
        player: one[3].clone(),
        from: Some(1),
        to: Some(2)
    }));
}

#[test]
fn the_next_edition_is_refused_before_the_end_to_others_and_for_other_formats() {
    let seed = Seed([5; 32]);
    let mut state = Tournament::default();
    for command in [
        Command::Create(Box::new(league_settings(3, 1, 1, false, &seed))),
        Command::Join {
            player: "p0".into(),
        },
        Command::Join {
            player: "p1".into(),
        },
        Command::Join {
            player: "p2".into(),
        },
        Command::Start { by: "p0".into() },
    ] {
        for e in decide(&state, "t", &command, now(), &seed).unwrap() {
            state = state.evolve(&e);
        }
    }
    let next = |state: &Tournament, by: &str| {
        league::next_edition(state, "t", by, first_entry(), None, seed.commitment())
            .map(|_| ())
            .unwrap_err()
            .code
    };
    assert_eq!(next(&state, "p0"), "edition_not_finished");
    assert_eq!(next(&state, "p1"), "forbidden");
    let four: Vec<String> = (0..4).map(|i| format!("p{i}")).collect();
    let plain = super::tests::settings(Format::RoundRobin, 2, None, &seed);
    let (_, round_robin) = edition("t-3", plain, &four, &[], &seed);
    assert_eq!(next(&round_robin, "p0"), "not_a_league");
    // A league without divisions, and divisions without a league, are refused.
    let mut bad = league_settings(3, 1, 1, false, &seed);
    bad.league = None;
    let refused = decide(
        &Tournament::default(),
        "t",
        &Command::Create(Box::new(bad)),
        now(),
        &seed,
    );
    assert_eq!(refused.unwrap_err().code, "invalid_tournament");
    let too_many_move = league_settings(3, 2, 1, false, &seed);
    assert_eq!(
        decide(
            &Tournament::default(),
            "t",
            &Command::Create(Box::new(too_many_move)),
            now(),
            &seed
        )
        .unwrap_err()
        .code,
        "invalid_tournament"
    );
    let mut bad = league_settings(3, 1, 1, false, &seed);
    bad.format = Format::RoundRobin;
    assert_eq!(
        decide(
            &Tournament::default(),
            "t",
            &Command::Create(Box::new(bad)),
            now(),
            &seed
        )
        .unwrap_err()
        .code,
        "invalid_tournament"
    );
}

/// A tournament with a start time, `joined` players of a minimum of three, decided at `at`.
fn on_time(joined: usize) -> (Log, Tournament, Seed, DateTime<Utc>) {
    let seed = Seed([6; 32]);
    let mut s = super::tests::settings(Format::RoundRobin, 2, None, &seed);
    s.min_players = 3;
    s.entry_until = now() + Duration::days(1);
    let starts_at = now() + Duration::days(2);
    s.starts_at = Some(starts_at);
    let mut state = Tournament::default();
    let mut log = Vec::new();
    let mut commands = vec![Command::Create(Box::new(s))];
    commands.extend((0..joined).map(|i| Command::Join {
        player: format!("p{i}"),
    }));
    for command in commands {
        for e in decide(&state, "t", &command, now(), &seed).unwrap() {
            state = state.clone().evolve(&e);
            log.push((e, now()));
        }
    }
    (log, state, seed, starts_at)
}

#[test]
fn a_tournament_starts_on_time_with_its_minimum_and_is_cancelled_without() {
    let (mut log, state, seed, at) = on_time(3);
    let early = decide(
        &state,
        "t",
        &Command::StartOnTime,
        at - Duration::seconds(1),
        &seed,
    );
    assert_eq!(early.unwrap_err().code, "not_time");
    let started = decide(&state, "t", &Command::StartOnTime, at, &seed).unwrap();
    assert!(
        matches!(started[0], TournamentEvent::TournamentStarted { .. }),
        "{started:?}"
    );
    assert!(matches!(
        started[1],
        TournamentEvent::RoundPaired { round: 1, .. }
    ));
    log.extend(started.into_iter().map(|e| (e, at)));
    assert_eq!(audit("t", &log, &seed).unwrap().phase(), Phase::Running);

    let (mut log, state, seed, at) = on_time(2);
    let cancelled = decide(&state, "t", &Command::StartOnTime, at, &seed).unwrap();
    let [TournamentEvent::TournamentCancelled { reason }] = cancelled.as_slice() else {
        panic!("{cancelled:?}");
    };
    assert!(
        reason.contains("2 joined, fewer than the 3 players"),
        "{reason}"
    );
    log.extend(cancelled.into_iter().map(|e| (e, at)));
    let state = audit("t", &log, &seed).unwrap();
    assert_eq!(state.phase(), Phase::Cancelled);
    for command in [
        Command::StartOnTime,
        Command::Start { by: "p0".into() },
        Command::Join { player: "x".into() },
    ] {
        assert_eq!(
            decide(&state, "t", &command, at, &seed).unwrap_err().code,
            "tournament_started"
        );
    }
    // A start before entry closes is refused at creation.
    let mut s = super::tests::settings(Format::RoundRobin, 2, None, &seed);
    s.starts_at = Some(s.entry_until - Duration::seconds(1));
    let refused = decide(
        &Tournament::default(),
        "t",
        &Command::Create(Box::new(s)),
        now(),
        &seed,
    );
    assert_eq!(refused.unwrap_err().code, "invalid_tournament");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_leagues_keep_every_rule_over_two_editions(
        n in 3usize..30,
        size in 3usize..8,
        promoted in 0usize..3,
        relegated in 0usize..3,
        twice: bool,
        leave: u64,
        entrants in 0usize..7,
        draws: u64,
    ) {
        prop_assume!(promoted + relegated < size);
        two_editions(n, size, promoted, relegated, twice, leave, entrants, draws);
    }
}
