//! The state of a game of Vamanos, secrets included; events are applied to it in `evolve.rs`.

use super::cards::Card;
use super::options::Options;
use super::revision::Rules;
use super::score::SeatScore;
use crate::engine::{Seat, Setup};

/// The number of rows in front of each player.
pub const ROWS: usize = 3;

/// Everything in front of one player during a round.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Player {
    /// Undrawn cards in drawing order: the first is drawn next.
    pub pile: Vec<Card>,
    /// The card drawn and not yet placed.
    pub drawn: Option<Card>,
    /// Rows 1 to 3 (index 0 is row 1), cards in the order they were placed.
    pub rows: [Vec<Card>; ROWS],
    /// Rows of five gathered this round, in the order they were gathered.
    pub stacks: Vec<Vec<Card>>,
    /// The last card, when it was laid face down.
    pub face_down: Option<Card>,
}

impl Player {
    /// Every card of the player's deck, wherever it lies (for checks of conservation).
    pub fn cards(&self) -> Vec<Card> {
        let mut cards = self.pile.clone();
        cards.extend(self.drawn);
        cards.extend(self.rows.iter().flatten().copied());
        cards.extend(self.stacks.iter().flatten().copied());
        cards.extend(self.face_down);
        cards
    }

    /// "−1 for each card still in the player's pile (a drawn, unplaced card counts)".
    pub fn cards_left(&self) -> usize {
        self.pile.len() + usize::from(self.drawn.is_some())
    }
}

/// The whole state, secrets included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    /// The revision of the rules the game is played under.
    pub rules: Rules,
    pub seats: usize,
    /// The score to pass (the rules: 500).
    pub target: i64,
    /// The current (or last) round, from 1; 0 before the first deal.
    pub round: u32,
    pub players: Vec<Player>,
    /// Total scores by seat.
    pub totals: Vec<i64>,
    /// Seats that left the game.
    pub retired: Vec<bool>,
    /// Who called "Alta" in each round so far (index 0 is round 1).
    pub altas: Vec<Seat>,
    /// How the last round scored, until the next one is scored.
    pub last_scores: Option<Vec<SeatScore>>,
    /// Set when a round ended with some total above the target.
    pub over: bool,
}

impl State {
    pub fn new(setup: &Setup<Options>) -> State {
        State {
            rules: Rules::of(setup.revision),
            seats: setup.seats,
            target: i64::from(setup.options.target),
            round: 0,
            players: vec![Player::default(); setup.seats],
            totals: vec![0; setup.seats],
            retired: vec![false; setup.seats],
            altas: Vec::new(),
            last_scores: None,
            over: false,
        }
    }

    /// Whether the current round is being played: dealt, no "Alta" yet, game not over.
    pub fn round_running(&self) -> bool {
        !self.over && self.round >= 1 && self.altas.len() < self.round as usize
    }

    /// Whether a seat still playing has a total above the target: the game ends.
    pub fn target_passed(&self) -> bool {
        self.playing()
            .iter()
            .any(|&s| self.totals.get(s).is_some_and(|&t| t > self.target))
    }

    /// Whether `seat` is at the table and has not left it.
    pub fn plays(&self, seat: Seat) -> bool {
        seat < self.seats && !self.retired.get(seat).copied().unwrap_or(true)
    }

    /// The seats still playing.
    pub fn playing(&self) -> Vec<Seat> {
        (0..self.seats).filter(|&s| self.plays(s)).collect()
    }

    /// The seat that called "Alta" in `round`, once it has ended.
    pub fn alta_of(&self, round: u32) -> Option<Seat> {
        let index = usize::try_from(round).ok()?.checked_sub(1)?;
        self.altas.get(index).copied()
    }
}

/// Rows are numbered 1 to 3 in commands and events; the index into `rows`.
pub fn row_index(row: u32) -> Option<usize> {
    let row = usize::try_from(row).ok()?;
    (1..=ROWS).contains(&row).then(|| row - 1)
}
