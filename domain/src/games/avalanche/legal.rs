//! Every legal command of a seat, with its notation saying what it would do.

use super::cards::spell;
use super::command::Command;
use super::decide::check_snow_fall;
use super::play::classify;
use super::state::State;
use crate::engine::{Legal, Seat};

/// Snow Fall when allowed, then each distinct play (every rank held, every count up to the
/// number held), low rank first, as `play Q Q Q (grow)`. Suits do not matter, so a rank and a
/// count make one play.
pub fn legal(state: &State, seat: Seat) -> Vec<Legal<Command>> {
    if state.seat_to_act() != Some(seat) {
        return Vec::new();
    }
    let mut legal = Vec::new();
    if check_snow_fall(state).is_ok() {
        legal.push(Legal::new(Command::SnowFall, "snow fall"));
    }
    let to_beat = state.to_beat();
    for (rank, held) in state.hand(seat).ranks() {
        for size in 1..=held {
            let cards = vec![rank; size];
            let notation = format!(
                "play {} ({})",
                spell(&cards),
                classify(to_beat, rank, size).word()
            );
            legal.push(Legal::new(Command::Play { cards }, notation));
        }
    }
    legal
}
