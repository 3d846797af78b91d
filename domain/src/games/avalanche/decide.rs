//! Deciding a player's command, and what follows a turn: refilling, going out, the end.

use super::cards::{spell, Rank};
use super::command::Command;
use super::deal::HAND_SIZE;
use super::event::{Event, SecretCards};
use super::evolve::evolve;
use super::play::{classify, Play};
use super::state::{Phase, State};
use crate::engine::{RuleError, Seat};

/// Events being decided, folded as they are added so that each rule sees the state it
/// follows.
struct Decision {
    state: State,
    events: Vec<Event>,
}

impl Decision {
    fn new(state: &State) -> Decision {
        Decision {
            state: state.clone(),
            events: Vec::new(),
        }
    }

    fn push(&mut self, event: Event) {
        evolve(&mut self.state, &event);
        self.events.push(event);
    }
}

/// Decides a command of `seat`: Snow Fall, or a play and what follows it.
pub fn decide(state: &State, seat: Seat, command: &Command) -> Result<Vec<Event>, RuleError> {
    match state.phase {
        Phase::Over => return Err(RuleError::game_over()),
        Phase::Dealing => {
            return Err(RuleError::illegal(
                "The cards have not been dealt yet: the game starts when every seat is taken.",
            ))
        }
        Phase::Playing => {}
    }
    if seat >= state.seats {
        return Err(RuleError::bad_command(format!(
            "This game has seats 0 to {}; there is no seat {seat}.",
            state.seats.saturating_sub(1)
        )));
    }
    if state.seat_to_act() != Some(seat) {
        return Err(RuleError::not_your_turn());
    }
    let mut decision = Decision::new(state);
    match command {
        Command::SnowFall => {
            check_snow_fall(state)?;
            let card = state.draw_pile.first().copied();
            decision.push(Event::SnowFell { seat, card });
        }
        Command::Play { cards } => {
            let (rank, play) = check_play(state, seat, cards)?;
            let previous = state.to_beat().map(|set| set.seat);
            decision.push(Event::Played {
                seat,
                cards: vec![rank; cards.len()],
                play,
            });
            match (play, previous) {
                (Play::Stop, _) => decision.push(Event::AvalancheStopped {
                    cards: decision.state.table_cards(),
                }),
                (Play::Fall, Some(to)) => decision.push(Event::AvalancheFell {
                    to,
                    cards: decision.state.table_cards(),
                }),
                _ => {}
            }
            end_of_turn(&mut decision, seat);
        }
    }
    decision.end_if_one_holds_cards();
    Ok(decision.events)
}

/// Snow Fall: only with no running avalanche and a draw pile to draw from.
pub fn check_snow_fall(state: &State) -> Result<(), RuleError> {
    if !state.table.is_empty() {
        return Err(RuleError::illegal(
            "An avalanche is running: no drawing, you must play a card or a set to it.",
        ));
    }
    if state.draw_pile.is_empty() {
        return Err(RuleError::illegal(
            "The draw pile is empty, so Snow Fall is impossible: start an avalanche.",
        ));
    }
    Ok(())
}

/// A play: at least one card, all of one rank, all in the player's hand. Returns the rank and
/// what the set does to the avalanche.
pub fn check_play(state: &State, seat: Seat, cards: &[Rank]) -> Result<(Rank, Play), RuleError> {
    let Some(&rank) = cards.first() else {
        return Err(RuleError::illegal(
            "You must play at least one card (or Snow Fall when no avalanche is running).",
        ));
    };
    if let Some(&other) = cards.iter().find(|&&card| card != rank) {
        return Err(RuleError::illegal(format!(
            "A set is cards of one rank: you cannot play {rank} and {other} together."
        )));
    }
    let hand = state.hand(seat);
    let held = hand.count(rank);
    if held < cards.len() {
        return Err(RuleError::illegal(format!(
            "You cannot play {}: you hold {held} of the {} in your hand.",
            spell(cards),
            rank.plural()
        )));
    }
    Ok((rank, classify(state.to_beat(), rank, cards.len())))
}

/// A player whose hand is empty at the end of their turn refills to ten cards (or the rest of
/// the draw pile); with nothing to draw they are out.
fn end_of_turn(decision: &mut Decision, seat: Seat) {
    if !decision.state.hand(seat).is_empty() {
        return;
    }
    let pile = &decision.state.draw_pile;
    if pile.is_empty() {
        decision.push(Event::WentOut { seat });
    } else {
        let cards = pile.iter().take(HAND_SIZE).copied().collect();
        decision.push(Event::Refilled {
            seat,
            cards: SecretCards::shown(cards),
        });
    }
}

impl Decision {
    /// When only one player still holds cards the game ends: their hand and the table go to
    /// the neutral pile. Under revision 2, while an avalanche runs that the last player has
    /// not answered (its last set is another's), they must answer it once first: the game
    /// ends after their play.
    fn end_if_one_holds_cards(&mut self) {
        if self.state.phase != Phase::Playing {
            return;
        }
        let holders = self.state.holders();
        if holders.len() > 1 {
            return;
        }
        let last = holders.first().copied();
        if self.state.rules.last_holder_answers_the_avalanche() {
            if let (Some(seat), Some(set)) = (last, self.state.to_beat()) {
                if set.seat != seat {
                    return;
                }
            }
        }
        let hand = last.map(|seat| self.state.hand(seat)).unwrap_or_default();
        self.push(Event::GameEnded {
            last,
            hand: SecretCards::shown(hand.to_vec()),
            table: self.state.table_cards(),
        });
    }
}

/// A seat leaves a game that goes on: its hand goes face down to the neutral pile (as the
/// last player's hand does at the end), turns skip it, it keeps its collected cards but
/// cannot win. If that leaves one player holding cards, the game ends.
pub fn retire(state: &State, seat: Seat) -> Vec<Event> {
    if state.phase == Phase::Over || state.retired.get(seat).copied().unwrap_or(true) {
        return Vec::new();
    }
    let mut decision = Decision::new(state);
    decision.push(Event::Retired {
        seat,
        hand: SecretCards::shown(state.hand(seat).to_vec()),
    });
    decision.end_if_one_holds_cards();
    decision.events
}
