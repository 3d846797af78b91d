//! What a player of Avalanche may post on their turn: Snow Fall, or a set of cards.

use super::cards::Rank;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A command of Avalanche. Whether a play starts, grows, stops or lets the avalanche fall
/// follows from the cards and the set it answers: the legal list says which for each play.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(example = json!({"type": "play", "cards": ["Q", "Q", "Q"]}))]
pub enum Command {
    /// Snow Fall: draw the top card of the draw pile, which ends the turn. Only when no
    /// avalanche is running and the draw pile is not empty. `{"type": "snow_fall"}`
    SnowFall,
    /// Play a single card or a set of one rank from your hand: it starts an avalanche when
    /// none runs, otherwise it grows, stops or lets the avalanche fall.
    /// `{"type": "play", "cards": ["Q", "Q", "Q"]}`
    Play {
        /// The cards played, all of one rank (suits do not matter: a card is its rank).
        #[schema(example = json!(["Q", "Q", "Q"]))]
        cards: Vec<Rank>,
    },
}
