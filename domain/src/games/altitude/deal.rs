//! The deal of Altitude, and the reshuffles of the deck: the deck shuffled from the game's
//! seed, 6 cards dealt to each seat, and the deck shuffled again when the deal's returned
//! cards are in and after a takeback's fork.

use super::cards::{Card, DEALT};
use super::event::Event;
use super::state::{Phase, State};
use crate::engine::Context;

/// Shuffles the whole deck, then deals 6 cards from its top to each seat.
pub fn start(state: &State, ctx: &Context) -> Vec<Event> {
    if state.phase != Phase::NotStarted {
        return Vec::new();
    }
    let mut deck = state.options.deck();
    ctx.dealer(0).shuffle(&mut deck);
    let mut events = vec![Event::DeckShuffled {
        count: deck.len(),
        cards: deck.clone(),
    }];
    for seat in 0..state.seats {
        let at = deck.len().saturating_sub(DEALT);
        let cards = deck.split_off(at);
        events.push(Event::Dealt {
            seat,
            count: cards.len(),
            cards,
        });
    }
    events
}

/// The deck shuffled again (with the cards it holds), for a fork after a takeback.
pub fn reshuffle(state: &State, ctx: &Context) -> Vec<Event> {
    if state.deck.is_empty() || matches!(state.phase, Phase::NotStarted | Phase::Over) {
        return Vec::new();
    }
    vec![shuffled(state.deck.clone(), ctx)]
}

/// The deck of `cards`, shuffled from the context's seed.
pub fn shuffled(mut cards: Vec<Card>, ctx: &Context) -> Event {
    ctx.dealer(0).shuffle(&mut cards);
    Event::DeckShuffled {
        count: cards.len(),
        cards,
    }
}
