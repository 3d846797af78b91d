//! What happened in a game of Vamanos. Type names are stable: they are stored forever.

use super::cards::Card;
use super::score::SeatScore;
use crate::engine::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// An event of Vamanos.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A round begins: every seat still playing gets its own freshly shuffled 36-card deck as
    /// its pile, and the rows, stacks and face-down card of the last round are cleared.
    /// Nobody sees undrawn cards, not even their owner: only the pile sizes are shown until
    /// the game is over.
    RoundDealt {
        /// The round, from 1.
        round: u32,
        piles: Vec<Pile>,
    },
    /// A seat drew the top card of its pile. Only that seat sees which card it is.
    Drew {
        seat: Seat,
        round: u32,
        /// The card; `null` for everyone but the seat that drew it.
        card: Option<Card>,
    },
    /// A seat placed its drawn card, face up, at the end of a row (1 to 3).
    Placed {
        seat: Seat,
        round: u32,
        row: u32,
        card: Card,
    },
    /// A row reached five cards and was gathered into a stack for scoring; the row is empty.
    RowStacked {
        seat: Seat,
        round: u32,
        row: u32,
        /// The five cards, in the order they were placed.
        cards: Vec<Card>,
    },
    /// A seat laid its last card face down, in no row. The card stays hidden from the others
    /// until the game is over.
    LaidFaceDown {
        seat: Seat,
        round: u32,
        /// The card; `null` for everyone but the seat that laid it.
        card: Option<Card>,
    },
    /// A seat placed its last card and called "Alta": the round stops at once for everybody.
    AltaCalled { seat: Seat, round: u32 },
    /// The round was scored; each seat still playing has a line.
    RoundScored { round: u32, scores: Vec<SeatScore> },
    /// A seat left the game (resigned or timed out): it plays and scores no more and cannot
    /// win. Its cards stay where they lie.
    Retired { seat: Seat },
    /// Every pile was shuffled again from a fresh source (a takeback forked the game), so that
    /// nobody profits from what they saw after the fork point.
    PilesReshuffled { round: u32, piles: Vec<Pile> },
    /// The scores of `round` took a total past the target: the game is over, and no round is
    /// dealt again. Since revision 2; under revision 1 the fold finds the end itself.
    GameEnded { round: u32 },
}

/// One seat's pile of undrawn cards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Pile {
    pub seat: Seat,
    /// How many cards the pile holds.
    #[schema(example = 36)]
    pub size: u32,
    /// The cards in drawing order (the first is drawn first); `null` unless the game is over.
    pub cards: Option<Vec<Card>>,
}
