//! What a viewer may see of a game of Ski Runs, and of each event: a seat sees its own hand;
//! everyone sees hand sizes, pile sizes, every ski run and the avalanches; the draw pile's
//! order and other hands stay hidden until the end.

use super::cards::Card;
use super::event::Event;
use super::legal::legal;
use super::score::{announcements, Announcement};
use super::state::{End, SkiRun, State, Step, FINAL_AVALANCHE, PLAYS_PER_TURN};
use crate::engine::{Seat, TableEnd, Viewer};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What the player to act may still do this turn, in general terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Draw 2 cards (the first step of a turn).
    Draw,
    /// Pick up 1 lift card and 4 cards (the first step after an empty hand).
    PickUp,
    /// Bank the unbanked run, as the whole turn.
    Bank,
    /// Play a card (up to `plays_left` more).
    Play,
    /// End the turn.
    EndTurn,
}

/// Whose turn it is and where they are in it.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct TurnView {
    /// The seat to act.
    pub seat: Seat,
    /// Whether they have drawn (or picked up) this turn; never once the draw pile is empty
    /// and there is no draw step.
    pub drawn: bool,
    /// How many more cards they may play this turn.
    pub plays_left: u8,
    /// What they may still do this turn.
    #[schema(example = json!(["play", "end_turn"]))]
    pub may: Vec<Action>,
    /// For the seat to act looking at its own game: the notation of each legal command.
    #[schema(example = json!(["play red run", "play avalanche", "end turn"]))]
    pub your_moves: Vec<String>,
}

/// One player as a viewer may see them.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct PlayerView {
    pub seat: Seat,
    /// How many cards they hold.
    pub hand_size: usize,
    /// Their cards: only for the player themselves (and everyone once the game is over).
    pub hand: Option<Vec<Card>>,
    /// Their unbanked ski run, open on the table; swept away by an avalanche.
    pub unbanked_run: Option<SkiRun>,
    /// Their banked runs, safe from avalanches.
    pub banked_runs: Vec<SkiRun>,
    /// The points of their banked runs, bonuses included (public: banked runs are open).
    pub score: i64,
    /// Whether they have left the game.
    pub retired: bool,
}

/// A game of Ski Runs as one viewer may see it.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
pub struct View {
    pub seats: usize,
    /// The turn in progress; `null` before the deal and once the game is over.
    pub turn: Option<TurnView>,
    pub players: Vec<PlayerView>,
    /// Cards left in the face-down draw pile.
    pub draw_pile_size: usize,
    /// The draw pile's order, top card last: only once the game is over.
    pub draw_pile: Option<Vec<Card>>,
    /// Lift cards left in the face-up lift pile (all alike).
    pub lift_pile_size: usize,
    /// Cards swept away by avalanches or left by departed players.
    pub discard_pile_size: usize,
    /// The avalanche cards played, in order: the seat that played each.
    pub avalanches: Vec<Seat>,
    /// How many more avalanche cards end the game.
    pub avalanches_to_end: usize,
    /// Seats that, since the draw pile ran out and anyone last played or banked, have had a
    /// turn without playing or banking: when every remaining seat is here, the game ends.
    pub quiet_seats: Vec<Seat>,
    /// Why the game ended, once over.
    pub end: Option<End>,
    /// Once over: every seat's total, in the order they are announced (from the player who
    /// played the last avalanche card, clockwise).
    pub announcements: Option<Vec<Announcement>>,
}

pub fn view(state: &State, viewer: Viewer) -> View {
    let over = state.end.is_some();
    let sees_hand = |seat: Seat| viewer.sees_secrets_of(seat) || over;
    let players = (0..state.seats)
        .map(|seat| PlayerView {
            seat,
            hand_size: state.hand(seat).len(),
            hand: sees_hand(seat).then(|| state.hand(seat).to_vec()),
            unbanked_run: state.run(seat).cloned(),
            banked_runs: state.banked[seat].clone(),
            score: state.score(seat),
            retired: state.retired[seat],
        })
        .collect();
    View {
        seats: state.seats,
        turn: state.running().then(|| turn_view(state, viewer)),
        players,
        draw_pile_size: state.draw_pile.len(),
        draw_pile: (over || viewer.sees_everything()).then(|| state.draw_pile.clone()),
        lift_pile_size: state.lift_pile,
        discard_pile_size: state.discard_pile.len(),
        avalanches: state.avalanches.clone(),
        avalanches_to_end: FINAL_AVALANCHE.saturating_sub(state.avalanches.len()),
        quiet_seats: state.remaining().filter(|&s| state.quiet[s]).collect(),
        end: state.end,
        announcements: over.then(|| announcements(state)),
    }
}

fn turn_view(state: &State, viewer: Viewer) -> TurnView {
    let seat = state.turn;
    let (drawn, plays_left, may) = match state.step {
        Step::Start if !state.has_draw_step() => {
            let mut may = Vec::new();
            if !state.hand(seat).is_empty() {
                may.push(Action::Play);
            }
            may.push(Action::EndTurn);
            if state.may_bank(seat) {
                may.push(Action::Bank);
            }
            (false, PLAYS_PER_TURN, may)
        }
        Step::Start => {
            let mut may = vec![if state.hand(seat).is_empty() {
                Action::PickUp
            } else {
                Action::Draw
            }];
            if state.may_bank(seat) {
                may.push(Action::Bank);
            }
            (false, PLAYS_PER_TURN, may)
        }
        Step::Play { played } => {
            let left = PLAYS_PER_TURN.saturating_sub(played);
            let may = if left > 0 {
                vec![Action::Play, Action::EndTurn]
            } else {
                vec![Action::EndTurn]
            };
            (true, left, may)
        }
    };
    // The notations name cards in hand, so only the seat itself sees them.
    let your_moves = if viewer == Viewer::Seat(seat) {
        legal(state, seat).into_iter().map(|l| l.notation).collect()
    } else {
        Vec::new()
    };
    TurnView {
        seat,
        drawn,
        plays_left,
        may,
        your_moves,
    }
}

/// The event as `viewer` may see it: other seats' cards and the draw pile's order removed.
pub fn redact(event: &Event, viewer: Viewer) -> Event {
    match event {
        Event::Dealt {
            hands,
            draw_pile,
            lift_pile,
        } => Event::Dealt {
            hands: hands
                .iter()
                .enumerate()
                .map(|(seat, hand)| hand.for_viewer(viewer.sees_secrets_of(seat)))
                .collect(),
            draw_pile: draw_pile.for_viewer(viewer.sees_everything()),
            lift_pile: *lift_pile,
        },
        Event::Drew { seat, lifts, cards } => Event::Drew {
            seat: *seat,
            lifts: *lifts,
            cards: cards.for_viewer(viewer.sees_secrets_of(*seat)),
        },
        Event::PickedUp { seat, lifts, cards } => Event::PickedUp {
            seat: *seat,
            lifts: *lifts,
            cards: cards.for_viewer(viewer.sees_secrets_of(*seat)),
        },
        Event::Retired { seat, hand, run } => Event::Retired {
            seat: *seat,
            hand: hand.for_viewer(viewer.sees_secrets_of(*seat)),
            run: run.clone(),
        },
        Event::DrawPileReshuffled { draw_pile } => Event::DrawPileReshuffled {
            draw_pile: draw_pile.for_viewer(viewer.sees_everything()),
        },
        Event::Played { .. }
        | Event::TurnEnded { .. }
        | Event::Banked { .. }
        | Event::GameEnded { .. } => event.clone(),
    }
}

/// The view of a game the table ended (a resignation, an agreed draw, a timeout, a takeback):
/// no turn in progress, and why it ended.
pub fn ended(mut view: View, end: TableEnd) -> View {
    view.turn = None;
    view.end = Some(match end {
        TableEnd::Resigned => End::Resigned,
        TableEnd::DrawAgreed => End::DrawAgreed,
        TableEnd::TimedOut => End::TimedOut,
        TableEnd::Superseded => End::Superseded,
    });
    view
}
