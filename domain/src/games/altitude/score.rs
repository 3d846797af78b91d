//! The score of a mountain and a hand, line by line as in the rules file.

use super::cards::Face;
use super::state::{Phase, State};
use crate::engine::{Outcome, Seat};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A player's score, one field per line of the rules file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ScoreSheet {
    /// The number of floors (avalanches count).
    pub floors: u32,
    /// 1 for each animal on floor 4 or higher.
    pub high_animals: u32,
    /// 1 for each Saint-Bernard still in the hand.
    pub saint_bernards: u32,
    /// 1 if every hand card other than Saint-Bernards was laid.
    pub hand_laid_out: u32,
    /// The sum of the lines above.
    pub total: u32,
}

pub fn score(state: &State, seat: Seat) -> ScoreSheet {
    let floors = state
        .mountains
        .get(seat)
        .map_or(0, |m| u32::from(m.height()));
    let high_animals = state
        .mountains
        .get(seat)
        .map_or(0, |m| m.high_animals() as u32);
    let saint_bernards = state
        .hand(seat)
        .iter()
        .filter(|c| c.face == Face::SaintBernard)
        .count() as u32;
    let hand_laid_out = u32::from(state.hand_laid_out(seat));
    ScoreSheet {
        floors,
        high_animals,
        saint_bernards,
        hand_laid_out,
        total: floors + high_animals + saint_bernards + hand_laid_out,
    }
}

/// Highest score wins; equal best scores share the win. A seat that left the game is
/// scored but cannot win.
pub fn outcome(state: &State) -> Option<Outcome> {
    if state.phase != Phase::Over {
        return None;
    }
    let scores: Vec<i64> = (0..state.seats)
        .map(|s| i64::from(score(state, s).total))
        .collect();
    let best = (0..state.seats)
        .filter(|&s| state.is_active(s))
        .map(|s| scores[s])
        .max();
    let winners = (0..state.seats)
        .filter(|&s| state.is_active(s) && Some(scores[s]) == best)
        .collect();
    Some(Outcome {
        winners,
        draw: false,
        reason: "the deck ran out and every player passed".into(),
        scores: Some(scores),
    })
}
