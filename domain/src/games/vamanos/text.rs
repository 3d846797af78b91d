//! Vamanos as text: the round and the target, the reader's drawn card, every seat's rows,
//! stacks, pile and total, how the last round scored; each event in words; and a person's
//! text read by its notation (`draw`, `place in row 2`, `row 2`, `lay last card face down`).

use super::cards::Card;
use super::command::Command;
use super::event::Event;
use super::state::State;
use super::view::{Phase, View};
use crate::engine::Seat;
use crate::text::{read_notation, seat_label, seat_name, Reading};

fn cards(cards: &[Card]) -> String {
    if cards.is_empty() {
        return "empty".into();
    }
    cards
        .iter()
        .map(Card::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn position(view: &View, me: Option<Seat>, names: &[String]) -> String {
    let mut out = String::new();
    let phase = match view.phase {
        Phase::Waiting => "waiting for the deal",
        Phase::Playing => "being played (everyone acts at once)",
        Phase::Over => "over",
    };
    out.push_str(&format!(
        "Round {}, {phase}; the game ends when a total passes {}\n",
        view.round, view.target
    ));
    if let Some(mine) = me.and_then(|me| view.players.get(me)) {
        match mine.drawn {
            Some(card) => out.push_str(&format!("Your drawn card: {card}\n")),
            None if view.may_draw => out.push_str("You may draw.\n"),
            None => {}
        }
    }
    out.push_str("Seats:\n");
    for player in &view.players {
        let mut line = format!(
            "  {}: total {}, {} cards in the pile",
            seat_label(names, player.seat, me),
            player.total,
            player.pile_size
        );
        if player.holds_card && me != Some(player.seat) {
            line.push_str(", holds a drawn card");
        }
        if player.face_down {
            match player.face_down_card {
                Some(card) => line.push_str(&format!(", last card face down ({card})")),
                None => line.push_str(", last card face down"),
            }
        }
        if !player.playing {
            line.push_str(", left the game");
        }
        out.push_str(&line);
        out.push('\n');
        for (at, row) in player.rows.iter().enumerate() {
            out.push_str(&format!("    row {}: {}\n", at + 1, cards(row)));
        }
        for stack in &player.stacks {
            out.push_str(&format!("    stack: {}\n", cards(stack)));
        }
    }
    if let Some(scores) = &view.last_round {
        let lines: Vec<String> = scores
            .iter()
            .map(|s| format!("{} {:+}", seat_name(names, s.seat), s.points))
            .collect();
        out.push_str(&format!("Last round scored: {}\n", lines.join(", ")));
    }
    out
}

pub fn event(event: &Event, names: &[String]) -> Option<String> {
    let name = |seat: Seat| seat_name(names, seat);
    Some(match event {
        Event::RoundDealt { round, .. } => format!("Round {round} was dealt"),
        Event::Drew { seat, card, .. } => match card {
            Some(card) => format!("{} drew {card}", name(*seat)),
            None => format!("{} drew a card", name(*seat)),
        },
        Event::Placed {
            seat, row, card, ..
        } => {
            format!("{} placed {card} in row {row}", name(*seat))
        }
        Event::RowStacked { seat, row, .. } => {
            format!("{}'s row {row} was gathered into a stack", name(*seat))
        }
        Event::LaidFaceDown { seat, .. } => {
            format!("{} laid the last card face down", name(*seat))
        }
        Event::AltaCalled { seat, round } => {
            format!("{} called Alta: round {round} stops", name(*seat))
        }
        Event::RoundScored { round, scores } => {
            let lines: Vec<String> = scores
                .iter()
                .map(|s| format!("{} {:+}", name(s.seat), s.points))
                .collect();
            format!("Round {round} scored: {}", lines.join(", "))
        }
        Event::Retired { seat } => format!("{} left the game", name(*seat)),
        Event::PilesReshuffled { .. } => "Every pile was shuffled again".into(),
        Event::GameEnded { .. } => "The game ended".into(),
    })
}

pub fn read(state: &State, seat: Seat, text: &str) -> Reading<Command> {
    read_notation(&super::legal::legal(state, seat), text)
}
