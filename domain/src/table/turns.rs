//! Where each seat's turns began, read from a game's command log: what a takeback without a
//! stream version goes back to ("take back my last turn").
//!
//! A seat's turn is its game commands (moves, draws, plays; not table commands such as a
//! draw offer) from the first one after another seat's game command up to the next game
//! command of another seat: in Ski Runs a draw, plays and the end of the turn are one turn;
//! in Vamanos, where everyone plays at once, a seat's moves since another seat last moved.
//! In a game of one seat (Altitude's solitaire) nobody else moves, so each of its game
//! commands is a turn of its own. A turn begins where the command before its first one ended
//! (a version a command answer gave), so a takeback to it can fork there.

use crate::engine::Seat;
use crate::log::LoggedCommand;
use crate::table::command::TABLE_COMMAND_TYPES;
use serde_json::Value;

/// The commands of the server and the fork's own command: never a seat's move.
const NOT_MOVES: &[&str] = &[
    "fork",
    "reveal_seed",
    "timeout",
    "vacation",
    "record_breaks",
    "annotate",
];

/// Every turn of a game so far, oldest first: its seat and the version just before it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TurnHistory {
    turns: Vec<(Seat, u64)>,
    /// The seat of the last game command, which a game command of the same seat continues.
    last: Option<Seat>,
    /// A game of one seat: each game command is a turn of its own.
    solitaire: bool,
}

impl TurnHistory {
    /// The turns of the game of `seats` seats whose commands so far are `commands`.
    pub fn of(commands: &[LoggedCommand], seats: usize) -> TurnHistory {
        let mut history = TurnHistory {
            solitaire: seats == 1,
            ..TurnHistory::default()
        };
        for command in commands {
            history.record(command);
        }
        history
    }

    /// Takes one more stored command into account.
    pub fn record(&mut self, command: &LoggedCommand) {
        let Some(seat) = seat_of_actor(&command.actor) else {
            return;
        };
        let kind = command
            .command
            .as_ref()
            .and_then(|c| c.get("type"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        if kind.is_empty() || TABLE_COMMAND_TYPES.contains(&kind) || NOT_MOVES.contains(&kind) {
            return;
        }
        if self.solitaire || self.last != Some(seat) {
            self.turns.push((seat, command.first_version - 1));
        }
        self.last = Some(seat);
    }

    /// The version just before `seat`'s `turns`-th turn counted from its last (1: its last
    /// turn), if it has played that many.
    pub fn back(&self, seat: Seat, turns: u32) -> Option<u64> {
        let index = usize::try_from(turns).ok()?.checked_sub(1)?;
        self.turns
            .iter()
            .rev()
            .filter(|(s, _)| *s == seat)
            .nth(index)
            .map(|(_, version)| *version)
    }

    /// How many turns `seat` has played.
    pub fn count(&self, seat: Seat) -> usize {
        self.turns.iter().filter(|(s, _)| *s == seat).count()
    }
}

/// The seat of a stored actor `seat:<n>`; players without a seat and the server have none.
fn seat_of_actor(actor: &str) -> Option<Seat> {
    actor.strip_prefix("seat:")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::DateTime;
    use serde_json::json;

    fn command(first: u64, last: u64, actor: &str, command: Value) -> LoggedCommand {
        LoggedCommand {
            first_version: first,
            last_version: last,
            actor: actor.into(),
            recorded_at: DateTime::UNIX_EPOCH,
            command: Some(command),
        }
    }

    #[test]
    fn a_turn_is_a_seats_moves_until_another_seat_moves() {
        let log = [
            command(1, 4, "player:a", json!({"type": "join"})),
            command(5, 7, "player:b", json!({"type": "join"})),
            command(8, 8, "seat:1", json!({"type": "draw"})),
            command(9, 9, "seat:0", json!({"type": "offer_draw"})),
            command(10, 10, "seat:1", json!({"type": "play"})),
            command(11, 12, "seat:1", json!({"type": "end_turn"})),
            command(13, 14, "seat:0", json!({"type": "draw"})),
            command(15, 15, "system", json!({"type": "timeout"})),
            command(16, 17, "seat:1", json!({"type": "draw"})),
        ];
        let history = TurnHistory::of(&log, 2);
        assert_eq!(history.back(1, 1), Some(15));
        assert_eq!(history.back(1, 2), Some(7));
        assert_eq!(history.back(1, 3), None);
        assert_eq!(history.back(0, 1), Some(12));
        assert_eq!(history.back(0, 0), None);
        assert_eq!(history.count(1), 2);
    }

    #[test]
    fn in_a_game_of_one_seat_each_move_is_a_turn() {
        let log = [
            command(1, 5, "player:a", json!({"type": "join"})),
            command(6, 6, "seat:0", json!({"type": "draw"})),
            command(7, 7, "seat:0", json!({"type": "lay"})),
        ];
        let history = TurnHistory::of(&log, 1);
        assert_eq!(history.back(0, 1), Some(6));
        assert_eq!(history.back(0, 2), Some(5));
    }
}
