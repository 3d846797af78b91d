//! Perft for Avalanche Chess: the number of legal turns (move plus push) to a given depth,
//! and the orthodox perft of the first part alone, to check move generation against
//! published counts.
//!
//! Counting convention: a turn is one move with one push (or with none when no push is
//! possible or allowed). Every such turn counts once, including a turn whose push leaves the
//! pusher's own king attacked (it is legal and loses at once) and a push that promotes (the
//! owner's choice belongs to the owner's next turn). Below a turn that ended the game nothing
//! more is counted; below a promoting push, each of the owner's four choices that does not
//! lose the game for the pusher continues the count.
//!
//! The published table (160 / 27,488 / 5,077,103 for `standard`, 20 / 3,112 / 577,471 for
//! `balanced`, 160 / 27,488 / 5,089,702 for `reversed`) does not tell these choices apart: no
//! push within three half-turns of the start can attack the pusher's king (counting without
//! the losing turns gives the same numbers) and no pawn can reach its last rank that soon.

use super::position::{Bits, Position};
use super::turn::{after_move, choice_loses, for_each_move, push_count, push_loses, pushes};
use super::variant::Variant;
use cozy_chess::{Board, Piece};

const CHOICES: [Piece; 4] = [Piece::Queen, Piece::Rook, Piece::Bishop, Piece::Knight];

/// The number of Avalanche turns to `depth` from the start position of `variant`.
pub fn perft(variant: Variant, depth: u32) -> u64 {
    match Position::start(variant).board() {
        Some(board) => turns(&board, depth, variant.no_first_push()),
        None => 0,
    }
}

/// The number of Avalanche turns to `depth` from a board; `no_push` when this first turn may
/// not push (White's first turn in `balanced`).
pub fn turns(board: &Board, depth: u32, no_push: bool) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0u64;
    for_each_move(board, |mv| {
        let after = after_move(board, mv);
        if depth == 1 {
            // Every push counts, even one that loses; a move with no push counts once.
            total += if no_push {
                1
            } else {
                u64::from(push_count(&after).max(1))
            };
            return;
        }
        let mut position = Position::from_board(&after);
        let bits = Bits::of(&after);
        let pusher = board.side_to_move();
        let owner = !pusher;
        let possible = if no_push {
            Vec::new()
        } else {
            pushes(&bits, owner)
        };
        if possible.is_empty() {
            if let Some(next) = position.board() {
                total += turns(&next, depth - 1, false);
            }
            return;
        }
        for push in possible {
            if push_loses(&bits, pusher, push) {
                continue;
            }
            position.squares[push.from as usize] = None;
            position.squares[push.to as usize] = Some((Piece::Pawn, owner));
            if push.promotes() {
                let pushed = position.bits();
                for piece in CHOICES {
                    if choice_loses(&pushed, pusher, push.to, piece) {
                        continue;
                    }
                    position.squares[push.to as usize] = Some((piece, owner));
                    if let Some(next) = position.board() {
                        total += turns(&next, depth - 1, false);
                    }
                }
            } else if let Some(next) = position.board() {
                total += turns(&next, depth - 1, false);
            }
            position.squares[push.to as usize] = None;
            position.squares[push.from as usize] = Some((Piece::Pawn, owner));
        }
    });
    total
}

/// Orthodox perft of the first part of a turn alone (no en passant, no push).
pub fn orthodox(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0u64;
    for_each_move(board, |mv| {
        total += if depth == 1 {
            1
        } else {
            orthodox(&after_move(board, mv), depth - 1)
        };
    });
    total
}
