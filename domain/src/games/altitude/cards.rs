//! The cards of Altitude and the deck built from the table of the rules file.

use serde::{Deserialize, Serialize};
use std::fmt;
use utoipa::ToSchema;

/// The five animals. An animal card is laid like a mountain card of its number; from floor 4
/// up it scores a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Animal {
    Chamois,
    Marmot,
    Ibex,
    Grouse,
    Dahut,
}

impl Animal {
    pub const ALL: [Animal; 5] = [
        Animal::Chamois,
        Animal::Marmot,
        Animal::Ibex,
        Animal::Grouse,
        Animal::Dahut,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Animal::Chamois => "Chamois",
            Animal::Marmot => "Marmot",
            Animal::Ibex => "Ibex",
            Animal::Grouse => "Grouse",
            Animal::Dahut => "Dahut",
        }
    }

    /// The four numbers of this animal: the 20 animal cards cover 5 to 24 once each, every
    /// animal spread over the range (the scan does not list them; this is our deck).
    pub fn numbers(self) -> [u8; 4] {
        let first = match self {
            Animal::Chamois => 5,
            Animal::Marmot => 6,
            Animal::Ibex => 7,
            Animal::Grouse => 8,
            Animal::Dahut => 9,
        };
        [first, first + 5, first + 10, first + 15]
    }
}

/// What is printed on a card.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(example = json!({"kind": "mountain", "value": 13}))]
pub enum Face {
    /// A mountain card numbered 1 to 24: its value is its number.
    Mountain { value: u8 },
    /// An animal card: laid like a mountain card of its number.
    Animal { animal: Animal, value: u8 },
    /// Value 0; may be laid on any two cards, even on an avalanche, and in the base.
    CableCar,
    /// Laid only in an opponent's started mountain; only a cable car may be laid on it.
    Avalanche,
    /// Removes an uncovered avalanche from its player's own mountain; a point if kept in hand.
    SaintBernard,
}

impl Face {
    /// The value a card laid on this one must beat: its number, 0 for a cable car, none for
    /// an avalanche or a Saint-Bernard.
    pub fn value(self) -> Option<u8> {
        match self {
            Face::Mountain { value } | Face::Animal { value, .. } => Some(value),
            Face::CableCar => Some(0),
            Face::Avalanche | Face::SaintBernard => None,
        }
    }
}

impl fmt::Display for Face {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Face::Mountain { value } => write!(f, "{value}"),
            Face::Animal { animal, value } => write!(f, "{} {value}", animal.name()),
            Face::CableCar => write!(f, "cable car"),
            Face::Avalanche => write!(f, "avalanche"),
            Face::SaintBernard => write!(f, "Saint-Bernard"),
        }
    }
}

/// One physical card: an id unique in the game (so that twin cards can be told apart in
/// commands) and its face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"id": 17, "face": {"kind": "mountain", "value": 13}}))]
pub struct Card {
    /// The card's id in this game, 0 up to the deck size minus one.
    pub id: u16,
    pub face: Face,
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.face.fmt(f)
    }
}

/// Cards dealt to each player before each keeps 4.
pub const DEALT: usize = 6;
/// Cards each player keeps (and holds while the deck lasts).
pub const KEPT: usize = 4;

impl super::options::Options {
    /// The deck in a fixed order (ids 0, 1, ...), built from the table of the rules file:
    /// mountains 1 to 24, the animals, cable cars, avalanches, Saint-Bernards.
    pub fn deck(&self) -> Vec<Card> {
        let mut faces = Vec::with_capacity(self.deck_size());
        for value in 1..=24u8 {
            for _ in 0..self.mountain_copies {
                faces.push(Face::Mountain { value });
            }
        }
        for animal in Animal::ALL {
            for value in animal.numbers() {
                for _ in 0..self.animal_copies {
                    faces.push(Face::Animal { animal, value });
                }
            }
        }
        let specials = [
            (Face::CableCar, self.cable_cars),
            (Face::Avalanche, self.avalanches),
            (Face::SaintBernard, self.saint_bernards),
        ];
        for (face, count) in specials {
            for _ in 0..count {
                faces.push(face);
            }
        }
        faces
            .into_iter()
            .enumerate()
            .map(|(id, face)| Card {
                id: id as u16,
                face,
            })
            .collect()
    }
}
