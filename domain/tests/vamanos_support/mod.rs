//! Shared helpers of the Vamanos tests: a small table that decides and folds commands, and
//! decks arranged by hand.
#![allow(dead_code)]

use domain::engine::{Context, Engine, RuleError, Seat, Setup, Viewer};
use domain::fairness::Seed;
use domain::games::vamanos::cards::deck;
use domain::games::vamanos::{Card, Command, Event, Options, Pile, State, Vamanos};
use domain::testing::{self, test_time, with_options};

/// A new game of `seats` played to `target`.
pub fn setup(seats: usize, target: u32) -> Setup<Options> {
    with_options(testing::setup::<Vamanos>(seats), Options { target })
}

/// A game being played in a test: the state, every event so far, and the seed of its deals.
pub struct Game {
    pub state: State,
    pub events: Vec<Event>,
    pub seed: Seed,
}

impl Game {
    /// A game dealt by the engine from `seed`.
    pub fn dealt(seats: usize, target: u32, seed: u8) -> Game {
        let setup = setup(seats, target);
        Vamanos::check(&setup).expect("a valid setup");
        let seed = Seed([seed; 32]);
        let mut game = Game {
            state: Vamanos::initial(&setup),
            events: Vec::new(),
            seed,
        };
        let ctx = Context::new(seed, 0, test_time());
        for event in Vamanos::start(&game.state, &ctx) {
            game.apply(event);
        }
        game
    }

    /// A game whose first round is dealt from decks arranged by hand (one per seat, in
    /// drawing order); later rounds are dealt by the engine.
    pub fn arranged(target: u32, piles: Vec<Vec<Card>>) -> Game {
        let setup = setup(piles.len(), target);
        let mut game = Game {
            state: Vamanos::initial(&setup),
            events: Vec::new(),
            seed: Seed([3; 32]),
        };
        let piles = piles
            .into_iter()
            .enumerate()
            .map(|(seat, cards)| Pile {
                seat,
                size: cards.len() as u32,
                cards: Some(cards),
            })
            .collect();
        game.apply(Event::RoundDealt { round: 1, piles });
        game
    }

    pub fn apply(&mut self, event: Event) {
        Vamanos::evolve(&mut self.state, &event);
        self.events.push(event);
    }

    /// Decides a command of `seat` against the state now, and folds its events.
    pub fn play(&mut self, seat: Seat, command: Command) -> Result<Vec<Event>, RuleError> {
        let ctx = Context::new(self.seed, self.events.len() as u64 + 1, test_time());
        let events = Vamanos::decide(&self.state, seat, &command, &ctx)?;
        for event in &events {
            self.apply(event.clone());
        }
        Ok(events)
    }

    pub fn round(&self) -> u32 {
        self.state.round
    }

    pub fn draw(&mut self, seat: Seat) -> Vec<Event> {
        let round = self.round();
        self.play(seat, Command::Draw { round }).expect("draw")
    }

    pub fn place(&mut self, seat: Seat, row: u32) -> Vec<Event> {
        let round = self.round();
        self.play(seat, Command::Place { round, row })
            .expect("place")
    }

    pub fn draw_and_place(&mut self, seat: Seat, row: u32) -> Vec<Event> {
        let mut events = self.draw(seat);
        events.extend(self.place(seat, row));
        events
    }

    pub fn view(&self, viewer: Viewer) -> domain::games::vamanos::View {
        Vamanos::view(&self.state, viewer)
    }
}

/// A full deck whose first cards (in drawing order) are `first`, the rest in the rules' order.
pub fn deck_starting_with(first: &[Card]) -> Vec<Card> {
    let mut cards = first.to_vec();
    cards.extend(deck().into_iter().filter(|c| !first.contains(c)));
    cards
}
