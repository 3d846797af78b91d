//! The whole state of a game of Avalanche, secrets included, and the questions the rules ask
//! of it (whose turn, who still holds cards, what must be beaten).

use super::cards::{Cards, Rank};
use super::revision::Rules;
use crate::engine::Seat;

/// Where the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Created, nothing dealt yet.
    Dealing,
    /// Cards are dealt; players take turns.
    Playing,
    /// Only one player still held cards: the game is over.
    Over,
}

/// A set played to the running avalanche: who played it and its cards (one rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Set {
    pub seat: Seat,
    pub rank: Rank,
    pub size: usize,
}

/// The state of a game.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The revision of the rules the game is played under.
    pub rules: Rules,
    pub seats: usize,
    pub phase: Phase,
    /// The seat that dealt, once the dealer draw is done.
    pub dealer: Option<Seat>,
    /// The dealer draw, round by round, as recorded.
    pub dealer_draw: Vec<Vec<(Seat, Rank)>>,
    pub hands: Vec<Cards>,
    /// The face-down draw pile, its top card first.
    pub draw_pile: Vec<Rank>,
    /// The running avalanche, oldest set first; empty when no avalanche runs.
    pub table: Vec<Set>,
    /// The cards each seat has collected from Falls.
    pub collected: Vec<Cards>,
    /// Cards nobody scores: Stops, the last player's hand, retired hands.
    pub neutral: Cards,
    /// The seat whose turn it is.
    pub turn: Seat,
    /// Seats that left the game (resigned or timed out): skipped, and they cannot win.
    pub retired: Vec<bool>,
}

impl State {
    pub fn new(seats: usize, rules: Rules) -> State {
        State {
            rules,
            seats,
            phase: Phase::Dealing,
            dealer: None,
            dealer_draw: Vec::new(),
            hands: vec![Cards::new(); seats],
            draw_pile: Vec::new(),
            table: Vec::new(),
            collected: vec![Cards::new(); seats],
            neutral: Cards::new(),
            turn: 0,
            retired: vec![false; seats],
        }
    }

    /// The hand of `seat` (empty for a seat that does not exist).
    pub fn hand(&self, seat: Seat) -> Cards {
        self.hands.get(seat).copied().unwrap_or_default()
    }

    /// Whether `seat` is still in the game: it holds cards and has not retired. A player with
    /// no cards who cannot draw is out (a player with an empty hand always refills while the
    /// draw pile lasts, so an empty hand means out).
    pub fn holds_cards(&self, seat: Seat) -> bool {
        !self.retired.get(seat).copied().unwrap_or(true) && !self.hand(seat).is_empty()
    }

    /// The seats still in the game, in seat order.
    pub fn holders(&self) -> Vec<Seat> {
        (0..self.seats).filter(|&s| self.holds_cards(s)).collect()
    }

    /// The next seat to the left of `seat` still in the game, skipping those who are out.
    /// `None` when no other seat holds cards.
    pub fn next_holder(&self, seat: Seat) -> Option<Seat> {
        (1..self.seats)
            .map(|step| (seat + step) % self.seats)
            .find(|&s| self.holds_cards(s))
    }

    /// The set the player to act must answer: the last one played, while an avalanche runs.
    pub fn to_beat(&self) -> Option<Set> {
        self.table.last().copied()
    }

    /// Every card on the table, in the order played.
    pub fn table_cards(&self) -> Vec<Rank> {
        self.table
            .iter()
            .flat_map(|set| std::iter::repeat_n(set.rank, set.size))
            .collect()
    }

    /// The seat to act, while the game is being played.
    pub fn seat_to_act(&self) -> Option<Seat> {
        (self.phase == Phase::Playing && self.holds_cards(self.turn)).then_some(self.turn)
    }
}
