//! What happens in a game of Avalanche, as recorded forever in its stream.

use super::cards::Rank;
use super::play::Play;
use crate::engine::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Cards that only some viewers may see: everyone sees how many, only those allowed see
/// which (`cards` is `null` for the others).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"count": 2, "cards": ["7", "Q"]}))]
pub struct SecretCards {
    /// How many cards.
    pub count: usize,
    /// Which cards, in order (a draw pile: its top card first); `null` when hidden.
    pub cards: Option<Vec<Rank>>,
}

impl SecretCards {
    pub fn shown(cards: Vec<Rank>) -> SecretCards {
        SecretCards {
            count: cards.len(),
            cards: Some(cards),
        }
    }

    /// The same cards with `which` hidden unless `visible`.
    pub fn for_viewer(&self, visible: bool) -> SecretCards {
        SecretCards {
            count: self.count,
            cards: if visible { self.cards.clone() } else { None },
        }
    }

    /// The cards, or none when hidden (a redacted event is never folded).
    pub fn known(&self) -> &[Rank] {
        self.cards.as_deref().unwrap_or(&[])
    }
}

/// One card of the dealer draw, face up for everyone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"seat": 0, "card": "7"}))]
pub struct DrawnCard {
    /// The seat that drew.
    pub seat: Seat,
    /// The card it drew.
    pub card: Rank,
}

/// An event of Avalanche.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The dealer draw. From the game's first shuffle (stream salt 0), every seat in seat
    /// order takes the next card from the top; the lowest deals. When several share the
    /// lowest card, those seats (in seat order) draw again from the following cards of the
    /// same shuffle, round after round. Should that shuffle ever run out (it practically
    /// cannot), the first of the tied seats deals.
    DealerDrawn {
        /// Each round of the draw: the first has every seat, later ones only the tied seats.
        rounds: Vec<Vec<DrawnCard>>,
        /// The seat with the lowest card, who deals.
        dealer: Seat,
    },
    /// The deal, from the game's second shuffle (stream salt 1): ten cards to each player,
    /// one at a time starting with the dealer's left-hand player; the rest is the draw pile.
    /// The player to the dealer's left starts.
    Dealt {
        /// Each seat's hand, visible to that seat only.
        hands: Vec<SecretCards>,
        /// The draw pile, top card first, visible to nobody until the game ends.
        draw_pile: SecretCards,
        /// The seat that plays first.
        first: Seat,
    },
    /// Snow Fall: the seat drew the top card of the draw pile and ended its turn.
    SnowFell {
        /// The seat that drew.
        seat: Seat,
        /// The card drawn, seen by the drawing seat only.
        card: Option<Rank>,
    },
    /// The seat played a set to the table.
    Played {
        /// The seat that played.
        seat: Seat,
        /// The cards played, all of one rank.
        cards: Vec<Rank>,
        /// What the set did: start, grow, stop or fall.
        play: Play,
    },
    /// The avalanche was stopped: every card on the table went to the neutral pile.
    AvalancheStopped {
        /// The cards that went to the neutral pile.
        cards: Vec<Rank>,
    },
    /// The avalanche fell: every card on the table, those just played included, went face
    /// down to the previous player, who scores them.
    AvalancheFell {
        /// The previous player: the one who played the set just beaten.
        to: Seat,
        /// The cards that went to the previous player, in the order played.
        cards: Vec<Rank>,
    },
    /// The seat's hand was empty at the end of its turn: it drew up to ten cards from the top
    /// of the draw pile, or the rest of the pile if fewer remained.
    Refilled {
        /// The seat that drew.
        seat: Seat,
        /// The cards drawn, top card first, seen by that seat only.
        cards: SecretCards,
    },
    /// The seat had no cards and could not draw: it is out, and turns skip it. It keeps its
    /// collected cards and can still be awarded a Fall.
    WentOut {
        /// The seat that is out.
        seat: Seat,
    },
    /// The seat left the game (resigned or timed out) while the others play on: its hand
    /// went face down to the neutral pile and turns skip it. It keeps its collected cards
    /// (and can still be awarded a Fall) but cannot win.
    Retired {
        /// The seat that left.
        seat: Seat,
        /// The hand that went to the neutral pile, seen by that seat only.
        hand: SecretCards,
    },
    /// The draw pile was shuffled again (a takeback forked the game).
    Reshuffled {
        /// The new draw pile, top card first, visible to nobody until the game ends.
        draw_pile: SecretCards,
    },
    /// Only one player still held cards: the game ended at once, and that player's hand and
    /// the cards on the table went to the neutral pile.
    GameEnded {
        /// The last player holding cards, if any.
        last: Option<Seat>,
        /// That player's hand, surrendered to the neutral pile.
        hand: SecretCards,
        /// The cards that were on the table.
        table: Vec<Rank>,
    },
}
