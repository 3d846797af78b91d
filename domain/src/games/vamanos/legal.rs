//! Who may act and every command they may give, with its notation.

use super::command::Command;
use super::state::{State, ROWS};
use crate::engine::{Legal, Seat};

/// No turns: while a round runs, every seat still playing may act.
pub fn to_act(state: &State) -> Vec<Seat> {
    if state.round_running() {
        state.playing()
    } else {
        Vec::new()
    }
}

/// `draw` with an empty hand; `place in row 1..3` with a drawn card, and `lay last card face
/// down` when that card was the last of the pile.
pub fn legal(state: &State, seat: Seat) -> Vec<Legal<Command>> {
    if !state.round_running() || !state.plays(seat) {
        return Vec::new();
    }
    let Some(player) = state.players.get(seat) else {
        return Vec::new();
    };
    let round = state.round;
    match player.drawn {
        None if player.pile.is_empty() => Vec::new(),
        None => vec![Legal::new(Command::Draw { round }, "draw")],
        Some(_) => {
            let mut legal: Vec<Legal<Command>> = (1..=ROWS as u32)
                .map(|row| Legal::new(Command::Place { round, row }, format!("place in row {row}")))
                .collect();
            if player.pile.is_empty() {
                legal.push(Legal::new(
                    Command::LayFaceDown { round },
                    "lay last card face down",
                ));
            }
            legal
        }
    }
}
