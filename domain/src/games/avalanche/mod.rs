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
pub mod play;
pub mod revision;
pub mod state;
pub mod view;

pub use cards::{Cards, Rank};
pub use command::Command;
pub use event::{DrawnCard, Event, SecretCards};
pub use play::Play;
pub use revision::Rules;
pub use state::{Phase, State};
pub use view::View;

use crate::engine::{Context, Engine, KindInfo, Legal, Outcome, RuleError, Seat, Setup, Viewer};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The Avalanche engine.
#[derive(Clone, Debug, PartialEq)]
pub struct Avalanche;

/// Avalanche has no options beyond the number of players.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {}

impl Engine for Avalanche {
    const ID: &'static str = "avalanche";
    type Options = Options;
    type State = State;
    type Command = Command;
    type Event = Event;
    type View = View;

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

    fn redact(event: &Event, viewer: Viewer) -> Event {
        view::redact(event, viewer)
    }

    fn legal(state: &State, seat: Seat) -> Vec<Legal<Command>> {
        legal::legal(state, seat)
    }

    fn to_act(state: &State) -> Vec<Seat> {
        state.seat_to_act().into_iter().collect()
    }

    /// The most collected cards wins; equal highest counts share the win. A retired seat's
    /// score is shown but it cannot win.
    fn outcome(state: &State) -> Option<Outcome> {
        if state.phase != Phase::Over {
            return None;
        }
        let scores: Vec<i64> = state
            .collected
            .iter()
            .map(|pile| i64::try_from(pile.len()).unwrap_or(i64::MAX))
            .collect();
        let playing = |seat: &Seat| !state.retired.get(*seat).copied().unwrap_or(true);
        let best = (0..state.seats)
            .filter(playing)
            .filter_map(|seat| scores.get(seat).copied())
            .max();
        let winners = (0..state.seats)
            .filter(playing)
            .filter(|&seat| scores.get(seat).copied() == best)
            .collect();
        Some(Outcome {
            winners,
            draw: false,
            reason: "only one player still held cards; the most collected cards wins".into(),
            scores: Some(scores),
        })
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
