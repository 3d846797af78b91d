//! Ski Runs as text: the reader's hand, every seat's open runs and score, the piles and the
//! avalanches; each event in words; and a person's text read by its notation (`play blue
//! run`, `blue run` alone, `end turn`, `draw draw-pile + lift`, unique beginnings).

use super::cards::Card;
use super::command::Command;
use super::event::Event;
use super::state::{SkiRun, State};
use super::view::View;
use crate::engine::Seat;
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

fn run(run: &SkiRun) -> String {
    cards(&run.cards)
}

pub fn position(view: &View, me: Option<Seat>, names: &[String]) -> String {
    let mut out = String::new();
    if let Some(hand) = me
        .and_then(|me| view.players.get(me))
        .and_then(|p| p.hand.as_ref())
    {
        out.push_str(&format!("Your hand: {}\n", cards(hand)));
    }
    match &view.turn {
        Some(turn) => out.push_str(&format!(
            "To play: {} ({}, {} plays left)\n",
            seat_name(names, turn.seat),
            if turn.drawn { "has drawn" } else { "to draw" },
            turn.plays_left
        )),
        None if view.end.is_some() => out.push_str("The game is over.\n"),
        None => {}
    }
    out.push_str(&format!(
        "Draw pile: {} cards; lift pile: {} cards; discard pile: {} cards\n",
        view.draw_pile_size, view.lift_pile_size, view.discard_pile_size
    ));
    let played: Vec<String> = view
        .avalanches
        .iter()
        .map(|s| seat_name(names, *s))
        .collect();
    out.push_str(&format!(
        "Avalanches played: {} ({}); {} more end the game\n",
        view.avalanches.len(),
        if played.is_empty() {
            "none".into()
        } else {
            played.join(", ")
        },
        view.avalanches_to_end
    ));
    out.push_str("Seats:\n");
    for player in &view.players {
        let mut line = format!(
            "  {}: {} cards held, score {}",
            seat_label(names, player.seat, me),
            player.hand_size,
            player.score
        );
        if player.retired {
            line.push_str(", left the game");
        }
        out.push_str(&line);
        out.push('\n');
        if me != Some(player.seat) {
            if let Some(hand) = &player.hand {
                out.push_str(&format!("    hand: {}\n", cards(hand)));
            }
        }
        if let Some(unbanked) = &player.unbanked_run {
            out.push_str(&format!("    unbanked run: {}\n", run(unbanked)));
        }
        for banked in &player.banked_runs {
            out.push_str(&format!("    banked run: {}\n", run(banked)));
        }
    }
    out
}

pub fn event(event: &Event, names: &[String]) -> Option<String> {
    let name = |seat: Seat| seat_name(names, seat);
    let drawn = |lifts: usize, drawn: &super::cards::Cards| {
        let count = drawn.count;
        match &drawn.cards {
            Some(known) if !known.is_empty() => {
                format!("{lifts} lift card(s) and {}", cards(known))
            }
            _ => format!("{lifts} lift card(s) and {count} card(s) from the draw pile"),
        }
    };
    Some(match event {
        Event::Dealt { .. } => "The cards were dealt".into(),
        Event::Drew { seat, lifts, cards } => {
            format!("{} drew {}", name(*seat), drawn(*lifts, cards))
        }
        Event::PickedUp { seat, lifts, cards } => {
            format!("{} picked up {}", name(*seat), drawn(*lifts, cards))
        }
        Event::Played { seat, card } => format!("{} played {card}", name(*seat)),
        Event::TurnEnded { seat } => format!("{} ended the turn", name(*seat)),
        Event::Banked { seat, run: banked } => {
            format!("{} banked the run {}", name(*seat), run(banked))
        }
        Event::Retired { seat, .. } => format!("{} left the game", name(*seat)),
        Event::DrawPileReshuffled { .. } => "The draw pile was shuffled again".into(),
        Event::GameEnded { .. } => "The game ended".into(),
    })
}

pub fn read(state: &State, seat: Seat, text: &str) -> Reading<Command> {
    read_notation(&super::legal::legal(state, seat), text)
}
