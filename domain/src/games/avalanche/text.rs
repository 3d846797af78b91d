//! Avalanche as text: the reader's hand, the running avalanche and the set to beat, the piles,
//! every seat's cards and score; each event in words; and a person's text read by its
//! notation (`play 7 7`, `7 7`, `snow fall`, the annotation in parentheses optional).

use super::cards::spell;
use super::command::Command;
use super::event::Event;
use super::state::State;
use super::view::{PhaseView, View};
use crate::engine::Seat;
use crate::text::{read_notation, seat_label, seat_name, Reading};

pub fn position(view: &View, me: Option<Seat>, names: &[String]) -> String {
    let mut out = String::new();
    if let Some(hand) = me
        .and_then(|me| view.seats.get(me))
        .and_then(|s| s.hand.as_ref())
    {
        out.push_str(&format!("Your hand: {}\n", or_none(&spell(hand))));
    }
    match view.phase {
        PhaseView::Dealing => out.push_str("Waiting for the deal.\n"),
        PhaseView::Over => out.push_str("The game is over.\n"),
        PhaseView::Playing => {
            if let Some(turn) = view.turn {
                out.push_str(&format!("To play: {}\n", seat_name(names, turn)));
            }
        }
    }
    if view.table.is_empty() {
        out.push_str("Avalanche: none running\n");
    } else {
        let sets: Vec<String> = view
            .table
            .iter()
            .map(|set| format!("{} ({})", spell(&set.cards), seat_name(names, set.seat)))
            .collect();
        out.push_str(&format!(
            "Avalanche, oldest set first: {}\n",
            sets.join(", ")
        ));
    }
    if let Some(to_beat) = &view.to_beat {
        out.push_str(&format!(
            "To beat: {} played by {}\n",
            spell(&to_beat.cards),
            seat_name(names, to_beat.seat)
        ));
    }
    if view.snow_fall_allowed {
        out.push_str("Snow Fall allowed.\n");
    }
    out.push_str(&format!(
        "Draw pile: {} cards; neutral pile: {} cards\n",
        view.draw_pile_size, view.neutral_pile_size
    ));
    if let Some(pile) = &view.draw_pile {
        out.push_str(&format!(
            "Draw pile, top first: {}\n",
            or_none(&spell(pile))
        ));
    }
    out.push_str("Seats (cards held, cards collected):\n");
    for seat in &view.seats {
        let mut line = format!(
            "  {}: {} held, {} collected",
            seat_label(names, seat.seat, me),
            seat.hand_size,
            seat.collected
        );
        if view.dealer == Some(seat.seat) {
            line.push_str(", dealer");
        }
        if seat.out {
            line.push_str(", out");
        }
        if seat.retired {
            line.push_str(", left the game");
        }
        if me != Some(seat.seat) {
            if let Some(hand) = &seat.hand {
                line.push_str(&format!(" [{}]", spell(hand)));
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn or_none(cards: &str) -> &str {
    if cards.is_empty() {
        "none"
    } else {
        cards
    }
}

pub fn event(event: &Event, names: &[String]) -> Option<String> {
    let name = |seat: Seat| seat_name(names, seat);
    Some(match event {
        Event::DealerDrawn { dealer, .. } => format!("{} deals", name(*dealer)),
        Event::Dealt { first, .. } => format!("The cards were dealt; {} plays first", name(*first)),
        Event::SnowFell { seat, card } => match card {
            Some(card) => format!("{} chose Snow Fall and drew {card}", name(*seat)),
            None => format!("{} chose Snow Fall", name(*seat)),
        },
        Event::Played { seat, cards, play } => {
            format!("{} played {} ({})", name(*seat), spell(cards), play.word())
        }
        Event::AvalancheStopped { cards } => format!(
            "The avalanche stopped: {} cards went to the neutral pile",
            cards.len()
        ),
        Event::AvalancheFell { to, cards } => {
            format!(
                "The avalanche fell: {} collected {} cards",
                name(*to),
                cards.len()
            )
        }
        Event::Refilled { seat, cards } => match &cards.cards {
            Some(drawn) => format!("{} drew {}", name(*seat), spell(drawn)),
            None => format!("{} drew {} cards", name(*seat), cards.count),
        },
        Event::WentOut { seat } => format!("{} is out of cards", name(*seat)),
        Event::Retired { seat, .. } => format!("{} left the game", name(*seat)),
        Event::Reshuffled { .. } => "The draw pile was shuffled again".to_string(),
        Event::GameEnded { .. } => "The game ended".to_string(),
    })
}

pub fn read(state: &State, seat: Seat, text: &str) -> Reading<Command> {
    read_notation(&super::legal::legal(state, seat), text)
}
