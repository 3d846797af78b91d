//! The options a game of Altitude is created with (the counts of the deck) and their checks.

use super::cards::DEALT;
use crate::engine::RuleError;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The counts of the deck, chosen when the game is created. The default is the 120-card deck
/// of the rules file; any field left out takes its default.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(example = json!({"mountain_copies": 3, "animal_copies": 1, "cable_cars": 10, "avalanches": 10, "saint_bernards": 8}))]
pub struct Options {
    /// Copies of each mountain number 1 to 24 (default 3: 72 cards). At most 10.
    #[schema(maximum = 10)]
    pub mountain_copies: u8,
    /// Copies of each of the 20 animal cards (default 1: 20 cards). At most 10.
    #[schema(maximum = 10)]
    pub animal_copies: u8,
    /// Cable cars (default 10). At most 40.
    #[schema(maximum = 40)]
    pub cable_cars: u8,
    /// Avalanches (default 10). At most 40.
    #[schema(maximum = 40)]
    pub avalanches: u8,
    /// Saint-Bernards (default 8). At most 40.
    #[schema(maximum = 40)]
    pub saint_bernards: u8,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            mountain_copies: 3,
            animal_copies: 1,
            cable_cars: 10,
            avalanches: 10,
            saint_bernards: 8,
        }
    }
}

impl Options {
    /// The number of cards of the deck.
    pub fn deck_size(&self) -> usize {
        24 * usize::from(self.mountain_copies)
            + 20 * usize::from(self.animal_copies)
            + usize::from(self.cable_cars)
            + usize::from(self.avalanches)
            + usize::from(self.saint_bernards)
    }

    /// Refuses counts outside the documented limits or too few cards to deal to `seats`.
    pub fn check(&self, seats: usize) -> Result<(), RuleError> {
        let limits = [
            ("mountain_copies", self.mountain_copies, 10),
            ("animal_copies", self.animal_copies, 10),
            ("cable_cars", self.cable_cars, 40),
            ("avalanches", self.avalanches, 40),
            ("saint_bernards", self.saint_bernards, 40),
        ];
        for (name, count, most) in limits {
            if count > most {
                return Err(RuleError::invalid_setup(format!(
                    "The option {name} may be at most {most}, not {count}."
                )));
            }
        }
        let needed = DEALT * seats;
        if self.deck_size() < needed {
            return Err(RuleError::invalid_setup(format!(
                "A deck of {} cards is too small: {seats} players need {needed} to deal 6 each.",
                self.deck_size()
            )));
        }
        Ok(())
    }
}
