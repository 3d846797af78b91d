//! What happened at the table, as types: the facts an application reacts to after a commit
//! (a seat taken, a start, an end, an agreed takeback, a revealed seed), read from the typed
//! events as they are decided, or from stored payloads without knowing the game's engine.

use crate::engine::{Engine, Outcome, Seat};
use crate::fairness::Seed;
use crate::table::event::TableEvent;
use serde::Deserialize;
use serde_json::Value;

/// A table event the application must know of, whatever the game.
#[derive(Clone, Debug, PartialEq)]
pub enum TableFact {
    /// A game of `kind` was created: the first event of every game's stream.
    Created { kind: String },
    /// A player took a seat: the game's players changed.
    SeatTaken { seat: Seat, player: String },
    /// A seat offered a draw.
    DrawOffered { seat: Seat },
    /// A seat asked to take the game back to `version`.
    TakebackRequested { seat: Seat, version: u64 },
    /// The seat that asked for a takeback moved: its request is withdrawn.
    TakebackWithdrawn { seat: Seat },
    /// A seat declined the draw offered (by answering it, or by playing on).
    DrawDeclined { seat: Seat },
    /// A seat declined the takeback asked for.
    TakebackDeclined { seat: Seat },
    /// Every seat is taken: play begins (clocks start, vacations matter).
    Started,
    /// The game ended.
    Finished { outcome: Outcome },
    /// Every other seat accepted a takeback: play goes on in a fork at `version`.
    TakebackAgreed { version: u64 },
    /// This game is a fork of game `parent` at `version`: what came before is a copy.
    Forked { parent: String, version: u64 },
    /// The seed was revealed (the game ended, or a fork that superseded it did), with the
    /// seeds of the stream's earlier commitments, oldest first.
    SeedRevealed { seed: Seed, earlier: Vec<Seed> },
}

impl TableFact {
    /// The fact a decided event states, if it is one the application must know of.
    pub fn of<E: Engine>(event: &TableEvent<E>) -> Option<TableFact> {
        match event {
            TableEvent::Created { kind, .. } => Some(TableFact::Created { kind: kind.clone() }),
            TableEvent::SeatTaken { seat, player } => Some(TableFact::SeatTaken {
                seat: *seat,
                player: player.clone(),
            }),
            TableEvent::Started => Some(TableFact::Started),
            TableEvent::DrawOffered { seat } => Some(TableFact::DrawOffered { seat: *seat }),
            TableEvent::TakebackRequested { seat, version, .. } => {
                Some(TableFact::TakebackRequested {
                    seat: *seat,
                    version: *version,
                })
            }
            TableEvent::TakebackWithdrawn { seat } => {
                Some(TableFact::TakebackWithdrawn { seat: *seat })
            }
            TableEvent::DrawDeclined { seat } => Some(TableFact::DrawDeclined { seat: *seat }),
            TableEvent::TakebackDeclined { seat } => {
                Some(TableFact::TakebackDeclined { seat: *seat })
            }
            TableEvent::Finished { outcome } => Some(TableFact::Finished {
                outcome: outcome.clone(),
            }),
            TableEvent::TakebackAgreed { version } => {
                Some(TableFact::TakebackAgreed { version: *version })
            }
            TableEvent::Forked {
                parent, version, ..
            } => Some(TableFact::Forked {
                parent: parent.clone(),
                version: *version,
            }),
            TableEvent::SeedRevealed { seed, earlier } => Some(TableFact::SeedRevealed {
                seed: *seed,
                earlier: earlier.clone(),
            }),
            _ => None,
        }
    }

    /// The fact a stored payload states, read without the game's engine: the same names and
    /// fields as [`TableEvent`], so a stored stream and a decided one tell the same facts.
    pub fn of_stored(payload: &Value) -> Option<TableFact> {
        match Stored::deserialize(payload).ok()? {
            Stored::Created { kind } => Some(TableFact::Created { kind }),
            Stored::SeatTaken { seat, player } => Some(TableFact::SeatTaken { seat, player }),
            Stored::Started => Some(TableFact::Started),
            Stored::DrawOffered { seat } => Some(TableFact::DrawOffered { seat }),
            Stored::TakebackRequested { seat, version } => {
                Some(TableFact::TakebackRequested { seat, version })
            }
            Stored::TakebackWithdrawn { seat } => Some(TableFact::TakebackWithdrawn { seat }),
            Stored::DrawDeclined { seat } => Some(TableFact::DrawDeclined { seat }),
            Stored::TakebackDeclined { seat } => Some(TableFact::TakebackDeclined { seat }),
            Stored::Finished { outcome } => Some(TableFact::Finished { outcome }),
            Stored::TakebackAgreed { version } => Some(TableFact::TakebackAgreed { version }),
            Stored::Forked { parent, version } => Some(TableFact::Forked { parent, version }),
            Stored::SeedRevealed { seed, earlier } => {
                Some(TableFact::SeedRevealed { seed, earlier })
            }
            Stored::Other => None,
        }
    }

    /// Whether the fact changes what a game's index entries say (its players or status).
    pub fn changes_index(&self) -> bool {
        matches!(
            self,
            TableFact::SeatTaken { .. } | TableFact::Started | TableFact::Finished { .. }
        )
    }
}

/// The kind of game a stream holds, from its first event (`created`).
pub fn kind_of_stream(first: &Value) -> Option<String> {
    match TableFact::of_stored(first)? {
        TableFact::Created { kind } => Some(kind),
        _ => None,
    }
}

/// The stored forms of the events behind the facts; any other event is `Other`.
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Stored {
    Created {
        kind: String,
    },
    SeatTaken {
        seat: Seat,
        player: String,
    },
    Started,
    DrawOffered {
        seat: Seat,
    },
    TakebackRequested {
        seat: Seat,
        version: u64,
    },
    TakebackWithdrawn {
        seat: Seat,
    },
    DrawDeclined {
        seat: Seat,
    },
    TakebackDeclined {
        seat: Seat,
    },
    Finished {
        outcome: Outcome,
    },
    TakebackAgreed {
        version: u64,
    },
    Forked {
        parent: String,
        version: u64,
    },
    SeedRevealed {
        seed: Seed,
        #[serde(default)]
        earlier: Vec<Seed>,
    },
    #[serde(other)]
    Other,
}
