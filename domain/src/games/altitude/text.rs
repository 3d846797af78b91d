//! Altitude as text: the reader's hand and drawn card, the deck and the discard pile, every
//! seat's mountain floor by floor; each event in words; and a person's text read by its
//! notation (`draw`, `lay 5 on floor 2 slot 1`, `discard 7`, unique beginnings). Twin cards
//! make commands that read alike (`return 5 and 5`): the rules treat twins alike, so the
//! first of them is the one a text names.

use super::cards::Card;
use super::command::Command;
use super::event::Event;
use super::state::{Phase, State};
use super::view::{PlacedCard, View};
use crate::engine::{Legal, Seat};
use crate::text::{read_notation, seat_label, seat_name, Reading};

fn cards(cards: &[Card]) -> String {
    if cards.is_empty() {
        return "none".into();
    }
    cards
        .iter()
        .map(Card::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A mountain from its top floor down, each card with its slot.
fn mountain(placed: &[PlacedCard]) -> Vec<String> {
    let top = placed.iter().map(|p| p.at.floor).max().unwrap_or(0);
    (1..=top)
        .rev()
        .map(|floor| {
            let mut row: Vec<&PlacedCard> = placed.iter().filter(|p| p.at.floor == floor).collect();
            row.sort_by_key(|p| p.at.slot);
            let row: Vec<String> = row
                .iter()
                .map(|p| format!("slot {}: {}", p.at.slot, p.card))
                .collect();
            format!("floor {floor}: {}", row.join("; "))
        })
        .collect()
}

pub fn position(view: &View, me: Option<Seat>, names: &[String]) -> String {
    let mut out = String::new();
    if me.is_some() {
        out.push_str(&format!("Your hand: {}\n", cards(&view.hand)));
        if let Some(drawn) = view.drawn {
            out.push_str(&format!("Your drawn card: {drawn}\n"));
        }
    }
    let phase = match view.phase {
        Phase::NotStarted => "waiting for the deal".to_string(),
        Phase::Choosing => "everyone returns 2 cards of the deal".to_string(),
        Phase::Playing => "draw, then lay, discard or use the drawn card".to_string(),
        Phase::LayingHands => "the deck is empty: lay a card of the hand or pass".to_string(),
        Phase::Over => "the game is over".to_string(),
    };
    out.push_str(&format!("Now: {phase}\n"));
    if let Some(turn) = view.turn {
        out.push_str(&format!(
            "To play: {} ({} turn(s) left this round)\n",
            seat_name(names, turn),
            view.turns_left
        ));
    }
    out.push_str(&format!(
        "Deck: {} cards; discard pile: {} cards\n",
        view.deck_size, view.discard_size
    ));
    out.push_str("Seats:\n");
    for player in &view.players {
        let mut line = format!(
            "  {}: {} cards held, {} floors",
            seat_label(names, player.seat, me),
            player.hand_size,
            player.height
        );
        if player.two_turns {
            line.push_str(", two turns a round");
        }
        if player.choosing {
            line.push_str(", choosing");
        }
        if player.passed {
            line.push_str(", passed");
        }
        if player.retired {
            line.push_str(", left the game");
        }
        if let Some(score) = &player.score {
            line.push_str(&format!(", score {}", score.total));
        }
        out.push_str(&line);
        out.push('\n');
        if me != Some(player.seat) {
            if let Some(hand) = &player.hand {
                out.push_str(&format!("    hand: {}\n", cards(hand)));
            }
        }
        for floor in mountain(&player.mountain) {
            out.push_str(&format!("    {floor}\n"));
        }
    }
    out
}

pub fn event(event: &Event, names: &[String]) -> Option<String> {
    let name = |seat: Seat| seat_name(names, seat);
    Some(match event {
        Event::Dealt { seat, count, .. } => format!("{} was dealt {count} cards", name(*seat)),
        Event::DeckShuffled { .. } => "The deck was shuffled".into(),
        Event::CardsReturned {
            seat,
            count,
            cards: returned,
        } => {
            if returned.is_empty() {
                format!("{} returned {count} cards to the deck", name(*seat))
            } else {
                format!("{} returned {} to the deck", name(*seat), cards(returned))
            }
        }
        Event::Drew { seat, card } => match card {
            Some(card) => format!("{} drew {card}", name(*seat)),
            None => format!("{} drew a card", name(*seat)),
        },
        Event::Laid { seat, card, at, .. } => format!("{} laid {card} on {at}", name(*seat)),
        Event::Discarded { seat, card } => format!("{} discarded {card}", name(*seat)),
        Event::LaidOnOpponent {
            seat,
            opponent,
            card,
            at,
        } => format!(
            "{} laid {card} on {}'s mountain, {at}",
            name(*seat),
            name(*opponent)
        ),
        Event::Replaced {
            seat,
            card,
            at,
            removed,
        } => format!("{} replaced {removed} on {at} with {card}", name(*seat)),
        Event::AvalancheRemoved { seat, at, .. } => {
            format!(
                "{}'s Saint-Bernard removed the avalanche on {at}",
                name(*seat)
            )
        }
        Event::Passed { seat } => format!("{} passed", name(*seat)),
        Event::Retired { seat, .. } => format!("{} left the game", name(*seat)),
        Event::GameEnded => "The game ended and was scored".into(),
    })
}

pub fn read(state: &State, seat: Seat, text: &str) -> Reading<Command> {
    let mut legal: Vec<Legal<Command>> = Vec::new();
    for entry in super::legal::legal(state, seat) {
        // Twins read alike and play alike: the first of them stands for all.
        if !legal.iter().any(|l| l.notation == entry.notation) {
            legal.push(entry);
        }
    }
    read_notation(&legal, text)
}
