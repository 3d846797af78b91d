//! The variants of Avalanche Chess: which start position, and whether White's first turn
//! has a push (the table "Variants" of the rules file).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A variant of Avalanche Chess, by its id.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// Orthodox start position; White pushes on the first turn.
    #[default]
    Standard,
    /// Castelli's Balanced Avalanche Chess: White's first turn has no push.
    Balanced,
    /// Castelli's "Avalanche II": Black's king on d8 and queen on e8.
    Reversed,
    /// `reversed` and `balanced` together, as the play-by-mail servers allow.
    BalancedReversed,
}

impl Variant {
    /// Every variant, the default first (the order the lobby lists them).
    pub const ALL: [Variant; 4] = [
        Variant::Standard,
        Variant::Balanced,
        Variant::Reversed,
        Variant::BalancedReversed,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Balanced => "balanced",
            Variant::Reversed => "reversed",
            Variant::BalancedReversed => "balanced-reversed",
        }
    }

    /// The variant with this id; `None` (no variant given) is the default.
    pub fn from_id(id: Option<&str>) -> Option<Variant> {
        match id {
            None => Some(Variant::Standard),
            Some(id) => Variant::ALL.into_iter().find(|v| v.id() == id),
        }
    }

    /// Whether White's first turn has no push.
    pub fn no_first_push(self) -> bool {
        matches!(self, Variant::Balanced | Variant::BalancedReversed)
    }

    /// Whether Black's king and queen have swapped squares.
    pub fn reversed(self) -> bool {
        matches!(self, Variant::Reversed | Variant::BalancedReversed)
    }

    /// The start position as a FEN placement.
    pub fn start_placement(self) -> &'static str {
        if self.reversed() {
            "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
        } else {
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
        }
    }
}
