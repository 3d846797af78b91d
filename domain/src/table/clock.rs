//! Correspondence clocks (and the server's own commands): how long each move may take, every seat's deadline, vacations that
//! stop a seat's clock, and timeouts. The time always comes from the command's context (the
//! API reads the clock); the table only compares it with the deadlines its events recorded.

use crate::engine::{Engine, RuleError, Seat};
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::event::TableEvent;
use super::state::{Status, Table};

/// The longest allowance of a `seconds_per_move` control: one day (use `days_per_move` above).
pub const MAX_SECONDS_PER_MOVE: u32 = 86_400;

/// How long each move may take, chosen when the game is created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
#[schema(example = json!({"type": "days_per_move", "days": 3}))]
pub enum TimeControl {
    /// No clock: every player takes the time they want.
    #[default]
    None,
    /// Each move within `days` days (1 to 14), as correspondence servers offer.
    DaysPerMove {
        #[schema(minimum = 1, maximum = 14)]
        days: u32,
    },
    /// Each move within `seconds` seconds (1 to 86400): for fast games and for tests.
    SecondsPerMove {
        #[schema(minimum = 1, maximum = 86400)]
        seconds: u32,
    },
}

impl TimeControl {
    pub fn is_none(&self) -> bool {
        *self == TimeControl::None
    }

    /// The time a seat has for each move, if the game has a clock.
    pub fn allowance(&self) -> Option<Duration> {
        match *self {
            TimeControl::None => None,
            TimeControl::DaysPerMove { days } => Some(Duration::days(i64::from(days))),
            TimeControl::SecondsPerMove { seconds } => Some(Duration::seconds(i64::from(seconds))),
        }
    }

    /// Refuses a control outside the offered ranges.
    pub fn check(&self) -> Result<(), RuleError> {
        match *self {
            TimeControl::None => Ok(()),
            TimeControl::DaysPerMove { days } if (1..=14).contains(&days) => Ok(()),
            TimeControl::DaysPerMove { days } => Err(RuleError::invalid_setup(format!(
                "A correspondence control gives 1 to 14 days per move, not {days}."
            ))),
            TimeControl::SecondsPerMove { seconds }
                if (1..=MAX_SECONDS_PER_MOVE).contains(&seconds) =>
            {
                Ok(())
            }
            TimeControl::SecondsPerMove { seconds } => Err(RuleError::invalid_setup(format!(
                "A fast control gives 1 to {MAX_SECONDS_PER_MOVE} seconds per move, not {seconds}; use days_per_move for longer."
            ))),
        }
    }
}

/// One seat's clock.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum SeatClock {
    /// Not running: the seat need not act (or the game has no clock).
    #[default]
    Idle,
    /// The seat must act by `deadline`, or lose on time.
    Running { deadline: DateTime<Utc> },
    /// The seat must act, but its player is on vacation: `remaining_ms` are left when they
    /// come back.
    Paused { remaining_ms: u64 },
}

impl SeatClock {
    pub fn deadline(&self) -> Option<DateTime<Utc>> {
        match self {
            SeatClock::Running { deadline } => Some(*deadline),
            _ => None,
        }
    }

    /// The time left at `now` (none for an idle clock); a passed deadline leaves zero.
    fn remaining(&self, now: DateTime<Utc>) -> Option<Duration> {
        match *self {
            SeatClock::Idle => None,
            SeatClock::Running { deadline } => Some((deadline - now).max(Duration::zero())),
            SeatClock::Paused { remaining_ms } => Some(Duration::milliseconds(
                i64::try_from(remaining_ms).unwrap_or(i64::MAX),
            )),
        }
    }
}

/// What the server itself decides, as the `system` actor: never posted by a player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SystemCommand {
    /// Record every seat whose deadline has passed as timed out.
    Timeout,
    /// `player` went on vacation (`away`) or came back: their seats' clocks stop or run again.
    Vacation { player: String, away: bool },
    /// Reveal the seed of a game superseded by a takeback, once its fork has ended (see
    /// `table/sealed.rs`).
    RevealSeed,
    /// An imported record breaks at `half_turn` (its `text` as written) for `reason`: the game
    /// imported up to the half-turn before ends there, without a winner (see
    /// `records::import_record`).
    RecordBreaks {
        half_turn: u32,
        text: String,
        reason: String,
    },
    /// The comments and annotation glyphs an imported record gives after its half-turns, kept
    /// so that its export writes them again.
    Annotate { notes: Vec<RecordNote> },
    /// `player` says something (its text sealed by the server as `sealed`): recorded as
    /// `said`, at their seat (or in the spectators' room). Nothing of the game changes.
    Say {
        player: String,
        room: super::event::MessageRoom,
        message: String,
        sealed: String,
    },
    /// Message `message` is hidden (its key was deleted): recorded as `hidden`.
    Hide { message: String },
}

/// A comment or an annotation glyph of an imported record, after half-turn `after` (0: before
/// the first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordNote {
    pub after: u32,
    /// `!`, `?`, `!!`, `??`, `!?` or `?!`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glyph: Option<String>,
    /// The comment's text, without its braces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
}

/// The annotation glyphs a record may give after a half-turn.
pub const GLYPHS: &[&str] = &["!", "?", "!!", "??", "!?", "?!"];
/// The longest comment kept of a record, in characters.
pub const MAX_COMMENT: usize = 2000;
/// The longest half-turn text and reason a record's break keeps, in characters.
pub const MAX_BREAK_TEXT: usize = 60;
pub const MAX_BREAK_REASON: usize = 600;

impl<E: Engine> Table<E> {
    /// Whether this game's moves are timed (analysis forks never are).
    pub fn timed(&self) -> bool {
        !self.analysis && self.time_control.allowance().is_some()
    }

    /// The earliest running deadline: when the server must look at this game again.
    pub fn next_deadline(&self) -> Option<DateTime<Utc>> {
        if self.status != Status::Active || !self.timed() {
            return None;
        }
        self.remaining()
            .into_iter()
            .filter_map(|s| self.clocks.get(s).and_then(SeatClock::deadline))
            .min()
    }

    /// Whether `seat` may claim a timeout at `now`: it still plays and another seat's deadline
    /// has passed. (Not among [`Table::legal`], which knows no time.)
    pub fn may_claim_timeout(&self, seat: Seat, now: DateTime<Utc>) -> bool {
        self.remaining().contains(&seat) && !self.overdue(now, Some(seat)).is_empty()
    }

    /// The seats other than `except` still playing whose deadline has passed at `now`.
    pub(super) fn overdue(&self, now: DateTime<Utc>, except: Option<Seat>) -> Vec<Seat> {
        if self.status != Status::Active || !self.timed() {
            return Vec::new();
        }
        self.remaining()
            .into_iter()
            .filter(|&s| Some(s) != except)
            .filter(|&s| {
                self.clocks
                    .get(s)
                    .and_then(SeatClock::deadline)
                    .is_some_and(|d| d <= now)
            })
            .collect()
    }

    /// The `clock_set` event owed after `events` (decided on this state): a seat that has just
    /// come to act, or that has just moved and must act again, gets a whole allowance from
    /// `now`; a seat that no longer needs to act stops; the clock of a seat whose player is
    /// away stands still. `moved` is the seat whose game command gave the events. None when
    /// nothing changes.
    pub(super) fn clock_after(
        &self,
        events: &[TableEvent<E>],
        moved: Option<Seat>,
        now: DateTime<Utc>,
    ) -> Option<TableEvent<E>> {
        let allowance = self.time_control.allowance()?;
        let mut after = self.clone();
        for event in events {
            // Our own events always fold.
            let _ = after.evolve(event);
        }
        if after.status != Status::Active || after.analysis {
            return None;
        }
        let before_to_act = self.to_act();
        let to_act = after.to_act();
        let clocks: Vec<SeatClock> = (0..after.setup.seats)
            .map(|seat| {
                let current = after.clocks.get(seat).copied().unwrap_or_default();
                if !to_act.contains(&seat) {
                    return SeatClock::Idle;
                }
                let away = after.away.get(seat).copied().unwrap_or(false);
                let fresh = !before_to_act.contains(&seat)
                    || moved == Some(seat)
                    || current == SeatClock::Idle;
                let left = match (fresh, current, away) {
                    (true, _, _) => allowance,
                    // Unchanged: the deadline stands (even a passed one, until it is recorded).
                    (false, SeatClock::Running { .. }, false)
                    | (false, SeatClock::Paused { .. }, true) => return current,
                    (false, _, _) => current.remaining(now).unwrap_or(allowance),
                };
                if away {
                    SeatClock::Paused {
                        remaining_ms: u64::try_from(left.num_milliseconds()).unwrap_or(0),
                    }
                } else {
                    SeatClock::Running {
                        deadline: now + left,
                    }
                }
            })
            .collect();
        (clocks != after.clocks).then_some(TableEvent::ClockSet { clocks })
    }
}
