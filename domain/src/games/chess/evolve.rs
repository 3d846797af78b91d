//! Applying an event of Avalanche Chess to the state (the fold).

use super::command::PromotionPiece;
use super::event::{CastlingSide, Event};
use super::position::Position;
use super::state::{Ending, LastTurn, Pending, State};
use super::turn::after_move;
use cozy_chess::{Color, File, Move, Piece, Square};

impl State {
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
