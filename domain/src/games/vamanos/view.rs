//! What each viewer may see of a game, and of each event.
//!
//! **Ruling** on the face-down last card: it is laid face down, so the other players and the
//! spectators see *that* a card lies face down but not which; its owner (who drew it) sees it,
//! and everyone does once the game is over. It scores nothing either way.

use super::cards::Card;
use super::event::{Event, Pile};
use super::score::SeatScore;
use super::state::State;
use crate::engine::{Seat, TableEnd, Viewer};
use serde::Serialize;
use utoipa::ToSchema;

/// Where the game is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The cards are not dealt yet.
    Waiting,
    /// A round is being played: every seat still playing may act, all at once.
    Playing,
    /// A total passed the target: the game is over.
    Over,
}

/// A game of Vamanos as one viewer may see it. Rows are numbered 1 to 3: `rows[0]` is row 1.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct View {
    pub phase: Phase,
    /// The round being played (or the last one), from 1; 0 before the deal. Name it in every
    /// command.
    #[schema(example = 1)]
    pub round: u32,
    /// The score to pass to end the game.
    #[schema(example = 500)]
    pub target: i64,
    /// The seats that may act now: every seat still playing while a round runs (no turns).
    pub to_act: Vec<Seat>,
    /// The viewer's own seat, when the viewer is a seated player.
    pub you: Option<Seat>,
    /// Whether the viewer may draw now (their hand is empty and their pile is not).
    pub may_draw: bool,
    /// Whether the viewer may place the card they drew in a row now.
    pub may_place: bool,
    /// Whether the viewer may lay their last card face down now.
    pub may_lay_face_down: bool,
    /// Every seat, in seat order.
    pub players: Vec<PlayerView>,
    /// Who called "Alta" to end each finished round (index 0 is round 1).
    pub altas: Vec<Seat>,
    /// How the last finished round scored, line by line.
    pub last_round: Option<Vec<SeatScore>>,
}

/// One seat's cards and score as the viewer may see them.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct PlayerView {
    pub seat: Seat,
    /// False once the seat has left the game.
    pub playing: bool,
    /// The seat's total score.
    #[schema(example = 120)]
    pub total: i64,
    /// Undrawn cards in the seat's pile.
    #[schema(example = 30)]
    pub pile_size: u32,
    /// The pile itself, in drawing order: only once the game is over.
    pub pile: Option<Vec<Card>>,
    /// Whether the seat holds a drawn card it has not placed.
    pub holds_card: bool,
    /// That card: only for its owner (and once the game is over).
    pub drawn: Option<Card>,
    /// Rows 1 to 3, face up, cards in the order they were placed.
    pub rows: Vec<Vec<Card>>,
    /// The stacks gathered this round, face up.
    pub stacks: Vec<Vec<Card>>,
    /// Whether the seat laid its last card face down.
    pub face_down: bool,
    /// That card: only for its owner (and once the game is over).
    pub face_down_card: Option<Card>,
}

/// The state as `viewer` may see it.
pub fn view(state: &State, viewer: Viewer) -> View {
    let you = match viewer {
        Viewer::Seat(seat) if seat < state.seats => Some(seat),
        _ => None,
    };
    let mine = you.and_then(|s| state.players.get(s));
    let acting = you.is_some_and(|s| state.plays(s)) && state.round_running();
    let phase = if state.over {
        Phase::Over
    } else if state.round == 0 {
        Phase::Waiting
    } else {
        Phase::Playing
    };
    View {
        phase,
        round: state.round,
        target: state.target,
        to_act: super::legal::to_act(state),
        you,
        may_draw: acting && mine.is_some_and(|p| p.drawn.is_none() && !p.pile.is_empty()),
        may_place: acting && mine.is_some_and(|p| p.drawn.is_some()),
        may_lay_face_down: acting && mine.is_some_and(|p| p.drawn.is_some() && p.pile.is_empty()),
        players: state
            .players
            .iter()
            .enumerate()
            .map(|(seat, p)| {
                let secrets = viewer.sees_secrets_of(seat);
                PlayerView {
                    seat,
                    playing: state.plays(seat),
                    total: state.totals.get(seat).copied().unwrap_or(0),
                    pile_size: p.pile.len() as u32,
                    pile: viewer.sees_everything().then(|| p.pile.clone()),
                    holds_card: p.drawn.is_some(),
                    drawn: p.drawn.filter(|_| secrets),
                    rows: p.rows.to_vec(),
                    stacks: p.stacks.clone(),
                    face_down: p.face_down.is_some(),
                    face_down_card: p.face_down.filter(|_| secrets),
                }
            })
            .collect(),
        altas: state.altas.clone(),
        last_round: state.last_scores.clone(),
    }
}

/// The event as `viewer` may see it: undrawn cards for nobody but `Everyone`, a drawn or
/// face-down card only for its owner.
pub fn redact(event: &Event, viewer: Viewer) -> Event {
    let hide = |piles: &[Pile]| -> Vec<Pile> {
        piles
            .iter()
            .map(|p| Pile {
                seat: p.seat,
                size: p.size,
                cards: p.cards.clone().filter(|_| viewer.sees_everything()),
            })
            .collect()
    };
    match event {
        Event::RoundDealt { round, piles } => Event::RoundDealt {
            round: *round,
            piles: hide(piles),
        },
        Event::PilesReshuffled { round, piles } => Event::PilesReshuffled {
            round: *round,
            piles: hide(piles),
        },
        Event::Drew { seat, round, card } => Event::Drew {
            seat: *seat,
            round: *round,
            card: card.filter(|_| viewer.sees_secrets_of(*seat)),
        },
        Event::LaidFaceDown { seat, round, card } => Event::LaidFaceDown {
            seat: *seat,
            round: *round,
            card: card.filter(|_| viewer.sees_secrets_of(*seat)),
        },
        other => other.clone(),
    }
}

/// The view of a game the table ended (a resignation, an agreed draw, a timeout, a takeback):
/// over, and nobody may act.
pub fn ended(mut view: View, _end: TableEnd) -> View {
    view.phase = Phase::Over;
    view.to_act.clear();
    view.may_draw = false;
    view.may_place = false;
    view.may_lay_face_down = false;
    view
}
