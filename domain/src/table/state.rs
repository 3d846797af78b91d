//! The state of a table, folded from its events.

use super::event::TableEvent;
use crate::engine::{Engine, Outcome, Seat, Setup, TableEnd, Viewer};
use crate::fairness::Seed;
use crate::table::clock::{SeatClock, TimeControl};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Where a game is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Waiting for players to take the free seats.
    Open,
    /// Being played.
    Active,
    /// Over: the outcome is known and every secret is public.
    Finished,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Open => "open",
            Status::Active => "active",
            Status::Finished => "finished",
        }
    }
}

/// A table: the common state around one game of engine `E`.
#[derive(Clone, Debug, PartialEq)]
pub struct Table<E: Engine> {
    pub setup: Setup<E::Options>,
    /// The commitment to the seed that deals now: the one in `created`, or in the last
    /// `forked` that made a new one.
    pub commitment: String,
    /// The player holding each seat, if any.
    pub players: Vec<Option<String>>,
    pub status: Status,
    pub game: E::State,
    pub resigned: Vec<bool>,
    /// The seat whose draw offer stands.
    pub draw_offer: Option<Seat>,
    pub outcome: Option<Outcome>,
    pub revealed_seed: Option<Seed>,
    /// The number of events folded so far: the stream version.
    pub version: u64,
    /// The game this one was forked from, and at which version.
    pub parent: Option<ForkOrigin>,
    /// Whether this game is an analysis fork, where everything is shown.
    pub analysis: bool,
    /// The version of the `started` event: takebacks go no further back.
    pub started_at: Option<u64>,
    /// The takeback asked for and not yet answered.
    pub takeback: Option<TakebackRequest>,
    /// How long each move may take.
    pub time_control: TimeControl,
    /// Each seat's clock (all idle in an untimed game).
    pub clocks: Vec<SeatClock>,
    /// The seats whose player is on vacation.
    pub away: Vec<bool>,
    /// The seats that let their deadline pass (they count as resigned too).
    pub timed_out: Vec<bool>,
    /// How the table ended the game, when its rules had not (read from the events before
    /// `finished`): what the game's view is told (see [`Engine::ended_view`]).
    pub ended_by: Option<TableEnd>,
    /// The last table event that can end a game (a resignation, a timeout, an agreed draw or
    /// takeback): why a `finished` the rules did not give came.
    last_exit: Option<TableEnd>,
    /// The messages said at this table, by id: who said each, and whether it is hidden.
    pub messages: std::collections::BTreeMap<String, (String, bool)>,
    /// Whether the creator opened the spectators' room (see [`Table::spectators_room_open`]).
    pub spectators_room: bool,
}

/// A takeback asked for: by whom, to which version, and the seats that accepted so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TakebackRequest {
    pub seat: Seat,
    pub version: u64,
    pub accepted: Vec<Seat>,
    /// Whether a move of its seat withdraws it: every request counted in turns (requests
    /// stored with a raw version stood until answered, and are decided again so).
    pub withdrawn_by_move: bool,
}

/// Where a fork comes from: the parent game and the version its copy ends at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ForkOrigin {
    /// The parent game's id.
    pub game: String,
    /// The last version of the parent copied into the fork.
    pub version: u64,
}

/// Events that cannot be folded: a stream that does not start with `created`, or an event
/// that does not belong to this kind of game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FoldError {
    #[error("a game's first event must be `created`")]
    NotCreated,
    #[error("`created` may only be the first event (found at version {0})")]
    CreatedAgain(u64),
    #[error("event at version {version} is not an event of {kind}: {reason}")]
    Unreadable {
        kind: &'static str,
        version: u64,
        reason: String,
    },
    #[error("the stream is empty")]
    Empty,
}

impl<E: Engine> Table<E> {
    /// Whether watchers may speak in the spectators' room: always in a game without hidden
    /// cards; in one with them only when its creator opened the room.
    pub fn spectators_room_open(&self) -> bool {
        !E::info().hidden_information || self.spectators_room
    }

    /// The state after the `created` event.
    pub fn created(setup: Setup<E::Options>, commitment: String) -> Table<E> {
        let seats = setup.seats;
        Table {
            game: E::initial(&setup),
            setup,
            commitment,
            players: vec![None; seats],
            status: Status::Open,
            resigned: vec![false; seats],
            draw_offer: None,
            outcome: None,
            revealed_seed: None,
            version: 1,
            parent: None,
            analysis: false,
            started_at: None,
            takeback: None,
            time_control: TimeControl::None,
            clocks: vec![SeatClock::Idle; seats],
            away: vec![false; seats],
            timed_out: vec![false; seats],
            ended_by: None,
            last_exit: None,
            messages: std::collections::BTreeMap::new(),
            spectators_room: false,
        }
    }

    /// Folds a whole stream into a table.
    pub fn fold<'a>(
        events: impl IntoIterator<Item = &'a TableEvent<E>>,
    ) -> Result<Self, FoldError> {
        let mut events = events.into_iter();
        let mut table = match events.next() {
            Some(TableEvent::Created {
                setup,
                commitment,
                time_control,
                spectators_room,
                ..
            }) => Table {
                time_control: *time_control,
                spectators_room: *spectators_room,
                ..Table::created(setup.clone(), commitment.clone())
            },
            Some(_) => return Err(FoldError::NotCreated),
            None => return Err(FoldError::Empty),
        };
        for event in events {
            table.evolve(event)?;
        }
        Ok(table)
    }

    /// Applies one event after `created`.
    pub fn evolve(&mut self, event: &TableEvent<E>) -> Result<(), FoldError> {
        self.version += 1;
        match event {
            TableEvent::Created { .. } => return Err(FoldError::CreatedAgain(self.version)),
            TableEvent::SeatTaken { seat, player } => {
                if let Some(slot) = self.players.get_mut(*seat) {
                    *slot = Some(player.clone());
                }
            }
            TableEvent::Started => {
                self.status = Status::Active;
                self.started_at = Some(self.version);
            }
            TableEvent::TakebackRequested {
                seat,
                version,
                turns,
            } => {
                self.takeback = Some(TakebackRequest {
                    seat: *seat,
                    version: *version,
                    accepted: Vec::new(),
                    withdrawn_by_move: turns.is_some(),
                })
            }
            TableEvent::TakebackWithdrawn { .. } => self.takeback = None,
            TableEvent::TakebackAccepted { seat } => {
                if let Some(request) = self.takeback.as_mut() {
                    request.accepted.push(*seat);
                }
            }
            TableEvent::TakebackDeclined { .. } => self.takeback = None,
            TableEvent::TakebackAgreed { .. } => {
                self.takeback = None;
                self.last_exit = Some(TableEnd::Superseded);
            }
            TableEvent::Game { event } => E::evolve(&mut self.game, event),
            TableEvent::Resigned { seat } => {
                self.last_exit = Some(TableEnd::Resigned);
                if let Some(flag) = self.resigned.get_mut(*seat) {
                    *flag = true;
                }
                if self.draw_offer == Some(*seat) {
                    self.draw_offer = None;
                }
            }
            TableEvent::TimedOut { seat } => {
                self.last_exit = Some(TableEnd::TimedOut);
                for flags in [&mut self.resigned, &mut self.timed_out] {
                    if let Some(flag) = flags.get_mut(*seat) {
                        *flag = true;
                    }
                }
                if let Some(clock) = self.clocks.get_mut(*seat) {
                    *clock = SeatClock::Idle;
                }
                if self.draw_offer == Some(*seat) {
                    self.draw_offer = None;
                }
            }
            TableEvent::ClockSet { clocks } => {
                if clocks.len() == self.clocks.len() {
                    self.clocks = clocks.clone();
                }
            }
            TableEvent::VacationStarted { seat } | TableEvent::VacationEnded { seat } => {
                let away = matches!(event, TableEvent::VacationStarted { .. });
                if let Some(flag) = self.away.get_mut(*seat) {
                    *flag = away;
                }
            }
            TableEvent::DrawOffered { seat } => self.draw_offer = Some(*seat),
            TableEvent::DrawDeclined { .. } => self.draw_offer = None,
            TableEvent::DrawAccepted { .. } => {
                self.draw_offer = None;
                self.last_exit = Some(TableEnd::DrawAgreed);
            }
            TableEvent::Finished { outcome } => {
                if E::outcome(&self.game).is_none() {
                    self.ended_by = self.last_exit;
                }
                self.status = Status::Finished;
                self.outcome = Some(outcome.clone());
                self.draw_offer = None;
                self.takeback = None;
                self.clocks = vec![SeatClock::Idle; self.setup.seats];
            }
            TableEvent::SeedRevealed { seed, .. } => self.revealed_seed = Some(*seed),
            // Kept in the stream for the record's export; nothing of the table changes.
            TableEvent::RecordBroken { .. } | TableEvent::Annotated { .. } => {}
            // Words said at the table: nothing of the game changes.
            TableEvent::Said {
                message, player, ..
            } => {
                self.messages
                    .insert(message.clone(), (player.clone(), false));
            }
            TableEvent::Hidden { message } => {
                if let Some(said) = self.messages.get_mut(message) {
                    said.1 = true;
                }
            }
            TableEvent::Forked {
                parent,
                version,
                players,
                analysis,
                commitment,
            } => {
                if let Some(commitment) = commitment {
                    // Deals from here on follow the fork's own seed.
                    self.commitment = commitment.clone();
                }
                self.analysis = *analysis;
                self.takeback = None;
                self.parent = Some(ForkOrigin {
                    game: parent.clone(),
                    version: *version,
                });
                if players.len() == self.players.len() {
                    self.players = players.clone();
                }
                self.draw_offer = None;
                // The fork's clocks start afresh (in its next event, if it is timed).
                self.clocks = vec![SeatClock::Idle; self.setup.seats];
            }
        }
        Ok(())
    }

    /// The seat a player holds, if any. A player holding several seats (an analysis fork)
    /// acts for the first of them that is to act, otherwise is shown as the first.
    pub fn seat_of(&self, player: &str) -> Option<Seat> {
        let mut held = self
            .players
            .iter()
            .enumerate()
            .filter(|(_, p)| p.as_deref() == Some(player))
            .map(|(seat, _)| seat);
        let first = held.next()?;
        // One seat (all but analysis forks): no need to ask who is to act.
        let Some(second) = held.next() else {
            return Some(first);
        };
        let to_act = self.to_act();
        if to_act.contains(&first) {
            return Some(first);
        }
        if to_act.contains(&second) {
            return Some(second);
        }
        Some(held.find(|s| to_act.contains(s)).unwrap_or(first))
    }

    /// How `player` (or an anonymous reader, `None`) may see this game: everything once it has
    /// ended (and is not sealed) or in an analysis fork, their own seat's secrets while it
    /// runs or is sealed, only what is public otherwise.
    pub fn viewer_for(&self, player: Option<&str>) -> Viewer {
        if (self.status == Status::Finished && !self.sealed()) || self.analysis {
            return Viewer::Everyone;
        }
        match player.and_then(|p| self.seat_of(p)) {
            Some(seat) => Viewer::Seat(seat),
            None => Viewer::Spectator,
        }
    }

    /// The seats that must act now: the engine's, without resigned seats; none unless active.
    pub fn to_act(&self) -> Vec<Seat> {
        if self.status != Status::Active {
            return Vec::new();
        }
        let mut seats: Vec<Seat> = E::to_act(&self.game)
            .into_iter()
            .filter(|&s| !self.resigned.get(s).copied().unwrap_or(true))
            .collect();
        // A standing draw offer is owed an answer, but it does not stop play: the offer's
        // addressee is already to act (it is their move) or may answer with their move.
        seats.dedup();
        seats
    }

    /// Seats still playing (not resigned).
    pub fn remaining(&self) -> Vec<Seat> {
        (0..self.setup.seats)
            .filter(|&s| !self.resigned[s])
            .collect()
    }
}
