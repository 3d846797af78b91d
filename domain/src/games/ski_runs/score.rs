//! The score at the end: banked runs only, with the bonus, announced clockwise from the player
//! who played the final avalanche card.

use super::state::State;
use crate::engine::{Outcome, Seat};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One player's announced total.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Announcement {
    pub seat: Seat,
    /// The points of the seat's banked runs, bonuses included.
    pub score: i64,
}

/// The seat that announces first: whoever played the last avalanche card, or seat 0 when no
/// avalanche was played (**Ruling**, the source does not say).
pub fn first_to_announce(state: &State) -> Seat {
    state.avalanches.last().copied().unwrap_or(0)
}

/// Every seat's total in the order of announcement (clockwise, that is in seat order).
pub fn announcements(state: &State) -> Vec<Announcement> {
    let first = first_to_announce(state);
    (0..state.seats)
        .map(|i| (first + i) % state.seats)
        .map(|seat| Announcement {
            seat,
            score: state.score(seat),
        })
        .collect()
}

/// The result once the game has ended: the highest total wins and equal totals share the win.
/// Seats that left the game keep their score but cannot win.
pub fn outcome(state: &State) -> Option<Outcome> {
    let end = state.end?;
    let scores: Vec<i64> = (0..state.seats).map(|s| state.score(s)).collect();
    let best = state.remaining().map(|s| scores[s]).max();
    let winners = state
        .remaining()
        .filter(|&s| Some(scores[s]) == best)
        .collect();
    let order: Vec<String> = announcements(state)
        .iter()
        .map(|a| format!("seat {} {}", a.seat, a.score))
        .collect();
    Some(Outcome {
        winners,
        draw: false,
        reason: format!("{}; scores announced: {}", end.reason(), order.join(", ")),
        scores: Some(scores),
    })
}
