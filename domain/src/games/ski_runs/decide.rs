//! Deciding a command of Ski Runs: each step of a turn is checked at once and refused with a
//! sentence that says why.

use super::cards::{Card, Cards};
use super::command::Command;
use super::deal::top_of_draw_pile;
use super::event::Event;
use super::evolve::evolve;
use super::state::{State, Step, DRAW_CARDS, HAND_DRAW_CARDS, PLAYS_PER_TURN};
use crate::engine::{RuleError, Seat};

pub fn decide(state: &State, seat: Seat, command: &Command) -> Result<Vec<Event>, RuleError> {
    decide_step(state, seat, command).map(|events| with_end(state, events))
}

/// From revision 3, the events of a command (or of a player leaving) are followed by the end
/// of the game when they end it: the 5th avalanche card, or the last quiet turn of a round
/// once the draw pile is empty (see [`State::ending`]).
pub fn with_end(state: &State, mut events: Vec<Event>) -> Vec<Event> {
    if !state.rules.end_is_decided() {
        return events;
    }
    let mut after = state.clone();
    for event in &events {
        evolve(&mut after, event);
    }
    if let Some(reason) = after.ending() {
        events.push(Event::GameEnded { reason });
    }
    events
}

fn decide_step(state: &State, seat: Seat, command: &Command) -> Result<Vec<Event>, RuleError> {
    if state.end.is_some() {
        return Err(RuleError::game_over());
    }
    if !state.dealt {
        return Err(RuleError::illegal("The cards have not been dealt yet."));
    }
    if seat != state.turn {
        return Err(RuleError::not_your_turn());
    }
    if state.step == Step::Start && !state.has_draw_step() {
        return decide_without_draw(state, seat, command);
    }
    match (command, state.step) {
        (Command::Draw { from }, Step::Start) => {
            if state.hand(seat).is_empty() {
                return Err(RuleError::illegal(
                    "Your turn began with an empty hand, so you pick up 1 lift card and 4 cards \
                     from the draw pile instead of drawing 2.",
                ));
            }
            if let Some(why) = state.draw_refusal(from) {
                return Err(RuleError::illegal(why));
            }
            let (from_draw_pile, lifts) = state.draw_yield(from);
            Ok(vec![Event::Drew {
                seat,
                lifts,
                cards: Cards::shown(top_of_draw_pile(state, from_draw_pile)),
            }])
        }
        (Command::PickUp, Step::Start) => {
            if !state.hand(seat).is_empty() {
                return Err(RuleError::illegal(format!(
                    "Only a player whose turn began with an empty hand picks up a lift card and \
                     {HAND_DRAW_CARDS} cards; draw {DRAW_CARDS} cards instead."
                )));
            }
            Ok(vec![Event::PickedUp {
                seat,
                lifts: state.lift_pile.min(1),
                cards: Cards::shown(top_of_draw_pile(state, HAND_DRAW_CARDS)),
            }])
        }
        (Command::Draw { .. } | Command::PickUp, Step::Play { played }) => {
            Err(RuleError::illegal(format!(
                "You have already drawn this turn: play up to {} more card(s) or end your turn.",
                PLAYS_PER_TURN.saturating_sub(played)
            )))
        }
        (Command::Play { .. } | Command::EndTurn, Step::Start) => Err(RuleError::illegal(
            "Draw first (or bank instead): a turn is a draw, then up to 3 cards played, then \
             the end of the turn.",
        )),
        (Command::Play { card }, Step::Play { played }) => play(state, seat, *card, played),
        (Command::EndTurn, Step::Play { .. }) => Ok(vec![Event::TurnEnded { seat }]),
        (Command::Bank, Step::Start) => bank(state, seat),
        (Command::Bank, Step::Play { .. }) => Err(RuleError::illegal(
            "Banking counts as your whole turn: bank at the start of a turn, instead of drawing.",
        )),
    }
}

/// A turn that begins once the draw pile is empty (revision 2): "the game continues using only
/// the cards remaining in players hands", so there is no draw step. The player plays up to 3
/// cards (or none) and ends the turn, or banks.
fn decide_without_draw(
    state: &State,
    seat: Seat,
    command: &Command,
) -> Result<Vec<Event>, RuleError> {
    match command {
        Command::Draw { .. } | Command::PickUp => Err(RuleError::illegal(
            "The draw pile is empty, so nobody draws again, from either pile: play up to 3 \
             cards from your hand, bank, or end your turn.",
        )),
        Command::Play { card } => play(state, seat, *card, 0),
        Command::EndTurn => Ok(vec![Event::TurnEnded { seat }]),
        Command::Bank => bank(state, seat),
    }
}

/// Playing a card: up to 3 a turn, each allowed by the state of the player's run.
fn play(state: &State, seat: Seat, card: Card, played: u8) -> Result<Vec<Event>, RuleError> {
    if played >= PLAYS_PER_TURN {
        return Err(RuleError::illegal(format!(
            "You have played {PLAYS_PER_TURN} cards this turn, the most allowed: end your turn."
        )));
    }
    if let Some(why) = state.play_refusal(seat, card) {
        return Err(RuleError::illegal(why));
    }
    Ok(vec![Event::Played { seat, card }])
}

/// Banking: the whole turn, for an unbanked run with at least one run card.
fn bank(state: &State, seat: Seat) -> Result<Vec<Event>, RuleError> {
    match state.run(seat) {
        None => Err(RuleError::illegal(
            "You have no unbanked ski run to bank: start one with a lift card.",
        )),
        Some(run) if run.run_cards() == 0 => Err(RuleError::illegal(
            "Your ski run has no run card yet: only a run with at least one run card can be \
             banked.",
        )),
        Some(run) => Ok(vec![Event::Banked {
            seat,
            run: run.clone(),
        }]),
    }
}
