//! The score at the end: the cards each player collected; the most wins.

use super::state::{Phase, State};
use crate::engine::{Outcome, Seat};

/// The most collected cards wins; equal highest counts share the win. A retired seat's
/// score is shown but it cannot win.
pub fn outcome(state: &State) -> Option<Outcome> {
    if state.phase != Phase::Over {
        return None;
    }
    let scores: Vec<i64> = state
        .collected
        .iter()
        .map(|pile| i64::try_from(pile.len()).unwrap_or(i64::MAX))
        .collect();
    let playing = |seat: &Seat| !state.retired.get(*seat).copied().unwrap_or(true);
    let best = (0..state.seats)
        .filter(playing)
        .filter_map(|seat| scores.get(seat).copied())
        .max();
    let winners = (0..state.seats)
        .filter(playing)
        .filter(|&seat| scores.get(seat).copied() == best)
        .collect();
    Some(Outcome {
        winners,
        draw: false,
        reason: "only one player still held cards; the most collected cards wins".into(),
        scores: Some(scores),
    })
}
