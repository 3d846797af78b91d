//! The decisions of Altitude: every command checked against the rules, retiring, and the end
//! of the game. The deal and the reshuffles are in `deal.rs`.

use super::cards::{Card, Face};
use super::command::Command;
use super::deal::shuffled;
use super::event::Event;
use super::mountain::{Mountain, Position};
use super::state::{Phase, State};
use crate::engine::{Context, RuleError, Seat};

/// A retiring seat keeps its mountain and its hand (out of play, still secret); the card it
/// had drawn, if any, is discarded; a choice of cards it still owed is dropped.
pub fn retire(state: &State, seat: Seat) -> Vec<Event> {
    if !state.is_active(seat) || matches!(state.phase, Phase::NotStarted | Phase::Over) {
        return Vec::new();
    }
    let discarded = if state.phase == Phase::Playing && state.turn == seat {
        state.drawn
    } else {
        None
    };
    with_end(state, vec![Event::Retired { seat, discarded }])
}

/// From revision 3, the events of a command (or of a seat leaving) are followed by the end of
/// the game when they complete a round of passes once the deck is empty.
pub fn with_end(state: &State, mut events: Vec<Event>) -> Vec<Event> {
    if !state.rules.end_is_decided() {
        return events;
    }
    let mut after = state.clone();
    for event in &events {
        after.evolve(event);
    }
    if after.all_passed() {
        events.push(Event::GameEnded);
    }
    events
}

pub fn decide(
    state: &State,
    seat: Seat,
    command: &Command,
    ctx: &Context,
) -> Result<Vec<Event>, RuleError> {
    decide_command(state, seat, command, ctx).map(|events| with_end(state, events))
}

fn decide_command(
    state: &State,
    seat: Seat,
    command: &Command,
    ctx: &Context,
) -> Result<Vec<Event>, RuleError> {
    match state.phase {
        Phase::Over => return Err(RuleError::game_over()),
        Phase::NotStarted => return Err(RuleError::illegal("The cards have not been dealt yet.")),
        _ => {}
    }
    if !state.is_active(seat) {
        return Err(RuleError::not_your_turn());
    }
    match state.phase {
        Phase::Choosing => choose(state, seat, command, ctx),
        Phase::Playing => play(state, seat, command, ctx),
        _ => lay_hand(state, seat, command),
    }
}

fn choose(
    state: &State,
    seat: Seat,
    command: &Command,
    ctx: &Context,
) -> Result<Vec<Event>, RuleError> {
    if !state.choosing.get(seat).copied().unwrap_or(false) {
        return Err(RuleError::new(
            crate::engine::ErrorCode::NotYourTurn,
            "You have returned your cards: wait for the other players to choose.",
        ));
    }
    let Command::ReturnCards { cards } = command else {
        return Err(RuleError::illegal(
            "First choose the 2 cards of your deal to return to the deck.",
        ));
    };
    let [first, second] = cards.as_slice() else {
        return Err(RuleError::illegal(format!(
            "Return exactly 2 cards of the 6 dealt, not {}.",
            cards.len()
        )));
    };
    if first == second {
        return Err(RuleError::illegal("Return 2 different cards."));
    }
    let returned = [first, second]
        .into_iter()
        .map(|&id| in_hand(state, seat, id))
        .collect::<Result<Vec<Card>, RuleError>>()?;
    let mut events = vec![Event::CardsReturned {
        seat,
        count: returned.len(),
        cards: returned.clone(),
    }];
    let others_done = (0..state.seats).all(|s| s == seat || !state.choosing[s]);
    if others_done {
        let mut deck = state.deck.clone();
        deck.extend(returned);
        events.push(shuffled(deck, ctx));
    }
    Ok(events)
}

fn in_hand(state: &State, seat: Seat, id: u16) -> Result<Card, RuleError> {
    state
        .hand(seat)
        .iter()
        .find(|c| c.id == id)
        .copied()
        .ok_or_else(|| RuleError::illegal(format!("You hold no card with id {id}.")))
}

fn own_mountain(state: &State, seat: Seat) -> Result<&Mountain, RuleError> {
    state
        .mountains
        .get(seat)
        .ok_or_else(RuleError::not_your_turn)
}

fn play(
    state: &State,
    seat: Seat,
    command: &Command,
    ctx: &Context,
) -> Result<Vec<Event>, RuleError> {
    if seat != state.turn {
        return Err(RuleError::not_your_turn());
    }
    let Some(drawn) = state.drawn else {
        return match command {
            Command::Draw => Ok(draw(state, seat, ctx)),
            _ => Err(RuleError::illegal(
                "Draw the top card of the deck first: every turn begins with a draw.",
            )),
        };
    };
    let mountain = own_mountain(state, seat)?;
    match command {
        Command::Draw => Err(RuleError::illegal(
            "You have drawn already: now use the drawn card.",
        )),
        Command::ReturnCards { .. } => {
            Err(RuleError::illegal("Cards are returned only at the deal."))
        }
        Command::Pass => Err(RuleError::illegal(
            "You may pass only once the deck is empty: discard the drawn card instead.",
        )),
        Command::Discard => Ok(vec![Event::Discarded { seat, card: drawn }]),
        Command::Lay { card, at } => {
            let (card, from_hand) = if *card == drawn.id {
                (drawn, false)
            } else {
                let card = in_hand(state, seat, *card)?;
                keep_drawn(state, drawn)?;
                (card, true)
            };
            mountain
                .may_lay(card.face, *at, true)
                .map_err(RuleError::illegal)?;
            Ok(vec![Event::Laid {
                seat,
                card,
                at: *at,
                from_hand,
            }])
        }
        Command::LayOnOpponent { opponent, at } => {
            lay_on_opponent(state, seat, drawn, *opponent, *at)
        }
        Command::Replace { at } => {
            replace_check(mountain, drawn.face, *at).map_err(RuleError::illegal)?;
            let removed = mountain
                .get(*at)
                .ok_or_else(|| RuleError::illegal(format!("There is no card at {at}.")))?;
            Ok(vec![Event::Replaced {
                seat,
                card: drawn,
                at: *at,
                removed,
            }])
        }
        Command::SaintBernard { card, at } => {
            let (saint_bernard, from_hand) = if *card == drawn.id {
                (drawn, false)
            } else {
                let card = in_hand(state, seat, *card)?;
                keep_drawn(state, drawn)?;
                (card, true)
            };
            if saint_bernard.face != Face::SaintBernard {
                return Err(RuleError::illegal(format!(
                    "Only a Saint-Bernard removes an avalanche, not {saint_bernard}."
                )));
            }
            let avalanche = rescue_check(mountain, *at).map_err(RuleError::illegal)?;
            Ok(vec![Event::AvalancheRemoved {
                seat,
                at: *at,
                avalanche,
                saint_bernard,
                from_hand,
            }])
        }
    }
}

/// Refuses to put a drawn avalanche into the hand (revision 2): it could never be laid from
/// there.
fn keep_drawn(state: &State, drawn: Card) -> Result<(), RuleError> {
    if state.may_keep_drawn() {
        return Ok(());
    }
    Err(RuleError::illegal(format!(
        "An avalanche never goes into a hand: lay the drawn {drawn} in an opponent's mountain \
         or discard it."
    )))
}

fn draw(state: &State, seat: Seat, ctx: &Context) -> Vec<Event> {
    let mut events = Vec::new();
    let mut top = state.deck.last().copied();
    if state.shuffle_owed {
        let event = shuffled(state.deck.clone(), ctx);
        if let Event::DeckShuffled { cards, .. } = &event {
            top = cards.last().copied();
        }
        events.push(event);
    }
    events.push(Event::Drew { seat, card: top });
    events
}

fn lay_on_opponent(
    state: &State,
    seat: Seat,
    drawn: Card,
    opponent: Seat,
    at: Position,
) -> Result<Vec<Event>, RuleError> {
    if opponent == seat {
        return Err(RuleError::illegal(
            "That is your own mountain: use \"lay\" to build it.",
        ));
    }
    if !state.is_active(opponent) {
        return Err(RuleError::illegal(format!(
            "There is no opponent at seat {opponent} still playing."
        )));
    }
    let mountain = state
        .mountains
        .get(opponent)
        .ok_or_else(|| RuleError::illegal("There is no such opponent."))?;
    if !mountain.is_started() {
        return Err(RuleError::illegal(format!(
            "Seat {opponent} has not started a mountain yet: nothing may be laid in it."
        )));
    }
    mountain
        .may_lay(drawn.face, at, false)
        .map_err(RuleError::illegal)?;
    Ok(vec![Event::LaidOnOpponent {
        seat,
        opponent,
        card: drawn,
        at,
    }])
}

/// Whether the drawn `face` may replace the card at `at` of the own mountain.
///
/// An avalanche is never replaced: the rules give only the Saint-Bernard to remove it.
pub fn replace_check(mountain: &Mountain, face: Face, at: Position) -> Result<(), String> {
    let Some(old) = mountain.get(at) else {
        return Err(format!("There is no card at {at} to replace."));
    };
    if mountain.is_covered(at) {
        return Err(format!(
            "The {old} at {at} is covered: it can never be replaced."
        ));
    }
    match old.face {
        Face::Avalanche => {
            return Err("An avalanche is not replaced: a Saint-Bernard removes it.".into())
        }
        _ if matches!(face, Face::Avalanche | Face::SaintBernard) => {
            return Err(format!("{face} cannot be laid in your own mountain."))
        }
        _ => {}
    }
    mountain.may_lay_above(face, at)
}

/// The avalanche a Saint-Bernard may remove at `at` of the own mountain.
pub fn rescue_check(mountain: &Mountain, at: Position) -> Result<Card, String> {
    match mountain.get(at) {
        Some(card) if card.face == Face::Avalanche => {
            if mountain.is_covered(at) {
                Err(format!(
                    "The avalanche at {at} is covered: it can never be removed."
                ))
            } else {
                Ok(card)
            }
        }
        _ => Err(format!("There is no avalanche at {at} in your mountain.")),
    }
}

fn lay_hand(state: &State, seat: Seat, command: &Command) -> Result<Vec<Event>, RuleError> {
    if seat != state.turn {
        return Err(RuleError::not_your_turn());
    }
    match command {
        Command::Pass => Ok(vec![Event::Passed { seat }]),
        Command::Lay { card, at } => {
            let card = in_hand(state, seat, *card)?;
            own_mountain(state, seat)?
                .may_lay(card.face, *at, true)
                .map_err(RuleError::illegal)?;
            Ok(vec![Event::Laid {
                seat,
                card,
                at: *at,
                from_hand: true,
            }])
        }
        _ => Err(RuleError::illegal(
            "The deck is empty: lay a card of your hand in your mountain, or pass.",
        )),
    }
}
