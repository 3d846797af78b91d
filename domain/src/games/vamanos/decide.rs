//! Deciding commands: the deal, drawing and placing, "Alta", scoring, leaving and reshuffling.

use super::cards::{deck, Card};
use super::command::Command;
use super::event::{Event, Pile};
use super::score::{SeatScore, STACK_SIZE};
use super::state::{row_index, State, ROWS};
use crate::engine::{Context, RuleError, Seat};

/// The deal of a round: each seat still playing gets its own deck, shuffled for it alone
/// (salt = seat number, so each deck has its own shuffle).
pub fn deal(state: &State, round: u32, ctx: &Context) -> Event {
    Event::RoundDealt {
        round,
        piles: state
            .playing()
            .into_iter()
            .map(|seat| {
                let mut cards = deck();
                ctx.dealer(salt(seat)).shuffle(&mut cards);
                pile(seat, cards)
            })
            .collect(),
    }
}

/// The shuffle of a seat's deck: seats are 0 to 5, so the seat number itself.
fn salt(seat: Seat) -> u8 {
    u8::try_from(seat).unwrap_or(u8::MAX)
}

fn pile(seat: Seat, cards: Vec<Card>) -> Pile {
    Pile {
        seat,
        size: cards.len() as u32,
        cards: Some(cards),
    }
}

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

/// After a takeback fork: every pile still in play shuffled again, each with its own salt.
pub fn reshuffle(state: &State, ctx: &Context) -> Vec<Event> {
    if !state.round_running() {
        return Vec::new();
    }
    let piles = state
        .playing()
        .into_iter()
        .filter_map(|seat| {
            let mut cards = state.players.get(seat)?.pile.clone();
            ctx.dealer(salt(seat)).shuffle(&mut cards);
            Some(pile(seat, cards))
        })
        .collect();
    vec![Event::PilesReshuffled {
        round: state.round,
        piles,
    }]
}
