//! Deciding commands: drawing and placing, "Alta", scoring, the end, and leaving. The deals
//! and the reshuffles are in `deal.rs`.

use super::command::Command;
use super::deal::deal;
use super::event::Event;
use super::score::{SeatScore, STACK_SIZE};
use super::state::{row_index, State, ROWS};
use crate::engine::{Context, RuleError, Seat};

/// Decides a command of `seat` against the state at its arrival.
pub fn decide(
    state: &State,
    seat: Seat,
    command: &Command,
    ctx: &Context,
) -> Result<Vec<Event>, RuleError> {
    if state.over {
        return Err(RuleError::game_over());
    }
    if seat >= state.seats {
        return Err(RuleError::bad_command(format!(
            "This game has seats 0 to {}; there is no seat {seat}.",
            state.seats.saturating_sub(1)
        )));
    }
    if !state.plays(seat) {
        return Err(RuleError::illegal("You have left this game."));
    }
    if state.round == 0 {
        return Err(RuleError::illegal("The cards have not been dealt yet."));
    }
    let round = command.round();
    if round == 0 {
        return Err(RuleError::bad_command(
            "Rounds are numbered from 1: name the round your command is meant for.",
        ));
    }
    if let Some(alta) = state.alta_of(round) {
        return Err(RuleError::new(
            crate::engine::ErrorCode::RoundOver,
            format!("Round {round} ended when seat {alta} called Alta."),
        ));
    }
    if round != state.round || !state.round_running() {
        return Err(RuleError::illegal(format!(
            "Round {round} has not begun: round {} is being played.",
            state.round
        )));
    }
    let Some(player) = state.players.get(seat) else {
        return Err(RuleError::illegal("You have no cards in this game."));
    };
    match *command {
        Command::Draw { .. } => {
            if let Some(card) = player.drawn {
                return Err(RuleError::illegal(format!(
                    "Place the {card} you drew before drawing another card."
                )));
            }
            if player.pile.is_empty() {
                return Err(RuleError::illegal("Your pile is empty."));
            }
            Ok(vec![Event::Drew {
                seat,
                round,
                card: player.pile.first().copied(),
            }])
        }
        Command::Place { row, .. } => {
            let Some(index) = row_index(row) else {
                return Err(RuleError::bad_command(format!(
                    "Rows are numbered 1 to {ROWS}; there is no row {row}."
                )));
            };
            let Some(card) = player.drawn else {
                return Err(RuleError::illegal(
                    "You hold no card: draw one before placing it.",
                ));
            };
            let mut events = vec![Event::Placed {
                seat,
                round,
                row,
                card,
            }];
            let mut cards = player.rows.get(index).cloned().unwrap_or_default();
            cards.push(card);
            if cards.len() >= STACK_SIZE {
                events.push(Event::RowStacked {
                    seat,
                    round,
                    row,
                    cards,
                });
            }
            if player.pile.is_empty() {
                end_round(state, seat, round, &mut events, ctx);
            }
            Ok(events)
        }
        Command::LayFaceDown { .. } => {
            let Some(card) = player.drawn else {
                return Err(RuleError::illegal(
                    "You hold no card: draw your last card before laying it face down.",
                ));
            };
            if !player.pile.is_empty() {
                return Err(RuleError::illegal(format!(
                    "Only your last card may be laid face down: {} cards are still in your pile.",
                    player.pile.len()
                )));
            }
            let mut events = vec![Event::LaidFaceDown {
                seat,
                round,
                card: Some(card),
            }];
            end_round(state, seat, round, &mut events, ctx);
            Ok(events)
        }
    }
}

/// "When a player places their last card the round stops at once": Alta, the scores, and the
/// next deal unless a total has passed the target; then, from revision 2, the end of the game.
fn end_round(state: &State, seat: Seat, round: u32, events: &mut Vec<Event>, ctx: &Context) {
    events.push(Event::AltaCalled { seat, round });
    let mut after = state.clone();
    for event in events.iter() {
        after.evolve(event);
    }
    let scores = after
        .playing()
        .into_iter()
        .filter_map(|s| {
            let player = after.players.get(s)?;
            let before = after.totals.get(s).copied().unwrap_or(0);
            Some(SeatScore::of(
                s,
                player.cards_left(),
                &player.stacks,
                &player.rows,
                before,
            ))
        })
        .collect();
    let scored = Event::RoundScored { round, scores };
    after.evolve(&scored);
    events.push(scored);
    if !after.target_passed() {
        events.push(deal(&after, round + 1, ctx));
    } else if after.rules.end_is_decided() {
        events.push(Event::GameEnded { round });
    }
}

/// A seat leaves a game that goes on: it is skipped from then on. Its cards stay where they
/// lie (its rows stay face up, its pile and drawn card stay hidden), it is not dealt again,
/// its total stays as it was and it cannot win.
pub fn retire(state: &State, seat: Seat) -> Vec<Event> {
    if state.over || !state.plays(seat) {
        return Vec::new();
    }
    vec![Event::Retired { seat }]
}
