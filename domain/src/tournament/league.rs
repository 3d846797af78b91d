//! Leagues: a round robin in divisions, played edition after edition, written out so that
//! anyone can build the divisions again from the log.
//!
//! - **First edition**: the players in the seeding order drawn from the seed, cut into as few
//!   divisions of at most `division_size` as hold them, their sizes within one of each other
//!   (the larger first).
//! - **Next edition**: built from the edition before's final standings, division by division
//!   (points, then the written tie-breaks, then the seeding order), carried into its creation:
//!   1. the players who withdrew from the edition before, or from this one before its start,
//!      are removed (they leave); a division left empty is dropped;
//!   2. in each division but the first, the top `promoted` go up one division; in each but the
//!      last, the bottom `relegated` go down one (a player who could do both goes up);
//!      a division lists those who came down first, then those who stayed, then those who
//!      came up, each group in its standings order;
//!   3. new entrants, in the seeding order, join the lowest division;
//!   4. a division of fewer than two players joins the one below it (the lowest joins the one
//!      above), until none is left; then the lowest division, when it holds more than
//!      `division_size`, is cut into as few divisions of at most that size as hold it, their
//!      sizes within one of each other (the larger first).
//!
//!   Every player whose division changed is written out in the start's `moves`: from (none
//!   for an entrant) and to (none for a leaver).
//! - **Rounds**: every division plays a two-seat round robin (the circle method of
//!   [`super::pairing`]) at the same time, once or twice with colours swapped; tables are
//!   numbered division after division. A division with fewer rounds than the largest sits out
//!   the rounds after its own (byes).

use super::decide::TournamentError;
use super::event::{League, LeagueMove, Settings, StandingRow};
use super::pairing::{self, Pairing};
use super::state::{Format, Phase, Tournament};
use chrono::{DateTime, Utc};

/// The first edition's divisions of the players in `order`.
pub fn first_divisions(order: &[String], size: usize) -> Vec<Vec<String>> {
    if order.is_empty() {
        return Vec::new();
    }
    even(order, order.len().div_ceil(size.max(1)))
}

/// `players` cut into `count` divisions of sizes within one, the larger first.
fn even(players: &[String], count: usize) -> Vec<Vec<String>> {
    let (base, extra) = (players.len() / count, players.len() % count);
    let mut at = 0;
    (0..count)
        .map(|i| {
            let len = base + usize::from(i < extra);
            let division = players[at..at + len].to_vec();
            at += len;
            division
        })
        .collect()
}

/// The next edition's divisions and moves: from `league`'s carried standings, with the
/// players in `order` (this edition's, in its seeding order: the others left).
pub fn next_divisions(league: &League, order: &[String]) -> (Vec<Vec<String>>, Vec<LeagueMove>) {
    let mut moves = Vec::new();
    // 1. Leavers out; (player, their division before) by division; empty ones dropped.
    let mut staying: Vec<Vec<(String, usize)>> = Vec::new();
    for (d, division) in league.carried.iter().enumerate() {
        let mut kept = Vec::new();
        for player in division {
            if order.contains(player) {
                kept.push((player.clone(), d + 1));
            } else {
                moves.push(LeagueMove {
                    player: player.clone(),
                    from: Some(d + 1),
                    to: None,
                });
            }
        }
        if !kept.is_empty() {
            staying.push(kept);
        }
    }
    // 2. Promotion and relegation: (target division, group) for each player.
    let count = staying.len();
    let mut next: Vec<Vec<(String, Option<usize>)>> = vec![Vec::new(); count];
    for group in 0..3 {
        for (d, division) in staying.iter().enumerate() {
            let m = division.len();
            for (i, (player, from)) in division.iter().enumerate() {
                let up = d > 0 && i < league.promoted;
                let down = !up && d + 1 < count && i + league.relegated >= m;
                // Seen from the target: 0 came down into it, 1 stayed, 2 came up.
                let (target, kind) = if up {
                    (d - 1, 2)
                } else if down {
                    (d + 1, 0)
                } else {
                    (d, 1)
                };
                if kind == group {
                    next[target].push((player.clone(), Some(*from)));
                }
            }
        }
    }
    // 3. Entrants into the lowest division.
    let carried: Vec<&String> = league.carried.iter().flatten().collect();
    let entrants = order
        .iter()
        .filter(|p| !carried.contains(p))
        .map(|p| (p.clone(), None));
    if next.is_empty() {
        next.push(Vec::new());
    }
    if let Some(lowest) = next.last_mut() {
        lowest.extend(entrants);
    }
    // 4. No division under two players; the lowest cut when larger than a division.
    next.retain(|d| !d.is_empty());
    while next.len() > 1 {
        let Some(small) = next.iter().position(|d| d.len() < 2) else {
            break;
        };
        let players = next.remove(small);
        let into = if small < next.len() { small } else { small - 1 };
        if into == small {
            // Joins the one below: ahead of its players, as it was a division higher.
            let below = std::mem::take(&mut next[into]);
            next[into] = players.into_iter().chain(below).collect();
        } else {
            next[into].extend(players);
        }
    }
    if let Some(lowest) = next.pop() {
        if lowest.len() > league.division_size {
            let names: Vec<String> = lowest.iter().map(|(p, _)| p.clone()).collect();
            let from = |p: &String| lowest.iter().find(|(q, _)| q == p).and_then(|(_, f)| *f);
            for part in even(&names, names.len().div_ceil(league.division_size.max(1))) {
                next.push(part.iter().map(|p| (p.clone(), from(p))).collect());
            }
        } else {
            next.push(lowest);
        }
    }
    let divisions: Vec<Vec<String>> = next
        .iter()
        .map(|d| d.iter().map(|(p, _)| p.clone()).collect())
        .collect();
    for (d, division) in next.iter().enumerate() {
        for (player, from) in division {
            if *from != Some(d + 1) {
                moves.push(LeagueMove {
                    player: player.clone(),
                    from: *from,
                    to: Some(d + 1),
                });
            }
        }
    }
    (divisions, moves)
}

/// Rounds of a league of `divisions`, each played `times` (1 or 2).
pub fn rounds(divisions: &[Vec<String>], times: u32) -> u32 {
    divisions
        .iter()
        .map(|d| pairing::round_robin_rounds(d.len()) * times)
        .max()
        .unwrap_or(0)
}

/// Round `round` (from 1) of every division, tables division after division.
pub fn pair(divisions: &[Vec<String>], round: u32, times: u32) -> Pairing {
    let mut all = Pairing {
        tables: Vec::new(),
        byes: Vec::new(),
    };
    for division in divisions {
        if round <= pairing::round_robin_rounds(division.len()) * times {
            let Pairing { tables, byes } = pairing::round_robin(division, round);
            all.tables.extend(tables);
            all.byes.extend(byes);
        } else {
            all.byes.extend(division.iter().cloned());
        }
    }
    all
}

/// The settings of the edition after `previous` (tournament `previous_id`), asked by `by`:
/// the same game, clock, divisions and players, the previous standings carried, a new seed
/// committed to and a new entry.
pub fn next_edition(
    previous: &Tournament,
    previous_id: &str,
    by: &str,
    entry_until: DateTime<Utc>,
    starts_at: Option<DateTime<Utc>>,
    seed_commitment: String,
) -> Result<Settings, TournamentError> {
    let refuse = |code: &'static str, message: &str| TournamentError {
        code,
        message: message.to_string(),
    };
    let settings = previous
        .settings
        .as_ref()
        .ok_or_else(|| refuse("tournament_not_found", "There is no such tournament."))?;
    let league = settings
        .league
        .as_ref()
        .filter(|_| settings.format == Format::League)
        .ok_or_else(|| refuse("not_a_league", "Only a league has a next edition."))?;
    if by != settings.creator {
        return Err(refuse(
            "forbidden",
            "Only the player who created a league may start its next edition.",
        ));
    }
    let Some((rows, _)) = previous
        .finished
        .as_ref()
        .filter(|_| previous.phase() == Phase::Finished)
    else {
        return Err(refuse(
            "edition_not_finished",
            "The next edition is built from this one's final standings: it has not finished.",
        ));
    };
    Ok(Settings {
        entry_until,
        starts_at,
        seed_commitment,
        league: Some(League {
            edition: league.edition + 1,
            previous: Some(previous_id.to_string()),
            carried: carried(previous, rows),
            ..league.clone()
        }),
        ..settings.clone()
    })
}

/// The final standings `rows` of `previous` by division, best first, without the players who
/// withdrew.
fn carried(previous: &Tournament, rows: &[StandingRow]) -> Vec<Vec<String>> {
    let mut divisions: Vec<Vec<String>> = vec![Vec::new(); previous.divisions.len()];
    for row in rows {
        if previous.withdrawn(&row.player) {
            continue;
        }
        if let Some(division) = row
            .division
            .and_then(|d| divisions.get_mut(d.wrapping_sub(1)))
        {
            division.push(row.player.clone());
        }
    }
    divisions.retain(|d| !d.is_empty());
    divisions
}
