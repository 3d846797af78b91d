//! Deciding a command: checks it against the rules and returns the events it causes, with
//! the end of the game when the rules impose one.

use super::command::{Command, PromotionPiece};
use super::ending::{automatic_end, claimable};
use super::event::{CastlingSide, EndReason, Event, PushMade};
use super::position::{color_name, Bits, Position};
use super::san::{self, strip_marks, Castling};
use super::square::SquareName;
use super::state::{color_of, seat_of, State};
use super::turn::{after_move, choice_loses, has_move, push_loses, pushes, Push};
use crate::engine::{RuleError, Seat};
use cozy_chess::{Color, Move};

pub fn decide(state: &State, seat: Seat, command: &Command) -> Result<Vec<Event>, RuleError> {
    if state.ending.is_some() {
        return Err(RuleError::game_over());
    }
    if color_of(seat).is_none() {
        return Err(RuleError::bad_command(format!(
            "Avalanche Chess has seats 0 (White) and 1 (Black), not {seat}."
        )));
    }
    if Some(seat) != state.seat_to_act() {
        return Err(match state.pending {
            Some(pending) => RuleError::new(
                crate::engine::ErrorCode::NotYourTurn,
                format!(
                    "It is not your turn: {} chooses the piece for the pawn on {} first.",
                    color_name(state.position.side),
                    pending.square
                ),
            ),
            None => RuleError::not_your_turn(),
        });
    }
    match command {
        Command::Turn { mv, push } => {
            if let Some(pending) = state.pending {
                return Err(RuleError::illegal(format!(
                    "First choose the piece for your pawn on {} (queen, rook, bishop or knight).",
                    pending.square
                )));
            }
            let board = state
                .position
                .board()
                .ok_or_else(|| RuleError::illegal("This position allows no move."))?;
            let mv =
                san::find(&board, mv).map_err(|reason| RuleError::illegal(capital(&reason)))?;
            let push =
                resolve_push(state, &board, mv, push.as_deref()).map_err(RuleError::illegal)?;
            Ok(turn_events(state, mv, push))
        }
        Command::Promote { piece } => {
            let Some(pending) = state.pending else {
                return Err(RuleError::illegal("No promotion choice is owed now."));
            };
            Ok(promotion_events(state, pending.square, *piece))
        }
        Command::ClaimDraw => match claimable(state) {
            Some(reason) => Ok(vec![Event::GameEnded {
                winner: None,
                reason,
            }]),
            None => Err(RuleError::illegal(
                "A draw may be claimed only when the position has occurred three times or after \
                 fifty moves by each side without capture, pawn move or push.",
            )),
        },
    }
}

fn capital(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => {
            let mut s: String = first.to_uppercase().collect();
            s.push_str(chars.as_str());
            if !s.ends_with('.') && !s.ends_with(')') {
                s.push('.');
            }
            s
        }
        None => String::new(),
    }
}

/// The pushes possible after `mv` (none on White's first turn in `balanced`).
pub fn possible_pushes(state: &State, after: &Bits) -> Vec<Push> {
    if state.push_forbidden() {
        Vec::new()
    } else {
        pushes(after, !state.position.side)
    }
}

fn list(pushes: &[Push]) -> String {
    let names: Vec<String> = pushes.iter().map(|p| p.to.to_string()).collect();
    names.join(", ")
}

/// Reads the push a player wrote (`a6`, `a7-a6`, none) against the pushes possible.
pub fn resolve_push(
    state: &State,
    board: &cozy_chess::Board,
    mv: Move,
    text: Option<&str>,
) -> Result<Option<Push>, String> {
    let after = after_move(board, mv);
    let possible = possible_pushes(state, &Bits::of(&after));
    let owner = color_name(!state.position.side);
    let text = text
        .map(strip_marks)
        .filter(|t| !t.is_empty() && *t != "/" && *t != "-");
    let Some(text) = text else {
        if possible.is_empty() {
            return Ok(None);
        }
        return Err(format!(
            "A push is obligatory: push one of {owner}'s pawns to {}.",
            list(&possible)
        ));
    };
    if possible.is_empty() {
        return Err(if state.push_forbidden() {
            "White's first turn has no push in Balanced Avalanche Chess.".into()
        } else {
            format!("No pawn of {owner} can be pushed, so this turn has no push.")
        });
    }
    let squares: String = text.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    let square = |t: &str| t.parse::<cozy_chess::Square>().ok();
    let parsed = match squares.len() {
        2 => square(&squares).map(|to| (None, to)),
        4 => match (square(&squares[..2]), square(&squares[2..])) {
            (Some(from), Some(to)) => Some((Some(from), to)),
            _ => None,
        },
        _ => None,
    };
    let Some((from, to)) = parsed else {
        return Err(format!(
            "\"{text}\" is not a push (write the square, as a6)."
        ));
    };
    possible
        .iter()
        .copied()
        .find(|p| p.to == to && from.is_none_or(|f| f == p.from))
        .ok_or_else(|| {
            format!(
                "No pawn of {owner} can be pushed to {to}: the pushes possible are {}.",
                list(&possible)
            )
        })
        .map(Some)
}

/// The canonical half-turn notation: SAN, then `/` and the push square or `//`, then the mark.
pub fn half_turn(san: &str, push: Option<Push>, mark: &str) -> String {
    let mut text = String::with_capacity(san.len() + 3 + mark.len());
    text.push_str(san);
    text.push('/');
    match push {
        Some(push) => super::san::push_square(&mut text, push.to),
        None => text.push('/'),
    }
    text.push_str(mark);
    text
}

/// The check mark of the position where `side` is to act: `+`, `#`, or nothing. A game that
/// just ended by a push or a choice is never marked mate.
pub fn mark(position: &Position, side: Color, lost: bool, pending: bool) -> &'static str {
    mark_of(&position.bits(), side, lost, pending, || position.board())
}

/// [`mark`] from the position's bitboards: `board` (the position as [`Position::board`]
/// gives it) is asked for only when `side` is in check and may be mated, which spares the
/// legal list a board for each of its hundreds of turns.
pub fn mark_of(
    bits: &Bits,
    side: Color,
    lost: bool,
    pending: bool,
    board: impl FnOnce() -> Option<cozy_chess::Board>,
) -> &'static str {
    let Some(king) = bits.king(side) else {
        return "";
    };
    if bits.attackers(king, !side).is_empty() {
        return "";
    }
    if lost || pending {
        return "+";
    }
    match board() {
        Some(board) if !has_move(&board) => "#",
        _ => "+",
    }
}

/// The events of a turn: the turn, then the end of the game if the rules impose one.
pub fn turn_events(state: &State, mv: Move, push: Option<Push>) -> Vec<Event> {
    let Some(board) = state.position.board() else {
        return Vec::new();
    };
    let pusher = state.position.side;
    let san = san::write(&board, mv);
    let castling = san::castling(&board, mv).map(|c| match c {
        Castling::Short => CastlingSide::Short,
        Castling::Long => CastlingSide::Long,
    });
    let mut event = Event::TurnPlayed {
        seat: seat_of(pusher),
        san: san.clone(),
        from: SquareName(mv.from),
        to: SquareName(san::king_destination(&board, mv)),
        castling,
        promotion: mv.promotion.and_then(PromotionPiece::from_piece),
        push: push.map(|p| PushMade {
            from: SquareName(p.from),
            to: SquareName(p.to),
        }),
        notation: String::new(),
    };
    let after = Bits::of(&after_move(&board, mv));
    let lost = push.is_some_and(|p| push_loses(&after, pusher, p));
    let mut next = state.lookahead();
    next.evolve(&event);
    let text = half_turn(
        &san,
        push,
        mark(&next.position, !pusher, lost, next.pending.is_some()),
    );
    if let Event::TurnPlayed { notation, .. } = &mut event {
        *notation = text;
    }
    let mut events = vec![event];
    if lost {
        events.push(Event::GameEnded {
            winner: Some(seat_of(!pusher)),
            reason: EndReason::LossByPush,
        });
    } else if let Some(end) = automatic_end(&next) {
        events.push(Event::GameEnded {
            winner: end.winner,
            reason: end.reason,
        });
    }
    events
}

/// The events of the owner's promotion choice.
pub fn promotion_events(
    state: &State,
    square: cozy_chess::Square,
    piece: PromotionPiece,
) -> Vec<Event> {
    let owner = state.position.side;
    let pusher = !owner;
    let mut next = state.lookahead();
    next.position.squares[square as usize] = Some((piece.piece(), owner));
    next.pending = None;
    let lost = choice_loses(&next.position.bits(), pusher, square, piece.piece());
    let base = state
        .history
        .last()
        .map(|n| n.trim_end_matches(['+', '#']).to_string())
        .unwrap_or_default();
    let notation = format!(
        "{base}={}{}",
        piece.letter(),
        mark(&next.position, owner, lost, false)
    );
    let event = Event::PromotionChosen {
        seat: seat_of(owner),
        square: SquareName(square),
        piece,
        notation,
    };
    let mut next = state.lookahead();
    next.evolve(&event);
    let mut events = vec![event];
    if lost {
        events.push(Event::GameEnded {
            winner: Some(seat_of(owner)),
            reason: EndReason::LossByPromotion,
        });
    } else if let Some(end) = automatic_end(&next) {
        events.push(Event::GameEnded {
            winner: end.winner,
            reason: end.reason,
        });
    }
    events
}
