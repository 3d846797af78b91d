//! The events of a table. Their `type` names are stable: they are stored forever.

use crate::engine::{Engine, Outcome, Seat, Setup};
use crate::fairness::Seed;
use crate::table::clock::{RecordNote, SeatClock, TimeControl};
use serde::{Deserialize, Serialize};

/// One event of a game's stream. Game events are wrapped: `{"type": "game", "event": {...}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[serde(bound(serialize = "", deserialize = ""))]
pub enum TableEvent<E: Engine> {
    /// The game was created: its kind, setup and the public commitment to its secret seed.
    Created {
        kind: String,
        setup: Setup<E::Options>,
        commitment: String,
        /// How long each move may take; absent for an untimed game.
        #[serde(default, skip_serializing_if = "TimeControl::is_none")]
        time_control: TimeControl,
        /// Whether the creator opened the spectators' room of a game with hidden cards
        /// (closed there by default; always open in a game without them). Not written when
        /// false, so the games stored before it keep their bytes.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        spectators_room: bool,
    },
    /// A player took a seat.
    SeatTaken {
        seat: Seat,
        player: String,
    },
    /// Every seat is taken: play begins (the deal follows as game events).
    Started,
    /// An event of the game's own rules.
    Game {
        event: E::Event,
    },
    /// A seat resigned.
    Resigned {
        seat: Seat,
    },
    DrawOffered {
        seat: Seat,
    },
    DrawDeclined {
        seat: Seat,
    },
    DrawAccepted {
        seat: Seat,
    },
    /// A seat asked to take the game back to `version`.
    TakebackRequested {
        seat: Seat,
        version: u64,
        /// Set when the request counted turns (every request since they do): how many of its
        /// seat's turns it takes back. Such a request is withdrawn when its seat moves again;
        /// one stored without it (a raw version) stood until answered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        turns: Option<u32>,
    },
    /// The seat that asked for a takeback moved before the others answered: its request is
    /// withdrawn (in the same command as the move).
    TakebackWithdrawn {
        seat: Seat,
    },
    TakebackAccepted {
        seat: Seat,
    },
    TakebackDeclined {
        seat: Seat,
    },
    /// Every other seat accepted: play goes on in a fork at `version`; this game ends.
    TakebackAgreed {
        version: u64,
    },
    /// The seats' clocks from now on, in seat order (timed games only): set when a seat comes
    /// to act or has moved, stopped when it need not act, paused while its player is away.
    ClockSet {
        clocks: Vec<SeatClock>,
    },
    /// A seat let its deadline pass: recorded by the server or claimed by an opponent. Like a
    /// resignation: in a game of three or more the others play on without that seat.
    TimedOut {
        seat: Seat,
    },
    /// The player at `seat` went on vacation: the seat's clock stands still until they return.
    VacationStarted {
        seat: Seat,
    },
    /// The player at `seat` came back from vacation: the seat's clock runs again.
    VacationEnded {
        seat: Seat,
    },
    /// An imported record breaks at `half_turn` (as written: `text`) for `reason`: the game
    /// stops here, before it; `finished` follows.
    RecordBroken {
        half_turn: u32,
        text: String,
        reason: String,
    },
    /// The comments and annotation glyphs of an imported record, after its half-turns.
    Annotated {
        notes: Vec<RecordNote>,
    },
    /// A player said something (see `MessageRoom`): `message` names it, `sealed` is its text
    /// sealed under a key of its own that the server keeps outside the stream, so that deleting
    /// the key (hiding the message) leaves nothing readable here. Changes nothing of the game.
    Said {
        /// The seat that spoke; absent for a spectator, in the spectators' room.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Seat>,
        /// The player who spoke.
        player: String,
        room: MessageRoom,
        message: String,
        sealed: String,
    },
    /// An operator (or the one who wrote it) hid message `message`: its key is deleted, so its
    /// text can no longer be read anywhere. Changes nothing of the game.
    Hidden {
        message: String,
    },
    /// The game ended.
    Finished {
        outcome: Outcome,
    },
    /// The seed, revealed once the game has ended, so that anyone can check every deal. A
    /// game superseded by a takeback in a game with hidden cards reveals it only when the
    /// fork that goes on from it ends: the server appends it then (`reveal_seed`, by the
    /// system).
    SeedRevealed {
        seed: Seed,
        /// The seeds of the earlier commitments of this stream, oldest first: the one in
        /// `created`, then each `forked` that made a new one (a fork by takeback in a game
        /// with hidden cards copies events dealt from its parent's seed). `seed` is the last
        /// commitment's. Empty in a stream with one commitment.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        earlier: Vec<Seed>,
    },
    /// This game is a fork: its events up to here are a copy of game `parent`'s up to
    /// `version`; from here on `players` hold the seats (the caller at every seat in an
    /// analysis fork, the same players in a takeback).
    Forked {
        parent: String,
        version: u64,
        players: Vec<Option<String>>,
        /// An analysis fork: one player at every seat, and everything shown (it is only made
        /// where nothing is secret: games without hidden information, or ended games).
        #[serde(default)]
        analysis: bool,
        /// Set when the fork was made by a takeback in a game with hidden cards: the
        /// commitment (SHA-256) to the fork's own fresh seed. The events right after are
        /// the reshuffle of every face-down pile with it, and every later deal uses it; the
        /// events copied before were dealt from the parent's seed (committed in `created`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        commitment: Option<String>,
    },
}

/// Where a message is said: to the table (every seat, and spectators of a game without hidden
/// cards), or in the spectators' room (those who watch without a seat).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MessageRoom {
    Table,
    Spectators,
}

/// The stable type name stored in the envelope of a serialized table event: `created`,
/// `seat_taken`, ..., and for game events `game.` followed by the engine's own type name
/// (`game.turn_played`). Read from the JSON form, which is made once per event anyway.
pub fn type_name(payload: &serde_json::Value) -> String {
    let outer = payload["type"].as_str().unwrap_or("unknown");
    match payload["event"]["type"].as_str() {
        Some(inner) if outer == "game" => format!("game.{inner}"),
        _ => outer.to_string(),
    }
}
