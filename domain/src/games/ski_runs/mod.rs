//! Ski Runs (game id `ski-runs`): build ski runs from a lift card and linked run cards, bank
//! them before an avalanche sweeps them away. Rules: `rules/ski-runs.md`.
//!
//! Rulings taken here, beyond those of the rules file:
//! - **The face-up lift pile** is public as a count: its cards are all alike, so its order
//!   hides nothing (see [`deal`]). The draw pile's order is secret; a card drawn from it is
//!   seen by the drawer only.
//! - **A draw takes at least one card**: a player may not name only piles that are empty
//!   (two lift cards from an empty lift pile). Without it a player could draw nothing forever
//!   and the draw pile would never run out. (Revision 1 went further: a pile could be named
//!   for a card only if the other could not supply it instead; see [`revision`].)
//! - **Seat 0 begins**, and play goes clockwise, in seat order.
//! - **Banking** needs an unbanked run with at least one run card, at the start of a turn.
//! - **The end when nobody plays or banks**: see [`evolve`]; a full round of turns ending
//!   with the draw pile empty, by every remaining player, without a card played or a run banked.
//!   From revision 3 the end is decided as a `game_ended` event (see [`decide::with_end`]).
//! - **Announcements** start with the player who played the last avalanche card, or seat 0 if
//!   none was played.
//! - **Leaving** ([`SkiRuns::retire`]): the hand and unbanked run go face down to the discard
//!   pile; banked runs stay and are scored, but a seat that left cannot win.

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

pub use cards::{Card, Cards, Colour, DeckCounts};
pub use command::{Command, Pile};
pub use event::Event;
pub use options::Options;
pub use revision::Rules;
pub use state::{End, SkiRun, State, Step};
pub use view::View;

use crate::engine::{
    Context, Engine, KindInfo, Legal, Outcome, RuleError, Seat, Setup, TableEnd, Viewer,
};

/// The Ski Runs engine.
#[derive(Clone, Debug, PartialEq)]
pub struct SkiRuns;

impl Engine for SkiRuns {
    const ID: &'static str = "ski-runs";
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
            "Ski Runs",
            2,
            6,
            "Draw, then play up to three cards: a lift starts your ski run, run cards of \
             neighbouring colours extend it, and an avalanche sweeps away every run not yet \
             banked. Bank runs to score; the 5th avalanche ends the game.",
        )
        .with_hidden_information()
        .revised(2, revision::REVISION_2)
        .revised(revision::CURRENT, revision::REVISION_3)
    }

    fn check(setup: &Setup<Options>) -> Result<(), RuleError> {
        Self::info().check_setup(setup.variant.as_deref(), setup.seats)?;
        options::check_deck(&setup.options.deck, setup.seats)
    }

    fn initial(setup: &Setup<Options>) -> State {
        State::new(setup.seats, setup.options.deck, Rules::of(setup.revision))
    }

    fn start(state: &State, ctx: &Context) -> Vec<Event> {
        deal::deal(state, ctx)
    }

    fn decide(
        state: &State,
        seat: Seat,
        command: &Command,
        _ctx: &Context,
    ) -> Result<Vec<Event>, RuleError> {
        decide::decide(state, seat, command)
    }

    fn evolve(state: &mut State, event: &Event) {
        evolve::evolve(state, event)
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
        if state.running() {
            vec![state.turn]
        } else {
            Vec::new()
        }
    }

    fn outcome(state: &State) -> Option<Outcome> {
        score::outcome(state)
    }

    /// The seat's hand and unbanked run go face down to the discard pile (the rules know no
    /// way to pass cards on); its banked runs stay on the table and are scored, but it cannot
    /// win. If it was its turn, the next remaining player's turn begins.
    fn retire(state: &State, seat: Seat) -> Vec<Event> {
        if !state.running() || state.retired.get(seat).copied().unwrap_or(true) {
            return Vec::new();
        }
        let retired = Event::Retired {
            seat,
            hand: Cards::shown(state.hand(seat).to_vec()),
            run: state.run(seat).cloned(),
        };
        decide::with_end(state, vec![retired])
    }

    fn reshuffle(state: &State, ctx: &Context) -> Vec<Event> {
        deal::reshuffle(state, ctx)
    }
}
