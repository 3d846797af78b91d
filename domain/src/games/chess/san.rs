//! Standard Algebraic Notation for the move part of a turn: writing the canonical form, and
//! reading the forms players write (`x` or `:`, `0-0` or `00`, long and UCI forms, missing or
//! wrong capture and check marks), with a reason a player understands when a move is illegal.

use super::position::{
    color_name, piece_attacks, piece_from_letter, piece_letter, piece_name, Bits,
};
use super::turn::for_each_move;
use cozy_chess::{
    get_between_rays, get_line_rays, get_pawn_quiets, BitBoard, Board, File, Move, Piece, Rank,
    Square,
};

/// A side of castling: towards the h-file rook (O-O) or the a-file rook (O-O-O).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Castling {
    Short,
    Long,
}

/// The castling side of a move, when the king moves onto its own rook (cozy-chess and
/// Chess960 write castling king-takes-rook).
pub fn castling(board: &Board, mv: Move) -> Option<Castling> {
    let side = board.side_to_move();
    if board.piece_on(mv.from) == Some(Piece::King) && board.colors(side).has(mv.to) {
        Some(if mv.to.file() > mv.from.file() {
            Castling::Short
        } else {
            Castling::Long
        })
    } else {
        None
    }
}

/// Where the king lands: the g-file after O-O, the c-file after O-O-O, else the move's square.
pub fn king_destination(board: &Board, mv: Move) -> Square {
    match castling(board, mv) {
        Some(Castling::Short) => Square::new(File::G, mv.from.rank()),
        Some(Castling::Long) => Square::new(File::C, mv.from.rank()),
        None => mv.to,
    }
}

/// The canonical SAN of a legal move, without check marks (those describe the position after
/// the push and are added by the caller).
pub fn write(board: &Board, mv: Move) -> String {
    match castling(board, mv) {
        Some(Castling::Short) => return "O-O".into(),
        Some(Castling::Long) => return "O-O-O".into(),
        None => {}
    }
    let Some(piece) = board.piece_on(mv.from) else {
        return move_text(mv);
    };
    let capture = board.piece_on(mv.to).is_some();
    // The longest SAN before its mark: `Qh4xe1` or `exd8=Q`; the caller adds about five more.
    let mut text = String::with_capacity(12);
    if piece == Piece::Pawn {
        if capture {
            text.push(file_char(mv.from.file()));
            text.push('x');
        }
        push_square(&mut text, mv.to);
        if let Some(promotion) = mv.promotion {
            text.push('=');
            text.push(piece_letter(promotion));
        }
        return text;
    }
    text.push(piece_letter(piece));
    if piece != Piece::King {
        let mut rivals = Vec::new();
        let mask = board.pieces(piece) & board.colors(board.side_to_move());
        board.generate_moves_for(mask, |moves| {
            if moves.from != mv.from && moves.to.has(mv.to) {
                rivals.push(moves.from);
            }
            false
        });
        if !rivals.is_empty() {
            if rivals.iter().all(|r| r.file() != mv.from.file()) {
                text.push(file_char(mv.from.file()));
            } else if rivals.iter().all(|r| r.rank() != mv.from.rank()) {
                text.push(rank_char(mv.from.rank()));
            } else {
                push_square(&mut text, mv.from);
            }
        }
    }
    if capture {
        text.push('x');
    }
    push_square(&mut text, mv.to);
    text
}

pub fn file_char(file: File) -> char {
    (b'a' + file as u8) as char
}

/// Appends the square's name (`e4`) to `text`: what `Square`'s `Display` writes, without the
/// formatting machinery (the legal list writes hundreds of them a request).
pub fn push_square(text: &mut String, square: Square) {
    text.push(file_char(square.file()));
    text.push(rank_char(square.rank()));
}

/// The square's name (`e4`).
pub fn square_text(square: Square) -> String {
    let mut text = String::with_capacity(2);
    push_square(&mut text, square);
    text
}

/// The move in the from-square to-square form (`e2e4`, `e7e8q`): what `Move`'s `Display`
/// writes.
pub fn move_text(mv: Move) -> String {
    let mut text = String::with_capacity(5);
    push_square(&mut text, mv.from);
    push_square(&mut text, mv.to);
    if let Some(piece) = mv.promotion {
        text.push(piece_letter(piece).to_ascii_lowercase());
    }
    text
}

pub fn rank_char(rank: Rank) -> char {
    (b'1' + rank as u8) as char
}

/// What a player's move text asks for.
#[derive(Clone, Debug, Default, PartialEq)]
struct Pattern {
    castle: Option<Castling>,
    piece: Option<Piece>,
    from_file: Option<File>,
    from_rank: Option<Rank>,
    to: Option<Square>,
    promotion: Option<Piece>,
}

impl Pattern {
    fn origin(&self) -> Option<Square> {
        Some(Square::new(self.from_file?, self.from_rank?))
    }

    /// The piece asked for: a letter, any piece for a from-square form (`g1f3`), else a pawn.
    fn piece_matches(&self, piece: Piece) -> bool {
        match self.piece {
            Some(p) => p == piece,
            None => self.origin().is_some() || piece == Piece::Pawn,
        }
    }
}

/// Removes annotation glyphs and check or mate marks (they may be missing or wrong).
pub fn strip_marks(text: &str) -> &str {
    text.trim()
        .trim_end_matches(['+', '#', '!', '?'])
        .trim_end()
}

fn parse(text: &str) -> Result<Pattern, String> {
    let cleaned = strip_marks(text);
    let castle: String = cleaned
        .chars()
        .filter(|c| !matches!(c, '-' | ' '))
        .map(|c| {
            if c == '0' {
                'O'
            } else {
                c.to_ascii_uppercase()
            }
        })
        .collect();
    match castle.as_str() {
        "OO" => {
            return Ok(Pattern {
                castle: Some(Castling::Short),
                ..Pattern::default()
            })
        }
        "OOO" => {
            return Ok(Pattern {
                castle: Some(Castling::Long),
                ..Pattern::default()
            })
        }
        _ => {}
    }
    let bad = || format!("\"{}\" is not a move", text.trim());
    let mut chars: Vec<char> = cleaned
        .chars()
        .filter(|c| !matches!(c, 'x' | ':' | '-' | '=' | '(' | ')' | ' ' | '*'))
        .collect();
    let mut pattern = Pattern::default();
    if let Some(&first) = chars.first() {
        if first.is_ascii_uppercase() {
            pattern.piece = Some(piece_from_letter(first).ok_or_else(bad)?);
            chars.remove(0);
        }
    }
    // A trailing piece letter after the destination rank is the promotion (`e8=Q`, `e7e8q`).
    if chars.len() >= 3 {
        if let Some(&last) = chars.last() {
            let before = chars[chars.len() - 2];
            if before.is_ascii_digit() && "QRBNqrbn".contains(last) {
                pattern.promotion = piece_from_letter(last.to_ascii_uppercase());
                chars.pop();
            }
        }
    }
    let file_of = |c: char| {
        ('a'..='h')
            .contains(&c)
            .then(|| File::index(c as usize - 'a' as usize))
    };
    let rank_of = |c: char| {
        ('1'..='8')
            .contains(&c)
            .then(|| Rank::index(c as usize - '1' as usize))
    };
    if chars.len() < 2 || chars.len() > 4 {
        return Err(bad());
    }
    let n = chars.len();
    let to_file = file_of(chars[n - 2]).ok_or_else(bad)?;
    let to_rank = rank_of(chars[n - 1]).ok_or_else(bad)?;
    pattern.to = Some(Square::new(to_file, to_rank));
    for &c in &chars[..n - 2] {
        if let Some(file) = file_of(c) {
            if pattern.from_file.is_some() || pattern.from_rank.is_some() {
                return Err(bad());
            }
            pattern.from_file = Some(file);
        } else if let Some(rank) = rank_of(c) {
            if pattern.from_rank.is_some() {
                return Err(bad());
            }
            pattern.from_rank = Some(rank);
        } else {
            return Err(bad());
        }
    }
    Ok(pattern)
}

fn matches(board: &Board, mv: Move, pattern: &Pattern) -> bool {
    let Some(piece) = board.piece_on(mv.from) else {
        return false;
    };
    if let Some(side) = castling(board, mv) {
        if pattern.castle.is_some() {
            return pattern.castle == Some(side);
        }
        // From-to forms of castling: the king onto its rook (Chess960) or two or more files.
        let Some(to) = pattern.to else { return false };
        let king_to = king_destination(board, mv);
        return pattern.origin() == Some(mv.from)
            && matches!(pattern.piece, None | Some(Piece::King))
            && (to == mv.to
                || (to == king_to && (to.file() as i8 - mv.from.file() as i8).abs() >= 2));
    }
    pattern.castle.is_none()
        && pattern.piece_matches(piece)
        && pattern.to == Some(mv.to)
        && pattern.from_file.is_none_or(|f| f == mv.from.file())
        && pattern.from_rank.is_none_or(|r| r == mv.from.rank())
        && pattern.promotion == mv.promotion
}

/// The legal move a player's text names, or why there is none.
pub fn find(board: &Board, text: &str) -> Result<Move, String> {
    let pattern = parse(text)?;
    let mut found = Vec::new();
    let mut promotions = 0;
    for_each_move(board, |mv| {
        if matches(board, mv, &pattern) {
            found.push(mv);
        } else if mv.promotion.is_some()
            && pattern.promotion.is_none()
            && matches(
                board,
                mv,
                &Pattern {
                    promotion: mv.promotion,
                    ..pattern.clone()
                },
            )
        {
            promotions += 1;
        }
    });
    match found.len() {
        1 => Ok(found[0]),
        0 if promotions > 0 => Err(format!(
            "say which piece the pawn promotes to: {0}=Q, {0}=R, {0}=B or {0}=N",
            text.trim()
        )),
        0 => Err(explain(board, &pattern, strip_marks(text))),
        _ => {
            let named: Vec<String> = found.iter().map(|&mv| write(board, mv)).collect();
            Err(format!(
                "\"{}\" is ambiguous: it may be {}",
                strip_marks(text),
                named.join(" or ")
            ))
        }
    }
}

fn describe(board: &Board, square: Square) -> String {
    match board.piece_on(square) {
        Some(piece) => format!("the {} on {square}", piece_name(piece)),
        None => format!("the square {square}"),
    }
}

/// Why no legal move matches: which piece is pinned, which check is not parried, ...
fn explain(board: &Board, pattern: &Pattern, text: &str) -> String {
    let side = board.side_to_move();
    let king = board.king(side);
    let checkers = board.checkers();
    let check = checkers
        .next_square()
        .map(|c| format!("the king on {king} is in check from {}", describe(board, c)));
    if let Some(castle) = pattern.castle {
        let rights = board.castle_rights(side);
        let (has, name) = match castle {
            Castling::Short => (rights.short.is_some(), "short (O-O)"),
            Castling::Long => (rights.long.is_some(), "long (O-O-O)"),
        };
        return if !has {
            format!(
                "{} may no longer castle {name}: the king or that rook has moved",
                color_name(side)
            )
        } else if let Some(check) = check {
            format!("{check}, and the king may not castle out of check")
        } else {
            format!(
                "castling {name} needs every square between king and rook and their destinations \
                 empty, and the king may not pass through or land on an attacked square"
            )
        };
    }
    let Some(to) = pattern.to else {
        return format!("\"{text}\" is not a move");
    };
    let ours = board.colors(side);
    let occupied = board.occupied();
    let mut candidates: Vec<(Square, Piece)> = Vec::new();
    let mut en_passant = false;
    for from in ours {
        let Some(piece) = board.piece_on(from) else {
            continue;
        };
        if !pattern.piece_matches(piece)
            || pattern.from_file.is_some_and(|f| f != from.file())
            || pattern.from_rank.is_some_and(|r| r != from.rank())
        {
            continue;
        }
        let reach = if piece == Piece::Pawn {
            let attacks = piece_attacks(piece, side, from, occupied);
            if attacks.has(to) && !occupied.has(to) {
                en_passant = true;
            }
            let quiets = get_pawn_quiets(from, side, occupied);
            quiets | (attacks & board.colors(!side))
        } else {
            piece_attacks(piece, side, from, occupied) & !ours
        };
        if reach.has(to) {
            candidates.push((from, piece));
        }
    }
    let Some(&(from, piece)) = candidates.first() else {
        if ours.has(to) {
            return format!(
                "\"{text}\": your own {} stands on {to}",
                describe_piece(board, to)
            );
        }
        if en_passant {
            return format!(
                "\"{text}\": a pawn captures diagonally only onto an enemy piece (there is no en \
                 passant in Avalanche Chess)"
            );
        }
        let which = match (pattern.piece, pattern.origin()) {
            (Some(piece), _) => format!("{} {}", color_name(side), piece_name(piece)),
            (None, Some(from)) => format!("piece of {} on {from}", color_name(side)),
            (None, None) => format!("{} pawn", color_name(side)),
        };
        return format!("\"{text}\": no {which} can move to {to}");
    };
    if piece != Piece::King && board.pinned().has(from) {
        if let Some(pinner) = pinner(board, king, from) {
            return format!(
                "\"{text}\": the {} on {from} is pinned against the king on {king} by {} (a \
                 push can never cover a pin)",
                piece_name(piece),
                describe(board, pinner)
            );
        }
    }
    if piece == Piece::King {
        let mut bits = Bits::of(board);
        bits.pieces[Piece::King as usize] ^= from.bitboard();
        bits.colors[side as usize] ^= from.bitboard();
        if let Some(attacker) = bits.attackers(to, !side).next_square() {
            return format!(
                "\"{text}\": the king would be attacked on {to} by {}",
                describe(board, attacker)
            );
        }
    }
    if let Some(check) = check {
        return format!("\"{text}\": {check}, and this move does not parry it (a push never can)");
    }
    format!("\"{text}\" is not legal here")
}

fn describe_piece(board: &Board, square: Square) -> &'static str {
    board.piece_on(square).map_or("piece", piece_name)
}

/// The enemy slider that pins the piece on `pinned` against `king`.
fn pinner(board: &Board, king: Square, pinned: Square) -> Option<Square> {
    let side = board.side_to_move();
    let line = get_line_rays(king, pinned);
    let mut best: Option<Square> = None;
    for enemy in board.colors(!side) & line {
        let beyond = get_between_rays(king, enemy).has(pinned);
        let clear = (get_between_rays(pinned, enemy) & board.occupied()) == BitBoard::EMPTY;
        if beyond && clear {
            best = Some(enemy);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_and_move_texts_are_what_display_writes() {
        for from in Square::ALL {
            assert_eq!(square_text(from), from.to_string());
            for to in Square::ALL {
                for promotion in [
                    None,
                    Some(Piece::Knight),
                    Some(Piece::Queen),
                    Some(Piece::Rook),
                    Some(Piece::Bishop),
                ] {
                    let mv = Move {
                        from,
                        to,
                        promotion,
                    };
                    assert_eq!(move_text(mv), mv.to_string());
                }
            }
        }
    }
}
