//! Avalanche, the card-collecting game (rules: `rules/avalanche.md`): play sets to a growing
//! avalanche and collect the cards when the next player lets it fall.
//!
//! Choices the rules leave to us, in one place:
//! - a card is its rank alone (suits do not matter), see [`cards`];
//! - the dealer draw and the deal use two shuffles of the game's seed, see [`Event::DealerDrawn`]
//!   and [`Event::Dealt`];
//! - a seat that resigns or times out in a game of three or more gives its hand to the neutral
//!   pile, keeps its collected cards but cannot win, see [`Event::Retired`].

pub mod cards;
pub mod command;
pub mod deal;
pub mod decide;
pub mod event;
pub mod evolve;
pub mod legal;
pub mod options;
pub mod play;
pub mod revision;
pub mod score;
pub mod state;
pub mod text;
pub mod view;

pub use cards::{Cards, Rank};
pub use command::Command;
pub use event::{DrawnCard, Event, SecretCards};
pub use options::Options;
pub use play::Play;
pub use revision::Rules;
pub use state::{Phase, State};
pub use view::View;

use crate::engine::{
    Context, Engine, KindInfo, Legal, Outcome, RuleError, Seat, Setup, TableEnd, Viewer,
};

/// The Avalanche engine.
#[derive(Clone, Debug, PartialEq)]
pub struct Avalanche;

impl Engine for Avalanche {
    const ID: &'static str = "avalanche";
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
            "Avalanche",
            2,
            6,
            "A card-collecting game for 2 to 6 players with 110 cards: draw (Snow Fall) or \
             play a set to the avalanche; grow it with as many equal or higher cards or with \
             more cards, stop it with as many lower cards, or let it fall with fewer cards and \
             hand it to the previous player. The most cards collected wins.",
        )
        .with_hidden_information()
        .revised(revision::CURRENT, revision::REVISION_2)
        .seated(
            &[],
            "the first player",
            "the player to the left (next seat) of the dealer, whom the game draws at the \
             start (the dealer_drawn event names them)",
        )
    }

    fn check(setup: &Setup<Options>) -> Result<(), RuleError> {
        Self::info().check_setup(setup.variant.as_deref(), setup.seats)
    }

    fn initial(setup: &Setup<Options>) -> State {
        State::new(setup.seats, Rules::of(setup.revision))
    }

    fn start(state: &State, ctx: &Context) -> Vec<Event> {
        if state.phase != Phase::Dealing {
            return Vec::new();
        }
        deal::start(state.seats, ctx)
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
        state.seat_to_act().into_iter().collect()
    }

    fn outcome(state: &State) -> Option<Outcome> {
        score::outcome(state)
    }

    fn retire(state: &State, seat: Seat) -> Vec<Event> {
        decide::retire(state, seat)
    }

    /// The draw pile is the only face-down pile whose order matters (collected piles and the
    /// neutral pile are only counted).
    fn reshuffle(state: &State, ctx: &Context) -> Vec<Event> {
        if state.phase != Phase::Playing || state.draw_pile.is_empty() {
            return Vec::new();
        }
        let mut pile = state.draw_pile.clone();
        ctx.dealer(0).shuffle(&mut pile);
        vec![Event::Reshuffled {
            draw_pile: SecretCards::shown(pile),
        }]
    }
}
