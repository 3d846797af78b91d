//! The start of a game: the dealer draw and the deal, both from the game's seeded shuffles.

use super::cards::{deck, Rank};
use super::event::{DrawnCard, Event, SecretCards};
use crate::engine::{Context, Seat};

/// Cards dealt to each player.
pub const HAND_SIZE: usize = 10;

/// The dealer draw from a shuffled deck (see [`Event::DealerDrawn`]): each seat in order
/// takes the next card; the seats tied on the lowest card draw again, until one is lowest.
pub fn dealer_draw(shuffled: &[Rank], seats: usize) -> (Vec<Vec<DrawnCard>>, Seat) {
    let mut cards = shuffled.iter().copied();
    let mut drawing: Vec<Seat> = (0..seats).collect();
    let mut rounds = Vec::new();
    loop {
        let mut round = Vec::with_capacity(drawing.len());
        for &seat in &drawing {
            match cards.next() {
                Some(card) => round.push(DrawnCard { seat, card }),
                // The shuffle ran out: the first of the tied seats deals.
                None => {
                    if !round.is_empty() {
                        rounds.push(round);
                    }
                    return (rounds, drawing.first().copied().unwrap_or(0));
                }
            }
        }
        let lowest = round.iter().map(|drawn| drawn.card).min();
        let tied: Vec<Seat> = round
            .iter()
            .filter(|drawn| Some(drawn.card) == lowest)
            .map(|drawn| drawn.seat)
            .collect();
        rounds.push(round);
        match tied.as_slice() {
            [] => return (rounds, 0),
            [dealer] => return (rounds, *dealer),
            _ => drawing = tied,
        }
    }
}

/// The deal from a shuffled deck: ten cards to each seat, one at a time starting with the
/// dealer's left; the rest, in order, is the draw pile (its top card first).
pub fn deal(shuffled: &[Rank], seats: usize, dealer: Seat) -> (Vec<Vec<Rank>>, Vec<Rank>) {
    let mut hands = vec![Vec::with_capacity(HAND_SIZE); seats];
    let mut cards = shuffled.iter().copied();
    for _ in 0..HAND_SIZE {
        for step in 1..=seats {
            let seat = (dealer + step) % seats;
            if let (Some(hand), Some(card)) = (hands.get_mut(seat), cards.next()) {
                hand.push(card);
            }
        }
    }
    (hands, cards.collect())
}

/// The events that begin a game: the dealer draw (shuffle salt 0), then the deal from the
/// deck shuffled again (salt 1), since the drawn cards go back into the deck.
pub fn start(seats: usize, ctx: &Context) -> Vec<Event> {
    if seats == 0 {
        return Vec::new();
    }
    let mut for_draw = deck();
    ctx.dealer(0).shuffle(&mut for_draw);
    let (rounds, dealer) = dealer_draw(&for_draw, seats);
    let mut for_deal = deck();
    ctx.dealer(1).shuffle(&mut for_deal);
    let (hands, draw_pile) = deal(&for_deal, seats, dealer);
    vec![
        Event::DealerDrawn { rounds, dealer },
        Event::Dealt {
            hands: hands.into_iter().map(SecretCards::shown).collect(),
            draw_pile: SecretCards::shown(draw_pile),
            first: (dealer + 1) % seats,
        },
    ]
}
