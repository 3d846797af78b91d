//! A player's mountain: where cards lie and where a card may be laid.

use super::cards::{Card, Face};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use utoipa::ToSchema;

/// The most cards the base (floor 1) may hold.
pub const BASE_LIMIT: i64 = 10;

/// A place in a mountain: a floor and a slot on it. Addresses never change once given, so a
/// client can keep drawing a mountain from its events.
///
/// - **Floor 1** is the base. The first card of a mountain lies at slot 0; the base grows to
///   the right with slots 1, 2, ... and to the left with slots -1, -2, ... (so extending the
///   base at either end renumbers nothing). The base holds at most 10 cards, in at most 10
///   consecutive slots.
/// - **Floor k > 1, slot j** lies on floor k-1, slots j and j+1: half over each.
///
/// To draw a mountain with cards one unit wide, put the card of floor `k`, slot `j` at
/// horizontal position `j + (k - 1) / 2` (in card widths) and row `k` counted upwards.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[schema(example = json!({"floor": 2, "slot": 0}))]
pub struct Position {
    /// 1 for the base, 2 for the floor above it, ...
    pub floor: u8,
    /// The slot on that floor (see the type's documentation); may be negative.
    pub slot: i32,
}

impl Position {
    pub fn new(floor: u8, slot: i32) -> Position {
        Position { floor, slot }
    }

    /// The two cards this place lies on, none for the base (or a floor 0 that does not exist).
    pub fn supports(self) -> Option<(Position, Position)> {
        if self.floor < 2 {
            return None;
        }
        let right = self.slot.checked_add(1)?;
        Some((
            Position::new(self.floor - 1, self.slot),
            Position::new(self.floor - 1, right),
        ))
    }

    /// The places of the floor above that lie (half) on this one.
    pub fn above(self) -> Vec<Position> {
        let Some(floor) = self.floor.checked_add(1) else {
            return Vec::new();
        };
        [self.slot.checked_sub(1), Some(self.slot)]
            .into_iter()
            .flatten()
            .map(|slot| Position::new(floor, slot))
            .collect()
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "floor {} slot {}", self.floor, self.slot)
    }
}

/// The cards of one mountain by place.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mountain {
    pub cards: BTreeMap<Position, Card>,
}

/// Why a card may not go somewhere, in a sentence for the player.
pub type Refusal = String;

impl Mountain {
    pub fn get(&self, at: Position) -> Option<Card> {
        self.cards.get(&at).copied()
    }

    pub fn is_started(&self) -> bool {
        !self.cards.is_empty()
    }

    /// The number of floors: avalanches count.
    pub fn height(&self) -> u8 {
        self.cards.keys().map(|p| p.floor).max().unwrap_or(0)
    }

    /// Whether any card lies (even half) on the card at `at`.
    pub fn is_covered(&self, at: Position) -> bool {
        at.above().iter().any(|p| self.cards.contains_key(p))
    }

    fn base_slots(&self) -> impl Iterator<Item = i32> + '_ {
        self.cards.keys().filter(|p| p.floor == 1).map(|p| p.slot)
    }

    /// Whether `face` may be laid at the empty place `at`. `in_own` tells the owner's
    /// mountain from an opponent's (avalanches go only to an opponent's, without the value
    /// rule; other cards follow the same rules in both).
    pub fn may_lay(&self, face: Face, at: Position, in_own: bool) -> Result<(), Refusal> {
        match face {
            Face::SaintBernard => {
                return Err(
                    "A Saint-Bernard is never laid in a mountain: it removes an avalanche.".into(),
                )
            }
            Face::Avalanche if in_own => {
                return Err("An avalanche may only be laid in an opponent's mountain.".into())
            }
            _ => {}
        }
        if self.cards.contains_key(&at) {
            return Err(format!("There is already a card at {at}."));
        }
        match at.floor {
            0 => Err("Floors are numbered from 1 (the base).".into()),
            1 => self.may_extend_base(at.slot),
            _ => self.may_lay_above(face, at),
        }
    }

    fn may_extend_base(&self, slot: i32) -> Result<(), Refusal> {
        let base: Vec<i32> = self.base_slots().collect();
        let (Some(&lowest), Some(&highest)) = (base.first(), base.last()) else {
            return if slot == 0 {
                Ok(())
            } else {
                Err("A mountain begins at floor 1 slot 0.".into())
            };
        };
        let slot = i64::from(slot);
        let touches = base.iter().any(|&s| (i64::from(s) - slot).abs() == 1);
        if !touches {
            return Err("A base card must lie next to a card of the base.".into());
        }
        let span = i64::from(highest).max(slot) - i64::from(lowest).min(slot) + 1;
        if span > BASE_LIMIT {
            return Err(format!(
                "The base holds at most {BASE_LIMIT} cards in one row."
            ));
        }
        Ok(())
    }

    /// The value rule of floors above the base, for a card laid at `at` or replacing the card
    /// there.
    pub fn may_lay_above(&self, face: Face, at: Position) -> Result<(), Refusal> {
        if at.floor < 2 {
            return Ok(());
        }
        let Some((left, right)) = at.supports() else {
            return Err(format!("There is no place {at}."));
        };
        let (Some(left), Some(right)) = (self.get(left), self.get(right)) else {
            return Err(format!(
                "A card of floor {} must lie on two neighbouring cards of floor {}.",
                at.floor,
                at.floor - 1
            ));
        };
        if face == Face::CableCar {
            return Ok(());
        }
        if left.face == Face::Avalanche || right.face == Face::Avalanche {
            return Err("Only a cable car may be laid on an avalanche.".into());
        }
        if face == Face::Avalanche {
            return Ok(());
        }
        let (Some(value), Some(a), Some(b)) = (face.value(), left.face.value(), right.face.value())
        else {
            return Err("That card cannot be laid there.".into());
        };
        if value <= a || value <= b {
            return Err(format!(
                "{face} must be higher than both {} and {} (not their sum).",
                left.face, right.face
            ));
        }
        Ok(())
    }

    /// Every empty place where some card could now go: the base ends (and gaps left by a
    /// removed avalanche) and every place above two neighbours. The value rule is not checked.
    pub fn open_places(&self) -> Vec<Position> {
        if self.cards.is_empty() {
            return vec![Position::new(1, 0)];
        }
        let mut places = Vec::new();
        for (&at, _) in self.cards.iter() {
            let mut candidates = Vec::new();
            if at.floor == 1 {
                candidates.extend(at.slot.checked_sub(1).map(|s| Position::new(1, s)));
                candidates.extend(at.slot.checked_add(1).map(|s| Position::new(1, s)));
            }
            candidates.extend(at.above());
            for place in candidates {
                if self.cards.contains_key(&place) || places.contains(&place) {
                    continue;
                }
                let fits = if place.floor == 1 {
                    self.may_extend_base(place.slot).is_ok()
                } else {
                    place.supports().is_some_and(|(l, r)| {
                        self.cards.contains_key(&l) && self.cards.contains_key(&r)
                    })
                };
                if fits {
                    places.push(place);
                }
            }
        }
        places.sort();
        places
    }

    /// Where `face` may be laid now.
    pub fn places_for(&self, face: Face, in_own: bool) -> Vec<Position> {
        self.places_among(&self.open_places(), face, in_own)
    }

    /// The places of `open` (from [`Mountain::open_places`]) where `face` may be laid now.
    pub fn places_among(&self, open: &[Position], face: Face, in_own: bool) -> Vec<Position> {
        open.iter()
            .copied()
            .filter(|&at| self.may_lay(face, at, in_own).is_ok())
            .collect()
    }

    /// Describes a place for a notation: "between 9 and 12" above the base.
    pub fn describe(&self, at: Position) -> String {
        match at.supports() {
            Some((l, r)) => match (self.get(l), self.get(r)) {
                (Some(l), Some(r)) => format!("on {at} between {l} and {r}"),
                _ => format!("on {at}"),
            },
            None => format!("on {at}"),
        }
    }

    /// Animals lying on floor 4 or higher.
    pub fn high_animals(&self) -> usize {
        self.cards
            .iter()
            .filter(|(p, c)| p.floor >= 4 && matches!(c.face, Face::Animal { .. }))
            .count()
    }
}
