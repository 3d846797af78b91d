//! Every legal command of a seat, with its notation.

use super::cards::{Card, Face};
use super::command::Command;
use super::decide::{replace_check, rescue_check};
use super::mountain::{Mountain, Position};
use super::state::{Phase, State};
use crate::engine::{Legal, Seat};

pub fn legal(state: &State, seat: Seat) -> Vec<Legal<Command>> {
    if !state.is_active(seat) {
        return Vec::new();
    }
    match state.phase {
        Phase::Choosing if state.choosing.get(seat).copied().unwrap_or(false) => {
            returns(state.hand(seat))
        }
        Phase::Playing if state.turn == seat => match state.drawn {
            None => vec![Legal::new(Command::Draw, "draw")],
            Some(drawn) => actions(state, seat, drawn),
        },
        Phase::LayingHands if state.turn == seat => {
            let mut legal = Vec::new();
            if let Some(mountain) = state.mountains.get(seat) {
                let open = mountain.open_places();
                for &card in state.hand(seat) {
                    for at in mountain.places_among(&open, card.face, true) {
                        legal.push(Legal::new(
                            Command::Lay { card: card.id, at },
                            format!("lay {card} {}", mountain.describe(at)),
                        ));
                    }
                }
            }
            legal.push(Legal::new(Command::Pass, "pass"));
            legal
        }
        _ => Vec::new(),
    }
}

fn returns(hand: &[Card]) -> Vec<Legal<Command>> {
    let mut legal = Vec::new();
    for (i, first) in hand.iter().enumerate() {
        for second in hand.iter().skip(i + 1) {
            legal.push(Legal::new(
                Command::ReturnCards {
                    cards: vec![first.id, second.id],
                },
                format!("return {first} and {second}"),
            ));
        }
    }
    legal
}

fn actions(state: &State, seat: Seat, drawn: Card) -> Vec<Legal<Command>> {
    let mut legal = Vec::new();
    let Some(own) = state.mountains.get(seat) else {
        return legal;
    };
    let open = own.open_places();
    for at in own.places_among(&open, drawn.face, true) {
        legal.push(Legal::new(
            Command::Lay { card: drawn.id, at },
            format!("lay {drawn} {}", own.describe(at)),
        ));
    }
    let hand: &[Card] = if state.may_keep_drawn() {
        state.hand(seat)
    } else {
        &[]
    };
    for &card in hand {
        for at in own.places_among(&open, card.face, true) {
            legal.push(Legal::new(
                Command::Lay { card: card.id, at },
                format!(
                    "keep the drawn {drawn} and lay {card} from the hand {}",
                    own.describe(at)
                ),
            ));
        }
    }
    legal.push(Legal::new(Command::Discard, format!("discard {drawn}")));
    for opponent in (0..state.seats).filter(|&o| o != seat && state.is_active(o)) {
        let Some(mountain) = state.mountains.get(opponent) else {
            continue;
        };
        if !mountain.is_started() {
            continue;
        }
        for at in mountain.places_for(drawn.face, false) {
            let verb = if drawn.face == Face::Avalanche {
                ""
            } else {
                "lay "
            };
            legal.push(Legal::new(
                Command::LayOnOpponent { opponent, at },
                format!(
                    "{verb}{drawn} on seat {opponent}'s mountain at {at}{}",
                    between(mountain, at)
                ),
            ));
        }
    }
    for (&at, &old) in &own.cards {
        if replace_check(own, drawn.face, at).is_ok() {
            legal.push(Legal::new(
                Command::Replace { at },
                format!("replace {old} at {at} with {drawn}"),
            ));
        }
    }
    let saint_bernards: Vec<(Card, &str)> = std::iter::once((drawn, "the drawn"))
        .chain(hand.iter().map(|&c| (c, "a kept")))
        .filter(|(c, _)| c.face == Face::SaintBernard)
        .collect();
    for &at in own.cards.keys() {
        if rescue_check(own, at).is_err() {
            continue;
        }
        for &(saint_bernard, origin) in &saint_bernards {
            let keeping = if saint_bernard.id == drawn.id {
                String::new()
            } else {
                format!(", keeping the drawn {drawn}")
            };
            legal.push(Legal::new(
                Command::SaintBernard {
                    card: saint_bernard.id,
                    at,
                },
                format!("{origin} Saint-Bernard removes the avalanche at {at}{keeping}"),
            ));
        }
    }
    legal
}

fn between(mountain: &Mountain, at: Position) -> String {
    match at.supports() {
        Some((l, r)) => match (mountain.get(l), mountain.get(r)) {
            (Some(l), Some(r)) => format!(", between {l} and {r}"),
            _ => String::new(),
        },
        None => String::new(),
    }
}
