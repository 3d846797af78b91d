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
        Step::Start if !state.has_draw_step() => {
            commands.extend(plays(state, seat));
            commands.push(Command::EndTurn);
            if state.may_bank(seat) {
                commands.push(Command::Bank);
            }
        }
        Step::Start => {
            if state.hand(seat).is_empty() {
                commands.push(Command::PickUp);
            } else {
                commands.extend(
                    DRAWS
                        .into_iter()
                        .filter(|from| state.draw_refusal(from).is_none())
                        .map(|from| Command::Draw { from }),
                );
            }
            if state.may_bank(seat) {
                commands.push(Command::Bank);
            }
        }
        Step::Play { played } => {
            if played < PLAYS_PER_TURN {
                commands.extend(plays(state, seat));
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

/// The cards the seat may play now, one command each.
fn plays(state: &State, seat: Seat) -> impl Iterator<Item = Command> + '_ {
    Card::ALL
        .into_iter()
        .filter(move |&card| state.play_refusal(seat, card).is_none())
        .map(|card| Command::Play { card })
}
