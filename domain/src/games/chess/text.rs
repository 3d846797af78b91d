//! Avalanche Chess as text: the board as a seat sees it (with the side to move and the last
//! moves), each event in words, and a person's text read as one legal command: SAN with
//! case-sensitive piece letters (`B` a bishop, `b` a file), captures `x` or `:`, marks
//! `+ # ! ?` ignored, the push after a slash (`Nf3/a6`, `a7-a6` too), no push written when
//! the move has none (`Ra4`), from-to forms (`e2e4/a6`), and the promotion choice (`Q`,
//! `queen`, `e1=N`).

use super::command::{Command, PromotionPiece};
use super::event::Event;
use super::san;
use super::state::State;
use super::view::{Phase, Side, View};
use crate::engine::{Legal, Seat};
use crate::text::{normalise, or_list, read_notation, seat_label, seat_name, Reading, Unread};

/// How many half-turns the text of a position lists under "Last moves".
const LAST_MOVES: usize = 6;

/// The board, White at the bottom, then whose turn it is, the check, the promotion choice
/// owed, the last moves and the FEN.
pub fn position(view: &View, me: Option<Seat>, names: &[String]) -> String {
    let mut out = String::new();
    for (index, rank) in view.placement.split('/').enumerate() {
        out.push_str(&format!("{} ", 8 - index));
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(empty) => (0..empty).for_each(|_| out.push_str(" .")),
                None => {
                    out.push(' ');
                    out.push(c);
                }
            }
        }
        out.push('\n');
    }
    out.push_str("   a b c d e f g h\n");
    out.push_str("(White: capitals, Black: small letters)\n");
    out.push_str(&format!(
        "White: {}; Black: {}\n",
        seat_label(names, 0, me),
        seat_label(names, 1, me)
    ));
    match (view.phase, view.side_to_act, view.seat_to_act) {
        (Phase::Over, _, _) => {
            if let Some(result) = &view.result {
                let who = match result.winner {
                    Some(seat) => format!("{} won", seat_name(names, seat)),
                    None => "No winner".to_string(),
                };
                out.push_str(&format!("Game over: {who} ({}).\n", result.reason.words()));
            } else {
                out.push_str("Game over.\n");
            }
        }
        (phase, Some(side), Some(seat)) => {
            let side = match side {
                Side::White => "White",
                Side::Black => "Black",
            };
            let what = match (phase, view.pending_promotion) {
                (Phase::PromotionChoice, Some(square)) => {
                    format!("chooses the piece for the pawn pushed to {square}")
                }
                _ => "to move".to_string(),
            };
            let check = if view.check { " (in check)" } else { "" };
            out.push_str(&format!(
                "{side} ({}) {what}{check}.\n",
                seat_name(names, seat)
            ));
        }
        _ => {}
    }
    if !view.history.is_empty() {
        let first = view.history.len().saturating_sub(LAST_MOVES);
        let moves: Vec<String> = view.history[first..]
            .iter()
            .enumerate()
            .map(|(at, half)| {
                let index = first + at;
                let number = index / 2 + 1;
                if index.is_multiple_of(2) {
                    format!("{number}. {half}")
                } else if at == 0 {
                    format!("{number}... {half}")
                } else {
                    half.clone()
                }
            })
            .collect();
        out.push_str(&format!("Last moves: {}\n", moves.join(" ")));
    }
    out.push_str(&format!("FEN: {}\n", view.fen));
    out
}

/// A turn or a promotion choice in its canonical notation, with the side that played it.
pub fn event(event: &Event, names: &[String]) -> Option<String> {
    match event {
        Event::TurnPlayed { seat, notation, .. } => {
            Some(format!("{} played {notation}", seat_name(names, *seat)))
        }
        Event::PromotionChosen { seat, notation, .. } => Some(format!(
            "{} chose the promotion: {notation}",
            seat_name(names, *seat)
        )),
        Event::GameEnded { reason, .. } => Some(format!("The game ended: {}", reason.words())),
    }
}

/// A person's text as one of `seat`'s legal commands (see the module's first lines).
pub fn read(state: &State, seat: Seat, text: &str) -> Reading<Command> {
    if state.seat_to_act() != Some(seat) {
        return Err(Unread::new("You have nothing to play now.", Vec::new()));
    }
    let plain = normalise(text);
    if state.pending.is_some() {
        return read_choice(&super::legal::legal(state, seat), &plain);
    }
    if plain.to_lowercase().starts_with("claim") {
        let legal = super::legal::legal(state, seat);
        let claims: Vec<Legal<Command>> = legal
            .iter()
            .filter(|l| l.command == Command::ClaimDraw)
            .cloned()
            .collect();
        return read_notation(&claims, &plain).map_err(|_| {
            Unread::new(
                "No draw may be claimed now (threefold repetition or the fifty-move rule).",
                Vec::new(),
            )
        });
    }
    read_turn(state, seat, &plain)
}

/// The piece for a pawn promoted by the opponent's push: a letter, a word, or `e1=N`.
fn read_choice(legal: &[Legal<Command>], plain: &str) -> Reading<Command> {
    let word = san::strip_marks(plain)
        .rsplit(['=', ' '])
        .next()
        .unwrap_or("")
        .to_lowercase();
    let piece = PromotionPiece::ALL.into_iter().find(|piece| {
        let name = match piece {
            PromotionPiece::Queen => "queen",
            PromotionPiece::Rook => "rook",
            PromotionPiece::Bishop => "bishop",
            PromotionPiece::Knight => "knight",
        };
        word == name || word == piece.letter().to_ascii_lowercase().to_string()
    });
    piece
        .and_then(|piece| {
            legal
                .iter()
                .find(|l| l.command == Command::Promote { piece })
                .cloned()
        })
        .ok_or_else(|| {
            Unread::new(
                format!(
                    "\"{plain}\" is not a piece: choose the promoted pawn's piece, {}.",
                    or_list(legal)
                ),
                legal.to_vec(),
            )
        })
}

/// A move and its push: `Nf3/a6`, `Nf3 a6`, `Nf3/a7-a6`, `Ra4` (no push possible),
/// `e2e4/a6`.
fn read_turn(state: &State, seat: Seat, plain: &str) -> Reading<Command> {
    let Some(board) = state.position.board() else {
        return Err(Unread::new("The position has no board.", Vec::new()));
    };
    let (move_text, push_text) = split_turn(plain);
    if move_text.is_empty() {
        let legal = super::legal::legal(state, seat);
        return Err(Unread::new(
            "Write a move, then a slash and the push: Nf3/a6.",
            legal.iter().take(crate::text::NEAREST).cloned().collect(),
        ));
    }
    let mv = san::find(&board, move_text).map_err(|why| {
        Unread::new(
            format!("{}.", capitalised(&why)),
            nearest_turns(&super::legal::legal(state, seat), move_text),
        )
    })?;
    let legal = super::legal::legal_of(state, seat, Some(mv));
    let turns: Vec<&Legal<Command>> = legal.iter().collect();
    let push = push_text.map(san::strip_marks).unwrap_or("");
    if push.is_empty() {
        return match turns.as_slice() {
            [one] => Ok((*one).clone()),
            _ => Err(Unread::ambiguous(
                format!(
                    "Say which pawn {} pushes after {}: {}.",
                    "your move",
                    san::write(&board, mv),
                    or_list(&owned(&turns))
                ),
                owned(&turns),
            )),
        };
    }
    // `a7-a6` or `a7a6` names the pushed pawn's way; its last square is the push.
    let square: String = push.chars().filter(|c| !matches!(c, '-' | ' ')).collect();
    let to = square.get(square.len().saturating_sub(2)..).unwrap_or("");
    turns
        .iter()
        .find(|l| matches!(&l.command, Command::Turn { push: Some(p), .. } if p == to))
        .map(|l| (*l).clone())
        .ok_or_else(|| {
            Unread::new(
                format!(
                    "After {} no pawn may be pushed to \"{push}\": {}.",
                    san::write(&board, mv),
                    or_list(&owned(&turns))
                ),
                owned(&turns),
            )
        })
}

/// The move and the push of a turn's text: split at the first slash, else at a space.
fn split_turn(plain: &str) -> (&str, Option<&str>) {
    if let Some((mv, push)) = plain.split_once('/') {
        // `Ra4//` says "no push" with a second slash.
        return (mv.trim(), Some(push.trim().trim_matches('/').trim()));
    }
    match plain.split_once(' ') {
        Some((mv, push)) if looks_like_push(push.trim()) => (mv.trim(), Some(push.trim())),
        _ => (plain.trim(), None),
    }
}

/// Whether a word after a move is a push (`a6`, `a7-a6`, with marks) rather than more of a
/// move (`O - O`).
fn looks_like_push(text: &str) -> bool {
    let text: Vec<char> = san::strip_marks(text)
        .chars()
        .filter(|c| *c != '-')
        .collect();
    let square = |c: &[char]| matches!(c, ['a'..='h', '1'..='8']);
    (text.len() == 2 && square(&text))
        || (text.len() == 4 && square(&text[..2]) && square(&text[2..]))
}

/// The turns whose notation begins like the text's move (the same piece or square).
fn nearest_turns(legal: &[Legal<Command>], move_text: &str) -> Vec<Legal<Command>> {
    let first = move_text.chars().next();
    let same: Vec<Legal<Command>> = legal
        .iter()
        .filter(|l| l.notation.chars().next() == first)
        .take(crate::text::NEAREST)
        .cloned()
        .collect();
    if same.is_empty() {
        legal.iter().take(crate::text::NEAREST).cloned().collect()
    } else {
        same
    }
}

fn owned(turns: &[&Legal<Command>]) -> Vec<Legal<Command>> {
    turns.iter().map(|l| (*l).clone()).collect()
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
