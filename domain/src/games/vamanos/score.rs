//! Scoring a round: cards left, stacks by pictures and by colours, stacks and rows worth nothing.

use super::cards::Card;
use super::state::State;
use crate::engine::{Outcome, Seat};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::Hash;
use utoipa::ToSchema;

/// The cards a row holds when it is gathered into a stack.
pub const STACK_SIZE: usize = 5;

/// What the pictures (or the colours) of a stack make.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Combination {
    /// Neither three alike nor all different: 0.
    Nothing,
    /// Three of a kind: 10.
    ThreeOfAKind,
    /// Four of a kind: 20.
    FourOfAKind,
    /// Five of a kind: 40 for the whole stack.
    FiveOfAKind,
    /// All five different: 15.
    AllDifferent,
}

impl Combination {
    /// "three of a kind 10, four of a kind 20, all five different 15; five of a kind is 40".
    pub fn points(self) -> i64 {
        match self {
            Combination::Nothing => 0,
            Combination::ThreeOfAKind => 10,
            Combination::FourOfAKind => 20,
            Combination::FiveOfAKind => 40,
            Combination::AllDifferent => 15,
        }
    }

    /// The combination made by the pictures (or colours) of one stack.
    pub fn of<T: Eq + Hash>(values: impl IntoIterator<Item = T>) -> Combination {
        let mut counts: HashMap<T, usize> = HashMap::new();
        let mut len = 0;
        for value in values {
            *counts.entry(value).or_default() += 1;
            len += 1;
        }
        let most = counts.values().copied().max().unwrap_or(0);
        match most {
            5.. => Combination::FiveOfAKind,
            4 => Combination::FourOfAKind,
            3 => Combination::ThreeOfAKind,
            _ if len == STACK_SIZE && counts.len() == STACK_SIZE => Combination::AllDifferent,
            _ => Combination::Nothing,
        }
    }
}

/// How one stack scored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct StackScore {
    /// The five cards of the stack, in the order they were placed.
    pub cards: Vec<Card>,
    pub pictures: Combination,
    pub colours: Combination,
    /// Pictures plus colours, or 40 for five of a kind (no more); −2 when that is nothing.
    #[schema(example = 20)]
    pub points: i64,
}

impl StackScore {
    /// "Each stack scores for its pictures and for its colours separately ... five of a kind
    /// is 40 for the whole stack ... −2 for each stack that scored nothing".
    pub fn of(cards: &[Card]) -> StackScore {
        let pictures = Combination::of(cards.iter().map(|c| c.picture));
        let colours = Combination::of(cards.iter().map(|c| c.colour));
        let five = Combination::FiveOfAKind;
        let points = if pictures == five || colours == five {
            five.points()
        } else {
            match pictures.points() + colours.points() {
                0 => NOTHING_PENALTY,
                points => points,
            }
        };
        StackScore {
            cards: cards.to_vec(),
            pictures,
            colours,
            points,
        }
    }
}

/// "−2 for each stack that scored nothing and for each unfinished row".
pub const NOTHING_PENALTY: i64 = -2;

/// One seat's score for a round, line by line as in the rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SeatScore {
    pub seat: Seat,
    /// Cards still in the pile, a drawn card not yet placed included: −1 each.
    #[schema(example = 3)]
    pub cards_left: u32,
    /// Each stack gathered this round and what it scored.
    pub stacks: Vec<StackScore>,
    /// Rows holding 1 to 4 cards: −2 each.
    #[schema(example = 1)]
    pub unfinished_rows: u32,
    /// The round's score: the sum of the lines above.
    #[schema(example = 42)]
    pub points: i64,
    /// The seat's total after this round.
    #[schema(example = 187)]
    pub total: i64,
}

impl SeatScore {
    /// Scores a seat's round from what lies in front of it; `before` is its total so far.
    pub fn of(
        seat: Seat,
        cards_left: usize,
        stacks: &[Vec<Card>],
        rows: &[Vec<Card>],
        before: i64,
    ) -> SeatScore {
        let stacks: Vec<StackScore> = stacks.iter().map(|s| StackScore::of(s)).collect();
        let unfinished_rows = rows
            .iter()
            .filter(|r| !r.is_empty() && r.len() < STACK_SIZE)
            .count();
        let points = -(cards_left as i64)
            + stacks.iter().map(|s| s.points).sum::<i64>()
            + NOTHING_PENALTY * unfinished_rows as i64;
        SeatScore {
            seat,
            cards_left: cards_left as u32,
            stacks,
            unfinished_rows: unfinished_rows as u32,
            points,
            total: before + points,
        }
    }
}

/// "the highest total wins (**Ruling:** equal totals share the win)", among the seats
/// still playing.
pub fn outcome(state: &State) -> Option<Outcome> {
    if !state.over {
        return None;
    }
    let playing = state.playing();
    let best = playing.iter().filter_map(|&s| state.totals.get(s)).max();
    let winners = playing
        .iter()
        .copied()
        .filter(|&s| state.totals.get(s) == best)
        .collect();
    Some(Outcome {
        winners,
        draw: false,
        reason: format!(
            "a total passed {} points after round {}",
            state.target, state.round
        ),
        scores: Some(state.totals.clone()),
    })
}
