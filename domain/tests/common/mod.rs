//! A small test-only game for the table rules ("High card"): each seat is dealt one secret
//! card from a shuffled 1..=20; in turn each seat may `raise` (passing the turn) or `show`,
//! which ends the game: the highest card wins. Seats that retire are skipped. It is never
//! offered by the service.

use domain::engine::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq)]
pub struct HighCard;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Options {}

#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub seats: usize,
    pub cards: Vec<Option<u8>>,
    pub next: Seat,
    pub retired: Vec<bool>,
    pub shown: bool,
    pub raises: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    Raise,
    Show,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// Each seat's card; `None` where the viewer may not see it.
    Dealt {
        cards: Vec<Option<u8>>,
    },
    Raised {
        seat: Seat,
    },
    Shown {
        seat: Seat,
    },
    Retired {
        seat: Seat,
    },
}

#[derive(Serialize, utoipa::ToSchema)]
pub struct View {
    pub cards: Vec<Option<u8>>,
    pub next: Seat,
}

impl State {
    fn next_after(&self, seat: Seat) -> Seat {
        let mut next = (seat + 1) % self.seats;
        while self.retired[next] && next != seat {
            next = (next + 1) % self.seats;
        }
        next
    }
}

impl Engine for HighCard {
    const ID: &'static str = "high-card";
    type Options = Options;
    type State = State;
    type Command = Command;
    type Event = Event;
    type View = View;

    fn info() -> KindInfo {
        KindInfo::new(Self::ID, "High card", 1, 4, "The highest card wins.")
            .with_hidden_information()
    }
    fn check(setup: &Setup<Options>) -> Result<(), RuleError> {
        Self::info().check_setup(setup.variant.as_deref(), setup.seats)
    }
    fn initial(setup: &Setup<Options>) -> State {
        State {
            seats: setup.seats,
            cards: vec![None; setup.seats],
            next: 0,
            retired: vec![false; setup.seats],
            shown: false,
            raises: 0,
        }
    }
    fn start(state: &State, ctx: &Context) -> Vec<Event> {
        let mut deck: Vec<u8> = (1..=20).collect();
        ctx.dealer(0).shuffle(&mut deck);
        vec![Event::Dealt {
            cards: deck.into_iter().take(state.seats).map(Some).collect(),
        }]
    }
    fn decide(
        state: &State,
        seat: Seat,
        command: &Command,
        _ctx: &Context,
    ) -> Result<Vec<Event>, RuleError> {
        if state.shown {
            return Err(RuleError::game_over());
        }
        if seat != state.next {
            return Err(RuleError::not_your_turn());
        }
        Ok(vec![match command {
            Command::Raise => Event::Raised { seat },
            Command::Show => Event::Shown { seat },
        }])
    }
    fn evolve(state: &mut State, event: &Event) {
        match event {
            Event::Dealt { cards } => state.cards = cards.clone(),
            Event::Raised { seat } => {
                state.raises += 1;
                state.next = state.next_after(*seat);
            }
            Event::Shown { .. } => state.shown = true,
            Event::Retired { seat } => {
                state.retired[*seat] = true;
                if state.next == *seat {
                    state.next = state.next_after(*seat);
                }
            }
        }
    }
    fn view(state: &State, viewer: Viewer) -> View {
        View {
            cards: hide(&state.cards, viewer),
            next: state.next,
        }
    }
    fn redact(event: &Event, viewer: Viewer) -> Event {
        match event {
            Event::Dealt { cards } => Event::Dealt {
                cards: hide(cards, viewer),
            },
            other => other.clone(),
        }
    }
    fn legal(state: &State, seat: Seat) -> Vec<Legal<Command>> {
        if state.shown || seat != state.next {
            return Vec::new();
        }
        vec![
            Legal::new(Command::Raise, "raise"),
            Legal::new(Command::Show, "show"),
        ]
    }
    fn to_act(state: &State) -> Vec<Seat> {
        if state.shown {
            Vec::new()
        } else {
            vec![state.next]
        }
    }
    fn outcome(state: &State) -> Option<Outcome> {
        if !state.shown {
            return None;
        }
        let best = (0..state.seats)
            .filter(|&s| !state.retired[s])
            .max_by_key(|&s| state.cards[s])?;
        Some(Outcome::win(vec![best], "highest card"))
    }
    fn retire(_state: &State, seat: Seat) -> Vec<Event> {
        vec![Event::Retired { seat }]
    }
    fn position_text(view: &View, _me: Option<Seat>, _names: &[String]) -> String {
        format!("cards: {:?}; next: seat {}\n", view.cards, view.next + 1)
    }
    fn event_text(event: &Event, _names: &[String]) -> Option<String> {
        Some(format!("{event:?}"))
    }
    fn read(state: &State, seat: Seat, text: &str) -> domain::text::Reading<Command> {
        domain::text::read_notation(&Self::legal(state, seat), text)
    }
}

fn hide(cards: &[Option<u8>], viewer: Viewer) -> Vec<Option<u8>> {
    cards
        .iter()
        .enumerate()
        .map(|(seat, card)| {
            if viewer.sees_secrets_of(seat) {
                *card
            } else {
                None
            }
        })
        .collect()
}
