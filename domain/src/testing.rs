//! Tools for the tests of engines: play random legal games and check the invariants every
//! engine must keep. Public so that each engine's tests (and the service's) can use it.

use crate::engine::{Context, Engine, Seat, Setup, Viewer};
use crate::fairness::{Dealer, Seed};
use crate::table::TABLE_COMMAND_TYPES;
use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt::Debug;

/// A game played to its end (or to the command limit) by [`play_random`].
#[derive(Clone, Debug)]
pub struct RandomGame<E: Engine> {
    pub setup: Setup<E::Options>,
    pub seed: Seed,
    pub events: Vec<E::Event>,
    /// Each command with the seat that gave it, in order.
    pub commands: Vec<(Seat, E::Command)>,
    pub state: E::State,
    pub finished: bool,
}

/// A fixed time for tests: the engines never need a real clock.
pub fn test_time() -> DateTime<Utc> {
    DateTime::UNIX_EPOCH
}

/// Plays one game of `E` with commands drawn at random from the legal lists, from a seat drawn
/// at random among those to act. After every event `check` sees the state and the event.
///
/// Fails (with a description) when the setup is refused, a seat to act has no legal command,
/// a seat not to act has one, a listed command is refused by `decide`, an event or command does
/// not survive a JSON round trip, or the fold of the events differs from the state.
pub fn play_random<E: Engine>(
    setup: &Setup<E::Options>,
    seed: Seed,
    choices: u64,
    max_commands: usize,
    mut check: impl FnMut(&E::State, &E::Event),
) -> Result<RandomGame<E>, String> {
    E::check(setup).map_err(|e| format!("setup refused: {e}"))?;
    let mut picker: Dealer = Seed([0x5a; 32]).dealer(choices);
    let mut state = E::initial(setup);
    let mut events: Vec<E::Event> = Vec::new();
    let mut commands = Vec::new();
    let start = E::start(&state, &Context::new(seed, 0, test_time()));
    for event in start {
        round_trip(&event)?;
        E::evolve(&mut state, &event);
        check(&state, &event);
        events.push(event);
    }
    let mut finished = false;
    for _ in 0..max_commands {
        if E::outcome(&state).is_some() {
            finished = true;
            break;
        }
        let to_act = E::to_act(&state);
        if to_act.is_empty() {
            return Err(format!(
                "no seat to act and no outcome after {} events",
                events.len()
            ));
        }
        for seat in 0..setup.seats {
            if !to_act.contains(&seat) && !E::legal(&state, seat).is_empty() {
                return Err(format!("seat {seat} is not to act but has legal commands"));
            }
        }
        let seat = to_act[picker.uniform_inclusive(to_act.len() as u32 - 1) as usize];
        let legal = E::legal(&state, seat);
        if legal.is_empty() {
            return Err(format!(
                "seat {seat} is to act but has no legal command: {state:?}"
            ));
        }
        let choice = &legal[picker.uniform_inclusive(legal.len() as u32 - 1) as usize];
        round_trip(&choice.command)?;
        let ctx = Context::new(seed, events.len() as u64 + 1, test_time());
        let decided = E::decide(&state, seat, &choice.command, &ctx).map_err(|e| {
            format!(
                "legal command {:?} ({}) of seat {seat} refused: {e}",
                choice.command, choice.notation
            )
        })?;
        if decided.is_empty() {
            return Err(format!("command {} produced no event", choice.notation));
        }
        for event in decided {
            round_trip(&event)?;
            E::evolve(&mut state, &event);
            check(&state, &event);
            events.push(event);
        }
        commands.push((seat, choice.command.clone()));
    }
    if E::outcome(&state).is_some() {
        finished = true;
    }
    let mut folded = E::initial(setup);
    for event in &events {
        E::evolve(&mut folded, event);
    }
    if folded != state {
        return Err("the fold of the events differs from the state".into());
    }
    Ok(RandomGame {
        setup: setup.clone(),
        seed,
        events,
        commands,
        state,
        finished,
    })
}

/// Re-decides every command of a recorded game from the start and checks that it produces
/// exactly the recorded events (what an audit does).
pub fn replay_matches<E: Engine>(game: &RandomGame<E>) -> Result<(), String> {
    let mut state = E::initial(&game.setup);
    let mut expected = game.events.iter();
    let start = E::start(&state, &Context::new(game.seed, 0, test_time()));
    let mut version = 0u64;
    for event in start {
        if Some(&event) != expected.next() {
            return Err("the deal differs".into());
        }
        E::evolve(&mut state, &event);
        version += 1;
    }
    for (seat, command) in &game.commands {
        let ctx = Context::new(game.seed, version + 1, test_time());
        let events = E::decide(&state, *seat, command, &ctx).map_err(|e| e.to_string())?;
        for event in events {
            if Some(&event) != expected.next() {
                return Err(format!("command {command:?} gave another event: {event:?}"));
            }
            E::evolve(&mut state, &event);
            version += 1;
        }
    }
    Ok(())
}

/// Checks that serializing `value` to JSON and reading it back gives it again.
pub fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(
    value: &T,
) -> Result<(), String> {
    let json =
        serde_json::to_value(value).map_err(|e| format!("{value:?} does not serialize: {e}"))?;
    let back: T = serde_json::from_value(json.clone())
        .map_err(|e| format!("{json} does not read back: {e}"))?;
    if &back != value {
        return Err(format!("{value:?} reads back as {back:?}"));
    }
    Ok(())
}

/// Every viewer of a running game: each seat and a spectator (`Viewer::Everyone` is only
/// for a game that has ended).
pub fn viewers(seats: usize) -> Vec<Viewer> {
    let mut all: Vec<Viewer> = (0..seats).map(Viewer::Seat).collect();
    all.push(Viewer::Spectator);
    all
}

/// Plays one game of `kind` at the table, as the service does (players `p0`, `p1`, ... take
/// the seats in order, then commands drawn at random from the legal lists of a seat to act,
/// table commands left out), and returns its log. Stops at the end or after `max_commands`.
#[allow(clippy::too_many_arguments)]
pub fn play_random_log(
    kind: &dyn crate::registry::GameKind,
    variant: Option<String>,
    options: Option<serde_json::Value>,
    seats: usize,
    seed: Seed,
    choices: u64,
    max_commands: usize,
) -> Result<crate::log::GameLog, String> {
    let revision = kind.info().revision;
    play_random_log_under(
        kind,
        revision,
        variant,
        options,
        seats,
        seed,
        choices,
        max_commands,
    )
}

/// [`play_random_log`] for a game created under `revision` of its rules, as a game stored
/// then was: a `created` event of revision 1 names no revision at all.
#[allow(clippy::too_many_arguments)]
pub fn play_random_log_under(
    kind: &dyn crate::registry::GameKind,
    revision: u32,
    variant: Option<String>,
    options: Option<serde_json::Value>,
    seats: usize,
    seed: Seed,
    choices: u64,
    max_commands: usize,
) -> Result<crate::log::GameLog, String> {
    use crate::table::Status;
    let mut picker: Dealer = Seed([0xa5; 32]).dealer(choices);
    let now = test_time();
    let mut created = kind
        .create(variant, options, seats, seed.commitment())
        .map_err(|e| e.to_string())?;
    created_under(&mut created.payload, revision);
    let mut game = crate::log::LogBuilder::begin(kind, created, seed, "p0", None, now)
        .map_err(|e| e.to_string())?;
    for seat in 1..seats {
        game.play(
            &format!("p{seat}"),
            serde_json::json!({"type": "join"}),
            now,
        )
        .map_err(|e| e.to_string())?;
    }
    for _ in 0..max_commands {
        if game.game().facts().status == Status::Finished {
            break;
        }
        let to_act = game.game().facts().to_act;
        if to_act.is_empty() {
            return Err("an active game with no seat to act".into());
        }
        let seat = to_act[picker.uniform_inclusive(to_act.len() as u32 - 1) as usize];
        let legal = game_commands(game.game(), seat);
        if legal.is_empty() {
            return Err(format!("seat {seat} is to act but has no legal command"));
        }
        let command = legal[picker.uniform_inclusive(legal.len() as u32 - 1) as usize].clone();
        game.play(&format!("p{seat}"), command, now)
            .map_err(|e| e.to_string())?;
    }
    Ok(game.finish())
}

/// The legal commands of `seat` that are the game's own, not the table's: random play that
/// resigned or agreed draws would end most games in a few commands.
pub fn game_commands(game: &dyn crate::registry::LiveGame, seat: Seat) -> Vec<serde_json::Value> {
    game.legal(seat)
        .into_iter()
        .map(|l| l.command)
        .filter(|c| {
            !c["type"]
                .as_str()
                .is_some_and(|t| TABLE_COMMAND_TYPES.contains(&t))
        })
        .collect()
}

/// Makes a `created` payload name `revision` of the rules, the way it is stored: revision 1
/// is written as no revision at all (the bytes of a game stored before revisions existed).
pub fn created_under(created: &mut serde_json::Value, revision: u32) {
    let Some(setup) = created.get_mut("setup").and_then(|s| s.as_object_mut()) else {
        return;
    };
    if revision == crate::revision::FIRST {
        setup.remove("revision");
    } else {
        setup.insert("revision".into(), revision.into());
    }
}

/// The setup of a new game of `E` for `seats` players: no variant, the default options, the
/// current revision of the rules.
pub fn setup<E: Engine>(seats: usize) -> Setup<E::Options> {
    Setup {
        variant: None,
        options: E::Options::default(),
        seats,
        revision: E::info().revision,
        rated: false,
    }
}

/// The same setup under `revision` of the rules (a game created before a correction).
pub fn under<O>(setup: Setup<O>, revision: u32) -> Setup<O> {
    Setup { revision, ..setup }
}

/// The same setup with other options (a deck of other counts, a lower target).
pub fn with_options<O>(setup: Setup<O>, options: O) -> Setup<O> {
    Setup { options, ..setup }
}

/// The same setup with a variant.
pub fn with_variant<O>(setup: Setup<O>, variant: &str) -> Setup<O> {
    Setup {
        variant: Some(variant.to_string()),
        ..setup
    }
}

/// A rules test in the given/when/then shape: `given(setup, events)` is the game after those
/// events, `.when(seat, command)` decides a command there, and `.then(events)` checks the
/// events it gives or `.refused(code)` that it is refused with that code.
///
/// ```
/// use domain::games::ski_runs::{Card, Cards, Command, Event, SkiRuns};
/// use domain::testing::{given, setup};
///
/// let dealt = Event::Dealt {
///     hands: vec![Cards::shown(vec![Card::Lift]), Cards::shown(vec![Card::Lift])],
///     draw_pile: Cards::shown(vec![Card::GreenRun; 8]),
///     lift_pile: 10,
/// };
/// given::<SkiRuns>(setup::<SkiRuns>(2), [dealt.clone()])
///     .when(0, Command::Bank)
///     .refused("illegal_command");
/// given::<SkiRuns>(setup::<SkiRuns>(2), [dealt])
///     .when(1, Command::EndTurn)
///     .refused("not_your_turn");
/// ```
pub fn given<E: Engine>(
    setup: Setup<E::Options>,
    events: impl IntoIterator<Item = E::Event>,
) -> Given<E> {
    let mut state = E::initial(&setup);
    let mut version = 0;
    for event in events {
        E::evolve(&mut state, &event);
        version += 1;
    }
    Given { state, version }
}

/// The context the harness decides in: a fixed seed, `nonce`, and the test time.
pub fn context(nonce: u64) -> Context {
    Context::new(Seed([3; 32]), nonce, test_time())
}

/// A rules test from a position arranged by hand (a state no short list of events reaches
/// as well, such as a mountain already built): as [`given`], from that state.
pub fn arranged<E: Engine>(state: E::State) -> Given<E> {
    Given { state, version: 0 }
}

/// A game just dealt by the engine from `seed`: [`given`] the events of [`Engine::start`].
pub fn dealt<E: Engine>(setup: Setup<E::Options>, seed: Seed) -> Given<E> {
    let state = E::initial(&setup);
    let start = E::start(&state, &Context::new(seed, 0, test_time()));
    given::<E>(setup, start)
}

/// A game after the events it was given (see [`given`]).
#[derive(Clone, Debug)]
pub struct Given<E: Engine> {
    state: E::State,
    version: u64,
}

impl<E: Engine> Given<E> {
    /// The state the events fold into.
    pub fn state(&self) -> &E::State {
        &self.state
    }

    /// The same game after more events.
    pub fn and(mut self, events: impl IntoIterator<Item = E::Event>) -> Given<E> {
        for event in events {
            E::evolve(&mut self.state, &event);
            self.version += 1;
        }
        self
    }

    /// The state, to arrange a position by hand before the command is decided.
    pub fn state_mut(&mut self) -> &mut E::State {
        &mut self.state
    }

    /// The same game with its state arranged by `arrange`.
    pub fn with(mut self, arrange: impl FnOnce(&mut E::State)) -> Given<E> {
        arrange(&mut self.state);
        self
    }

    /// The events of `seat` leaving the game ([`Engine::retire`]), checked to be exactly
    /// `expected`; returns the game after them.
    #[track_caller]
    pub fn retires(self, seat: Seat, expected: impl IntoIterator<Item = E::Event>) -> Given<E> {
        let events = E::retire(&self.state, seat);
        let expected: Vec<E::Event> = expected.into_iter().collect();
        assert_eq!(events, expected, "the events of seat {seat} leaving");
        self.and(events)
    }

    /// Decides `command` of `seat` and folds its events into the game, for a test that plays
    /// several commands in a row: the events, or the refusal (the game is then unchanged).
    pub fn play(
        &mut self,
        seat: Seat,
        command: E::Command,
    ) -> Result<Vec<E::Event>, crate::engine::RuleError> {
        let events = E::decide(&self.state, seat, &command, &self.context())?;
        self.fold(events.iter().cloned());
        Ok(events)
    }

    /// Folds more events into the game (as [`Given::and`], in place).
    pub fn fold(&mut self, events: impl IntoIterator<Item = E::Event>) {
        for event in events {
            E::evolve(&mut self.state, &event);
            self.version += 1;
        }
    }

    /// The events of `seat` leaving the game ([`Engine::retire`]), folded into it.
    pub fn retire(&mut self, seat: Seat) -> Vec<E::Event> {
        let events = E::retire(&self.state, seat);
        self.fold(events.iter().cloned());
        events
    }

    /// The context a command is decided in (see [`context`]), the game's version as the nonce.
    fn context(&self) -> Context {
        context(self.version)
    }

    /// The commands `seat` may give now.
    pub fn legal(&self, seat: Seat) -> Vec<E::Command> {
        E::legal(&self.state, seat)
            .into_iter()
            .map(|l| l.command)
            .collect()
    }

    /// Decides `command` of `seat` in this game (with a fixed seed and the test time).
    pub fn when(self, seat: Seat, command: E::Command) -> When<E> {
        let decided = E::decide(&self.state, seat, &command, &self.context());
        When {
            given: self,
            command,
            decided,
        }
    }
}

/// A game in a test reads as its state: `game.turn`, `game.hands[0]`. Writing through it
/// arranges a position by hand, as [`Given::with`] does.
impl<E: Engine> std::ops::Deref for Given<E> {
    type Target = E::State;

    fn deref(&self) -> &E::State {
        &self.state
    }
}

impl<E: Engine> std::ops::DerefMut for Given<E> {
    fn deref_mut(&mut self) -> &mut E::State {
        &mut self.state
    }
}

/// A command decided in a game (see [`given`]).
pub struct When<E: Engine> {
    given: Given<E>,
    command: E::Command,
    decided: Result<Vec<E::Event>, crate::engine::RuleError>,
}

impl<E: Engine> When<E> {
    /// Checks that the command gives exactly `expected`, and returns the game after them.
    #[track_caller]
    pub fn then(self, expected: impl IntoIterator<Item = E::Event>) -> Given<E> {
        let expected: Vec<E::Event> = expected.into_iter().collect();
        let events = self.events_as_decided();
        assert_eq!(events, expected, "the events of {:?}", self.command);
        self.given.and(events)
    }

    /// Checks that the command is accepted, and returns the game after its events, whatever
    /// they are (for tests that look at the state or a part of the events).
    #[track_caller]
    pub fn accepted(self) -> Given<E> {
        let events = self.events_as_decided();
        self.given.and(events)
    }

    /// The events the command gave; fails the test if it was refused.
    #[track_caller]
    pub fn events(&self) -> Vec<E::Event> {
        self.events_as_decided()
    }

    /// Checks that the command is refused with `code`, and returns the refusal (its sentence
    /// is for the player).
    #[track_caller]
    pub fn refused(self, code: &str) -> crate::engine::RuleError {
        match self.decided {
            Ok(events) => panic!(
                "{:?} was accepted, giving {events:?}; expected a refusal `{code}`",
                self.command
            ),
            Err(error) => {
                assert_eq!(
                    error.code, code,
                    "the refusal of {:?}: {error}",
                    self.command
                );
                error
            }
        }
    }

    #[track_caller]
    fn events_as_decided(&self) -> Vec<E::Event> {
        match &self.decided {
            Ok(events) => events.clone(),
            Err(error) => panic!("{:?} was refused: {error}", self.command),
        }
    }
}
