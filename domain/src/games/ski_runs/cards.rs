//! The cards of Ski Runs: lift, run cards of four colours and avalanche, the deck table of the
//! rules file, and a list of cards that may be hidden from a viewer.
//!
//! Two cards of one kind are the same card (a red run is a red run), so a card is its kind
//! alone and no card identity can leak through a view.

use serde::{Deserialize, Serialize};
use std::fmt;
use utoipa::ToSchema;

/// The colour of a run card. Colours are ordered Green - Blue - Red - Black; neighbours are
/// adjacent in that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    Green,
    Blue,
    Red,
    Black,
}

impl Colour {
    /// Whether a run card of `self` may follow one of `last`: the same colour or a neighbour.
    pub fn links_to(self, last: Colour) -> bool {
        (self as i8 - last as i8).abs() <= 1
    }

    /// The colours that may follow `self`, in the rules' order.
    pub fn linkable(self) -> Vec<Colour> {
        [Colour::Green, Colour::Blue, Colour::Red, Colour::Black]
            .into_iter()
            .filter(|c| c.links_to(self))
            .collect()
    }

    pub fn name(self) -> &'static str {
        match self {
            Colour::Green => "green",
            Colour::Blue => "blue",
            Colour::Red => "red",
            Colour::Black => "black",
        }
    }
}

/// A card of Ski Runs.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(example = "red_run")]
pub enum Card {
    /// A lift card: it starts a ski run. Lift cards come from their own face-up pile.
    Lift,
    /// A green run card, 1 point.
    GreenRun,
    /// A blue run card, 2 points.
    BlueRun,
    /// A red run card, 3 points.
    RedRun,
    /// A black run card, 4 points.
    BlackRun,
    /// An avalanche card: it sweeps away every unbanked ski run; the 5th one ends the game.
    Avalanche,
}

impl Card {
    /// Every kind of card, in the order of the rules' table.
    pub const ALL: [Card; 6] = [
        Card::Lift,
        Card::GreenRun,
        Card::BlueRun,
        Card::RedRun,
        Card::BlackRun,
        Card::Avalanche,
    ];

    /// The run card of a colour.
    pub fn run(colour: Colour) -> Card {
        match colour {
            Colour::Green => Card::GreenRun,
            Colour::Blue => Card::BlueRun,
            Colour::Red => Card::RedRun,
            Colour::Black => Card::BlackRun,
        }
    }

    /// The colour of a run card; `None` for a lift or an avalanche.
    pub fn colour(self) -> Option<Colour> {
        match self {
            Card::GreenRun => Some(Colour::Green),
            Card::BlueRun => Some(Colour::Blue),
            Card::RedRun => Some(Colour::Red),
            Card::BlackRun => Some(Colour::Black),
            Card::Lift | Card::Avalanche => None,
        }
    }

    /// The points of the card in a banked run (the rules' table; lifts and avalanches score 0).
    pub fn points(self) -> i64 {
        match self {
            Card::GreenRun => 1,
            Card::BlueRun => 2,
            Card::RedRun => 3,
            Card::BlackRun => 4,
            Card::Lift | Card::Avalanche => 0,
        }
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.colour() {
            Some(colour) => write!(f, "{} run", colour.name()),
            None if *self == Card::Lift => f.write_str("lift"),
            None => f.write_str("avalanche"),
        }
    }
}

/// How many cards of each kind a game is played with, at most 200 cards of a kind. Every count
/// defaults to the rules' table, so `{"lift": 10}` changes the lift cards only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(default, deny_unknown_fields)]
#[schema(example = json!({"lift": 14, "green": 20, "blue": 18, "red": 14, "black": 10, "avalanche": 5}))]
pub struct DeckCounts {
    /// Lift cards (the separate face-up lift pile). Default 14.
    #[schema(maximum = 200)]
    pub lift: u32,
    /// Green run cards, 1 point each. Default 20.
    #[schema(maximum = 200)]
    pub green: u32,
    /// Blue run cards, 2 points each. Default 18.
    #[schema(maximum = 200)]
    pub blue: u32,
    /// Red run cards, 3 points each. Default 14.
    #[schema(maximum = 200)]
    pub red: u32,
    /// Black run cards, 4 points each. Default 10.
    #[schema(maximum = 200)]
    pub black: u32,
    /// Avalanche cards. Default 5; the game ends when the 5th is played, so with fewer it ends
    /// only when nobody plays or banks once the draw pile is empty.
    #[schema(maximum = 200)]
    pub avalanche: u32,
}

/// The rules' table: card, count.
pub const DECK_TABLE: [(Card, u32); 6] = [
    (Card::Lift, 14),
    (Card::GreenRun, 20),
    (Card::BlueRun, 18),
    (Card::RedRun, 14),
    (Card::BlackRun, 10),
    (Card::Avalanche, 5),
];

impl Default for DeckCounts {
    fn default() -> DeckCounts {
        let mut deck = DeckCounts {
            lift: 0,
            green: 0,
            blue: 0,
            red: 0,
            black: 0,
            avalanche: 0,
        };
        for (card, count) in DECK_TABLE {
            *deck.count_mut(card) = count;
        }
        deck
    }
}

impl DeckCounts {
    /// How many cards of `card` the deck holds.
    pub fn count(&self, card: Card) -> u32 {
        match card {
            Card::Lift => self.lift,
            Card::GreenRun => self.green,
            Card::BlueRun => self.blue,
            Card::RedRun => self.red,
            Card::BlackRun => self.black,
            Card::Avalanche => self.avalanche,
        }
    }

    fn count_mut(&mut self, card: Card) -> &mut u32 {
        match card {
            Card::Lift => &mut self.lift,
            Card::GreenRun => &mut self.green,
            Card::BlueRun => &mut self.blue,
            Card::RedRun => &mut self.red,
            Card::BlackRun => &mut self.black,
            Card::Avalanche => &mut self.avalanche,
        }
    }

    /// The option's field name of a kind of card.
    pub fn field(card: Card) -> &'static str {
        match card {
            Card::Lift => "lift",
            Card::GreenRun => "green",
            Card::BlueRun => "blue",
            Card::RedRun => "red",
            Card::BlackRun => "black",
            Card::Avalanche => "avalanche",
        }
    }

    /// Everything but the lift cards, unshuffled: the cards of the draw pile.
    pub fn draw_pile_cards(&self) -> Vec<Card> {
        Card::ALL
            .into_iter()
            .filter(|&card| card != Card::Lift)
            .flat_map(|card| std::iter::repeat_n(card, self.count(card) as usize))
            .collect()
    }
}

/// Cards that some viewers may not see: the count is public, the cards themselves are `null`
/// for a viewer who may not see them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"count": 2, "cards": ["red_run", "avalanche"]}))]
pub struct Cards {
    /// How many cards.
    pub count: usize,
    /// The cards, or `null` when hidden from this viewer.
    pub cards: Option<Vec<Card>>,
}

impl Cards {
    pub fn shown(cards: Vec<Card>) -> Cards {
        Cards {
            count: cards.len(),
            cards: Some(cards),
        }
    }

    /// The same count with the cards hidden.
    pub fn hidden(&self) -> Cards {
        Cards {
            count: self.count,
            cards: None,
        }
    }

    /// These cards as `viewer_may_see` allows.
    pub fn for_viewer(&self, viewer_may_see: bool) -> Cards {
        if viewer_may_see {
            self.clone()
        } else {
            self.hidden()
        }
    }
}
