//! Game records in the notation of the rules file: export in the canonical form
//! (`1. Nf3// Nf6/a3`), and import of the forms players keep (seed style, play-by-mail style
//! `e4,c6` or `e4,c7-c6`, `:` or `x`, `00`, `0-0` or `O-O`, annotation glyphs, missing or wrong
//! check marks, `Resigns` and result lines, PGN-style tags, a `FEN` tag for a set position). An illegal half-turn is refused
//! with its number, its text as written, the position before it and the reason.

use super::command::{Command, PromotionPiece};
use super::decide::decide;
use super::ending::claimable;
use super::event::Event;
use super::position::piece_from_letter;
use super::san::strip_marks;
use super::state::{seat_of, State};
use super::variant::Variant;
use crate::engine::{Outcome, Seat};
use crate::Engine;

/// The result written at the end of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordResult {
    WhiteWins,
    BlackWins,
    Draw,
}

impl RecordResult {
    pub fn text(self) -> &'static str {
        match self {
            RecordResult::WhiteWins => "1-0",
            RecordResult::BlackWins => "0-1",
            RecordResult::Draw => "1/2-1/2",
        }
    }

    fn won_by(seat: Seat) -> RecordResult {
        if seat == 0 {
            RecordResult::WhiteWins
        } else {
            RecordResult::BlackWins
        }
    }
}

/// A record read and replayed through the rules.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedGame {
    pub variant: Variant,
    /// The PGN-style tag pairs, in order.
    pub tags: Vec<(String, String)>,
    /// The engine commands, with the seat of each, to replay through `decide`.
    pub commands: Vec<(Seat, Command)>,
    /// The events the commands produced.
    pub events: Vec<Event>,
    /// The result line of the record, if any.
    pub result: Option<RecordResult>,
    /// The seat that resigned, if the record says so.
    pub resigned: Option<Seat>,
    /// How the rules ended the game, if they did.
    pub outcome: Option<Outcome>,
    pub final_fen: String,
}

/// Why a record was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("half-turn {half_turn} \"{text}\" in position {fen}: {reason}")]
pub struct ImportError {
    /// The number of the half-turn, from 1.
    pub half_turn: usize,
    /// The half-turn as written in the record.
    pub text: String,
    /// The position before it.
    pub fen: String,
    pub reason: String,
}

/// Writes a game in the canonical notation from its events: the tag pairs given, one line per
/// turn number, `Resigns` in the resigning side's place, and the result.
pub fn export(events: &[Event], tags: &[(String, String)], resigned: Option<Seat>) -> String {
    let mut halves: Vec<String> = Vec::new();
    let mut result = None;
    for event in events {
        match event {
            Event::TurnPlayed { notation, .. } => halves.push(notation.clone()),
            Event::PromotionChosen { notation, .. } => {
                if let Some(last) = halves.last_mut() {
                    *last = notation.clone();
                }
            }
            Event::GameEnded { winner, .. } => {
                result = Some(winner.map_or(RecordResult::Draw, RecordResult::won_by));
            }
        }
    }
    if let Some(seat) = resigned {
        if result.is_none() {
            halves.push("Resigns".into());
            result = Some(RecordResult::won_by(1 - seat.min(1)));
        }
    }
    let mut text = String::new();
    for (key, value) in tags {
        text.push_str(&format!("[{key} \"{}\"]\n", value.replace('"', "'")));
    }
    if !tags.is_empty() {
        text.push('\n');
    }
    for (number, pair) in halves.chunks(2).enumerate() {
        text.push_str(&format!("{}. {}\n", number + 1, pair.join(" ")));
    }
    if let Some(result) = result {
        text.push_str(result.text());
        text.push('\n');
    }
    text
}

/// A token of a record once move numbers are removed.
enum Token {
    HalfTurn(String),
    Resigns(Option<Seat>),
    Result(RecordResult),
    Choice(PromotionPiece),
}

fn tags_and_moves(text: &str) -> (Vec<(String, String)>, String) {
    let mut tags = Vec::new();
    let mut moves = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') && trimmed.ends_with(']') {
            let inner = &trimmed[1..trimmed.len() - 1];
            let (key, value) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
            tags.push((key.to_string(), value.trim().trim_matches('"').to_string()));
        } else {
            let line = line.split(';').next().unwrap_or("");
            moves.push_str(line);
            moves.push('\n');
        }
    }
    // Brace comments may span lines.
    let mut plain = String::new();
    let mut depth = 0;
    for c in moves.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    (tags, plain)
}

fn result_of(word: &str) -> Option<RecordResult> {
    match word {
        "1-0" => Some(RecordResult::WhiteWins),
        "0-1" => Some(RecordResult::BlackWins),
        "1/2-1/2" | "½-½" | "1/2" | "=" => Some(RecordResult::Draw),
        _ => None,
    }
}

fn choice_of(text: &str) -> Option<PromotionPiece> {
    let letter = text
        .trim_matches(|c| matches!(c, '=' | '(' | ')'))
        .chars()
        .next()?;
    piece_from_letter(letter.to_ascii_uppercase()).and_then(PromotionPiece::from_piece)
}

fn tokens(text: &str) -> Vec<Token> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let mut word = words[i].to_string();
        i += 1;
        // The play-by-mail style may space the push away from its comma: `e4, c6`.
        while (word.ends_with(',') || words.get(i).is_some_and(|w| w.starts_with(',')))
            && i < words.len()
        {
            word.push_str(words[i]);
            i += 1;
        }
        // Move numbers: `12.`, `12...`, attached or not.
        let digits = word.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && word[digits..].starts_with('.') {
            word = word[digits..].trim_start_matches('.').to_string();
        } else if digits == word.len() && word != "00" && word != "000" {
            continue;
        }
        if word.is_empty() || word.chars().all(|c| "!?+#".contains(c)) {
            continue;
        }
        let lower = word.to_ascii_lowercase();
        if (lower == "white" || lower == "black")
            && words
                .get(i)
                .is_some_and(|w| w.to_ascii_lowercase().starts_with("resign"))
        {
            i += 1;
            out.push(Token::Resigns(Some(if lower == "white" { 0 } else { 1 })));
            continue;
        }
        if lower.starts_with("resign") {
            out.push(Token::Resigns(None));
        } else if let Some(result) = result_of(&word) {
            out.push(Token::Result(result));
        } else if word == "*" {
            continue;
        } else if (word.starts_with('=') || word.starts_with('(')) && choice_of(&word).is_some() {
            if let Some(choice) = choice_of(&word) {
                out.push(Token::Choice(choice));
            }
        } else {
            out.push(Token::HalfTurn(word));
        }
    }
    out
}

/// Splits a half-turn into its move, its push (`None` when no push is written) and the owner's
/// choice for a promoting push.
fn split_half_turn(text: &str) -> (String, Option<String>, Option<PromotionPiece>) {
    let Some(at) = text.find(['/', ',']) else {
        return (text.to_string(), None, None);
    };
    let mv = text[..at].to_string();
    let rest = strip_marks(&text[at + 1..]);
    if rest.is_empty() || rest == "/" {
        return (mv, None, None);
    }
    let rest = rest.trim_start_matches('/');
    let mut push = rest.to_string();
    let mut choice = None;
    if let Some(at) = rest.find(['=', '(']) {
        choice = choice_of(&rest[at..]);
        push = rest[..at].to_string();
    } else if rest.len() > 2 {
        if let Some(last) = rest.chars().last() {
            if "QRBN".contains(last) {
                choice = choice_of(&last.to_string());
                push = rest[..rest.len() - 1].to_string();
            }
        }
    }
    (mv, Some(push), choice)
}

struct Replay {
    state: State,
    commands: Vec<(Seat, Command)>,
    events: Vec<Event>,
}

impl Replay {
    fn play(&mut self, seat: Seat, command: Command) -> Result<(), String> {
        let events = decide(&self.state, seat, &command).map_err(|e| e.message)?;
        let mut canonical = command;
        for event in &events {
            if let Event::TurnPlayed { san, push, .. } = event {
                canonical = Command::Turn {
                    mv: san.clone(),
                    push: push.map(|p| p.to.to_string()),
                };
            }
            self.state.evolve(event);
        }
        self.commands.push((seat, canonical));
        self.events.extend(events);
        Ok(())
    }
}

/// Reads a record of `variant` and replays it through the rules.
pub fn import(text: &str, variant: Variant) -> Result<ImportedGame, ImportError> {
    let (tags, moves) = tags_and_moves(text);
    // A `[FEN "..."]` tag starts the game from that position, as in PGN.
    let state = match tags.iter().find(|(key, _)| key.eq_ignore_ascii_case("FEN")) {
        Some((_, fen)) => State::from_fen(variant, fen).map_err(|reason| ImportError {
            half_turn: 0,
            text: format!("[FEN \"{fen}\"]"),
            fen: fen.clone(),
            reason,
        })?,
        None => State::new(variant),
    };
    let mut game = Replay {
        state,
        commands: Vec::new(),
        events: Vec::new(),
    };
    let mut result = None;
    let mut resigned = None;
    let mut half_turn = 0;
    for token in tokens(&moves) {
        let fen = game.state.fen();
        let seat = seat_of(game.state.position.side);
        match token {
            Token::Result(r) => result = Some(r),
            Token::Resigns(who) => resigned = Some(who.unwrap_or(seat)),
            Token::Choice(piece) => {
                if game.state.pending.is_some() {
                    game.play(seat, Command::Promote { piece })
                        .map_err(|reason| ImportError {
                            half_turn,
                            text: format!("={}", piece.letter()),
                            fen,
                            reason,
                        })?;
                }
            }
            Token::HalfTurn(text) => {
                half_turn += 1;
                let error = |reason: String| ImportError {
                    half_turn,
                    text: text.clone(),
                    fen: fen.clone(),
                    reason,
                };
                if let Some(ending) = game.state.ending {
                    return Err(error(format!(
                        "the game was already over ({})",
                        ending.reason.words()
                    )));
                }
                if resigned.is_some() {
                    return Err(error("the game was already over by resignation".into()));
                }
                // A record that leaves out the owner's choice is read as a queen.
                if game.state.pending.is_some() {
                    game.play(
                        seat,
                        Command::Promote {
                            piece: PromotionPiece::Queen,
                        },
                    )
                    .map_err(error)?;
                    if let Some(ending) = game.state.ending {
                        return Err(error(format!(
                            "the game was already over ({})",
                            ending.reason.words()
                        )));
                    }
                }
                let (mv, push, choice) = split_half_turn(&text);
                let seat = seat_of(game.state.position.side);
                game.play(seat, Command::Turn { mv, push }).map_err(error)?;
                if let Some(piece) = choice {
                    if game.state.pending.is_none() {
                        return Err(error("this push does not promote a pawn".into()));
                    }
                    let owner = seat_of(game.state.position.side);
                    game.play(owner, Command::Promote { piece })
                        .map_err(error)?;
                }
            }
        }
    }
    if result == Some(RecordResult::Draw)
        && resigned.is_none()
        && game.state.ending.is_none()
        && claimable(&game.state).is_some()
    {
        let seat = seat_of(game.state.position.side);
        let _ = game.play(seat, Command::ClaimDraw);
    }
    if let (Some(RecordResult::WhiteWins), Some(_)) = (result, resigned) {
        resigned = Some(1);
    } else if let (Some(RecordResult::BlackWins), Some(_)) = (result, resigned) {
        resigned = Some(0);
    }
    Ok(ImportedGame {
        variant,
        tags,
        commands: game.commands,
        events: game.events,
        result,
        resigned,
        outcome: super::AvalancheChess::outcome(&game.state),
        final_fen: game.state.fen(),
    })
}
