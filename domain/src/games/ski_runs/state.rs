//! The whole state of a game of Ski Runs, secrets included, and the questions the rules ask
//! of it (whose turn, what may follow a run, when the game is over).

use super::cards::{Card, Colour, DeckCounts};
use super::revision::Rules;
use crate::engine::Seat;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Cards each player is dealt from the draw pile (besides 1 lift card), and picks up from it
/// after a turn that began with an empty hand.
pub const HAND_DRAW_CARDS: usize = 4;
/// Cards taken in an ordinary draw.
pub const DRAW_CARDS: usize = 2;
/// Cards a player may play in one turn.
pub const PLAYS_PER_TURN: u8 = 3;
/// The avalanche card that ends the game.
pub const FINAL_AVALANCHE: usize = 5;
/// Bonus points of a banked run of this many run cards or more.
pub const BONUS_RUN_CARDS: usize = 5;
pub const BONUS_POINTS: i64 = 4;

/// A ski run: a lift card followed by run cards, left to right.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"cards": ["lift", "green_run", "blue_run"]}))]
pub struct SkiRun {
    /// The cards from left to right: the lift card first, then the run cards.
    pub cards: Vec<Card>,
}

impl SkiRun {
    /// A run just started with a lift card.
    pub fn started() -> SkiRun {
        SkiRun {
            cards: vec![Card::Lift],
        }
    }

    /// The number of run cards (lift cards do not count).
    pub fn run_cards(&self) -> usize {
        self.cards.iter().filter(|c| c.colour().is_some()).count()
    }

    /// The colour of the last run card, the one the next must link to.
    pub fn last_colour(&self) -> Option<Colour> {
        self.cards.iter().rev().find_map(|c| c.colour())
    }

    /// Whether `colour` may extend this run: any colour after the lift, then the same colour
    /// as the last run card or a neighbouring one.
    pub fn accepts(&self, colour: Colour) -> bool {
        self.last_colour().is_none_or(|last| colour.links_to(last))
    }

    /// The points of the run once banked: its run cards, plus the bonus for five or more.
    pub fn points(&self) -> i64 {
        let cards: i64 = self.cards.iter().map(|c| c.points()).sum();
        if self.run_cards() >= BONUS_RUN_CARDS {
            cards + BONUS_POINTS
        } else {
            cards
        }
    }
}

/// Where the seat to act is within its turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The turn has begun: draw (or pick up after an empty hand), or bank.
    Start,
    /// The player has drawn and has played this many cards.
    Play { played: u8 },
}

/// Why the game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// The 5th avalanche card was played.
    FinalAvalanche,
    /// Once the draw pile was empty, every remaining player in turn neither played nor banked.
    NoProgress,
    /// A player resigned. This and the three below end a game at the table, not by the rules:
    /// they are only shown in the view's `end`, never in `game_ended`.
    Resigned,
    /// The two players agreed a draw.
    DrawAgreed,
    /// A player let their deadline pass.
    TimedOut,
    /// A takeback was agreed: play goes on in a fork.
    Superseded,
}

impl End {
    pub fn reason(self) -> &'static str {
        match self {
            End::FinalAvalanche => "the 5th avalanche card was played",
            End::NoProgress => {
                "once the draw pile was empty, a full round passed without a card played or a run banked"
            }
            End::Resigned => "resigned",
            End::DrawAgreed => "draw by agreement",
            End::TimedOut => "ran out of time",
            End::Superseded => "superseded by a takeback",
        }
    }
}

/// The state of a game.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// The revision of the rules the game is played under.
    pub rules: Rules,
    pub seats: usize,
    /// The deck the game is played with, kept to check that no card appears or vanishes.
    pub deck: DeckCounts,
    /// Whether the cards have been dealt.
    pub dealt: bool,
    /// The face-down draw pile; its top card is the last.
    pub draw_pile: Vec<Card>,
    /// The face-up lift pile: its cards are all alike, so it is a count.
    pub lift_pile: usize,
    pub hands: Vec<Vec<Card>>,
    /// Each seat's unbanked ski run, if any.
    pub runs: Vec<Option<SkiRun>>,
    /// Each seat's banked runs, oldest first.
    pub banked: Vec<Vec<SkiRun>>,
    /// Cards swept away by avalanches, and the cards of players who left.
    pub discard_pile: Vec<Card>,
    /// The avalanche cards in the centre of the table: the seat that played each, in order.
    pub avalanches: Vec<Seat>,
    /// Seats that left the game (resigned or timed out); they are skipped.
    pub retired: Vec<bool>,
    /// The seat whose turn it is.
    pub turn: Seat,
    pub step: Step,
    /// Seats that have had a turn without playing or banking since the draw pile became empty
    /// and since anyone last played or banked.
    pub quiet: Vec<bool>,
    pub end: Option<End>,
}

impl State {
    pub fn new(seats: usize, deck: DeckCounts, rules: Rules) -> State {
        State {
            rules,
            seats,
            deck,
            dealt: false,
            draw_pile: Vec::new(),
            lift_pile: 0,
            hands: vec![Vec::new(); seats],
            runs: vec![None; seats],
            banked: vec![Vec::new(); seats],
            discard_pile: Vec::new(),
            avalanches: Vec::new(),
            retired: vec![false; seats],
            turn: 0,
            step: Step::Start,
            quiet: vec![false; seats],
            end: None,
        }
    }

    /// Whether play is going on: dealt and not over.
    pub fn running(&self) -> bool {
        self.dealt && self.end.is_none()
    }

    /// The seats still playing, in turn order.
    pub fn remaining(&self) -> impl Iterator<Item = Seat> + '_ {
        (0..self.seats).filter(|&s| !self.retired.get(s).copied().unwrap_or(true))
    }

    /// The next remaining seat after `seat`, clockwise.
    pub fn next_after(&self, seat: Seat) -> Seat {
        (1..=self.seats)
            .map(|i| (seat + i) % self.seats)
            .find(|&s| !self.retired[s])
            .unwrap_or(seat)
    }

    pub fn hand(&self, seat: Seat) -> &[Card] {
        self.hands.get(seat).map(Vec::as_slice).unwrap_or(&[])
    }

    pub fn run(&self, seat: Seat) -> Option<&SkiRun> {
        self.runs.get(seat).and_then(Option::as_ref)
    }

    /// Whether `seat` may bank: its unbanked run has at least one run card.
    pub fn may_bank(&self, seat: Seat) -> bool {
        self.run(seat).is_some_and(|run| run.run_cards() > 0)
    }

    /// The points of a seat's banked runs.
    pub fn score(&self, seat: Seat) -> i64 {
        self.banked
            .get(seat)
            .map(|runs| runs.iter().map(SkiRun::points).sum())
            .unwrap_or(0)
    }

    /// Why `seat` may not play `card` now (whose turn and step aside), or `None` if it may.
    pub fn play_refusal(&self, seat: Seat, card: Card) -> Option<String> {
        if !self.hand(seat).contains(&card) {
            return Some(format!("You hold no {card}."));
        }
        let run = self.run(seat);
        match (card, card.colour()) {
            (Card::Lift, _) if run.is_some() => Some(
                "You are already on a ski run: a lift card starts a new one only once the \
                 current one is banked or swept away."
                    .into(),
            ),
            (_, Some(_)) if run.is_none() => Some(format!(
                "A ski run begins with a lift card: play a lift before the {card}."
            )),
            (_, Some(colour)) => {
                let last = run.and_then(SkiRun::last_colour)?;
                if colour.links_to(last) {
                    return None;
                }
                let may: Vec<&str> = last.linkable().into_iter().map(Colour::name).collect();
                Some(format!(
                    "A {card} cannot link to a {} run: after {} comes {}.",
                    last.name(),
                    last.name(),
                    may.join(", ")
                ))
            }
            _ => None,
        }
    }

    /// How many cards a draw from `from` would take: each pile gives what it can.
    pub fn draw_yield(&self, from: &[super::command::Pile]) -> (usize, usize) {
        let from_draw = from
            .iter()
            .filter(|&&p| p == super::command::Pile::DrawPile)
            .count();
        let from_lift = from.len() - from_draw;
        (
            from_draw.min(self.draw_pile.len()),
            from_lift.min(self.lift_pile),
        )
    }

    /// The most cards a draw can take now.
    pub fn best_draw(&self) -> usize {
        DRAW_CARDS.min(self.draw_pile.len() + self.lift_pile)
    }

    /// How the game ends now, if it does: the 5th avalanche card has been played, or the draw
    /// pile is empty and every remaining player has had a quiet turn (see
    /// [`super::evolve`]). `None` once the end is recorded.
    pub fn ending(&self) -> Option<End> {
        if !self.dealt || self.end.is_some() {
            return None;
        }
        if self.avalanches.len() >= FINAL_AVALANCHE {
            return Some(End::FinalAvalanche);
        }
        (self.draw_pile.is_empty() && self.remaining().all(|s| self.quiet[s]))
            .then_some(End::NoProgress)
    }

    /// Whether the turn of the seat to act has a draw step: always under revision 1; under
    /// revision 2 only while the draw pile has cards.
    pub fn has_draw_step(&self) -> bool {
        !(self.rules.no_draw_once_the_draw_pile_is_empty() && self.draw_pile.is_empty())
    }

    /// Why a draw from `from` may not be made, or `None` if it may.
    pub fn draw_refusal(&self, from: &[super::command::Pile]) -> Option<String> {
        let (from_draw_pile, lifts) = self.draw_yield(from);
        let taken = from_draw_pile + lifts;
        if self.rules.short_draw_is_not_made_up() {
            return (taken == 0).then(|| {
                format!(
                    "The piles you named are empty: the draw pile holds {} and the lift pile \
                     {}, so name a pile that can supply a card.",
                    self.draw_pile.len(),
                    self.lift_pile
                )
            });
        }
        (taken < self.best_draw()).then(|| {
            format!(
                "You must take {} cards: the draw pile holds {} and the lift pile {}, so \
                 name piles that can supply them.",
                self.best_draw(),
                self.draw_pile.len(),
                self.lift_pile
            )
        })
    }
}
