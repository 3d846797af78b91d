//! The cards of Vamanos: six pictures by six colours, one 36-card deck for each player.

use serde::{Deserialize, Serialize};
use std::fmt;
use utoipa::ToSchema;

/// The picture on a card.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Picture {
    Hombre,
    Cactus,
    Jalapeno,
    Hacienda,
    Sombrero,
    Burro,
}

/// The colour of a card (**Ruling** of the rules file: the source does not name them).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    Yellow,
    Red,
    Green,
    Blue,
    Orange,
    Purple,
}

/// One card: a picture in a colour. Every deck holds each pair exactly once.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[schema(example = json!({"picture": "cactus", "colour": "yellow"}))]
pub struct Card {
    pub picture: Picture,
    pub colour: Colour,
}

/// "six pictures (Hombre, Cactus, Jalapeño, Hacienda, Sombrero, Burro)", in the order of the
/// rules file.
pub const PICTURES: [Picture; 6] = [
    Picture::Hombre,
    Picture::Cactus,
    Picture::Jalapeno,
    Picture::Hacienda,
    Picture::Sombrero,
    Picture::Burro,
];

/// "each in six colours (Yellow, Red, Green, Blue, Orange, Purple)", in the order of the rules
/// file.
pub const COLOURS: [Colour; 6] = [
    Colour::Yellow,
    Colour::Red,
    Colour::Green,
    Colour::Blue,
    Colour::Orange,
    Colour::Purple,
];

/// The number of cards in one player's deck.
pub const DECK_SIZE: usize = PICTURES.len() * COLOURS.len();

/// "every picture/colour pair exactly once": a player's deck in a fixed order, before it is
/// shuffled.
pub fn deck() -> Vec<Card> {
    PICTURES
        .iter()
        .flat_map(|&picture| COLOURS.iter().map(move |&colour| Card { picture, colour }))
        .collect()
}

impl Card {
    pub fn new(picture: Picture, colour: Colour) -> Card {
        Card { picture, colour }
    }
}

impl fmt::Display for Picture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Picture::Hombre => "Hombre",
            Picture::Cactus => "Cactus",
            Picture::Jalapeno => "Jalapeño",
            Picture::Hacienda => "Hacienda",
            Picture::Sombrero => "Sombrero",
            Picture::Burro => "Burro",
        })
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Colour::Yellow => "Yellow",
            Colour::Red => "Red",
            Colour::Green => "Green",
            Colour::Blue => "Blue",
            Colour::Orange => "Orange",
            Colour::Purple => "Purple",
        })
    }
}

/// "Yellow Cactus": how a player names a card.
impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.colour, self.picture)
    }
}
