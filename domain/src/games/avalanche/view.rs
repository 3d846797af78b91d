//! The game as one viewer may see it, and events with what that viewer may not see removed.

use super::cards::Rank;
use super::event::{DrawnCard, Event};
use super::state::{Phase, State};
use crate::engine::{Seat, TableEnd, Viewer};
use serde::Serialize;
use utoipa::ToSchema;

/// Where the game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PhaseView {
    /// Waiting for the deal.
    Dealing,
    /// Players take turns.
    Playing,
    /// The game is over.
    Over,
}

/// A set on the table and who played it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"seat": 1, "cards": ["Q", "Q"]}))]
pub struct SetView {
    /// The seat that played the set.
    pub seat: Seat,
    /// The cards of the set, all of one rank.
    pub cards: Vec<Rank>,
}

/// One seat as the viewer sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct SeatView {
    /// The seat, numbered from 0 in turn order.
    pub seat: Seat,
    /// How many cards the seat holds.
    pub hand_size: usize,
    /// The seat's hand, low rank first: only for the seat itself (and everyone once the game
    /// is over).
    pub hand: Option<Vec<Rank>>,
    /// How many cards the seat has collected from Falls: its score.
    pub collected: usize,
    /// No cards and nothing to draw: turns skip this seat.
    pub out: bool,
    /// Resigned or timed out: turns skip this seat and it cannot win.
    pub retired: bool,
}

/// The game of Avalanche as one viewer sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct View {
    /// Where the game stands: dealing, playing or over.
    pub phase: PhaseView,
    /// The seat that dealt.
    pub dealer: Option<Seat>,
    /// The dealer draw, round by round (ties draw again).
    pub dealer_draw: Vec<Vec<DrawnCard>>,
    /// Whose turn it is, while the game is played.
    pub turn: Option<Seat>,
    /// Whether an avalanche is running: then the player to act must play to it (grow, stop
    /// or let it fall) and may not draw.
    pub avalanche_running: bool,
    /// The set the player to act must answer (the last one played), while an avalanche runs.
    pub to_beat: Option<SetView>,
    /// Whether the player to act may choose Snow Fall.
    pub snow_fall_allowed: bool,
    /// The running avalanche, oldest set first.
    pub table: Vec<SetView>,
    /// How many cards are left in the face-down draw pile.
    pub draw_pile_size: usize,
    /// The draw pile, top card first: only once the game is over.
    pub draw_pile: Option<Vec<Rank>>,
    /// How many cards are in the neutral pile (stopped avalanches, surrendered hands).
    pub neutral_pile_size: usize,
    /// Every seat in turn order.
    pub seats: Vec<SeatView>,
}

fn set_view(set: &super::state::Set) -> SetView {
    SetView {
        seat: set.seat,
        cards: vec![set.rank; set.size],
    }
}

pub fn view(state: &State, viewer: Viewer) -> View {
    let playing = state.phase == Phase::Playing;
    View {
        phase: match state.phase {
            Phase::Dealing => PhaseView::Dealing,
            Phase::Playing => PhaseView::Playing,
            Phase::Over => PhaseView::Over,
        },
        dealer: state.dealer,
        dealer_draw: state
            .dealer_draw
            .iter()
            .map(|round| {
                round
                    .iter()
                    .map(|&(seat, card)| DrawnCard { seat, card })
                    .collect()
            })
            .collect(),
        turn: state.seat_to_act(),
        avalanche_running: playing && !state.table.is_empty(),
        to_beat: state.to_beat().as_ref().map(set_view),
        snow_fall_allowed: playing && state.table.is_empty() && !state.draw_pile.is_empty(),
        table: state.table.iter().map(set_view).collect(),
        draw_pile_size: state.draw_pile.len(),
        draw_pile: viewer.sees_everything().then(|| state.draw_pile.clone()),
        neutral_pile_size: state.neutral.len(),
        seats: (0..state.seats)
            .map(|seat| {
                let hand = state.hand(seat);
                let retired = state.retired.get(seat).copied().unwrap_or(false);
                SeatView {
                    seat,
                    hand_size: hand.len(),
                    hand: viewer.sees_secrets_of(seat).then(|| hand.to_vec()),
                    collected: state.collected.get(seat).map_or(0, |c| c.len()),
                    out: playing && hand.is_empty() && !retired,
                    retired,
                }
            })
            .collect(),
    }
}

/// Hides the hands of other seats and the draw pile; everything played is public.
pub fn redact(event: &Event, viewer: Viewer) -> Event {
    match event {
        Event::Dealt {
            hands,
            draw_pile,
            first,
        } => Event::Dealt {
            hands: hands
                .iter()
                .enumerate()
                .map(|(seat, hand)| hand.for_viewer(viewer.sees_secrets_of(seat)))
                .collect(),
            draw_pile: draw_pile.for_viewer(viewer.sees_everything()),
            first: *first,
        },
        Event::SnowFell { seat, card } => Event::SnowFell {
            seat: *seat,
            card: card.filter(|_| viewer.sees_secrets_of(*seat)),
        },
        Event::Refilled { seat, cards } => Event::Refilled {
            seat: *seat,
            cards: cards.for_viewer(viewer.sees_secrets_of(*seat)),
        },
        Event::Retired { seat, hand } => Event::Retired {
            seat: *seat,
            hand: hand.for_viewer(viewer.sees_secrets_of(*seat)),
        },
        Event::Reshuffled { draw_pile } => Event::Reshuffled {
            draw_pile: draw_pile.for_viewer(viewer.sees_everything()),
        },
        Event::GameEnded { last, hand, table } => Event::GameEnded {
            last: *last,
            hand: hand.for_viewer(last.is_some_and(|seat| viewer.sees_secrets_of(seat))),
            table: table.clone(),
        },
        Event::DealerDrawn { .. }
        | Event::Played { .. }
        | Event::AvalancheStopped { .. }
        | Event::AvalancheFell { .. }
        | Event::WentOut { .. } => event.clone(),
    }
}

/// The view of a game the table ended (a resignation, an agreed draw, a timeout, a takeback):
/// over, nobody's turn, no avalanche to answer.
pub fn ended(mut view: View, _end: TableEnd) -> View {
    view.phase = PhaseView::Over;
    view.turn = None;
    view.avalanche_running = false;
    view.to_beat = None;
    view.snow_fall_allowed = false;
    for seat in &mut view.seats {
        seat.out = false;
    }
    view
}
