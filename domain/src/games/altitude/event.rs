//! The events of Altitude: what happened, with the cards, so a fold never re-runs a shuffle.

use super::cards::Card;
use super::mountain::Position;
use crate::engine::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// An event of Altitude. Where cards are secret, a redacted event keeps their `count` and
/// leaves `cards` empty (or `card` null).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// Six cards were dealt to a seat from the top of the deck (seen by that seat only).
    Dealt {
        seat: Seat,
        /// How many cards: always shown.
        count: usize,
        /// The cards; empty for a viewer who may not see them.
        cards: Vec<Card>,
    },
    /// The deck was (re)shuffled and now holds these cards; the last is the top. Nobody sees
    /// them while the game runs.
    DeckShuffled { count: usize, cards: Vec<Card> },
    /// A seat returned two cards of its deal to the deck (seen by that seat only).
    CardsReturned {
        seat: Seat,
        /// How many cards: always shown.
        count: usize,
        /// The cards; empty for a viewer who may not see them.
        cards: Vec<Card>,
    },
    /// A seat drew the top card of the deck (seen by that seat only).
    Drew {
        seat: Seat,
        /// The card; null for a viewer other than the drawing seat.
        card: Option<Card>,
    },
    /// A seat laid a card in its own mountain. `from_hand`: the card came from the hand, and
    /// the drawn card (if any) went into the hand.
    Laid {
        seat: Seat,
        card: Card,
        at: Position,
        from_hand: bool,
    },
    /// A seat discarded the card it drew.
    Discarded { seat: Seat, card: Card },
    /// A seat laid the card it drew in an opponent's mountain.
    LaidOnOpponent {
        seat: Seat,
        opponent: Seat,
        card: Card,
        at: Position,
    },
    /// A seat replaced an uncovered card of its mountain with the drawn card; the replaced
    /// card was discarded.
    Replaced {
        seat: Seat,
        card: Card,
        at: Position,
        removed: Card,
    },
    /// A Saint-Bernard removed an avalanche from its player's mountain; both were discarded.
    /// `from_hand`: the Saint-Bernard came from the hand and the drawn card went into it.
    AvalancheRemoved {
        seat: Seat,
        at: Position,
        avalanche: Card,
        saint_bernard: Card,
        from_hand: bool,
    },
    /// Once the deck is empty, a seat laid nothing this turn.
    Passed { seat: Seat },
    /// A seat left the game (resigned or timed out); it is skipped from then on, keeps its
    /// mountain and its hand, and the card it had drawn (if any) was discarded.
    Retired { seat: Seat, discarded: Option<Card> },
    /// Once the deck was empty, every seat still playing passed in a row: the game is over
    /// and scored. Decided with the pass (or the leaving) that completed the round, since
    /// revision 3; under earlier revisions the fold finds the end itself.
    GameEnded,
}
