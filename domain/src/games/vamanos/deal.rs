//! The deals of Vamanos, and the reshuffles of the piles: each round every seat still playing
//! gets its own 36-card deck, shuffled for it alone from the game's seed; a takeback's fork
//! shuffles every pile again.

use super::cards::{deck, Card};
use super::event::{Event, Pile};
use super::state::State;
use crate::engine::{Context, Seat};

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
