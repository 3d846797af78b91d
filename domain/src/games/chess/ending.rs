//! The end of the game by the rules: checkmate, stalemate, the automatic draws (fivefold
//! repetition, seventy-five moves, insufficient material) and the draws a player may claim.

use super::event::EndReason;
use super::position::Position;
use super::state::{seat_of, Ending, State};
use super::turn::has_move;
use cozy_chess::{BitBoard, Color, Piece};

/// The end the rules impose now that the side to move is about to move (no choice pending).
pub fn automatic_end(state: &State) -> Option<Ending> {
    if state.pending.is_some() {
        return None;
    }
    let board = state.position.board()?;
    let side = board.side_to_move();
    if !has_move(&board) {
        return Some(if board.checkers().is_empty() {
            Ending {
                winner: None,
                reason: EndReason::Stalemate,
            }
        } else {
            Ending {
                winner: Some(seat_of(!side)),
                reason: EndReason::Checkmate,
            }
        });
    }
    let draw = |reason| {
        Some(Ending {
            winner: None,
            reason,
        })
    };
    if insufficient_material(&state.position) {
        return draw(EndReason::InsufficientMaterial);
    }
    if state.repetitions() >= 5 {
        return draw(EndReason::FivefoldRepetition);
    }
    if state.halfmove_clock >= 150 {
        return draw(EndReason::SeventyFiveMoves);
    }
    None
}

/// The draw the side to move may claim now: threefold repetition, then the fifty-move rule.
pub fn claimable(state: &State) -> Option<EndReason> {
    if state.ending.is_some() || state.pending.is_some() {
        return None;
    }
    if state.repetitions() >= 3 {
        Some(EndReason::ThreefoldRepetitionClaimed)
    } else if state.halfmove_clock >= 100 {
        Some(EndReason::FiftyMovesClaimed)
    } else {
        None
    }
}

/// Neither side has a pawn and the material cannot mate: K v K, K+B v K, K+N v K, or K+B v
/// K+B with bishops on squares of the same colour.
pub fn insufficient_material(position: &Position) -> bool {
    let bits = position.bits();
    let others = bits.occupied() & !bits.pieces[Piece::King as usize];
    if !bits.pieces[Piece::Pawn as usize].is_empty() {
        return false;
    }
    let minors = bits.pieces[Piece::Bishop as usize] | bits.pieces[Piece::Knight as usize];
    match others.len() {
        0 => true,
        1 => others == minors,
        2 => {
            let bishops = bits.pieces[Piece::Bishop as usize];
            let one_each = !(bishops & bits.colors[Color::White as usize]).is_empty()
                && !(bishops & bits.colors[Color::Black as usize]).is_empty();
            let same_colour = (bishops & BitBoard::DARK_SQUARES) == bishops
                || (bishops & BitBoard::LIGHT_SQUARES) == bishops;
            others == bishops && one_each && same_colour
        }
        _ => false,
    }
}
