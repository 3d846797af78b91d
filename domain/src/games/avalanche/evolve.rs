//! Applying an event to the state. Events were decided by the rules, so nothing here checks
//! them again; nothing here may panic either, whatever a stream holds.

use super::cards::Cards;
use super::event::Event;
use super::state::{Phase, Set, State};

pub fn evolve(state: &mut State, event: &Event) {
    match event {
        Event::DealerDrawn { rounds, dealer } => {
            state.dealer_draw = rounds
                .iter()
                .map(|round| round.iter().map(|d| (d.seat, d.card)).collect())
                .collect();
            state.dealer = Some(*dealer);
        }
        Event::Dealt {
            hands,
            draw_pile,
            first,
        } => {
            for (hand, dealt) in state.hands.iter_mut().zip(hands) {
                *hand = Cards::of(dealt.known());
            }
            state.draw_pile = draw_pile.known().to_vec();
            state.turn = *first;
            state.phase = Phase::Playing;
        }
        Event::SnowFell { seat, .. } => {
            // The draw pile recorded at the deal says which card comes next.
            let drawn = draw(state, 1);
            if let Some(hand) = state.hands.get_mut(*seat) {
                hand.add_all(&drawn);
            }
            pass_turn(state, *seat);
        }
        Event::Played { seat, cards, .. } => {
            if let Some(hand) = state.hands.get_mut(*seat) {
                hand.remove_all(cards);
            }
            if let Some(&rank) = cards.first() {
                state.table.push(Set {
                    seat: *seat,
                    rank,
                    size: cards.len(),
                });
            }
            pass_turn(state, *seat);
        }
        Event::AvalancheStopped { .. } => {
            let cards = state.table_cards();
            state.neutral.add_all(&cards);
            state.table.clear();
        }
        Event::AvalancheFell { to, .. } => {
            let cards = state.table_cards();
            if let Some(pile) = state.collected.get_mut(*to) {
                pile.add_all(&cards);
            } else {
                state.neutral.add_all(&cards);
            }
            state.table.clear();
        }
        Event::Refilled { seat, cards } => {
            let drawn = draw(state, cards.count);
            if let Some(hand) = state.hands.get_mut(*seat) {
                hand.add_all(&drawn);
            }
        }
        Event::WentOut { .. } => {}
        Event::Retired { seat, .. } => {
            if let Some(flag) = state.retired.get_mut(*seat) {
                *flag = true;
            }
            if let Some(hand) = state.hands.get_mut(*seat) {
                state.neutral.add_cards(hand);
                *hand = Cards::new();
            }
            if state.turn == *seat {
                pass_turn(state, *seat);
            }
        }
        Event::Reshuffled { draw_pile } => {
            state.draw_pile = draw_pile.known().to_vec();
        }
        Event::GameEnded { last, .. } => {
            if let Some(hand) = last.and_then(|seat| state.hands.get_mut(seat)) {
                state.neutral.add_cards(hand);
                *hand = Cards::new();
            }
            let cards = state.table_cards();
            state.neutral.add_all(&cards);
            state.table.clear();
            state.phase = Phase::Over;
        }
    }
}

/// Takes up to `count` cards from the top of the draw pile.
fn draw(state: &mut State, count: usize) -> Vec<super::cards::Rank> {
    let count = count.min(state.draw_pile.len());
    state.draw_pile.drain(..count).collect()
}

/// The turn goes to the left, skipping the players who are out. When nobody else holds
/// cards the game is about to end, and the turn stays.
fn pass_turn(state: &mut State, from: usize) {
    if let Some(next) = state.next_holder(from) {
        state.turn = next;
    }
}
