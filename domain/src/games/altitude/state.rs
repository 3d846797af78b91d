//! The state of a game of Altitude, secrets included; events are applied to it in `evolve.rs`.

use super::cards::{Card, Face};
use super::mountain::Mountain;
use super::options::Options;
use super::revision::Rules;
use crate::engine::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Floors from which a player plays two turns each round.
pub const TWO_TURNS_HEIGHT: u8 = 5;

/// Where the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Nothing dealt yet.
    NotStarted,
    /// Every player chooses at once the 2 cards to return to the deck.
    Choosing,
    /// Turns: draw, then one action.
    Playing,
    /// The deck is empty: in turn, lay a card of the hand or pass.
    LayingHands,
    /// Every player passed in a row: the game is scored.
    Over,
}

/// The whole state, secrets included.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The revision of the rules the game is played under.
    pub rules: Rules,
    pub seats: usize,
    pub options: Options,
    pub phase: Phase,
    pub hands: Vec<Vec<Card>>,
    pub mountains: Vec<Mountain>,
    /// The last card is the top.
    pub deck: Vec<Card>,
    pub discard: Vec<Card>,
    /// Seats that must still return 2 cards of their deal.
    pub choosing: Vec<bool>,
    /// The seat whose turn it is (playing and laying the hands).
    pub turn: Seat,
    /// Turns the seat to move has left this round (2 for a mountain of 5 floors).
    pub turns_left: u8,
    /// The card the seat to move has drawn and not yet used.
    pub drawn: Option<Card>,
    /// Seats whose mountain has reached 5 floors: two turns a round from then on.
    pub two_turns: Vec<bool>,
    pub retired: Vec<bool>,
    /// Seats that passed since the last card was laid from a hand (the end of the game).
    pub passed: Vec<bool>,
    /// A seat retired while the others had returned their cards: the deck still awaits its
    /// shuffle, which the next draw makes.
    pub shuffle_owed: bool,
}

impl State {
    pub fn new(seats: usize, options: Options, rules: Rules) -> State {
        State {
            rules,
            seats,
            options,
            phase: Phase::NotStarted,
            hands: vec![Vec::new(); seats],
            mountains: vec![Mountain::default(); seats],
            deck: Vec::new(),
            discard: Vec::new(),
            choosing: vec![false; seats],
            turn: 0,
            turns_left: 0,
            drawn: None,
            two_turns: vec![false; seats],
            retired: vec![false; seats],
            passed: vec![false; seats],
            shuffle_owed: false,
        }
    }

    pub fn is_active(&self, seat: Seat) -> bool {
        seat < self.seats && !self.retired.get(seat).copied().unwrap_or(true)
    }

    pub fn hand(&self, seat: Seat) -> &[Card] {
        self.hands.get(seat).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The next seat still playing after `seat` (itself when it is the only one).
    pub fn next_active(&self, seat: Seat) -> Seat {
        (1..=self.seats)
            .map(|step| (seat + step) % self.seats)
            .find(|&s| self.is_active(s))
            .unwrap_or(seat)
    }

    /// Whether the seat to move may put the drawn card into its hand (to lay a card or use a
    /// Saint-Bernard from the hand instead): not an avalanche under revision 2.
    pub fn may_keep_drawn(&self) -> bool {
        !(self.rules.avalanche_never_in_a_hand()
            && self.drawn.is_some_and(|card| card.face == Face::Avalanche))
    }

    /// Whether every seat still playing has passed since a card was last laid from a hand,
    /// once the deck is empty: the end of the game.
    pub fn all_passed(&self) -> bool {
        self.phase == Phase::LayingHands
            && (0..self.seats).all(|s| !self.is_active(s) || self.passed[s])
    }

    /// Whether the seat has the last point of the score: its hand holds nothing but
    /// Saint-Bernards.
    pub fn hand_laid_out(&self, seat: Seat) -> bool {
        self.hand(seat).iter().all(|c| c.face == Face::SaintBernard)
    }
}
