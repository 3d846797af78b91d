//! The engine contract: how the rules of one game plug into the table and the service.
//!
//! An engine is a *decider*: a game is its initial state, `decide(state, command) -> events or
//! error` and `evolve(state, event) -> state`, nothing else. Engines do no I/O, read no clock and
//! use no global random source: time and the shuffle source come in through [`Context`].
//! A fold of the events over the initial state is the state; two folds of the same events are
//! equal.
//!
//! The contract serves every game without special cases:
//! - **hidden information**: [`Engine::view`] and [`Engine::redact`] shape state and events for
//!   a [`Viewer`]; nobody sees another seat's secrets until the game ends;
//! - **several seats acting at once**: [`Engine::to_act`] returns every seat that may act now
//!   (Vamanos: all of them while a round runs), and each command names its seat;
//! - **a decision owed by the seat that is not to move** (the owner's promotion choice in
//!   Avalanche Chess): `to_act` simply names that seat until the choice is made;
//! - **rounds**: new deals during the game draw from [`Context::dealer`];
//! - **one-player games**: `seats` may be 1.
//!
//! # Example: a complete engine
//!
//! "Twenty-one": two or more players in turn add 1, 2 or 3 to a running total; whoever
//! reaches 21 wins. It has no secrets, so `view` and `redact` show everything.
//!
//! ```
//! use domain::engine::*;
//! use domain::fairness::Seed;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Clone, Debug, PartialEq)]
//! struct TwentyOne;
//!
//! #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
//! struct Options {}
//!
//! #[derive(Clone, Debug, PartialEq)]
//! struct State { seats: usize, total: u32, next: Seat, winner: Option<Seat> }
//!
//! #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
//! #[serde(tag = "type", rename_all = "snake_case")]
//! enum Command { Add { amount: u32 } }
//!
//! #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
//! #[serde(tag = "type", rename_all = "snake_case")]
//! enum Event { Added { seat: Seat, amount: u32 } }
//!
//! #[derive(Serialize, utoipa::ToSchema)]
//! struct View { total: u32, next: Seat }
//!
//! impl Engine for TwentyOne {
//!     const ID: &'static str = "twenty-one";
//!     type Options = Options;
//!     type State = State;
//!     type Command = Command;
//!     type Event = Event;
//!     type View = View;
//!
//!     fn info() -> KindInfo {
//!         KindInfo::new(Self::ID, "Twenty-one", 2, 4, "Add 1 to 3; reach 21 to win.")
//!     }
//!     fn check(setup: &Setup<Options>) -> Result<(), RuleError> {
//!         Self::info().check_setup(setup.variant.as_deref(), setup.seats)
//!     }
//!     fn initial(setup: &Setup<Options>) -> State {
//!         State { seats: setup.seats, total: 0, next: 0, winner: None }
//!     }
//!     fn start(_state: &State, _ctx: &Context) -> Vec<Event> {
//!         Vec::new() // nothing to deal
//!     }
//!     fn decide(state: &State, seat: Seat, command: &Command, _ctx: &Context)
//!         -> Result<Vec<Event>, RuleError> {
//!         if state.winner.is_some() { return Err(RuleError::game_over()); }
//!         if seat != state.next { return Err(RuleError::not_your_turn()); }
//!         let Command::Add { amount } = *command;
//!         if !(1..=3).contains(&amount) || state.total + amount > 21 {
//!             return Err(RuleError::illegal("add 1, 2 or 3 without passing 21"));
//!         }
//!         Ok(vec![Event::Added { seat, amount }])
//!     }
//!     fn evolve(state: &mut State, event: &Event) {
//!         let Event::Added { seat, amount } = *event;
//!         state.total += amount;
//!         if state.total == 21 { state.winner = Some(seat); }
//!         state.next = (seat + 1) % state.seats;
//!     }
//!     fn view(state: &State, _viewer: Viewer) -> View {
//!         View { total: state.total, next: state.next }
//!     }
//!     fn redact(event: &Event, _viewer: Viewer) -> Event { event.clone() }
//!     fn legal(state: &State, seat: Seat) -> Vec<Legal<Command>> {
//!         if state.winner.is_some() || seat != state.next { return Vec::new(); }
//!         (1..=3).filter(|a| state.total + a <= 21)
//!             .map(|amount| Legal::new(Command::Add { amount }, format!("add {amount}")))
//!             .collect()
//!     }
//!     fn to_act(state: &State) -> Vec<Seat> {
//!         if state.winner.is_some() { vec![] } else { vec![state.next] }
//!     }
//!     fn outcome(state: &State) -> Option<Outcome> {
//!         state.winner.map(|w| Outcome::win(vec![w], "reached 21"))
//!     }
//!     fn retire(_state: &State, _seat: Seat) -> Vec<Event> { Vec::new() }
//!     fn position_text(view: &View, _me: Option<Seat>, names: &[String]) -> String {
//!         let next = domain::text::seat_name(names, view.next);
//!         format!("Total: {}\n{next} adds next.\n", view.total)
//!     }
//!     fn event_text(event: &Event, names: &[String]) -> Option<String> {
//!         let Event::Added { seat, amount } = event;
//!         Some(format!("{} added {amount}", domain::text::seat_name(names, *seat)))
//!     }
//!     fn read(state: &State, seat: Seat, text: &str) -> domain::text::Reading<Command> {
//!         domain::text::read_notation(&Self::legal(state, seat), text)
//!     }
//! }
//!
//! // A person's text is read as one legal command: "add 2", or "2" alone.
//! let start = TwentyOne::initial(&Setup { variant: None, options: Options {}, seats: 2, revision: 1, rated: false });
//! assert_eq!(TwentyOne::read(&start, 0, "2").unwrap().command, Command::Add { amount: 2 });
//!
//! // Play a game by always taking the first legal command.
//! let setup = Setup { variant: None, options: Options {}, seats: 2, revision: 1, rated: false };
//! TwentyOne::check(&setup).unwrap();
//! let ctx = Context::new(Seed([7; 32]), 0, chrono::DateTime::UNIX_EPOCH);
//! let mut state = TwentyOne::initial(&setup);
//! let mut log = Vec::new();
//! while TwentyOne::outcome(&state).is_none() {
//!     let seat = TwentyOne::to_act(&state)[0];
//!     let choice = TwentyOne::legal(&state, seat).pop().unwrap();
//!     for event in TwentyOne::decide(&state, seat, &choice.command, &ctx).unwrap() {
//!         TwentyOne::evolve(&mut state, &event);
//!         log.push(event);
//!     }
//! }
//! // The fold of the events is the state.
//! let mut folded = TwentyOne::initial(&setup);
//! for event in &log { TwentyOne::evolve(&mut folded, event); }
//! assert_eq!(folded, state);
//! assert_eq!(TwentyOne::outcome(&state).unwrap().winners, vec![0]);
//! ```

use crate::fairness::{Dealer, Seed};
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;
use utoipa::ToSchema;

/// A seat at the table, numbered from 0 in turn order.
pub type Seat = usize;

/// Who is looking: a seated player sees their own secrets; a spectator sees only what is
/// public; `Everyone` is the view once the game has ended (or for an audit), with every
/// secret revealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Viewer {
    Seat(Seat),
    Spectator,
    Everyone,
}

impl Viewer {
    /// Whether this viewer may see what belongs to `seat` alone.
    pub fn sees_secrets_of(self, seat: Seat) -> bool {
        match self {
            Viewer::Seat(own) => own == seat,
            Viewer::Spectator => false,
            Viewer::Everyone => true,
        }
    }

    /// Whether this viewer may see what nobody at the table may see (undrawn cards).
    pub fn sees_everything(self) -> bool {
        self == Viewer::Everyone
    }
}

/// How a game was set up: the variant, the engine's own options, the number of seats and the
/// revision of the game's rules it is played under. It is recorded when the game is created,
/// so the initial state can always be rebuilt.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Setup<O> {
    pub variant: Option<String>,
    pub options: O,
    pub seats: usize,
    /// The revision of the game's rules (see [`crate::revision`]): a new game gets the
    /// current one. Not written when it is 1, so a game stored before revisions existed reads
    /// as revision 1 and its `created` event keeps its bytes.
    #[serde(
        default = "crate::revision::first",
        skip_serializing_if = "crate::revision::is_first"
    )]
    pub revision: u32,
    /// Whether the game counts for its players' ratings once it ends (see [`crate::rating`]).
    /// Not written when false, so the games stored before ratings keep their bytes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
}

/// What a decision may use besides the state and the command: the time of the command and the
/// game's shuffle source. Engines never read a clock or a global random source.
#[derive(Clone, Debug)]
pub struct Context {
    seed: Seed,
    /// The stream version before the command: a number no other decision of this game shares,
    /// used as the ChaCha20 stream of any shuffle the decision makes.
    nonce: u64,
    pub now: DateTime<Utc>,
    /// The seeds of the commitments before the game's own, oldest first: a fork made by a
    /// takeback in a game with hidden cards was dealt up to the fork from its parent's seed.
    /// Revealed with the game's seed, never used to shuffle.
    earlier: Vec<Seed>,
    /// Where each seat's turns began, read from the command log: given to a takeback that
    /// names no version ("take back my last turn"), which the fold of events cannot know.
    turns: Option<crate::table::TurnHistory>,
}

impl Context {
    pub fn new(seed: Seed, nonce: u64, now: DateTime<Utc>) -> Context {
        Context {
            seed,
            nonce,
            now,
            earlier: Vec::new(),
            turns: None,
        }
    }

    /// The same context with the game's turns so far, for a takeback counted in turns.
    pub fn with_turns(mut self, turns: crate::table::TurnHistory) -> Context {
        self.turns = Some(turns);
        self
    }

    /// The game's turns so far, when the caller gave them.
    pub fn turns(&self) -> Option<&crate::table::TurnHistory> {
        self.turns.as_ref()
    }

    /// The same context for a game whose stream also holds `earlier` commitments (see
    /// [`Context::earlier_seeds`]).
    pub fn with_earlier_seeds(mut self, earlier: Vec<Seed>) -> Context {
        self.earlier = earlier;
        self
    }

    /// The seeds of the commitments made before the game's own, oldest first; revealed with
    /// it when the game ends.
    pub fn earlier_seeds(&self) -> &[Seed] {
        &self.earlier
    }

    /// The game's seed: only the table uses it, to reveal it once the game has ended.
    pub fn seed(&self) -> Seed {
        self.seed
    }

    /// The shuffle source for this decision. `salt` tells apart several shuffles made by one
    /// decision (for instance one deck per player in Vamanos); use 0, 1, 2, ... in a fixed
    /// order. The ChaCha20 stream is `nonce * 256 + salt`.
    pub fn dealer(&self, salt: u8) -> Dealer {
        self.seed
            .dealer(self.nonce.wrapping_mul(256).wrapping_add(u64::from(salt)))
    }
}

/// A legal command for a seat, with its human-readable notation (`Nf3/a6`, `snow fall`) and,
/// where it matters, what it does beyond what the notation says. The command is exactly what
/// a client posts to play it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Legal<C> {
    pub command: C,
    pub notation: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consequence: Option<Consequence>,
}

impl<C> Legal<C> {
    pub fn new(command: C, notation: impl Into<String>) -> Legal<C> {
        Legal {
            command,
            notation: notation.into(),
            consequence: None,
        }
    }

    /// The same command with what it does said beside it.
    pub fn with_consequence(mut self, consequence: Consequence) -> Legal<C> {
        self.consequence = Some(consequence);
        self
    }
}

/// What a legal command does that a player should know before sending it: "loses at once:
/// your push attacks your own king", "stops the avalanche", "ends the round".
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Consequence {
    /// The consequence in words.
    #[schema(example = "loses at once: your push attacks your own king")]
    pub says: String,
    /// Whether the command loses the game at once (a client asks before sending it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub loses: bool,
}

impl Consequence {
    pub fn says(text: impl Into<String>) -> Consequence {
        Consequence {
            says: text.into(),
            loses: false,
        }
    }

    pub fn loses(text: impl Into<String>) -> Consequence {
        Consequence {
            says: text.into(),
            loses: true,
        }
    }
}

/// How the table ended a game before its rules did. The engine's state does not know it
/// (its rules did not end the game), so its view is told: see [`Engine::ended_view`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TableEnd {
    /// A seat resigned (in a game of three or more: every other seat but one had left).
    Resigned,
    /// The two players agreed a draw.
    DrawAgreed,
    /// A seat let its deadline pass.
    TimedOut,
    /// A takeback was agreed: play goes on in a fork.
    Superseded,
}

/// How a game ended. A draw in a two-player game is both seats sharing the result with
/// `draw: true`; in the card games equal best scores share the win with `draw: false`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Outcome {
    /// The seats that won (or shared the win). Empty when nobody won (an abandoned solitaire).
    pub winners: Vec<Seat>,
    /// Whether the game was drawn rather than won.
    #[serde(default)]
    pub draw: bool,
    /// Why the game ended, in words: `checkmate`, `stalemate`, `the draw pile ran out`, ...
    pub reason: String,
    /// Final scores by seat, for games that score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scores: Option<Vec<i64>>,
}

impl Outcome {
    pub fn win(winners: Vec<Seat>, reason: impl Into<String>) -> Outcome {
        Outcome {
            winners,
            draw: false,
            reason: reason.into(),
            scores: None,
        }
    }

    pub fn draw(seats: usize, reason: impl Into<String>) -> Outcome {
        Outcome {
            winners: (0..seats).collect(),
            draw: true,
            reason: reason.into(),
            scores: None,
        }
    }

    /// The seats with the highest score share the win.
    pub fn by_scores(scores: Vec<i64>, reason: impl Into<String>) -> Outcome {
        let everyone: Vec<Seat> = (0..scores.len()).collect();
        Outcome::by_scores_among(scores, &everyone, reason)
    }

    /// The `eligible` seats with the highest score among them share the win (seats that left
    /// the game keep their score but cannot win).
    pub fn by_scores_among(
        scores: Vec<i64>,
        eligible: &[Seat],
        reason: impl Into<String>,
    ) -> Outcome {
        let best = eligible
            .iter()
            .filter_map(|&s| scores.get(s).copied())
            .max();
        let winners = eligible
            .iter()
            .copied()
            .filter(|&s| scores.get(s).copied() == best && best.is_some())
            .collect();
        Outcome {
            winners,
            draw: false,
            reason: reason.into(),
            scores: Some(scores),
        }
    }
}

/// The stable machine-readable codes of the rules' refusals, each with its wire string (what
/// clients match on: never change one) and its class (what kind of refusal it is).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    IllegalCommand,
    BadCommand,
    InvalidSetup,
    NotYourTurn,
    GameOver,
    NotStarted,
    GameFull,
    SeatTaken,
    AlreadySeated,
    NotSeated,
    DrawAlreadyOffered,
    DrawNotAvailable,
    NoDrawOffered,
    TakebackPending,
    NoTakebackRequested,
    TakebackAlreadyAccepted,
    TakebackNotAvailable,
    BadTakebackVersion,
    Resigned,
    RoundOver,
    NoTimeout,
    OutOfTime,
    ForkBeforeStart,
    ForkNotAvailable,
    BadForkVersion,
    NotSealed,
    CancelNotAvailable,
}

/// What kind of refusal a code is; the API gives each class one HTTP status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// The command or setup is not understood or not valid as written.
    Malformed,
    /// The player may not act at this table at all.
    Forbidden,
    /// The command is understood but the table's state refuses it now.
    Conflict,
    /// The command is understood but the rules do not allow it.
    Illegal,
}

impl ErrorCode {
    /// The stable string clients see in `code`.
    pub fn as_str(self) -> &'static str {
        use ErrorCode::*;
        match self {
            IllegalCommand => "illegal_command",
            BadCommand => "bad_command",
            InvalidSetup => "invalid_setup",
            NotYourTurn => "not_your_turn",
            GameOver => "game_over",
            NotStarted => "not_started",
            GameFull => "game_full",
            SeatTaken => "seat_taken",
            AlreadySeated => "already_seated",
            NotSeated => "not_seated",
            DrawAlreadyOffered => "draw_already_offered",
            DrawNotAvailable => "draw_not_available",
            NoDrawOffered => "no_draw_offered",
            TakebackPending => "takeback_pending",
            NoTakebackRequested => "no_takeback_requested",
            TakebackAlreadyAccepted => "takeback_already_accepted",
            TakebackNotAvailable => "takeback_not_available",
            BadTakebackVersion => "bad_takeback_version",
            Resigned => "resigned",
            RoundOver => "round_over",
            NoTimeout => "no_timeout",
            OutOfTime => "out_of_time",
            ForkBeforeStart => "fork_before_start",
            ForkNotAvailable => "fork_not_available",
            BadForkVersion => "bad_fork_version",
            NotSealed => "not_sealed",
            CancelNotAvailable => "cancel_not_available",
        }
    }

    /// The class of the code: checked for every code by the compiler, chosen on purpose.
    pub fn class(self) -> ErrorClass {
        use ErrorCode::*;
        match self {
            BadCommand | InvalidSetup => ErrorClass::Malformed,
            NotSeated => ErrorClass::Forbidden,
            NotYourTurn
            | GameOver
            | NotStarted
            | GameFull
            | SeatTaken
            | AlreadySeated
            | DrawAlreadyOffered
            | NoDrawOffered
            | TakebackPending
            | NoTakebackRequested
            | TakebackAlreadyAccepted
            | TakebackNotAvailable
            | Resigned
            | RoundOver
            | NoTimeout
            | OutOfTime
            | ForkNotAvailable
            | CancelNotAvailable => ErrorClass::Conflict,
            IllegalCommand | DrawNotAvailable | BadTakebackVersion | ForkBeforeStart
            | BadForkVersion | NotSealed => ErrorClass::Illegal,
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A code as its wire string.
impl From<ErrorCode> for String {
    fn from(code: ErrorCode) -> String {
        code.as_str().to_string()
    }
}

/// Codes compare with their wire strings, as clients see them.
impl PartialEq<&str> for ErrorCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<str> for ErrorCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

/// A refusal by the rules: a stable code and a sentence the player understands. Always the
/// player's to mend; our own faults are a [`Fault`], never a `RuleError`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error, ToSchema)]
#[error("{message}")]
pub struct RuleError {
    pub code: ErrorCode,
    pub message: String,
}

impl RuleError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> RuleError {
        RuleError {
            code,
            message: message.into(),
        }
    }
    pub fn illegal(message: impl Into<String>) -> RuleError {
        RuleError::new(ErrorCode::IllegalCommand, message)
    }
    pub fn not_your_turn() -> RuleError {
        RuleError::new(ErrorCode::NotYourTurn, "It is not your turn.")
    }
    pub fn game_over() -> RuleError {
        RuleError::new(ErrorCode::GameOver, "The game is over.")
    }
    pub fn invalid_setup(message: impl Into<String>) -> RuleError {
        RuleError::new(ErrorCode::InvalidSetup, message)
    }
    pub fn bad_command(message: impl Into<String>) -> RuleError {
        RuleError::new(ErrorCode::BadCommand, message)
    }
}

/// Our own fault, met while deciding or replaying: an event that does not serialize, a stored
/// log that cannot be folded back, a caller that left out what the rules need. Never the
/// player's mistake: what it says is for the operator's log, and the API answers it as a 500
/// without detail.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Fault(pub String);

/// Why a command (or a creation, a fork, a replay) did not go through: the rules refused it,
/// or we failed. The two never mix: a client sees a [`RuleError`] with its code and sentence,
/// and never a [`Fault`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The rules refused it: the player's to mend.
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// Our own fault.
    #[error("our fault: {0}")]
    Fault(#[from] Fault),
}

impl Refusal {
    /// Our own fault, from anything that says what went wrong.
    pub fn fault(what: impl std::fmt::Display) -> Refusal {
        Refusal::Fault(Fault(what.to_string()))
    }

    /// The rules' refusal, when it is one (not our fault).
    pub fn rule(&self) -> Option<&RuleError> {
        match self {
            Refusal::Rule(error) => Some(error),
            Refusal::Fault(_) => None,
        }
    }

    /// The code of the rules' refusal; `None` for our own fault.
    pub fn code(&self) -> Option<ErrorCode> {
        self.rule().map(|error| error.code)
    }
}

/// What the lobby tells about a game: ids, variants, player counts and options.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct KindInfo {
    /// The game id used everywhere: `avalanche-chess`, `avalanche`, ...
    pub id: String,
    pub name: String,
    pub min_seats: usize,
    pub max_seats: usize,
    /// Variant ids; the first is the default. Empty when the game has no variants.
    pub variants: Vec<String>,
    /// One paragraph about the game.
    pub summary: String,
    /// Whether any information is hidden from some player while the game runs.
    pub hidden_information: bool,
    /// Where the full rules are written, as implemented: a page of the repository.
    pub rules: String,
    /// The current revision of the rules: new games are played under it.
    pub revision: u32,
    /// Every revision of the rules, oldest first, with what it changed. A stored game is
    /// decided and audited by the revision it was created under.
    pub revisions: Vec<crate::revision::RuleRevision>,
    /// Which seat is which: how many there are, what seat 0 is, who acts first.
    pub seating: Seating,
}

/// Which seat is which in a game. Seats are numbered from 0 in turn order; the creator takes
/// the first free one unless they name one, and each join takes the first free one (or the
/// one named). README's "Which seat is which" says the same (a test checks it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct Seating {
    /// How many seats a game has: `2`, or a range such as `2-6` (`min_seats` to `max_seats`).
    #[schema(example = "2-6")]
    pub players: String,
    /// Each seat's name in seat order, where seats differ (Avalanche Chess: `White`,
    /// `Black`); empty where every seat is alike.
    pub names: Vec<String>,
    /// What seat 0 is.
    #[schema(example = "White (seat 1 is Black)")]
    pub seat_0: String,
    /// Who acts first once every seat is taken.
    #[schema(example = "seat 0, then in seat order")]
    pub first_to_act: String,
}

impl KindInfo {
    pub fn new(
        id: &str,
        name: &str,
        min_seats: usize,
        max_seats: usize,
        summary: &str,
    ) -> KindInfo {
        KindInfo {
            id: id.into(),
            name: name.into(),
            min_seats,
            max_seats,
            variants: Vec::new(),
            summary: summary.into(),
            hidden_information: false,
            rules: crate::revision::rules_page(id),
            revision: crate::revision::FIRST,
            revisions: vec![crate::revision::RuleRevision::first()],
            seating: Seating {
                players: if min_seats == max_seats {
                    min_seats.to_string()
                } else {
                    format!("{min_seats}-{max_seats}")
                },
                names: Vec::new(),
                seat_0: "the first player".into(),
                first_to_act: "seat 0, then in seat order".into(),
            },
        }
    }

    /// Says which seat is which where seats are not all alike (`names`, what seat 0 is) or
    /// another seat than seat 0 acts first.
    pub fn seated(mut self, names: &[&str], seat_0: &str, first_to_act: &str) -> KindInfo {
        self.seating.names = names.iter().map(|n| n.to_string()).collect();
        self.seating.seat_0 = seat_0.into();
        self.seating.first_to_act = first_to_act.into();
        self
    }

    /// A later revision of the rules, which new games are played under: `changes` says what
    /// it changed, one corrected rule a line.
    pub fn revised(mut self, revision: u32, changes: &[&str]) -> KindInfo {
        self.revision = revision;
        self.revisions.push(crate::revision::RuleRevision {
            revision,
            changes: changes.iter().map(|c| c.to_string()).collect(),
        });
        self
    }

    pub fn with_variants(mut self, variants: &[&str]) -> KindInfo {
        self.variants = variants.iter().map(|v| v.to_string()).collect();
        self
    }

    pub fn with_hidden_information(mut self) -> KindInfo {
        self.hidden_information = true;
        self
    }

    /// How many players a game takes, in the words of its refusal and of the API document's
    /// `seats`: `2 to 6`, or `exactly 2`.
    pub fn seat_range(&self) -> String {
        if self.min_seats == self.max_seats {
            format!("exactly {}", self.min_seats)
        } else {
            format!("{} to {}", self.min_seats, self.max_seats)
        }
    }

    /// The common checks of a setup: a known variant and a seat count in range.
    pub fn check_setup(&self, variant: Option<&str>, seats: usize) -> Result<(), RuleError> {
        if seats < self.min_seats || seats > self.max_seats {
            return Err(RuleError::invalid_setup(format!(
                "{} is played by {} players, not {seats}.",
                self.name,
                self.seat_range()
            )));
        }
        if let Some(variant) = variant {
            if !self.variants.iter().any(|v| v == variant) {
                let known = if self.variants.is_empty() {
                    "it has no variants".to_string()
                } else {
                    format!("known variants: {}", self.variants.join(", "))
                };
                return Err(RuleError::invalid_setup(format!(
                    "{} has no variant \"{variant}\" ({known}).",
                    self.name
                )));
            }
        }
        Ok(())
    }
}

/// The rules of one game. See the module documentation for a complete example.
///
/// The implementing type is a marker (a unit struct deriving `Clone`, `Debug`, `PartialEq`).
///
/// Serialized forms: commands and events are JSON objects internally tagged with `"type"`
/// (`#[serde(tag = "type", rename_all = "snake_case")]`); their type names are stable strings,
/// part of the public API and of stored games. Command types must not use the names of the
/// table's own commands (see [`crate::table::TABLE_COMMAND_TYPES`]).
pub trait Engine: Sized + Clone + Debug + PartialEq + Send + Sync + 'static {
    /// The game id: `avalanche-chess`, `avalanche`, `ski-runs`, `vamanos`, `altitude`.
    const ID: &'static str;
    /// Options chosen at creation beyond the variant and seat count (deck counts, ...).
    type Options: Clone
        + Debug
        + Default
        + PartialEq
        + Serialize
        + DeserializeOwned
        + ToSchema
        + Send
        + Sync;
    /// The whole state, secrets included. Never sent as is: see [`Engine::view`].
    type State: Clone + Debug + PartialEq + Send + Sync;
    type Command: Clone + Debug + PartialEq + Serialize + DeserializeOwned + ToSchema + Send + Sync;
    type Event: Clone + Debug + PartialEq + Serialize + DeserializeOwned + ToSchema + Send + Sync;
    /// The state as one viewer may see it.
    type View: Serialize + ToSchema;

    fn info() -> KindInfo;

    /// Refuses a setup the rules do not allow (seat count, variant, options).
    fn check(setup: &Setup<Self::Options>) -> Result<(), RuleError>;

    /// The state before the first event: nothing dealt yet.
    fn initial(setup: &Setup<Self::Options>) -> Self::State;

    /// The events that begin play once every seat is taken: the deal, the dealer draw, ...
    /// Randomness only through `ctx.dealer(..)`; the events record the outcome (the cards).
    fn start(state: &Self::State, ctx: &Context) -> Vec<Self::Event>;

    /// Validates a command of `seat` against the state and returns the events it causes.
    fn decide(
        state: &Self::State,
        seat: Seat,
        command: &Self::Command,
        ctx: &Context,
    ) -> Result<Vec<Self::Event>, RuleError>;

    /// Applies one event. Never fails: events were decided by the rules.
    fn evolve(state: &mut Self::State, event: &Self::Event);

    /// A copy of the state to fold just-decided events into, only to learn whether they end
    /// the game ([`Engine::outcome`]): the table does so after every command. The default is
    /// the whole state; an engine may leave out what neither `evolve` nor `outcome` needs
    /// (a notation history that only grows, for instance).
    fn lookahead(state: &Self::State) -> Self::State {
        state.clone()
    }

    /// The state as `viewer` may see it. Once the game has ended the table asks with
    /// `Viewer::Everyone`, so engines need not reveal anything by themselves.
    fn view(state: &Self::State, viewer: Viewer) -> Self::View;

    /// The view once the table ended the game before its rules did (`end`: a resignation, an
    /// agreed draw, a timeout, a takeback), with the game's `outcome`: the view must show the
    /// game over, nobody to act and, where it has a result, the outcome's. The table asks it
    /// of every finished game the rules did not end (except one sealed by a takeback, shown as
    /// while it ran). The default changes nothing, for views with nothing to say.
    fn ended_view(view: Self::View, _end: TableEnd, _outcome: &Outcome) -> Self::View {
        view
    }

    /// The event as `viewer` may see it: secrets of other seats and undrawn cards removed.
    /// Redacted events are for showing only; they are never folded.
    fn redact(event: &Self::Event, viewer: Viewer) -> Self::Event;

    /// Every legal command of `seat` now, each with its notation. Empty when the seat may not
    /// act. Every command listed must be accepted by `decide`.
    fn legal(state: &Self::State, seat: Seat) -> Vec<Legal<Self::Command>>;

    /// The seats that may (or must) act now: one seat in turn-based games, several while a
    /// Vamanos round runs, the pawn's owner while a promotion choice is owed. Empty when over.
    fn to_act(state: &Self::State) -> Vec<Seat>;

    /// The result, once the rules have ended the game.
    fn outcome(state: &Self::State) -> Option<Outcome>;

    /// The events for a seat leaving a game that goes on without it (resigned or timed out in
    /// a game of three or more). The engine skips that seat from then on. Only called while
    /// at least two other seats remain; two-player games may return no events.
    fn retire(state: &Self::State, seat: Seat) -> Vec<Self::Event>;

    /// The events that reshuffle every face-down pile with a fresh source, used when a takeback
    /// forks a game with hidden information. Games without hidden piles return none.
    fn reshuffle(_state: &Self::State, _ctx: &Context) -> Vec<Self::Event> {
        Vec::new()
    }

    /// How a rated game of `seats` seats moves its players' ratings, or `None` when such a
    /// game cannot be rated. The default: a solitaire is not rated, two seats by Glicko-2,
    /// more by Weng-Lin (see [`crate::rating`]).
    fn rating_method(seats: usize) -> Option<crate::rating::RatingMethod> {
        crate::rating::RatingMethod::for_seats(seats)
    }

    /// The position drawn as plain text from one viewer's view, and from nothing else, so it
    /// holds no secret the view does not (each game's `text.rs`). `me` is the reader's seat;
    /// `names` the players' names by seat (`seat N` where missing).
    fn position_text(view: &Self::View, me: Option<Seat>, names: &[String]) -> String;

    /// One event, already redacted for the reader, in words naming its seat ("Ann played 7 7
    /// (grow)"): how a reader learns what the others did since their last turn. `None` for an
    /// event nobody needs told.
    fn event_text(event: &Self::Event, names: &[String]) -> Option<String>;

    /// A person's text read as exactly one of `seat`'s legal commands, or refused with why and
    /// the nearest commands. The text is normalised first ([`crate::text::normalise`]); an
    /// ambiguous text is refused with every command it could mean, never guessed; no text
    /// panics. Every notation [`Engine::legal`] gives reads back as its own command.
    fn read(state: &Self::State, seat: Seat, text: &str) -> crate::text::Reading<Self::Command>;
}
