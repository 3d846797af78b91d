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
use crate::table::{RecordNote, GLYPHS, MAX_COMMENT};
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
    /// The record's comments and annotation glyphs, by the half-turn they follow.
    pub notes: Vec<RecordNote>,
    /// Set when the record breaks after its game had ended (by the rules or a resignation):
    /// it does not break, it is longer than its game.
    pub over_before_break: bool,
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
/// turn number, `Resigns` in the resigning side's place, and the result. Each half-turn carries
/// the check (`+`) or mate (`#`) mark of the position after it, as the rules engine saw it.
pub fn export(events: &[Event], tags: &[(String, String)], resigned: Option<Seat>) -> String {
    export_annotated(events, tags, resigned, &[])
}

/// [`export`] with a record's comments and annotation glyphs after the half-turns they follow
/// (`1. e4/a6! {a comment} Nf6/a3?!`); a comment before the first half-turn comes first.
pub fn export_annotated(
    events: &[Event],
    tags: &[(String, String)],
    resigned: Option<Seat>,
    notes: &[RecordNote],
) -> String {
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
    let after = |n: usize| {
        let mut glyph = String::new();
        let mut comments = String::new();
        for note in notes.iter().filter(|note| note.after as usize == n) {
            if let Some(g) = note.glyph.as_deref().filter(|g| GLYPHS.contains(g)) {
                if glyph.is_empty() {
                    glyph.push_str(g);
                }
            }
            if let Some(comment) = &note.comment {
                let comment: String = comment
                    .chars()
                    .filter(|c| !matches!(c, '{' | '}'))
                    .collect();
                let comment = comment.split_whitespace().collect::<Vec<_>>().join(" ");
                if !comment.is_empty() {
                    comments.push_str(&format!(" {{{comment}}}"));
                }
            }
        }
        (glyph, comments)
    };
    for (i, half) in halves.iter_mut().enumerate() {
        let (glyph, comments) = after(i + 1);
        half.push_str(&glyph);
        half.push_str(&comments);
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
    let (_, opening) = after(0);
    if !opening.is_empty() {
        text.push_str(opening.trim_start());
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
    Glyph(String),
    Comment(String),
    Resigns(Option<Seat>),
    Result(RecordResult),
    Choice(PromotionPiece),
}

/// A piece of a record's move text: a word, or a comment (`{...}` or `;` to the end of the
/// line), whitespace made single spaces.
enum Piece {
    Word(String),
    Comment(String),
}

fn tags_and_moves(text: &str) -> (Vec<(String, String)>, Vec<Piece>) {
    let mut tags = Vec::new();
    let mut moves = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') && trimmed.ends_with(']') {
            let inner = &trimmed[1..trimmed.len() - 1];
            let (key, value) = inner.split_once(char::is_whitespace).unwrap_or((inner, ""));
            tags.push((key.to_string(), value.trim().trim_matches('"').to_string()));
        } else {
            moves.push_str(line);
            moves.push('\n');
        }
    }
    let mut pieces = Vec::new();
    let mut plain = String::new();
    let words = |plain: &mut String, pieces: &mut Vec<Piece>| {
        pieces.extend(plain.split_whitespace().map(|w| Piece::Word(w.to_string())));
        plain.clear();
    };
    let mut chars = moves.chars();
    while let Some(c) = chars.next() {
        let comment = match c {
            // Brace comments may span lines (and hold braces of their own).
            '{' => {
                let mut depth = 1;
                let mut comment = String::new();
                for c in chars.by_ref() {
                    match c {
                        '{' => depth += 1,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                    if c != '{' && c != '}' {
                        comment.push(c);
                    }
                }
                comment
            }
            ';' => chars.by_ref().take_while(|&c| c != '\n').collect(),
            c => {
                plain.push(c);
                continue;
            }
        };
        words(&mut plain, &mut pieces);
        let comment = comment.split_whitespace().collect::<Vec<_>>().join(" ");
        if !comment.is_empty() {
            pieces.push(Piece::Comment(comment));
        }
    }
    words(&mut plain, &mut pieces);
    (tags, pieces)
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

fn tokens(pieces: Vec<Piece>) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = 0;
    let word_at = |i: usize| match pieces.get(i) {
        Some(Piece::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    while i < pieces.len() {
        let mut word = match &pieces[i] {
            Piece::Word(word) => word.clone(),
            Piece::Comment(comment) => {
                out.push(Token::Comment(comment.clone()));
                i += 1;
                continue;
            }
        };
        i += 1;
        // The play-by-mail style may space the push away from its comma: `e4, c6`.
        while let Some(next) = word_at(i).filter(|w| word.ends_with(',') || w.starts_with(',')) {
            word.push_str(next);
            i += 1;
        }
        // Move numbers: `12.`, `12...`, attached or not.
        let digits = word.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && word[digits..].starts_with('.') {
            word = word[digits..].trim_start_matches('.').to_string();
        } else if digits == word.len() && word != "00" && word != "000" {
            continue;
        }
        if word.is_empty() {
            continue;
        }
        if word.chars().all(|c| "!?+#".contains(c)) {
            if let Some(glyph) = glyph_of(&word) {
                out.push(Token::Glyph(glyph));
            }
            continue;
        }
        let lower = word.to_ascii_lowercase();
        if (lower == "white" || lower == "black")
            && word_at(i).is_some_and(|w| w.to_ascii_lowercase().starts_with("resign"))
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

/// The annotation glyph among the marks at the end of `text` (`Qh5+!?` gives `!?`), if they
/// hold one of the six.
fn glyph_of(text: &str) -> Option<String> {
    let marks = &text[text.trim_end_matches(['!', '?', '+', '#']).len()..];
    let glyph: String = marks.chars().filter(|c| matches!(c, '!' | '?')).collect();
    GLYPHS.contains(&glyph.as_str()).then_some(glyph)
}

/// The glyph written after a half-turn: at its end, or at the end of its move (`Qg6!/b4`).
fn glyph_of_half_turn(text: &str) -> Option<String> {
    glyph_of(text).or_else(|| glyph_of(text.split(['/', ',']).next().unwrap_or("")))
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

/// Reads a record of `variant` and replays it through the rules; refused at its first illegal
/// half-turn.
pub fn import(text: &str, variant: Variant) -> Result<ImportedGame, ImportError> {
    match import_up_to_error(text, variant)? {
        (game, None) => Ok(game),
        (_, Some(error)) => Err(error),
    }
}

/// Reads a record of `variant` and replays it through the rules up to its first illegal
/// half-turn, if it has one: the game as played before that half-turn (its result, resignation
/// and the notes from there on left out), and the error. Only a `FEN` tag the rules cannot set
/// up is an error of the whole record.
pub fn import_up_to_error(
    text: &str,
    variant: Variant,
) -> Result<(ImportedGame, Option<ImportError>), ImportError> {
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
    let mut notes: Vec<RecordNote> = Vec::new();
    // The game before the half-turn being read: where a broken record stops.
    let mut before = None;
    let mut broken = None;
    let mut over_before_break = false;
    for token in tokens(moves) {
        let fen = game.state.fen();
        let seat = seat_of(game.state.position.side);
        let outcome = match token {
            Token::Result(r) => {
                result = Some(r);
                Ok(())
            }
            Token::Resigns(who) => {
                resigned = Some(who.unwrap_or(seat));
                Ok(())
            }
            Token::Glyph(glyph) => {
                note(&mut notes, half_turn, Some(glyph), None);
                Ok(())
            }
            Token::Comment(comment) => {
                note(&mut notes, half_turn, None, Some(comment));
                Ok(())
            }
            Token::Choice(piece) if game.state.pending.is_some() => game
                .play(seat, Command::Promote { piece })
                .map_err(|reason| ImportError {
                    half_turn,
                    text: format!("={}", piece.letter()),
                    fen,
                    reason,
                }),
            Token::Choice(_) => Ok(()),
            Token::HalfTurn(text) => {
                half_turn += 1;
                before = Some((game.state.clone(), game.commands.len(), game.events.len()));
                let glyph = glyph_of_half_turn(&text);
                let played = play_half_turn(&mut game, &text, resigned.is_some());
                if played.is_ok() {
                    if let Some(glyph) = glyph {
                        note(&mut notes, half_turn, Some(glyph), None);
                    }
                }
                played.map_err(|reason| ImportError {
                    half_turn,
                    text: text.clone(),
                    fen,
                    reason,
                })
            }
        };
        if let Err(error) = outcome {
            over_before_break = game.state.ending.is_some() || resigned.is_some();
            broken = Some(error);
            break;
        }
    }
    if let Some(error) = &broken {
        // Back to the position before the broken half-turn: nothing of it is kept.
        if let Some((state, commands, events)) = before {
            game.state = state;
            game.commands.truncate(commands);
            game.events.truncate(events);
        }
        notes.retain(|n| (n.after as usize) < error.half_turn);
        result = None;
        resigned = None;
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
    Ok((
        ImportedGame {
            variant,
            tags,
            commands: game.commands,
            events: game.events,
            result,
            resigned,
            outcome: super::AvalancheChess::outcome(&game.state),
            final_fen: game.state.fen(),
            notes,
            over_before_break,
        },
        broken,
    ))
}

/// Adds a glyph or a comment after half-turn `after`: to that half-turn's note if it has one
/// without it (a glyph then a comment), else as a note of its own.
fn note(notes: &mut Vec<RecordNote>, after: usize, glyph: Option<String>, comment: Option<String>) {
    let after = u32::try_from(after).unwrap_or(u32::MAX);
    let comment = comment.map(|c| {
        let mut c: String = c.chars().take(MAX_COMMENT).collect();
        c.truncate(c.trim_end().len());
        c
    });
    if let Some(last) = notes.last_mut().filter(|n| n.after == after) {
        if glyph.is_some() && last.glyph.is_none() && last.comment.is_none() {
            last.glyph = glyph;
            return;
        }
        if comment.is_some() && last.comment.is_none() {
            last.comment = comment;
            return;
        }
    }
    notes.push(RecordNote {
        after,
        glyph,
        comment,
    });
}

/// Plays one half-turn as written (with the choice it writes, and a queen for a choice the
/// record left out before it).
fn play_half_turn(game: &mut Replay, text: &str, resigned: bool) -> Result<(), String> {
    if let Some(ending) = game.state.ending {
        return Err(format!(
            "the game was already over ({})",
            ending.reason.words()
        ));
    }
    if resigned {
        return Err("the game was already over by resignation".into());
    }
    // A record that leaves out the owner's choice is read as a queen.
    if game.state.pending.is_some() {
        let seat = seat_of(game.state.position.side);
        game.play(
            seat,
            Command::Promote {
                piece: PromotionPiece::Queen,
            },
        )?;
        if let Some(ending) = game.state.ending {
            return Err(format!(
                "the game was already over ({})",
                ending.reason.words()
            ));
        }
    }
    let (mv, push, choice) = split_half_turn(text);
    let seat = seat_of(game.state.position.side);
    game.play(seat, Command::Turn { mv, push })?;
    if let Some(piece) = choice {
        if game.state.pending.is_none() {
            return Err("this push does not promote a pawn".into());
        }
        let owner = seat_of(game.state.position.side);
        game.play(owner, Command::Promote { piece })?;
    }
    Ok(())
}
