//! The commands a player of Altitude gives.

use super::mountain::Position;
use crate::engine::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A command of Altitude. A turn is two commands: `draw`, then one action with the drawn
/// card (`lay`, `discard`, `lay_on_opponent`, `replace` or `saint_bernard`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// At the deal: return 2 of the 6 cards dealt to the deck (by id) and keep the other 4.
    /// Every player chooses at once.
    #[schema(example = json!({"type": "return_cards", "cards": [12, 97]}))]
    ReturnCards { cards: Vec<u16> },
    /// Draw the top card of the deck: the first half of every turn while the deck lasts.
    #[schema(example = json!({"type": "draw"}))]
    Draw,
    /// Lay a card in your own mountain. The card is the drawn card, or (while the deck lasts)
    /// a card of your hand, and then the drawn card goes into your hand. Once the deck is
    /// empty: lay a card of your hand.
    #[schema(example = json!({"type": "lay", "card": 40, "at": {"floor": 2, "slot": 0}}))]
    Lay { card: u16, at: Position },
    /// Discard the drawn card. (Cards of the hand are never discarded.)
    #[schema(example = json!({"type": "discard"}))]
    Discard,
    /// Lay the drawn card (only the drawn card) in an opponent's started mountain: an
    /// avalanche, or any card following the placement rules.
    #[schema(example = json!({"type": "lay_on_opponent", "opponent": 1, "at": {"floor": 1, "slot": 4}}))]
    LayOnOpponent { opponent: Seat, at: Position },
    /// Replace an uncovered card of your own mountain with the drawn card; the replaced card
    /// is discarded. The drawn card must fit the place as if laid there.
    #[schema(example = json!({"type": "replace", "at": {"floor": 1, "slot": 2}}))]
    Replace { at: Position },
    /// Remove the uncovered avalanche at `at` from your own mountain with a Saint-Bernard:
    /// the drawn one, or one of your hand (and then the drawn card goes into your hand).
    /// Both cards are discarded.
    #[schema(example = json!({"type": "saint_bernard", "card": 113, "at": {"floor": 1, "slot": 3}}))]
    SaintBernard { card: u16, at: Position },
    /// Once the deck is empty: lay nothing this turn.
    #[schema(example = json!({"type": "pass"}))]
    Pass,
}
