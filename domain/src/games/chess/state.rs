//! The state of a game of Avalanche Chess and the questions the rules ask of it; events are
//! applied to it in `evolve.rs`.

use super::event::EndReason;
use super::position::Position;
use super::variant::Variant;
use crate::engine::Seat;
use cozy_chess::{Color, Square};

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

    /// A copy to look one event ahead with (a turn's check mark, an automatic end): all but
    /// the notation history, which no rule reads and which grows with every half-turn.
    pub fn lookahead(&self) -> State {
        let State {
            variant,
            position,
            pending,
            halfmove_clock,
            fullmove_number,
            half_turns,
            since_reset,
            last,
            history: _,
            ending,
        } = self;
        State {
            variant: *variant,
            position: *position,
            pending: *pending,
            halfmove_clock: *halfmove_clock,
            fullmove_number: *fullmove_number,
            half_turns: *half_turns,
            since_reset: since_reset.clone(),
            last: last.clone(),
            history: Vec::new(),
            ending: *ending,
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
}
