//! What a viewer sees: the whole position (chess hides nothing), whose turn it is and what they
//! must do, the last turn and the history in canonical notation.

use super::ending::claimable;
use super::event::EndReason;
use super::square::SquareName;
use super::state::{seat_of, State};
use super::variant::Variant;
use crate::engine::{Outcome, Seat, TableEnd};
use cozy_chess::Color;
use serde::Serialize;
use utoipa::ToSchema;

/// What the seat to act must do now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Play a turn: a move and a push.
    Turn,
    /// Choose the piece for the own pawn promoted by the opponent's push.
    PromotionChoice,
    /// The game is over.
    Over,
}

/// A side of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    White,
    Black,
}

/// The last turn played.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct LastTurnView {
    pub seat: Seat,
    #[schema(example = "Nf3/a6")]
    pub notation: String,
    pub from: SquareName,
    pub to: SquareName,
    /// The pushed pawn's squares, if the turn had a push.
    pub push_from: Option<SquareName>,
    pub push_to: Option<SquareName>,
}

/// The result once the game is over: ended by the rules, or at the table (`resigned`,
/// `draw_agreed`, `timed_out`, `superseded`); the same as the game's `outcome`.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct ResultView {
    /// The winning seat, `null` for a draw (or a game superseded by a takeback, which nobody
    /// won).
    pub winner: Option<Seat>,
    pub reason: EndReason,
}

/// The game as anyone sees it: Avalanche Chess has no hidden information.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct View {
    pub variant: Variant,
    /// The position as FEN (never an en passant square). A pawn awaiting its owner's choice
    /// stands on its last rank.
    #[schema(example = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")]
    pub fen: String,
    /// The FEN placement alone.
    pub placement: String,
    /// The side that must act (the pawn's owner while a promotion choice is owed).
    pub side_to_act: Option<Side>,
    pub seat_to_act: Option<Seat>,
    pub phase: Phase,
    /// The pawn whose owner must choose a piece, if any.
    pub pending_promotion: Option<SquareName>,
    /// Castling rights as in FEN (`KQkq`, `-`).
    pub castling: String,
    pub halfmove_clock: u32,
    pub fullmove_number: u32,
    /// Whether the side to act is in check.
    pub check: bool,
    /// The draw the side to act may claim now, if any.
    pub claimable_draw: Option<EndReason>,
    pub last_turn: Option<LastTurnView>,
    /// Every half-turn in canonical notation (`Nf3//`, `Nf6/a3`, `Bc4/e1=N`).
    pub history: Vec<String>,
    pub result: Option<ResultView>,
}

pub fn view(state: &State) -> View {
    let side = state.position.side;
    let bits = state.position.bits();
    let check = bits
        .king(side)
        .is_some_and(|k| !bits.attackers(k, !side).is_empty());
    View {
        variant: state.variant,
        fen: state.fen(),
        placement: state.position.placement(),
        side_to_act: state.ending.is_none().then_some(match side {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }),
        seat_to_act: state.ending.is_none().then(|| seat_of(side)),
        phase: if state.ending.is_some() {
            Phase::Over
        } else if state.pending.is_some() {
            Phase::PromotionChoice
        } else {
            Phase::Turn
        },
        pending_promotion: state.pending.map(|p| SquareName(p.square)),
        castling: state.position.castling_text(),
        halfmove_clock: state.halfmove_clock,
        fullmove_number: state.fullmove_number,
        check,
        claimable_draw: claimable(state),
        last_turn: state.last.as_ref().map(|last| LastTurnView {
            seat: last.seat,
            notation: last.notation.clone(),
            from: SquareName(last.from),
            to: SquareName(last.to),
            push_from: last.push.map(|p| SquareName(p.0)),
            push_to: last.push.map(|p| SquareName(p.1)),
        }),
        history: state.history.clone(),
        result: state.ending.map(|e| ResultView {
            winner: e.winner,
            reason: e.reason,
        }),
    }
}

/// The view of a game the table ended (see [`crate::engine::Engine::ended_view`]): over,
/// nobody to act, the result the outcome states.
pub fn ended(mut view: View, end: TableEnd, outcome: &Outcome) -> View {
    let reason = match end {
        TableEnd::Resigned => EndReason::Resigned,
        TableEnd::DrawAgreed => EndReason::DrawAgreed,
        TableEnd::TimedOut => EndReason::TimedOut,
        TableEnd::Superseded => EndReason::Superseded,
    };
    let winner = match outcome.winners.as_slice() {
        [winner] if !outcome.draw => Some(*winner),
        _ => None,
    };
    view.side_to_act = None;
    view.seat_to_act = None;
    view.phase = Phase::Over;
    view.claimable_draw = None;
    view.result = Some(ResultView { winner, reason });
    view
}
