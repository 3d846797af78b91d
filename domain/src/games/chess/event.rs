//! What happened: a turn, an owner's promotion choice, the end of the game. Each turn records
//! its canonical notation and squares, so a record can be written from the events alone.

use super::command::PromotionPiece;
use super::square::SquareName;
use crate::engine::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The pawn pushed in a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PushMade {
    pub from: SquareName,
    pub to: SquareName,
}

/// A side of castling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CastlingSide {
    /// O-O: the king to the g-file, the rook to the f-file.
    Short,
    /// O-O-O: the king to the c-file, the rook to the d-file.
    Long,
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    Checkmate,
    Stalemate,
    /// The push left the pusher's own king attacked.
    LossByPush,
    /// The owner's promotion choice attacks the pusher's king.
    LossByPromotion,
    ThreefoldRepetitionClaimed,
    FiftyMovesClaimed,
    FivefoldRepetition,
    SeventyFiveMoves,
    InsufficientMaterial,
    /// A player resigned. This and the three below end a game at the table, not by the
    /// rules: they are only shown in the view's `result`, never in `game_ended`.
    Resigned,
    /// The players agreed a draw.
    DrawAgreed,
    /// A player let their deadline pass.
    TimedOut,
    /// A takeback was agreed: play goes on in a fork.
    Superseded,
}

impl EndReason {
    /// The reason in words.
    pub fn words(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::LossByPush => "a push left the pusher's own king attacked",
            EndReason::LossByPromotion => "the promoted piece attacks the pusher's king",
            EndReason::ThreefoldRepetitionClaimed => "draw claimed by threefold repetition",
            EndReason::FiftyMovesClaimed => "draw claimed under the fifty-move rule",
            EndReason::FivefoldRepetition => "fivefold repetition",
            EndReason::SeventyFiveMoves => "seventy-five moves without capture, pawn move or push",
            EndReason::InsufficientMaterial => "neither side can mate",
            EndReason::Resigned => "resigned",
            EndReason::DrawAgreed => "draw by agreement",
            EndReason::TimedOut => "ran out of time",
            EndReason::Superseded => "superseded by a takeback",
        }
    }
}

/// An event of Avalanche Chess.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A turn was played: the move and the push.
    TurnPlayed {
        seat: Seat,
        /// The move in canonical SAN, without check marks (`Nf3`, `O-O`, `exd8=Q`).
        #[schema(example = "Nf3")]
        san: String,
        /// The moving piece's square.
        from: SquareName,
        /// Where it went (for castling: the king's destination).
        to: SquareName,
        /// Set when the move was castling.
        castling: Option<CastlingSide>,
        /// The piece a pawn promoted to by its own move.
        promotion: Option<PromotionPiece>,
        /// The push, or `null` when the turn had none.
        push: Option<PushMade>,
        /// The half-turn in canonical notation (`Nf3/a6`, `e4//`, `Qh5/f6+`).
        #[schema(example = "Nf3/a6")]
        notation: String,
    },
    /// The owner chose the piece for a pawn promoted by the opponent's push.
    PromotionChosen {
        seat: Seat,
        square: SquareName,
        piece: PromotionPiece,
        /// The pushing half-turn's notation with the choice (`Bc4/e1=N`).
        #[schema(example = "Bc4/e1=N")]
        notation: String,
    },
    /// The game ended by the rules (resignation and agreed draws belong to the table).
    GameEnded {
        /// The winning seat (0 White, 1 Black), `null` for a draw.
        winner: Option<Seat>,
        reason: EndReason,
    },
}
