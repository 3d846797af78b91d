//! Altitude: each player builds a mountain of cards, floor on floor; the highest wins.
//!
//! Rules: `rules/altitude.md`. One concept a file: the cards and the deck, the mountain and
//! its placement rules, the state and its events, the decisions, the legal commands, the
//! views and the score.

pub mod cards;
pub mod command;
pub mod deal;
pub mod decide;
pub mod event;
pub mod evolve;
pub mod legal;
pub mod mountain;
pub mod options;
pub mod revision;
pub mod score;
pub mod state;
pub mod text;
pub mod view;

pub use cards::{Animal, Card, Face};
pub use command::Command;
pub use event::Event;
pub use mountain::{Mountain, Position};
pub use options::Options;
pub use revision::Rules;
pub use score::{score, ScoreSheet};
pub use state::{Phase, State};
pub use view::{PlacedCard, PlayerView, View};

use crate::engine::{
    Context, Engine, KindInfo, Legal, Outcome, RuleError, Seat, Setup, TableEnd, Viewer,
};

/// The Altitude engine (game id `altitude`), for 1 to 4 players.
#[derive(Clone, Debug, PartialEq)]
pub struct Altitude;

/// The seats that must act now.
pub fn to_act(state: &State) -> Vec<Seat> {
    match state.phase {
        Phase::Choosing => (0..state.seats)
            .filter(|&s| state.is_active(s) && state.choosing[s])
            .collect(),
        Phase::Playing | Phase::LayingHands if state.is_active(state.turn) => vec![state.turn],
        _ => Vec::new(),
    }
}

impl Engine for Altitude {
    const ID: &'static str = "altitude";
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
            "Altitude",
            1,
            4,
            "Build the highest mountain of cards: each card above the base lies on two \
             neighbours and must be higher than both. Cable cars help, avalanches hinder, \
             Saint-Bernards rescue. Alone, it is a patience.",
        )
        .with_hidden_information()
        .revised(2, revision::REVISION_2)
        .revised(revision::CURRENT, revision::REVISION_3)
        .seated(
            &[],
            "the first player",
            "everyone at once to return 2 cards of the deal, then seat 0, then in seat order",
        )
    }

    fn check(setup: &Setup<Options>) -> Result<(), RuleError> {
        Self::info().check_setup(setup.variant.as_deref(), setup.seats)?;
        setup.options.check(setup.seats)
    }

    fn initial(setup: &Setup<Options>) -> State {
        State::new(
            setup.seats,
            setup.options.clone(),
            Rules::of(setup.revision),
        )
    }

    fn start(state: &State, ctx: &Context) -> Vec<Event> {
        deal::start(state, ctx)
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
        to_act(state)
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
