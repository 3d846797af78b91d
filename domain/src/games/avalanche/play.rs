//! What a play does to the avalanche: start it, grow it, stop it or let it fall, from its
//! size and rank against the set it answers.

use super::cards::Rank;
use super::state::Set;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What a set of cards does when played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Play {
    /// No avalanche was running: the set starts one.
    Start,
    /// `n` cards of rank `r` or higher, or more than `n` cards of any rank: the cards stay on
    /// the table.
    Grow,
    /// `n` cards of a rank lower than `r`, when `n >= 2`: the table goes to the neutral pile.
    Stop,
    /// Fewer than `n` cards, or a single card lower than a single `r`: the table goes to the
    /// previous player.
    Fall,
}

impl Play {
    /// The word used in notations: `play Q Q Q (grow)`.
    pub fn word(self) -> &'static str {
        match self {
            Play::Start => "start",
            Play::Grow => "grow",
            Play::Stop => "stop",
            Play::Fall => "fall",
        }
    }
}

/// What `size` cards of `rank` do against `to_beat`, the set the previous player played
/// (`None` when no avalanche runs). Every set of at least one card does something: there is
/// no illegal size or rank.
pub fn classify(to_beat: Option<Set>, rank: Rank, size: usize) -> Play {
    let Some(previous) = to_beat else {
        return Play::Start;
    };
    let (n, r) = (previous.size, previous.rank);
    if size > n || (size == n && rank >= r) {
        Play::Grow
    } else if size == n && n >= 2 {
        Play::Stop
    } else {
        // Fewer cards, or a lower single on a single.
        Play::Fall
    }
}
