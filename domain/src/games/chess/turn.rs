//! The two parts of a turn: the orthodox move (never en passant) and the push of an opponent's
//! pawn, with the losses a push can cause (rules 1 to 4 of "A turn").

use super::position::{piece_attacks, Bits};
use cozy_chess::{BitBoard, Board, Color, Move, Piece, Rank, Square};

/// A push: one of the opponent's pawns one square straight forward onto an empty square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Push {
    pub from: Square,
    pub to: Square,
}

impl Push {
    /// Whether the pushed pawn reaches its last rank (its owner then chooses a piece).
    pub fn promotes(self) -> bool {
        matches!(self.to.rank(), Rank::First | Rank::Eighth)
    }
}

/// Whether an orthodox move is an en passant capture: a pawn moving diagonally onto an empty
/// square. Avalanche Chess has none.
pub fn is_en_passant(board: &Board, mv: Move) -> bool {
    board.piece_on(mv.from) == Some(Piece::Pawn)
        && mv.from.file() != mv.to.file()
        && board.piece_on(mv.to).is_none()
}

/// Calls `visit` with every legal move of the side to move (rule 1: orthodox, no en passant,
/// never leaving the own king attacked). Castling is written king-takes-rook, as in Chess960.
pub fn for_each_move(board: &Board, mut visit: impl FnMut(Move)) {
    board.generate_moves(|moves| {
        for mv in moves {
            if !is_en_passant(board, mv) {
                visit(mv);
            }
        }
        false
    });
}

/// Whether the side to move has any legal move.
pub fn has_move(board: &Board) -> bool {
    let mut any = false;
    board.generate_moves(|moves| {
        any = moves.into_iter().any(|mv| !is_en_passant(board, mv));
        any
    });
    any
}

/// The board after the move part of a turn (the pusher's opponent to move).
pub fn after_move(board: &Board, mv: Move) -> Board {
    let mut after = board.clone();
    after.play_unchecked(mv);
    after
}

/// The squares the owner's pawns may be pushed to: one square forward, onto an empty square.
fn push_targets(pawns: BitBoard, owner: Color, occupied: BitBoard) -> BitBoard {
    let forward = match owner {
        Color::White => pawns.0 << 8,
        Color::Black => pawns.0 >> 8,
    };
    BitBoard(forward) & !occupied
}

fn push_from(to: Square, owner: Color) -> Square {
    match owner {
        Color::White => Square::index(to as usize - 8),
        Color::Black => Square::index(to as usize + 8),
    }
}

/// The pushes the mover may make after moving (rule 2), in square order.
pub fn pushes(bits: &Bits, owner: Color) -> Vec<Push> {
    push_targets(bits.colored(owner, Piece::Pawn), owner, bits.occupied())
        .into_iter()
        .map(|to| Push {
            from: push_from(to, owner),
            to,
        })
        .collect()
}

/// How many pushes there are, without listing them (for perft).
pub fn push_count(board: &Board) -> u32 {
    let owner = board.side_to_move();
    push_targets(
        board.colored_pieces(owner, Piece::Pawn),
        owner,
        board.occupied(),
    )
    .len()
}

/// Rule 3: whether the push leaves the pusher's king attacked (by the pushed pawn, or along a
/// line it opened). The move was legal, so nothing else attacks the king.
pub fn push_loses(bits: &Bits, pusher: Color, push: Push) -> bool {
    let Some(king) = bits.king(pusher) else {
        return false;
    };
    let mut after = *bits;
    let owner = !pusher;
    let step = push.from.bitboard() | push.to.bitboard();
    after.pieces[Piece::Pawn as usize] ^= step;
    after.colors[owner as usize] ^= step;
    !after.attackers(king, owner).is_empty()
}

/// Rule 4: whether the owner's chosen piece on `square` attacks the pusher's king.
pub fn choice_loses(bits: &Bits, pusher: Color, square: Square, piece: Piece) -> bool {
    let Some(king) = bits.king(pusher) else {
        return false;
    };
    piece_attacks(piece, !pusher, square, bits.occupied()).has(king)
}
