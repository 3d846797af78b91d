//! Vamanos: 2 to 6 players race through their own 36-card decks, all at once, placing each
//! card in one of three rows; the first to place their last card calls "Alta" and the round
//! stops for everybody. Rules: `rules/vamanos.md`.
//!
//! There are no turns, so commands of different players arrive in any order and each is
//! decided against the state at its arrival. Every command names the round it is meant for:
//! a command for a round that another player has already ended is refused (`round_over`)
//! rather than played in the next round.
//!
//! The option `target` (default 500, the rules' value) sets the score to pass; a lower target
//! gives shorter games. Rows are numbered 1 to 3 in commands, events and notation.

pub mod cards;
pub mod command;
pub mod deal;
pub mod decide;
pub mod event;
pub mod evolve;
pub mod legal;
pub mod options;
pub mod revision;
pub mod score;
pub mod state;
pub mod text;
pub mod view;

pub use cards::{Card, Colour, Picture};
pub use command::Command;
pub use event::{Event, Pile};
pub use options::Options;
pub use revision::Rules;
pub use score::{Combination, SeatScore, StackScore};
pub use state::{Player, State};
pub use view::{Phase, PlayerView, View};

use crate::engine::{
    Context, Engine, KindInfo, Legal, Outcome, RuleError, Seat, Setup, TableEnd, Viewer,
};

/// The Vamanos engine.
#[derive(Clone, Debug, PartialEq)]
pub struct Vamanos;

impl Engine for Vamanos {
    const ID: &'static str = "vamanos";
    type Options = Options;
    type State = State;
    type Command = Command;
    type Event = Event;
    type View = View;

    fn position_text(view: &View, me: Option<Seat>, names: &[String]) -> String {
        text::position(view, me, names)
    }

    fn event_text(event: &Event, names: &[String]) -> Option<String> {
        text::event(event, names)
    }

    fn read(state: &State, seat: Seat, text: &str) -> crate::text::Reading<Command> {
        text::read(state, seat, text)
    }

    fn info() -> KindInfo {
        KindInfo::new(
            Self::ID,
            "Vamanos",
            2,
            6,
            "No turns: everybody draws from their own deck and places cards in three rows as \
             fast as they can; five in a row make a stack scored for pictures and colours. The \
             first to place their last card calls \"Alta\" and the round stops. Play rounds \
             until someone passes 500 points (the option `target` sets a lower score for \
             shorter games).",
        )
        .with_hidden_information()
        .revised(revision::CURRENT, revision::REVISION_2)
        .seated(&[], "the first player", "everyone at once")
    }

    /// Everybody plays at once, even at two seats: ranked by place, never a duel.
    fn rating_method(seats: usize) -> Option<crate::rating::RatingMethod> {
        (seats >= 2).then_some(crate::rating::RatingMethod::WengLin)
    }

    fn check(setup: &Setup<Options>) -> Result<(), RuleError> {
        Self::info().check_setup(setup.variant.as_deref(), setup.seats)?;
        let target = setup.options.target;
        if !(1..=options::MAX_TARGET).contains(&target) {
            return Err(RuleError::invalid_setup(format!(
                "The target of Vamanos is a score from 1 to {} (the rules say {}), not {target}.",
                options::MAX_TARGET,
                options::RULES_TARGET
            )));
        }
        Ok(())
    }

    fn initial(setup: &Setup<Options>) -> State {
        State::new(setup)
    }

    fn start(state: &State, ctx: &Context) -> Vec<Event> {
        vec![deal::deal(state, 1, ctx)]
    }

    fn decide(
        state: &State,
        seat: Seat,
        command: &Command,
        ctx: &Context,
    ) -> Result<Vec<Event>, RuleError> {
        decide::decide(state, seat, command, ctx)
    }

    fn evolve(state: &mut State, event: &Event) {
        state.evolve(event);
    }

    fn view(state: &State, viewer: Viewer) -> View {
        view::view(state, viewer)
    }

    fn ended_view(view: View, end: TableEnd, _outcome: &Outcome) -> View {
        view::ended(view, end)
    }

    fn redact(event: &Event, viewer: Viewer) -> Event {
        view::redact(event, viewer)
    }

    fn legal(state: &State, seat: Seat) -> Vec<Legal<Command>> {
        legal::legal(state, seat)
    }

    fn to_act(state: &State) -> Vec<Seat> {
        legal::to_act(state)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        score::outcome(state)
    }

    fn retire(state: &State, seat: Seat) -> Vec<Event> {
        decide::retire(state, seat)
    }

    fn reshuffle(state: &State, ctx: &Context) -> Vec<Event> {
        deal::reshuffle(state, ctx)
    }
}
