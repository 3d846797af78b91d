//! The options a game of Ski Runs is created with (the deck's counts) and their checks.

use super::cards::{Card, DeckCounts};
use super::state::HAND_DRAW_CARDS;
use crate::engine::RuleError;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The most cards of one kind a deck may hold: enough for any table, small enough that a
/// game stays quick to fold.
pub const MAX_OF_A_KIND: u32 = 200;

/// Options of a game of Ski Runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(example = json!({"deck": {"lift": 14, "green": 20, "blue": 18, "red": 14, "black": 10, "avalanche": 5}}))]
pub struct Options {
    /// The number of cards of each kind; missing counts are the rules' table.
    pub deck: DeckCounts,
}

/// Refuses a deck that cannot be dealt or is absurdly large.
pub fn check_deck(deck: &DeckCounts, seats: usize) -> Result<(), RuleError> {
    for card in Card::ALL {
        let count = deck.count(card);
        if count > MAX_OF_A_KIND {
            return Err(RuleError::invalid_setup(format!(
                "A deck may hold at most {MAX_OF_A_KIND} cards of a kind, not {count} \"{}\" cards.",
                DeckCounts::field(card)
            )));
        }
    }
    if (deck.lift as usize) < seats {
        return Err(RuleError::invalid_setup(format!(
            "Each of the {seats} players is dealt a lift card, so the deck needs at least \
             {seats} lift cards, not {}.",
            deck.lift
        )));
    }
    let draw_pile = deck.draw_pile_cards().len();
    if draw_pile < HAND_DRAW_CARDS * seats {
        return Err(RuleError::invalid_setup(format!(
            "Each of the {seats} players is dealt {HAND_DRAW_CARDS} cards from the draw pile, so \
             the deck needs at least {} cards besides the lifts, not {draw_pile}.",
            HAND_DRAW_CARDS * seats
        )));
    }
    Ok(())
}
