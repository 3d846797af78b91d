//! What a player may do: draw a card, place it in a row, or lay the last card face down.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A command of Vamanos. There are no turns: each player gives their commands whenever the
/// round runs. Every command names the round it is meant for, so that a command overtaken by
/// another player's "Alta" is refused instead of landing in the next round. Rows are numbered
/// 1 to 3.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// Draw the top card of your own pile. Only one card may be held: place it first.
    #[schema(example = json!({"type": "draw", "round": 1}))]
    Draw {
        /// The round this command is meant for (from 1).
        round: u32,
    },
    /// Place the card you drew at the end of row 1, 2 or 3. A row of five becomes a stack.
    #[schema(example = json!({"type": "place", "round": 1, "row": 2}))]
    Place {
        /// The round this command is meant for (from 1).
        round: u32,
        /// The row, from 1 to 3.
        row: u32,
    },
    /// Lay your last card face down instead of in a row, so that it starts no unfinished row.
    /// Only when your pile is empty; it ends the round ("Alta").
    #[schema(example = json!({"type": "lay_face_down", "round": 1}))]
    LayFaceDown {
        /// The round this command is meant for (from 1).
        round: u32,
    },
}

impl Command {
    /// The round the command is meant for.
    pub fn round(&self) -> u32 {
        match *self {
            Command::Draw { round }
            | Command::Place { round, .. }
            | Command::LayFaceDown { round } => round,
        }
    }
}
