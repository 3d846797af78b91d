//! The state of a game and how each event changes it (the fold).

use super::command::PromotionPiece;
use super::event::{CastlingSide, EndReason, Event};
use super::position::Position;
use super::turn::after_move;
use super::variant::Variant;
use crate::engine::Seat;
use cozy_chess::{Color, File, Move, Piece, Square};

/// A pawn pushed onto its last rank, waiting for its owner's choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    pub square: Square,
    /// The seat that pushed it (it loses if the chosen piece attacks its king).
    pub pusher: Seat,
}

/// How the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    pub winner: Option<Seat>,
    pub reason: EndReason,
}

/// The last turn, for the view.
#[derive(Clone, Debug, PartialEq)]
pub struct LastTurn {
    pub seat: Seat,
    pub notation: String,
    pub from: Square,
    pub to: Square,
    pub push: Option<(Square, Square)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub variant: Variant,
    /// The pieces, the side to act (the owner while a choice is pending) and castling rights.
    pub position: Position,
    pub pending: Option<Pending>,
    /// Half-moves since the last capture, pawn move or push.
    pub halfmove_clock: u32,
    pub fullmove_number: u32,
    /// Half-turns played so far.
    pub half_turns: u32,
    /// The positions (with side to move and castling rights) since the last capture, pawn
    /// move or push, the current one last: earlier ones can never recur.
    pub since_reset: Vec<Position>,
    pub last: Option<LastTurn>,
    /// Every half-turn in canonical notation.
    pub history: Vec<String>,
    pub ending: Option<Ending>,
}

/// The seat of a colour: White sits at seat 0, Black at seat 1.
pub fn seat_of(color: Color) -> Seat {
    match color {
        Color::White => 0,
        Color::Black => 1,
    }
}

pub fn color_of(seat: Seat) -> Option<Color> {
    match seat {
        0 => Some(Color::White),
        1 => Some(Color::Black),
        _ => None,
    }
}

impl State {
    pub fn new(variant: Variant) -> State {
        State::from_position(variant, Position::start(variant), 0, 1)
    }

    /// A game that begins from a given position (for analysis and tests).
    pub fn from_position(
        variant: Variant,
        position: Position,
        halfmove_clock: u32,
        fullmove_number: u32,
    ) -> State {
        State {
            variant,
            position,
            pending: None,
            halfmove_clock,
            fullmove_number,
            half_turns: 0,
            since_reset: vec![position],
            last: None,
            history: Vec::new(),
            ending: None,
        }
    }

    /// A game from a FEN (placement, side, castling, clocks).
    pub fn from_fen(variant: Variant, fen: &str) -> Result<State, String> {
        let position = Position::from_fen(fen)?;
        position
            .board()
            .ok_or_else(|| format!("\"{fen}\" is not a legal position"))?;
        let mut fields = fen.split_whitespace().skip(4);
        let halfmove = fields.next().and_then(|f| f.parse().ok()).unwrap_or(0);
        let fullmove = fields.next().and_then(|f| f.parse().ok()).unwrap_or(1);
        Ok(State::from_position(variant, position, halfmove, fullmove))
    }

    /// Whether this is White's first turn of a game where it may not push.
    pub fn push_forbidden(&self) -> bool {
        self.variant.no_first_push() && self.half_turns == 0 && self.position.side == Color::White
    }

    /// The seat that must act now, if any.
    pub fn seat_to_act(&self) -> Option<Seat> {
        if self.ending.is_some() {
            None
        } else {
            Some(seat_of(self.position.side))
        }
    }

    /// How often the current position has occurred (with the same side to move and rights).
    pub fn repetitions(&self) -> usize {
        self.since_reset
            .iter()
            .filter(|p| **p == self.position)
            .count()
    }

    pub fn fen(&self) -> String {
        self.position.fen(self.halfmove_clock, self.fullmove_number)
    }

    pub fn evolve(&mut self, event: &Event) {
        match event {
            Event::TurnPlayed {
                seat,
                from,
                to,
                castling,
                promotion,
                push,
                notation,
                ..
            } => {
                let Some(board) = self.position.board() else {
                    return;
                };
                let rights = self.position.castling[self.position.side as usize];
                let target = match castling {
                    Some(CastlingSide::Short) => rights.short,
                    Some(CastlingSide::Long) => rights.long,
                    None => None,
                }
                .map_or(to.0, |file: File| Square::new(file, from.0.rank()));
                let mv = Move {
                    from: from.0,
                    to: target,
                    promotion: promotion.map(PromotionPiece::piece),
                };
                let capture = castling.is_none() && board.piece_on(mv.to).is_some();
                let pawn = board.piece_on(mv.from) == Some(Piece::Pawn);
                let after = after_move(&board, mv);
                let mut position = Position::from_board(&after);
                if let Some(push) = push {
                    let owner = !board.side_to_move();
                    position.squares[push.from.0 as usize] = None;
                    position.squares[push.to.0 as usize] = Some((Piece::Pawn, owner));
                    if matches!(
                        push.to.0.rank(),
                        cozy_chess::Rank::First | cozy_chess::Rank::Eighth
                    ) {
                        self.pending = Some(Pending {
                            square: push.to.0,
                            pusher: *seat,
                        });
                    }
                }
                self.position = position;
                if capture || pawn || push.is_some() {
                    self.halfmove_clock = 0;
                    self.since_reset.clear();
                } else {
                    self.halfmove_clock += 1;
                }
                if board.side_to_move() == Color::Black {
                    self.fullmove_number += 1;
                }
                self.half_turns += 1;
                if self.pending.is_none() {
                    self.since_reset.push(self.position);
                }
                self.last = Some(LastTurn {
                    seat: *seat,
                    notation: notation.clone(),
                    from: from.0,
                    to: to.0,
                    push: push.map(|p| (p.from.0, p.to.0)),
                });
                self.history.push(notation.clone());
            }
            Event::PromotionChosen {
                square,
                piece,
                notation,
                ..
            } => {
                let owner = self.position.side;
                self.position.squares[square.0 as usize] = Some((piece.piece(), owner));
                self.pending = None;
                self.since_reset.push(self.position);
                if let Some(last) = self.history.last_mut() {
                    *last = notation.clone();
                }
                if let Some(last) = self.last.as_mut() {
                    last.notation = notation.clone();
                }
            }
            Event::GameEnded { winner, reason } => {
                self.ending = Some(Ending {
                    winner: *winner,
                    reason: *reason,
                });
            }
        }
    }
}
