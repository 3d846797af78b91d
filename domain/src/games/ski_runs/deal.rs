//! The deal and the reshuffle of a takeback fork: the only places Ski Runs shuffles.
//!
//! **Ruling (the face-up lift pile):** lift cards are all alike, so the lift pile is a public
//! count: its order carries nothing to hide or to see, and shuffling it changes nothing. The
//! draw pile is face down: its order is secret to everyone until the game ends.

use super::cards::{Card, Cards};
use super::event::Event;
use super::state::{State, HAND_DRAW_CARDS};
use crate::engine::Context;

/// The deal: everything but the lifts shuffled into the draw pile, then each player takes
/// 1 lift card and the top 4 cards of the draw pile.
pub fn deal(state: &State, ctx: &Context) -> Vec<Event> {
    let mut draw_pile = state.deck.draw_pile_cards();
    ctx.dealer(0).shuffle(&mut draw_pile);
    let mut lift_pile = state.deck.lift as usize;
    let mut hands = Vec::with_capacity(state.seats);
    for _ in 0..state.seats {
        let mut hand = Vec::with_capacity(HAND_DRAW_CARDS + 1);
        if lift_pile > 0 {
            lift_pile -= 1;
            hand.push(Card::Lift);
        }
        let keep = draw_pile.len().saturating_sub(HAND_DRAW_CARDS);
        hand.extend(draw_pile.split_off(keep).into_iter().rev());
        hands.push(Cards::shown(hand));
    }
    vec![Event::Dealt {
        hands,
        draw_pile: Cards::shown(draw_pile),
        lift_pile,
    }]
}

/// A new secret order for the draw pile.
pub fn reshuffle(state: &State, ctx: &Context) -> Vec<Event> {
    if !state.running() || state.draw_pile.len() < 2 {
        return Vec::new();
    }
    let mut draw_pile = state.draw_pile.clone();
    ctx.dealer(0).shuffle(&mut draw_pile);
    vec![Event::DrawPileReshuffled {
        draw_pile: Cards::shown(draw_pile),
    }]
}

/// The top `n` cards of the draw pile (fewer if it holds fewer), top card first.
pub fn top_of_draw_pile(state: &State, n: usize) -> Vec<Card> {
    let keep = state.draw_pile.len().saturating_sub(n);
    state.draw_pile[keep..].iter().rev().copied().collect()
}
