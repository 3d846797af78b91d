//! What a player may send: a turn (move and push), the owner's promotion choice, a draw claim.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A piece a pawn may be promoted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PromotionPiece {
    Queen,
    Rook,
    Bishop,
    Knight,
}

impl PromotionPiece {
    pub const ALL: [PromotionPiece; 4] = [
        PromotionPiece::Queen,
        PromotionPiece::Rook,
        PromotionPiece::Bishop,
        PromotionPiece::Knight,
    ];

    pub fn piece(self) -> cozy_chess::Piece {
        match self {
            PromotionPiece::Queen => cozy_chess::Piece::Queen,
            PromotionPiece::Rook => cozy_chess::Piece::Rook,
            PromotionPiece::Bishop => cozy_chess::Piece::Bishop,
            PromotionPiece::Knight => cozy_chess::Piece::Knight,
        }
    }

    pub fn from_piece(piece: cozy_chess::Piece) -> Option<PromotionPiece> {
        PromotionPiece::ALL.into_iter().find(|p| p.piece() == piece)
    }

    /// The SAN letter: `Q`, `R`, `B`, `N`.
    pub fn letter(self) -> char {
        super::position::piece_letter(self.piece())
    }
}

/// A command of Avalanche Chess.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// A whole turn: the move, then the push of one of the opponent's pawns (the destination
    /// square of the pushed pawn), or `null` when no push is possible or allowed.
    #[schema(example = json!({"type": "turn", "move": "Nf3", "push": "a6"}))]
    Turn {
        /// The move in SAN (`Nf3`, `exd5`, `O-O`, `e8=Q`) or UCI (`g1f3`, `e7e8q`; castling
        /// as `e1g1` or king-takes-rook `e1h1`). Capture and check marks may be missing.
        #[serde(rename = "move")]
        #[schema(example = "Nf3")]
        mv: String,
        /// The square the pushed pawn moves to (`a6`; `a7-a6` is also read), or `null`.
        #[schema(example = "a6")]
        push: Option<String>,
    },
    /// The owner's choice for a pawn promoted by the opponent's push, owed before their move.
    #[schema(example = json!({"type": "promote", "piece": "knight"}))]
    Promote { piece: PromotionPiece },
    /// Claims a draw by threefold repetition or the fifty-move rule (by the side to move).
    #[schema(example = json!({"type": "claim_draw"}))]
    ClaimDraw,
}
