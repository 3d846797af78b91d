//! The position between turns: where the pieces stand, whose move it is and the castling
//! rights; read and written as FEN, turned into a `cozy_chess::Board` for move generation.

use super::variant::Variant;
use cozy_chess::{
    get_bishop_moves, get_king_moves, get_knight_moves, get_pawn_attacks, get_rook_moves, BitBoard,
    Board, BoardBuilder, CastleRights, Color, File, Piece, Rank, Square,
};

/// A placement with the side to move and the castling rights: what repetition compares.
/// A pawn may stand on its last rank while its owner's promotion choice is owed, which a
/// `cozy_chess::Board` cannot hold, so the placement is kept here square by square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub squares: [Option<(Piece, Color)>; 64],
    pub side: Color,
    pub castling: [CastleRights; 2],
}

/// The placement as bitboards, for attack tests.
#[derive(Clone, Copy, Debug)]
pub struct Bits {
    pub pieces: [BitBoard; 6],
    pub colors: [BitBoard; 2],
}

impl Bits {
    pub fn of(board: &Board) -> Bits {
        Bits {
            pieces: Piece::ALL.map(|p| board.pieces(p)),
            colors: Color::ALL.map(|c| board.colors(c)),
        }
    }

    pub fn occupied(&self) -> BitBoard {
        self.colors[0] | self.colors[1]
    }

    pub fn colored(&self, color: Color, piece: Piece) -> BitBoard {
        self.colors[color as usize] & self.pieces[piece as usize]
    }

    /// The pieces of `by` that attack `square`.
    pub fn attackers(&self, square: Square, by: Color) -> BitBoard {
        let occupied = self.occupied();
        let theirs = self.colors[by as usize];
        let p = |piece: Piece| self.pieces[piece as usize];
        theirs
            & ((get_rook_moves(square, occupied) & (p(Piece::Rook) | p(Piece::Queen)))
                | (get_bishop_moves(square, occupied) & (p(Piece::Bishop) | p(Piece::Queen)))
                | (get_knight_moves(square) & p(Piece::Knight))
                | (get_king_moves(square) & p(Piece::King))
                | (get_pawn_attacks(square, !by) & p(Piece::Pawn)))
    }

    pub fn king(&self, color: Color) -> Option<Square> {
        self.colored(color, Piece::King).next_square()
    }
}

/// The squares a piece of this kind on `from` attacks over `occupied`.
pub fn piece_attacks(piece: Piece, color: Color, from: Square, occupied: BitBoard) -> BitBoard {
    match piece {
        Piece::Pawn => get_pawn_attacks(from, color),
        Piece::Knight => get_knight_moves(from),
        Piece::Bishop => get_bishop_moves(from, occupied),
        Piece::Rook => get_rook_moves(from, occupied),
        Piece::Queen => get_bishop_moves(from, occupied) | get_rook_moves(from, occupied),
        Piece::King => get_king_moves(from),
    }
}

impl Position {
    /// The start position of a variant, White to move, every castling right.
    pub fn start(variant: Variant) -> Position {
        let fen = format!("{} w KQkq - 0 1", variant.start_placement());
        // The start placements are fixed strings that parse.
        Position::from_fen(&fen).unwrap_or_else(|_| Position::from_board(&Board::default()))
    }

    pub fn from_board(board: &Board) -> Position {
        let mut squares = [None; 64];
        for square in board.occupied() {
            if let (Some(piece), Some(color)) = (board.piece_on(square), board.color_on(square)) {
                squares[square as usize] = Some((piece, color));
            }
        }
        Position {
            squares,
            side: board.side_to_move(),
            castling: Color::ALL.map(|c| *board.castle_rights(c)),
        }
    }

    /// The board for move generation, never with an en passant square (there is no en
    /// passant in Avalanche Chess). `None` when the placement is not a position cozy-chess
    /// accepts (a pawn on its last rank, the side not to move in check).
    pub fn board(&self) -> Option<Board> {
        let mut builder = BoardBuilder::empty();
        builder.board = self.squares;
        builder.side_to_move = self.side;
        builder.castle_rights = self.castling;
        builder.en_passant = None;
        builder.halfmove_clock = 0;
        builder.fullmove_number = 1;
        builder.build().ok()
    }

    pub fn bits(&self) -> Bits {
        let mut bits = Bits {
            pieces: [BitBoard::EMPTY; 6],
            colors: [BitBoard::EMPTY; 2],
        };
        for (index, entry) in self.squares.iter().enumerate() {
            if let (Some((piece, color)), Some(square)) = (entry, Square::try_index(index)) {
                bits.pieces[*piece as usize] |= square.bitboard();
                bits.colors[*color as usize] |= square.bitboard();
            }
        }
        bits
    }

    pub fn piece_on(&self, square: Square) -> Option<(Piece, Color)> {
        self.squares[square as usize]
    }

    /// Reads a FEN (placement, side, castling; the rest is optional and ignored here).
    /// Castling is `KQkq` (the outermost rook on each side of the king), Shredder-style file
    /// letters, or `-`.
    pub fn from_fen(fen: &str) -> Result<Position, String> {
        let mut fields = fen.split_whitespace();
        let placement = fields.next().ok_or("the FEN is empty")?;
        let mut squares = [None; 64];
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 8 {
            return Err(format!(
                "the placement \"{placement}\" does not have 8 ranks"
            ));
        }
        for (row, text) in ranks.iter().enumerate() {
            let rank = Rank::index(7 - row);
            let mut file = 0usize;
            for c in text.chars() {
                if let Some(skip) = c.to_digit(10) {
                    file += skip as usize;
                    continue;
                }
                let piece = piece_from_letter(c.to_ascii_uppercase())
                    .ok_or_else(|| format!("\"{c}\" is not a piece"))?;
                let color = if c.is_ascii_uppercase() {
                    Color::White
                } else {
                    Color::Black
                };
                let f =
                    File::try_index(file).ok_or_else(|| format!("rank \"{text}\" is too long"))?;
                squares[Square::new(f, rank) as usize] = Some((piece, color));
                file += 1;
            }
            if file != 8 {
                return Err(format!("rank \"{text}\" does not have 8 squares"));
            }
        }
        let side = match fields.next().unwrap_or("w") {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(format!("\"{other}\" is not a side to move")),
        };
        let mut position = Position {
            squares,
            side,
            castling: [CastleRights::EMPTY; 2],
        };
        for c in fields.next().unwrap_or("-").chars().filter(|&c| c != '-') {
            let color = if c.is_ascii_uppercase() {
                Color::White
            } else {
                Color::Black
            };
            let back = Rank::First.relative_to(color);
            let king = position
                .bits()
                .king(color)
                .filter(|k| k.rank() == back)
                .ok_or_else(|| format!("castling \"{c}\" without a king on its first rank"))?;
            let rooks: Vec<File> = File::ALL
                .into_iter()
                .filter(|&f| position.piece_on(Square::new(f, back)) == Some((Piece::Rook, color)))
                .collect();
            let upper = c.to_ascii_uppercase();
            let rook = match upper {
                'K' => rooks.iter().copied().filter(|&f| f > king.file()).max(),
                'Q' => rooks.iter().copied().filter(|&f| f < king.file()).min(),
                'A'..='H' => File::try_index(upper as usize - 'A' as usize),
                _ => None,
            }
            .ok_or_else(|| format!("castling right \"{c}\" has no rook"))?;
            let rights = &mut position.castling[color as usize];
            if rook > king.file() {
                rights.short = Some(rook);
            } else {
                rights.long = Some(rook);
            }
        }
        Ok(position)
    }

    /// The FEN placement field. A pawn awaiting its owner's choice shows on its last rank.
    pub fn placement(&self) -> String {
        let mut text = String::new();
        for row in 0..8 {
            let rank = Rank::index(7 - row);
            let mut empty = 0;
            for file in File::ALL {
                match self.piece_on(Square::new(file, rank)) {
                    None => empty += 1,
                    Some((piece, color)) => {
                        if empty > 0 {
                            text.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let letter = piece_letter(piece);
                        text.push(if color == Color::White {
                            letter
                        } else {
                            letter.to_ascii_lowercase()
                        });
                    }
                }
            }
            if empty > 0 {
                text.push_str(&empty.to_string());
            }
            if row < 7 {
                text.push('/');
            }
        }
        text
    }

    /// The FEN castling field: `KQkq` letters (the rooks stand on the a and h files in every
    /// variant), `-` when none.
    pub fn castling_text(&self) -> String {
        let mut text = String::new();
        for color in Color::ALL {
            let rights = self.castling[color as usize];
            let mut add = |c: char| {
                text.push(if color == Color::White {
                    c
                } else {
                    c.to_ascii_lowercase()
                })
            };
            if rights.short.is_some() {
                add('K');
            }
            if rights.long.is_some() {
                add('Q');
            }
        }
        if text.is_empty() {
            text.push('-');
        }
        text
    }

    /// A FEN with the clocks given; never an en passant square.
    pub fn fen(&self, halfmove_clock: u32, fullmove_number: u32) -> String {
        format!(
            "{} {} {} - {halfmove_clock} {fullmove_number}",
            self.placement(),
            if self.side == Color::White { 'w' } else { 'b' },
            self.castling_text()
        )
    }
}

/// The SAN letter of a piece (`P` for a pawn, which SAN does not write).
pub fn piece_letter(piece: Piece) -> char {
    match piece {
        Piece::Pawn => 'P',
        Piece::Knight => 'N',
        Piece::Bishop => 'B',
        Piece::Rook => 'R',
        Piece::Queen => 'Q',
        Piece::King => 'K',
    }
}

pub fn piece_from_letter(letter: char) -> Option<Piece> {
    Some(match letter {
        'P' => Piece::Pawn,
        'N' => Piece::Knight,
        'B' => Piece::Bishop,
        'R' => Piece::Rook,
        'Q' => Piece::Queen,
        'K' => Piece::King,
        _ => return None,
    })
}

/// The name of a piece in a sentence.
pub fn piece_name(piece: Piece) -> &'static str {
    match piece {
        Piece::Pawn => "pawn",
        Piece::Knight => "knight",
        Piece::Bishop => "bishop",
        Piece::Rook => "rook",
        Piece::Queen => "queen",
        Piece::King => "king",
    }
}

pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}
