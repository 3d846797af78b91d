//! Every legal command of the seat to act, with its notation.

use super::cards::Card;
use super::command::{Command, Pile};
use super::state::{State, Step, PLAYS_PER_TURN};
use crate::engine::{Legal, Seat};

/// The draws a player may name: 2 from the draw pile, 1 of each, 2 lifts.
const DRAWS: [[Pile; 2]; 3] = [
    [Pile::DrawPile, Pile::DrawPile],
    [Pile::DrawPile, Pile::LiftPile],
    [Pile::LiftPile, Pile::LiftPile],
];

pub fn legal(state: &State, seat: Seat) -> Vec<Legal<Command>> {
    if !state.running() || seat != state.turn {
        return Vec::new();
    }
    let mut commands = Vec::new();
    match state.step {
        Step::Start => {
            if state.hand(seat).is_empty() {
                commands.push(Command::PickUp);
            } else {
                commands.extend(
                    DRAWS
                        .into_iter()
                        .filter(|from| {
                            let (a, b) = state.draw_yield(from);
                            a + b == state.best_draw()
                        })
                        .map(|from| Command::Draw { from }),
                );
            }
            if state.may_bank(seat) {
                commands.push(Command::Bank);
            }
        }
        Step::Play { played } => {
            if played < PLAYS_PER_TURN {
                commands.extend(
                    Card::ALL
                        .into_iter()
                        .filter(|&card| state.play_refusal(seat, card).is_none())
                        .map(|card| Command::Play { card }),
                );
            }
            commands.push(Command::EndTurn);
        }
    }
    commands
        .into_iter()
        .map(|c| {
            let notation = c.notation();
            Legal::new(c, notation)
        })
        .collect()
}
