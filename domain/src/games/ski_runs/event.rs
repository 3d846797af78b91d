//! What happened in a game of Ski Runs. Events record outcomes (the cards dealt and drawn), so
//! a fold never shuffles again.

use super::cards::{Card, Cards};
use super::state::{End, SkiRun};
use crate::engine::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// An event of Ski Runs. Secret cards are `null` in the copy a viewer may not see them in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[schema(example = json!({"type": "played", "seat": 1, "card": "blue_run"}))]
pub enum Event {
    /// The deal: the lift cards form the lift pile, the rest is shuffled into the draw pile,
    /// and each player is dealt 1 lift card and 4 cards from the draw pile. Seat 0 begins.
    Dealt {
        /// Each seat's hand (secret to the others).
        hands: Vec<Cards>,
        /// The draw pile after the deal, its top card last (secret to everyone until the end).
        draw_pile: Cards,
        /// The lift cards left in the face-up lift pile.
        lift_pile: usize,
    },
    /// A player drew: `lifts` lift cards from the lift pile, and `cards` from the draw pile
    /// (seen by the drawer only).
    Drew {
        seat: Seat,
        lifts: usize,
        cards: Cards,
    },
    /// A player whose turn began with an empty hand picked up a lift card and 4 cards from
    /// the draw pile (as many as the piles could supply).
    PickedUp {
        seat: Seat,
        lifts: usize,
        cards: Cards,
    },
    /// A player played a card: a lift starts their ski run, a run card extends it, an
    /// avalanche goes to the centre and sweeps every unbanked run to the discard pile.
    Played { seat: Seat, card: Card },
    /// A player ended their turn; the next remaining player's turn begins.
    TurnEnded { seat: Seat },
    /// A player banked their unbanked run as their whole turn.
    Banked { seat: Seat, run: SkiRun },
    /// A player left the game: their hand (secret) and unbanked run go to the discard pile;
    /// their banked runs stay and are scored, but they cannot win.
    Retired {
        seat: Seat,
        hand: Cards,
        run: Option<SkiRun>,
    },
    /// The draw pile was shuffled again (a takeback fork); its order is secret.
    DrawPileReshuffled { draw_pile: Cards },
    /// The game ended, decided with the command (or the leaving) that ended it: the 5th
    /// avalanche card was played, or a full round passed without progress once the draw pile
    /// was empty. Since revision 3; under earlier revisions the fold finds the end itself.
    GameEnded { reason: End },
}
