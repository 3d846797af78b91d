//! Every legal command of the seat to act, with its notation (`Nf3/a6`, `e4//`, `Bc4/e1`),
//! so that a client can offer exactly the legal turns. A turn's `move` is written from-to
//! (`g1f3`, `e7e8q`, castling as the king onto its rook, `e1h1`): a board can group the
//! offered turns by the squares clicked without knowing how the pieces move, and the notation
//! beside it gives the canonical text.

use super::command::{Command, PromotionPiece};
use super::decide::{half_turn, mark_of, possible_pushes};
use super::ending::claimable;
use super::event::EndReason;
use super::position::{Bits, Position};
use super::san;
use super::state::State;
use super::turn::{after_move, for_each_move, push_loses};
use crate::engine::{Consequence, Legal, Seat};
use cozy_chess::{Move, Piece};

pub fn legal(state: &State, seat: Seat) -> Vec<Legal<Command>> {
    legal_of(state, seat, None)
}

/// The legal turns of one move (with every push it allows), or every legal command when
/// `only` is `None`: a reader that found the move need not write every other turn.
pub fn legal_of(state: &State, seat: Seat, only: Option<Move>) -> Vec<Legal<Command>> {
    if state.seat_to_act() != Some(seat) {
        return Vec::new();
    }
    if let Some(pending) = state.pending {
        return PromotionPiece::ALL
            .into_iter()
            .map(|piece| {
                Legal::new(
                    Command::Promote { piece },
                    format!("{}={}", pending.square, piece.letter()),
                )
            })
            .collect();
    }
    let Some(board) = state.position.board() else {
        return Vec::new();
    };
    let pusher = state.position.side;
    let owner = !pusher;
    let mut all = Vec::new();
    for_each_move(&board, |mv| {
        if only.is_some_and(|only| only != mv) {
            return;
        }
        let san = san::write(&board, mv);
        let from_to = san::move_text(mv);
        let after = after_move(&board, mv);
        let bits = Bits::of(&after);
        // The position a turn leaves, as a board, only when a mate must be looked for.
        let position = || Position::from_board(&after);
        let possible = possible_pushes(state, &bits);
        if possible.is_empty() {
            let mark = mark_of(&bits, owner, false, false, || position().board());
            let turn = Legal::new(
                Command::Turn {
                    mv: from_to.clone(),
                    push: None,
                },
                half_turn(&san, None, mark),
            );
            all.push(match consequence(false, mark) {
                Some(consequence) => turn.with_consequence(consequence),
                None => turn,
            });
        }
        for push in possible {
            let lost = push_loses(&bits, pusher, push);
            let mut pushed = bits;
            let step = push.from.bitboard() | push.to.bitboard();
            pushed.pieces[Piece::Pawn as usize] ^= step;
            pushed.colors[owner as usize] ^= step;
            let mark = mark_of(&pushed, owner, lost, push.promotes(), || {
                let mut position = position();
                position.squares[push.from as usize] = None;
                position.squares[push.to as usize] = Some((Piece::Pawn, owner));
                position.board()
            });
            let turn = Legal::new(
                Command::Turn {
                    mv: from_to.clone(),
                    push: Some(san::square_text(push.to)),
                },
                half_turn(&san, Some(push), mark),
            );
            all.push(match consequence(lost, mark) {
                Some(consequence) => turn.with_consequence(consequence),
                None => turn,
            });
        }
    });
    if let (None, Some(reason)) = (only, claimable(state)) {
        let why = match reason {
            EndReason::ThreefoldRepetitionClaimed => "threefold repetition",
            _ => "fifty-move rule",
        };
        all.push(Legal::new(
            Command::ClaimDraw,
            format!("claim a draw ({why})"),
        ));
    }
    all
}

/// What a turn does beyond its notation: a push that leaves the pusher's own king attacked
/// loses at once; a mate wins.
fn consequence(lost: bool, mark: &str) -> Option<Consequence> {
    if lost {
        Some(Consequence::loses(
            "loses at once: your push attacks your own king",
        ))
    } else if mark == "#" {
        Some(Consequence::says("wins: checkmate"))
    } else {
        None
    }
}
