//! Applying an event of Altitude to the state (the fold): turns, two turns a round at 5
//! floors, the laying of the hands and the end. From revision 3 the end is an event decided
//! with the pass that causes it (see [`super::decide::with_end`]); under earlier revisions the
//! fold finds it here, as it always did, so stored games fold as they were played.

use super::cards::Card;
use super::event::Event;
use super::state::{Phase, State, TWO_TURNS_HEIGHT};
use crate::engine::Seat;

impl State {
    fn first_active(&self) -> Seat {
        (0..self.seats).find(|&s| self.is_active(s)).unwrap_or(0)
    }

    fn turns_of(&self, seat: Seat) -> u8 {
        if self.two_turns.get(seat).copied().unwrap_or(false) {
            2
        } else {
            1
        }
    }

    fn give_turn(&mut self, seat: Seat) {
        self.turn = seat;
        self.turns_left = self.turns_of(seat);
    }

    fn take_from_hand(&mut self, seat: Seat, card: Card) {
        if let Some(hand) = self.hands.get_mut(seat) {
            hand.retain(|c| c.id != card.id);
        }
    }

    /// The drawn card goes into the hand of the seat to move.
    fn keep_drawn(&mut self, seat: Seat) {
        if let (Some(card), Some(hand)) = (self.drawn.take(), self.hands.get_mut(seat)) {
            hand.push(card);
        }
    }

    fn note_height(&mut self, seat: Seat) {
        if let (Some(mountain), Some(flag)) =
            (self.mountains.get(seat), self.two_turns.get_mut(seat))
        {
            if mountain.height() >= TWO_TURNS_HEIGHT {
                *flag = true;
            }
        }
    }

    /// The turn of the seat to move is over: its second turn of the round, the next seat, or
    /// the laying of the hands once the deck is empty.
    fn end_turn(&mut self) {
        self.drawn = None;
        if self.deck.is_empty() && !self.shuffle_owed {
            self.phase = Phase::LayingHands;
            self.passed = vec![false; self.seats];
            self.give_turn(self.next_active(self.turn));
            self.turns_left = 1;
            return;
        }
        self.turns_left = self.turns_left.saturating_sub(1);
        if self.turns_left == 0 {
            self.give_turn(self.next_active(self.turn));
        }
    }

    /// A turn of the end: the next seat, or the end when every seat still playing passed
    /// (found here before revision 3; from it, decided as [`Event::GameEnded`]).
    fn end_laying_turn(&mut self) {
        if self.all_passed() {
            if !self.rules.end_is_decided() {
                self.phase = Phase::Over;
            }
            return;
        }
        self.turn = self.next_active(self.turn);
        self.turns_left = 1;
    }

    fn begin_play(&mut self) {
        self.phase = Phase::Playing;
        let first = self.first_active();
        self.give_turn(first);
    }

    pub fn evolve(&mut self, event: &Event) {
        match event {
            Event::Dealt { seat, cards, .. } => {
                self.phase = Phase::Choosing;
                self.deck.retain(|c| !cards.contains(c));
                if let Some(hand) = self.hands.get_mut(*seat) {
                    hand.extend(cards.iter().copied());
                }
                if let Some(flag) = self.choosing.get_mut(*seat) {
                    *flag = true;
                }
            }
            Event::DeckShuffled { cards, .. } => {
                self.deck = cards.clone();
                self.shuffle_owed = false;
            }
            Event::CardsReturned { seat, cards, .. } => {
                for card in cards {
                    self.take_from_hand(*seat, *card);
                    self.deck.push(*card);
                }
                if let Some(flag) = self.choosing.get_mut(*seat) {
                    *flag = false;
                }
                if !self.choosing.iter().any(|&c| c) {
                    self.begin_play();
                }
            }
            Event::Drew { card, .. } => {
                if let Some(card) = card {
                    self.deck.retain(|c| c.id != card.id);
                    self.drawn = Some(*card);
                }
            }
            Event::Laid {
                seat,
                card,
                at,
                from_hand,
            } => {
                if *from_hand {
                    self.take_from_hand(*seat, *card);
                    self.keep_drawn(*seat);
                } else {
                    self.drawn = None;
                }
                if let Some(mountain) = self.mountains.get_mut(*seat) {
                    mountain.cards.insert(*at, *card);
                }
                self.note_height(*seat);
                if self.phase == Phase::LayingHands {
                    self.passed = vec![false; self.seats];
                    self.end_laying_turn();
                } else {
                    self.end_turn();
                }
            }
            Event::Discarded { card, .. } => {
                self.drawn = None;
                self.discard.push(*card);
                self.end_turn();
            }
            Event::LaidOnOpponent {
                opponent, card, at, ..
            } => {
                self.drawn = None;
                if let Some(mountain) = self.mountains.get_mut(*opponent) {
                    mountain.cards.insert(*at, *card);
                }
                self.note_height(*opponent);
                self.end_turn();
            }
            Event::Replaced {
                seat,
                card,
                at,
                removed,
            } => {
                self.drawn = None;
                if let Some(mountain) = self.mountains.get_mut(*seat) {
                    mountain.cards.insert(*at, *card);
                }
                self.discard.push(*removed);
                self.end_turn();
            }
            Event::AvalancheRemoved {
                seat,
                at,
                avalanche,
                saint_bernard,
                from_hand,
            } => {
                if *from_hand {
                    self.take_from_hand(*seat, *saint_bernard);
                    self.keep_drawn(*seat);
                } else {
                    self.drawn = None;
                }
                if let Some(mountain) = self.mountains.get_mut(*seat) {
                    mountain.cards.remove(at);
                }
                self.discard.push(*avalanche);
                self.discard.push(*saint_bernard);
                self.end_turn();
            }
            Event::Passed { seat } => {
                if let Some(flag) = self.passed.get_mut(*seat) {
                    *flag = true;
                }
                self.end_laying_turn();
            }
            Event::Retired { seat, discarded } => self.retire(*seat, *discarded),
            Event::GameEnded => self.phase = Phase::Over,
        }
    }

    fn retire(&mut self, seat: Seat, discarded: Option<Card>) {
        if let Some(flag) = self.retired.get_mut(seat) {
            *flag = true;
        }
        if let Some(card) = discarded {
            self.drawn = None;
            self.discard.push(card);
        }
        match self.phase {
            Phase::Choosing => {
                if let Some(flag) = self.choosing.get_mut(seat) {
                    *flag = false;
                }
                if !self.choosing.iter().any(|&c| c) {
                    self.shuffle_owed = true;
                    self.begin_play();
                }
            }
            Phase::Playing if self.turn == seat => {
                self.drawn = None;
                self.give_turn(self.next_active(seat));
            }
            Phase::LayingHands => {
                if self.turn == seat {
                    // The retired seat's turn ends as if it had passed.
                    self.end_laying_turn();
                } else if self.all_passed() && !self.rules.end_is_decided() {
                    self.phase = Phase::Over;
                }
            }
            _ => {}
        }
    }
}
