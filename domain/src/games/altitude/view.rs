//! What each viewer sees of a game of Altitude, and of each event.

use super::cards::Card;
use super::event::Event;
use super::mountain::{Mountain, Position};
use super::score::{score, ScoreSheet};
use super::state::{Phase, State};
use crate::engine::{Seat, TableEnd, Viewer};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A game of Altitude as one viewer may see it: every mountain, the sizes of the deck and the
/// discard pile, and the viewer's own hand and drawn card.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct View {
    /// `choosing` (return 2 cards of the deal), `playing` (draw, then act), `laying_hands`
    /// (the deck is empty: lay a hand card or pass), `over`.
    pub phase: Phase,
    /// The seats that must act now (all those still choosing at the deal).
    pub to_act: Vec<Seat>,
    /// Whose turn it is (while playing or laying the hands).
    pub turn: Option<Seat>,
    /// Turns the seat to move has left this round, this one included (2 from 5 floors).
    pub turns_left: u8,
    /// Whether the seat to move has drawn and must now use the drawn card.
    pub must_use_drawn: bool,
    /// The drawn card, shown to the seat that drew it only.
    pub drawn: Option<Card>,
    /// The viewer's own hand (empty for a spectator).
    pub hand: Vec<Card>,
    pub deck_size: usize,
    pub discard_size: usize,
    /// Every seat, in turn order.
    pub players: Vec<PlayerView>,
}

/// One seat as the viewer may see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlayerView {
    pub seat: Seat,
    pub hand_size: usize,
    /// The hand, when the viewer may see it (its own, or everyone's once the game is over).
    pub hand: Option<Vec<Card>>,
    /// Whether this seat must still return 2 cards of its deal.
    pub choosing: bool,
    /// The mountain: every card with its place (see [`Position`] for how to draw it).
    pub mountain: Vec<PlacedCard>,
    /// The number of floors (avalanches count).
    pub height: u8,
    /// Whether this seat plays two turns a round (its mountain reached 5 floors).
    pub two_turns: bool,
    /// Whether this seat has left the game.
    pub retired: bool,
    /// Whether this seat passed since the last card was laid from a hand (end of the game).
    pub passed: bool,
    /// The score as it stands, when the viewer may see the hand it depends on.
    pub score: Option<ScoreSheet>,
}

/// A card lying in a mountain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlacedCard {
    pub at: Position,
    pub card: Card,
    /// Whether a card lies on it (then it can never be replaced or removed).
    pub covered: bool,
}

fn placed(mountain: &Mountain) -> Vec<PlacedCard> {
    mountain
        .cards
        .iter()
        .map(|(&at, &card)| PlacedCard {
            at,
            card,
            covered: mountain.is_covered(at),
        })
        .collect()
}

pub fn view(state: &State, viewer: Viewer) -> View {
    let playing = matches!(state.phase, Phase::Playing | Phase::LayingHands);
    let empty = Mountain::default();
    let players = (0..state.seats)
        .map(|seat| {
            let mountain = state.mountains.get(seat).unwrap_or(&empty);
            let sees = viewer.sees_secrets_of(seat);
            PlayerView {
                seat,
                hand_size: state.hand(seat).len(),
                hand: sees.then(|| state.hand(seat).to_vec()),
                choosing: state.choosing.get(seat).copied().unwrap_or(false),
                mountain: placed(mountain),
                height: mountain.height(),
                two_turns: state.two_turns.get(seat).copied().unwrap_or(false),
                retired: state.retired.get(seat).copied().unwrap_or(false),
                passed: state.passed.get(seat).copied().unwrap_or(false),
                score: sees.then(|| score(state, seat)),
            }
        })
        .collect();
    let hand = match viewer {
        Viewer::Seat(seat) => state.hand(seat).to_vec(),
        _ => Vec::new(),
    };
    View {
        phase: state.phase,
        to_act: super::to_act(state),
        turn: playing.then_some(state.turn),
        turns_left: if playing { state.turns_left } else { 0 },
        must_use_drawn: state.drawn.is_some(),
        drawn: state.drawn.filter(|_| viewer.sees_secrets_of(state.turn)),
        hand,
        deck_size: state.deck.len(),
        discard_size: state.discard.len(),
        players,
    }
}

pub fn redact(event: &Event, viewer: Viewer) -> Event {
    match event {
        Event::Dealt { seat, count, .. } if !viewer.sees_secrets_of(*seat) => Event::Dealt {
            seat: *seat,
            count: *count,
            cards: Vec::new(),
        },
        Event::CardsReturned { seat, count, .. } if !viewer.sees_secrets_of(*seat) => {
            Event::CardsReturned {
                seat: *seat,
                count: *count,
                cards: Vec::new(),
            }
        }
        Event::DeckShuffled { count, .. } if !viewer.sees_everything() => Event::DeckShuffled {
            count: *count,
            cards: Vec::new(),
        },
        Event::Drew { seat, .. } if !viewer.sees_secrets_of(*seat) => Event::Drew {
            seat: *seat,
            card: None,
        },
        other => other.clone(),
    }
}

/// The view of a game the table ended (a resignation, a timeout, an agreed draw, a takeback):
/// over, and nobody to act.
pub fn ended(mut view: View, _end: TableEnd) -> View {
    view.phase = Phase::Over;
    view.to_act.clear();
    view.turn = None;
    view.turns_left = 0;
    view.must_use_drawn = false;
    view
}
