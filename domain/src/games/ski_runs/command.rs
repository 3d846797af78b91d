//! What a player of Ski Runs may post: the steps of a turn (draw, play up to three cards, end
//! the turn) or banking, which is the whole turn.

use super::cards::Card;
use serde::{Deserialize, Serialize};
use std::fmt;
use utoipa::ToSchema;

/// A pile to draw from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Pile {
    /// The face-down draw pile.
    DrawPile,
    /// The face-up pile of lift cards.
    LiftPile,
}

impl fmt::Display for Pile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Pile::DrawPile => "draw-pile",
            Pile::LiftPile => "lift",
        })
    }
}

/// A command of Ski Runs. A turn is either `bank`, or a draw (`draw`, or `pick_up` after an
/// empty hand), then up to three `play`s, then `end_turn`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(example = json!({"type": "draw", "from": ["draw_pile", "lift_pile"]}))]
pub enum Command {
    /// Take 2 cards, each from the draw pile or the lift pile: 2 from one or 1 of each. A pile
    /// may be named only for cards it can supply while the other can supply them instead.
    /// `{"type": "draw", "from": ["draw_pile", "lift_pile"]}`
    Draw {
        /// The pile of each of the two cards, in any order.
        #[schema(example = json!(["draw_pile", "lift_pile"]))]
        from: [Pile; 2],
    },
    /// After a turn began with an empty hand: take 1 lift card and 4 cards from the draw pile
    /// instead of drawing. `{"type": "pick_up"}`
    PickUp,
    /// Play one card from your hand, after drawing; up to 3 a turn.
    /// `{"type": "play", "card": "red_run"}`
    Play {
        #[schema(example = "red_run")]
        card: Card,
    },
    /// End your turn after drawing (and playing up to 3 cards). `{"type": "end_turn"}`
    EndTurn,
    /// Bank your unbanked ski run (it must hold a run card): this is your whole turn, given
    /// instead of drawing. `{"type": "bank"}`
    Bank,
}

impl Command {
    /// The notation of the command: `draw draw-pile + lift`, `play red run`, `bank`.
    pub fn notation(&self) -> String {
        match self {
            Command::Draw { from: [a, b] } => format!("draw {a} + {b}"),
            Command::PickUp => "pick up lift + 4 draw-pile".into(),
            Command::Play { card } => format!("play {card}"),
            Command::EndTurn => "end turn".into(),
            Command::Bank => "bank".into(),
        }
    }
}
