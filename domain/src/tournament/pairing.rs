//! Who meets whom in a round, written out so that anyone can pair again from the log.
//!
//! - **Round robin, two seats**: the circle method. With an odd count a bye joins the list.
//!   In round `r` (from 0) of `n` places, the last place is fixed and meets place `r`; place
//!   `(r + k) mod (n - 1)` meets place `(r - k) mod (n - 1)` for `k` in `1..n/2`, the first
//!   of the two white; the fixed place is white in odd rounds. Each player sits in the top row
//!   as often as in the bottom one, so colours end within one. A double round robin plays the
//!   same rounds again with colours swapped.
//! - **Round robin, three seats or more**: the seed's stream of the round draws the players in
//!   order 32 times; each draw is seated as follows, and the round is the first draw whose
//!   tables repeat least (the most times a pair seated together met before, then the sum of
//!   those times). In a draw, the players with the fewest byes so far
//!   sit out while the count is not a multiple of the seats (ties by the draw); the
//!   tables are filled one at a time, each from the first player left in the round's draw,
//!   then the player who met those already seated least often (ties by the draw); at a table
//!   the player first seated least often sits first.
//! - **Swiss**: players by points, then seeding order. With an odd count the lowest-placed
//!   player without a bye sits out (one point). Each player left, from the top, meets the
//!   first player below not met before whose colour can still end within one (a player
//!   with one white more must have black); when that leads nowhere, the next candidate is
//!   tried (a full search), so no repeat pairing is ever made. The player with fewer whites
//!   is white; equal, the one black last time; still equal, the higher-placed in odd rounds.
//! - **Swiss, three seats or more**: players by points, then seeding order. The lowest-placed
//!   players with the fewest byes sit out while the count is not a multiple of the seats (a
//!   bye scores 1). Each table is filled from the highest-placed player left, then the player
//!   who met those already seated least often, the higher-placed first among equals; at a
//!   table the player first seated least often sits first.
//! - **Knock-out**: the remaining players in seeding order. Two seats: the top seeds have
//!   byes until the count is a power of two, then the highest seed meets the lowest; the
//!   higher seed is white in odd rounds. More seats: the count is a power of the seats; the
//!   seeds are dealt to the tables in a snake (1, 2, ... then back).

use super::state::Tournament;
use crate::Seed;
use std::collections::{HashMap, HashSet};

/// A round's pairing: tables (players in seat order) and byes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub tables: Vec<Vec<String>>,
    pub byes: Vec<String>,
}

/// Rounds of a two-seat round robin of `n` players, once through.
pub fn round_robin_rounds(n: usize) -> u32 {
    let places = n + n % 2;
    (places - 1) as u32
}

/// Round `round` (from 1) of a two-seat round robin of `order`.
pub fn round_robin(order: &[String], round: u32) -> Pairing {
    let mut places: Vec<Option<&String>> = order.iter().map(Some).collect();
    if places.len() % 2 == 1 {
        places.push(None);
    }
    let n = places.len();
    let once = (n - 1) as u32;
    let r = ((round - 1) % once) as usize;
    let swapped = (round - 1) / once % 2 == 1;
    let fixed = places[n - 1];
    let mut pairs: Vec<(Option<&String>, Option<&String>)> = Vec::new();
    let first = places[r];
    pairs.push(if r % 2 == 1 {
        (fixed, first)
    } else {
        (first, fixed)
    });
    for k in 1..n / 2 {
        let white = places[(r + k) % (n - 1)];
        let black = places[(r + n - 1 - k) % (n - 1)];
        pairs.push((white, black));
    }
    let mut pairing = Pairing {
        tables: Vec::new(),
        byes: Vec::new(),
    };
    for (white, black) in pairs {
        match (white, black) {
            (Some(w), Some(b)) if swapped => pairing.tables.push(vec![b.clone(), w.clone()]),
            (Some(w), Some(b)) => pairing.tables.push(vec![w.clone(), b.clone()]),
            (Some(p), None) | (None, Some(p)) => pairing.byes.push(p.clone()),
            (None, None) => {}
        }
    }
    pairing
}

/// How often each pair has met at a table, each player's byes and first seats.
struct Past {
    met: HashMap<(String, String), u32>,
    byes: HashMap<String, u32>,
    first: HashMap<String, u32>,
}

impl Past {
    fn of(state: &Tournament) -> Past {
        let mut past = Past {
            met: HashMap::new(),
            byes: HashMap::new(),
            first: HashMap::new(),
        };
        for round in &state.rounds {
            for table in &round.tables {
                for a in &table.players {
                    for b in &table.players {
                        if a != b {
                            *past.met.entry((a.clone(), b.clone())).or_default() += 1;
                        }
                    }
                }
                if let Some(first) = table.players.first() {
                    *past.first.entry(first.clone()).or_default() += 1;
                }
            }
            for bye in &round.byes {
                *past.byes.entry(bye.clone()).or_default() += 1;
            }
        }
        past
    }

    fn met(&self, a: &str, b: &str) -> u32 {
        self.met
            .get(&(a.to_string(), b.to_string()))
            .copied()
            .unwrap_or(0)
    }
}

/// Round `round` of a round robin at tables of `seats` (three or more), drawn from `seed`'s
/// stream `round`.
pub fn round_robin_tables(state: &Tournament, seats: usize, round: u32, seed: &Seed) -> Pairing {
    let past = Past::of(state);
    let mut dealer = seed.dealer(u64::from(round));
    let mut best: Option<((u32, u32), Pairing)> = None;
    for _ in 0..DRAWS {
        let mut drawn = state.order.clone();
        dealer.shuffle(&mut drawn);
        let pairing = tables_of(&past, drawn, seats, false);
        let cost = repeats(&past, &pairing);
        if best.as_ref().is_none_or(|(least, _)| cost < *least) {
            best = Some((cost, pairing));
        }
    }
    best.map(|(_, pairing)| pairing).unwrap_or(Pairing {
        tables: Vec::new(),
        byes: Vec::new(),
    })
}

/// Draws a round robin of tables of three or more tries, keeping the first of the fewest
/// repeats.
const DRAWS: usize = 32;

/// What a pairing repeats: the most times a pair at one of its tables has met before, then
/// the sum over its tables' pairs of the times they met before.
fn repeats(past: &Past, pairing: &Pairing) -> (u32, u32) {
    let mut most = 0;
    let mut sum = 0;
    for table in &pairing.tables {
        for (i, a) in table.iter().enumerate() {
            for b in &table[i + 1..] {
                let met = past.met(a, b);
                most = most.max(met);
                sum += met;
            }
        }
    }
    (most, sum)
}

/// The next Swiss round at tables of `seats` (three or more) of the players `ranked` (by
/// points, then seeding order): the lowest-placed players with the fewest byes sit out while
/// the count is not a multiple of the seats; each table is filled from the highest-placed
/// player left, then the player who met those already seated least often, the higher-placed
/// first among equals; at a table the player first seated least often sits first.
pub fn swiss_tables(state: &Tournament, ranked: &[String], seats: usize) -> Pairing {
    tables_of(&Past::of(state), ranked.to_vec(), seats, true)
}

/// Tables of `seats` from `order`: byes (fewest byes first; from the bottom of `order` when
/// `byes_from_bottom`, else from its top), then tables filled greedily by fewest meetings,
/// ties by `order`.
fn tables_of(past: &Past, order: Vec<String>, seats: usize, byes_from_bottom: bool) -> Pairing {
    let byes_count = order.len() % seats;
    let mut by_byes = order.clone();
    if byes_from_bottom {
        by_byes.reverse();
    }
    // Stable: equal counts keep the order.
    by_byes.sort_by_key(|p| past.byes.get(p).copied().unwrap_or(0));
    let byes: Vec<String> = by_byes.into_iter().take(byes_count).collect();
    let mut left: Vec<String> = order.into_iter().filter(|p| !byes.contains(p)).collect();
    let mut tables = Vec::new();
    while !left.is_empty() {
        let mut table = vec![left.remove(0)];
        while table.len() < seats {
            let best = (0..left.len())
                .min_by_key(|&i| {
                    let meetings: u32 = table.iter().map(|p| past.met(p, &left[i])).sum();
                    (meetings, i)
                })
                .unwrap_or(0);
            table.push(left.remove(best));
        }
        // Stable: equal counts keep the order.
        table.sort_by_key(|p| past.first.get(p).copied().unwrap_or(0));
        tables.push(table);
    }
    Pairing { tables, byes }
}

/// Colour history of a two-seat player: whites minus blacks, and the last colour (true: white).
fn colours(state: &Tournament) -> HashMap<String, (i32, Option<bool>)> {
    let mut colours: HashMap<String, (i32, Option<bool>)> = HashMap::new();
    for round in &state.rounds {
        for table in &round.tables {
            if let [white, black] = table.players.as_slice() {
                let w = colours.entry(white.clone()).or_default();
                w.0 += 1;
                w.1 = Some(true);
                let b = colours.entry(black.clone()).or_default();
                b.0 -= 1;
                b.1 = Some(false);
            }
        }
    }
    colours
}

/// The next Swiss round of the players `ranked` (by points, then seeding order), or `None`
/// when no pairing without a repeat (and with colours within one) is left.
pub fn swiss(state: &Tournament, ranked: &[String], round: u32) -> Option<Pairing> {
    let past = Past::of(state);
    let colours = colours(state);
    let diff = |p: &str| colours.get(p).map_or(0, |c| c.0);
    let can_meet = |a: &str, b: &str| past.met(a, b) == 0 && !(diff(a) != 0 && diff(a) == diff(b));
    let candidates: Vec<Option<&String>> = if ranked.len() % 2 == 1 {
        ranked
            .iter()
            .rev()
            .filter(|p| past.byes.get(*p).copied().unwrap_or(0) == 0)
            .map(Some)
            .collect()
    } else {
        vec![None]
    };
    for bye in candidates {
        let players: Vec<&String> = ranked.iter().filter(|p| Some(*p) != bye).collect();
        let mut pairs = Vec::new();
        if match_all(&players, &mut HashSet::new(), &can_meet, &mut pairs) {
            let tables = pairs
                .into_iter()
                .map(|(high, low)| {
                    let (h, l) = (colours.get(high), colours.get(low));
                    let (dh, dl) = (diff(high), diff(low));
                    let high_white = if dh != dl {
                        dh < dl
                    } else {
                        match (h.and_then(|c| c.1), l.and_then(|c| c.1)) {
                            (Some(false), Some(true)) => true,
                            (Some(true), Some(false)) => false,
                            _ => round % 2 == 1,
                        }
                    };
                    if high_white {
                        vec![high.clone(), low.clone()]
                    } else {
                        vec![low.clone(), high.clone()]
                    }
                })
                .collect();
            return Some(Pairing {
                tables,
                byes: bye.into_iter().cloned().collect(),
            });
        }
    }
    None
}

/// Pairs every player of `players` not in `taken`, the highest first, each with the first
/// allowed player below: a depth-first search.
fn match_all<'a>(
    players: &[&'a String],
    taken: &mut HashSet<usize>,
    can_meet: &dyn Fn(&str, &str) -> bool,
    pairs: &mut Vec<(&'a String, &'a String)>,
) -> bool {
    let Some(top) = (0..players.len()).find(|i| !taken.contains(i)) else {
        return true;
    };
    taken.insert(top);
    for other in top + 1..players.len() {
        if taken.contains(&other) || !can_meet(players[top], players[other]) {
            continue;
        }
        taken.insert(other);
        pairs.push((players[top], players[other]));
        if match_all(players, taken, can_meet, pairs) {
            return true;
        }
        pairs.pop();
        taken.remove(&other);
    }
    taken.remove(&top);
    false
}

/// A knock-out round of `remaining` (in seeding order) at tables of `seats`.
pub fn knock_out(remaining: &[String], seats: usize, round: u32) -> Pairing {
    if seats == 2 {
        let size = remaining.len().next_power_of_two();
        let byes_count = size - remaining.len();
        let byes: Vec<String> = remaining[..byes_count].to_vec();
        let playing = &remaining[byes_count..];
        let tables = (0..playing.len() / 2)
            .map(|i| {
                let (high, low) = (&playing[i], &playing[playing.len() - 1 - i]);
                if round % 2 == 1 {
                    vec![high.clone(), low.clone()]
                } else {
                    vec![low.clone(), high.clone()]
                }
            })
            .collect();
        return Pairing { tables, byes };
    }
    let count = remaining.len() / seats;
    let mut tables = vec![Vec::new(); count];
    for (i, player) in remaining.iter().enumerate() {
        let (lap, at) = (i / count, i % count);
        let table = if lap % 2 == 0 { at } else { count - 1 - at };
        tables[table].push(player.clone());
    }
    Pairing {
        tables,
        byes: Vec::new(),
    }
}

/// Whether `n` is a power of `seats` (at least `seats`): a knock-out at tables of more than
/// two seats needs it.
pub fn power_of(n: usize, seats: usize) -> bool {
    let mut count = n;
    if count < seats {
        return false;
    }
    while count > 1 {
        if !count.is_multiple_of(seats) {
            return false;
        }
        count /= seats;
    }
    true
}
