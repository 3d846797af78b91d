//! The cards of Avalanche: the fourteen ranks, the 110-card deck and a multiset of cards.
//!
//! Suits do not matter in Avalanche, so a card is its rank alone: the deck is eight cards of
//! each rank from 2 to Ace (two French decks) and six Jokers. Modelling cards by rank means
//! that two cards of one rank are the same card, so a hand is a count per rank and no card
//! identity can leak through a view.

use serde::{Deserialize, Serialize};
use std::fmt;
use utoipa::ToSchema;

/// A rank, low to high: 2 3 4 5 6 7 8 9 10 J Q K A Joker. Jokers are simply the highest
/// rank, not wild.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[schema(example = "Q")]
pub enum Rank {
    #[serde(rename = "2")]
    Two,
    #[serde(rename = "3")]
    Three,
    #[serde(rename = "4")]
    Four,
    #[serde(rename = "5")]
    Five,
    #[serde(rename = "6")]
    Six,
    #[serde(rename = "7")]
    Seven,
    #[serde(rename = "8")]
    Eight,
    #[serde(rename = "9")]
    Nine,
    #[serde(rename = "10")]
    Ten,
    #[serde(rename = "J")]
    Jack,
    #[serde(rename = "Q")]
    Queen,
    #[serde(rename = "K")]
    King,
    #[serde(rename = "A")]
    Ace,
    #[serde(rename = "Joker")]
    Joker,
}

impl Rank {
    /// Every rank, low to high.
    pub const ALL: [Rank; 14] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
        Rank::Joker,
    ];

    /// The position of the rank, 0 for 2 up to 13 for the Joker.
    pub fn index(self) -> usize {
        self as usize
    }

    /// How the rank is written on the card and in notations.
    pub fn symbol(self) -> &'static str {
        match self {
            Rank::Two => "2",
            Rank::Three => "3",
            Rank::Four => "4",
            Rank::Five => "5",
            Rank::Six => "6",
            Rank::Seven => "7",
            Rank::Eight => "8",
            Rank::Nine => "9",
            Rank::Ten => "10",
            Rank::Jack => "J",
            Rank::Queen => "Q",
            Rank::King => "K",
            Rank::Ace => "A",
            Rank::Joker => "Joker",
        }
    }

    /// The rank's name in a sentence, in the plural ("Queens", "7s").
    pub fn plural(self) -> &'static str {
        match self {
            Rank::Two => "2s",
            Rank::Three => "3s",
            Rank::Four => "4s",
            Rank::Five => "5s",
            Rank::Six => "6s",
            Rank::Seven => "7s",
            Rank::Eight => "8s",
            Rank::Nine => "9s",
            Rank::Ten => "10s",
            Rank::Jack => "Jacks",
            Rank::Queen => "Queens",
            Rank::King => "Kings",
            Rank::Ace => "Aces",
            Rank::Joker => "Jokers",
        }
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// The deck, as the rules file gives it: "two 52-card French decks and 6 Jokers". Each French
/// deck holds four cards of each rank 2 to Ace.
pub const DECK: [(Rank, u8); 14] = [
    (Rank::Two, 2 * 4),
    (Rank::Three, 2 * 4),
    (Rank::Four, 2 * 4),
    (Rank::Five, 2 * 4),
    (Rank::Six, 2 * 4),
    (Rank::Seven, 2 * 4),
    (Rank::Eight, 2 * 4),
    (Rank::Nine, 2 * 4),
    (Rank::Ten, 2 * 4),
    (Rank::Jack, 2 * 4),
    (Rank::Queen, 2 * 4),
    (Rank::King, 2 * 4),
    (Rank::Ace, 2 * 4),
    (Rank::Joker, 6),
];

/// The number of cards in the deck.
pub const DECK_SIZE: usize = 110;

/// The whole deck in rank order, before any shuffle.
pub fn deck() -> Vec<Rank> {
    DECK.iter()
        .flat_map(|&(rank, count)| std::iter::repeat_n(rank, usize::from(count)))
        .collect()
}

/// A multiset of cards: how many of each rank. Hands, collected piles and the neutral pile
/// are all of this kind, since the order of their cards never matters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cards([u16; 14]);

impl Cards {
    pub fn new() -> Cards {
        Cards::default()
    }

    /// The multiset of the given cards.
    pub fn of(cards: &[Rank]) -> Cards {
        let mut set = Cards::new();
        set.add_all(cards);
        set
    }

    /// How many cards of `rank`.
    pub fn count(&self, rank: Rank) -> usize {
        usize::from(self.0[rank.index()])
    }

    /// How many cards in all.
    pub fn len(&self) -> usize {
        self.0.iter().map(|&n| usize::from(n)).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn add(&mut self, rank: Rank) {
        let slot = &mut self.0[rank.index()];
        *slot = slot.saturating_add(1);
    }

    pub fn add_all(&mut self, cards: &[Rank]) {
        for &rank in cards {
            self.add(rank);
        }
    }

    pub fn add_cards(&mut self, other: &Cards) {
        for (mine, theirs) in self.0.iter_mut().zip(other.0.iter()) {
            *mine = mine.saturating_add(*theirs);
        }
    }

    /// Removes the given cards, as far as they are present (events were decided against the
    /// state, so they always are; a fold must never panic all the same).
    pub fn remove_all(&mut self, cards: &[Rank]) {
        for &rank in cards {
            let slot = &mut self.0[rank.index()];
            *slot = slot.saturating_sub(1);
        }
    }

    /// Whether every card of `cards` is here (counting repeats).
    pub fn contains_all(&self, cards: &[Rank]) -> bool {
        let wanted = Cards::of(cards);
        Rank::ALL
            .iter()
            .all(|&rank| wanted.count(rank) <= self.count(rank))
    }

    /// The cards in rank order, low to high.
    pub fn to_vec(&self) -> Vec<Rank> {
        Rank::ALL
            .iter()
            .flat_map(|&rank| std::iter::repeat_n(rank, self.count(rank)))
            .collect()
    }

    /// Each rank held, low to high, with how many.
    pub fn ranks(&self) -> impl Iterator<Item = (Rank, usize)> + '_ {
        Rank::ALL
            .iter()
            .map(|&rank| (rank, self.count(rank)))
            .filter(|&(_, n)| n > 0)
    }
}

/// Cards written as in a notation: `Q Q Q`.
pub fn spell(cards: &[Rank]) -> String {
    cards
        .iter()
        .map(|rank| rank.symbol())
        .collect::<Vec<_>>()
        .join(" ")
}
