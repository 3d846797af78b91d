//! Points, tie-breaks and ranks, written out.
//!
//! - **Points**: at a table, a player scores one for each player placed below them and a half
//!   for each placed equal: a win 1, a draw ½, a loss 0 at two seats; 2, 1, 0 at three. A Swiss
//!   bye scores 1; a round-robin bye 0.
//! - **Tie-breaks**, in order, then the seeding order:
//!   - round robin of two seats and league: Sonneborn-Berger (for each game, the points scored in it
//!     times the opponent's final points), then head-to-head (points scored against the players
//!     on the same points);
//!   - round robin and Swiss of more seats: the game's own score, summed over the player's
//!     games;
//!   - Swiss of two seats: Buchholz (the sum of every opponent's final points, once a game);
//!   - knock-out: first the round a player went out in (later is better, the winner first),
//!     then points.
//!
//! Players equal on points and every tie-break share a rank. A league ranks each division on
//! its own, the first division first.

use super::event::StandingRow;
use super::state::{Format, Tournament};
use std::collections::HashMap;

/// The tournament points of each seat of a table with `places`.
pub fn table_points(places: &[usize]) -> Vec<f64> {
    places
        .iter()
        .map(|mine| {
            places
                .iter()
                .map(|other| match other.cmp(mine) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                })
                .sum::<f64>()
                - 0.5
        })
        .collect()
}

/// The names of the tie-breaks the format uses, in order.
pub fn tie_break_names(format: Format, seats: usize) -> Vec<&'static str> {
    match (format, seats) {
        (Format::RoundRobin, 2) | (Format::League, _) => {
            vec!["sonneborn_berger", "head_to_head"]
        }
        (Format::RoundRobin, _) => vec!["game_score"],
        (Format::Swiss, 2) => vec!["buchholz"],
        (Format::Swiss, _) => vec!["game_score"],
        (Format::KnockOut, _) => vec![],
    }
}

/// The standings now, best first.
pub fn standings(state: &Tournament) -> Vec<StandingRow> {
    let Some(settings) = &state.settings else {
        return Vec::new();
    };
    let players: Vec<String> = if state.order.is_empty() {
        state.players.clone()
    } else {
        state.order.clone()
    };
    let mut points: HashMap<&str, f64> = players.iter().map(|p| (p.as_str(), 0.0)).collect();
    let mut games: HashMap<&str, u32> = HashMap::new();
    let mut game_score: HashMap<&str, f64> = HashMap::new();
    // (player, opponent, points the player scored against them)
    let mut meetings: Vec<(&str, &str, f64)> = Vec::new();
    for (table, result) in state.results() {
        let scored = table_points(&result.places);
        for (seat, player) in table.players.iter().enumerate() {
            *points.entry(player).or_default() += scored[seat];
            *games.entry(player).or_default() += 1;
            let own = result.scores.as_ref().and_then(|s| s.get(seat)).copied();
            *game_score.entry(player).or_default() += own.unwrap_or(0) as f64;
            for (other_seat, other) in table.players.iter().enumerate() {
                if other_seat != seat {
                    let against = match result.places[seat].cmp(&result.places[other_seat]) {
                        std::cmp::Ordering::Less => 1.0,
                        std::cmp::Ordering::Equal => 0.5,
                        std::cmp::Ordering::Greater => 0.0,
                    };
                    meetings.push((player, other, against));
                }
            }
        }
    }
    if settings.format == Format::Swiss {
        for round in &state.rounds {
            for bye in &round.byes {
                *points.entry(bye).or_default() += 1.0;
            }
        }
    }
    let out = knocked_out(state);
    let tie_breaks = |player: &str| -> Vec<f64> {
        match (settings.format, settings.seats) {
            (Format::RoundRobin, 2) | (Format::League, _) => {
                let mine = points[player];
                let sb = meetings
                    .iter()
                    .filter(|m| m.0 == player)
                    .map(|m| m.2 * points.get(m.1).copied().unwrap_or(0.0))
                    .sum();
                let h2h = meetings
                    .iter()
                    .filter(|m| m.0 == player && points.get(m.1) == Some(&mine))
                    .map(|m| m.2)
                    .sum();
                vec![sb, h2h]
            }
            (Format::RoundRobin, _) => vec![game_score.get(player).copied().unwrap_or(0.0)],
            (Format::Swiss, 2) => vec![meetings
                .iter()
                .filter(|m| m.0 == player)
                .map(|m| points.get(m.1).copied().unwrap_or(0.0))
                .sum()],
            (Format::Swiss, _) => vec![game_score.get(player).copied().unwrap_or(0.0)],
            (Format::KnockOut, _) => vec![],
        }
    };
    // Sort key: knocked-out round (None = still in: best), points, tie-breaks; then seeding.
    let mut rows: Vec<(usize, StandingRow)> = players
        .iter()
        .enumerate()
        .map(|(seeding, player)| {
            (
                seeding,
                StandingRow {
                    rank: 0,
                    player: player.clone(),
                    points: points[player.as_str()],
                    // An empty sum is -0.0: shown as 0.
                    tie_breaks: tie_breaks(player).into_iter().map(|t| t + 0.0).collect(),
                    games: games.get(player.as_str()).copied().unwrap_or(0),
                    out_in_round: out.get(player.as_str()).copied(),
                    division: state.division_of(player),
                },
            )
        })
        .collect();
    let key = |row: &StandingRow| {
        let mut key = vec![
            row.division.map_or(0.0, |d| d as f64),
            -(row.out_in_round.map_or(f64::INFINITY, f64::from)),
            -row.points,
        ];
        key.extend(row.tie_breaks.iter().map(|t| -t));
        key
    };
    rows.sort_by(|a, b| {
        key(&a.1)
            .partial_cmp(&key(&b.1))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.0.cmp(&b.0))
    });
    let mut ranked: Vec<StandingRow> = Vec::with_capacity(rows.len());
    // Where the division of the row being ranked began (ranks count within a division).
    let mut first = 0;
    for (i, (_, mut row)) in rows.into_iter().enumerate() {
        if ranked
            .last()
            .is_some_and(|last| last.division != row.division)
        {
            first = i;
        }
        row.rank = match ranked.last() {
            Some(last) if key(last) == key(&row) => last.rank,
            _ => i - first + 1,
        };
        ranked.push(row);
    }
    ranked
}

/// The players who went out of a knock-out, and in which round.
pub fn knocked_out(state: &Tournament) -> HashMap<&str, u32> {
    let mut out = HashMap::new();
    if state.settings.as_ref().map(|s| s.format) != Some(Format::KnockOut) {
        return out;
    }
    for round in &state.rounds {
        for (table, result) in round.tables.iter().zip(&round.results) {
            if let Some(result) = result {
                let goes_on = table_winner(&state.order, &table.players, result);
                for player in &table.players {
                    if Some(player) != goes_on {
                        out.insert(player.as_str(), round.number);
                    }
                }
            }
        }
    }
    out
}

/// The player who goes on from a knock-out table: the one placed first; among several placed
/// first (a draw), the one with the higher game score, then the higher seed.
pub fn table_winner<'a>(
    order: &[String],
    players: &'a [String],
    result: &super::event::GameResultEvent,
) -> Option<&'a String> {
    let seeding = |p: &String| order.iter().position(|o| o == p).unwrap_or(usize::MAX);
    players
        .iter()
        .enumerate()
        .min_by_key(|(seat, player)| {
            let score = result
                .scores
                .as_ref()
                .and_then(|s| s.get(*seat))
                .copied()
                .unwrap_or(0);
            (
                result.places.get(*seat).copied().unwrap_or(usize::MAX),
                -score,
                seeding(player),
            )
        })
        .map(|(_, p)| p)
}
