//! Avalanche Chess (Ralph Betza, 1977): orthodox chess where every turn also pushes one of the
//! opponent's pawns a square forward. Rules: `rules/avalanche-chess.md`.
//!
//! White sits at seat 0, Black at seat 1. A turn is one command (the move and the push); the
//! owner's choice for a pawn promoted by a push is its own command, owed by the owner before
//! their move, so `to_act` names the owner then. Chess hides nothing: every viewer sees all.

pub mod command;
pub mod decide;
pub mod ending;
pub mod event;
pub mod evolve;
pub mod legal;
pub mod options;
pub mod perft;
pub mod position;
pub mod record;
pub mod revision;
pub mod san;
pub mod square;
pub mod state;
pub mod text;
pub mod turn;
pub mod variant;
pub mod view;

pub use command::{Command, PromotionPiece};
/// The move generator underneath, for callers of [`perft`] and [`position::Position::board`].
pub use cozy_chess;
pub use event::{CastlingSide, EndReason, Event, PushMade};
pub use options::Options;
pub use state::State;
pub use variant::Variant;
pub use view::View;

use crate::engine::{
    Context, Engine, KindInfo, Legal, Outcome, RuleError, Seat, Setup, TableEnd, Viewer,
};

/// The Avalanche Chess engine.
#[derive(Clone, Debug, PartialEq)]
pub struct AvalancheChess;

impl Engine for AvalancheChess {
    const ID: &'static str = "avalanche-chess";
    type Options = Options;
    type State = State;
    type Command = Command;
    type Event = Event;
    type View = View;

    fn info() -> KindInfo {
        KindInfo::new(
            Self::ID,
            "Avalanche Chess",
            2,
            2,
            "Orthodox chess (without en passant) where each turn, after the move, the mover \
             pushes one of the opponent's pawns one square forward. A push that leaves the \
             pusher's own king attacked loses at once.",
        )
        .with_variants(&Variant::ALL.map(Variant::id))
        .seated(&["White", "Black"], "White (seat 1 is Black)", "White")
    }

    fn check(setup: &Setup<Options>) -> Result<(), RuleError> {
        Self::info().check_setup(setup.variant.as_deref(), setup.seats)
    }

    fn initial(setup: &Setup<Options>) -> State {
        State::new(Variant::from_id(setup.variant.as_deref()).unwrap_or_default())
    }

    fn start(_state: &State, _ctx: &Context) -> Vec<Event> {
        Vec::new()
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
        state.evolve(event);
    }

    fn view(state: &State, _viewer: Viewer) -> View {
        view::view(state)
    }

    fn ended_view(view: View, end: TableEnd, outcome: &Outcome) -> View {
        view::ended(view, end, outcome)
    }

    fn redact(event: &Event, _viewer: Viewer) -> Event {
        event.clone()
    }

    fn legal(state: &State, seat: Seat) -> Vec<Legal<Command>> {
        legal::legal(state, seat)
    }

    fn to_act(state: &State) -> Vec<Seat> {
        state.seat_to_act().into_iter().collect()
    }

    fn lookahead(state: &State) -> State {
        state.lookahead()
    }

    fn outcome(state: &State) -> Option<Outcome> {
        state.ending.map(|ending| match ending.winner {
            Some(winner) => Outcome::win(vec![winner], ending.reason.words()),
            None => Outcome::draw(2, ending.reason.words()),
        })
    }

    /// Two players only: a resignation ends the game at the table, so nothing to do here.
    fn retire(_state: &State, _seat: Seat) -> Vec<Event> {
        Vec::new()
    }

    fn position_text(view: &View, me: Option<Seat>, names: &[String]) -> String {
        text::position(view, me, names)
    }

    fn event_text(event: &Event, names: &[String]) -> Option<String> {
        text::event(event, names)
    }

    fn read(state: &State, seat: Seat, text: &str) -> crate::text::Reading<Command> {
        text::read(state, seat, text)
    }
}
