//! The options of a Vamanos game: the score to pass, lowered for shorter games.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The score of the rules: "if a player has reached more than 500, the highest total wins".
pub const RULES_TARGET: u32 = 500;

/// The highest target accepted: far beyond any game anyone would play to the end.
pub const MAX_TARGET: u32 = 100_000;

/// Options of a Vamanos game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(example = json!({"target": 500}))]
pub struct Options {
    /// The game ends after the round in which some player's total passes this score (goes
    /// strictly above it). The rules say 500; a lower target makes a shorter game (from 1 to
    /// 100000).
    #[schema(example = 500, minimum = 1, maximum = 100000)]
    pub target: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            target: RULES_TARGET,
        }
    }
}
