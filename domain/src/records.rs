//! Avalanche Chess records as whole games at the table: a record in the notation of the rules
//! file imports as a game log (two seats, every half-turn a command, the end), and a game's
//! stored events export as a record.

use crate::engine::Engine as _;
use crate::fairness::Seed;
use crate::games::chess::record::{
    export_annotated, import_up_to_error, ImportError, RecordResult,
};
use crate::games::chess::{AvalancheChess, Event, Variant};
use crate::log::{GameLog, LogBuilder};
use crate::registry::Registry;
use crate::table::{
    RecordNote, Status, SystemCommand, TableEvent, MAX_BREAK_REASON, MAX_BREAK_TEXT,
};
use chrono::{DateTime, Utc};
use serde_json::{json, Value};

/// The players of an imported record: the record names people, not players of this server.
/// A seat's id is its side, followed by the name the record's tag gives it, if it gives one
/// (`imported:white:Betza`).
pub const WHITE: &str = "imported:white";
pub const BLACK: &str = "imported:black";

/// The id of an imported seat's player: its side, and the name the record gives it.
pub fn imported_player(seat: usize, name: Option<&str>) -> String {
    let side = if seat == 0 { WHITE } else { BLACK };
    match name {
        Some(name) if !name.is_empty() => format!("{side}:{name}"),
        _ => side.to_string(),
    }
}

/// What every imported player's id begins with: no account of this server has such an id, so
/// an imported game is nobody's here (no player's list, stream, notices or mail, no rating).
pub const IMPORTED: &str = "imported:";

/// The id of the player at seat `seat` (from 0) of an imported game log: `imported:seat1`,
/// followed by `:` and the name it was known by, when one is given (`imported:seat1:Bea`).
pub fn imported_seat(seat: usize, name: Option<&str>) -> String {
    match name {
        Some(name) if !name.is_empty() => format!("{IMPORTED}seat{}:{name}", seat + 1),
        _ => format!("{IMPORTED}seat{}", seat + 1),
    }
}

/// Whether `id` is the id of an imported player (a record's or a log's), not an account here.
pub fn is_imported(id: &str) -> bool {
    id.starts_with(IMPORTED)
}

/// The record's name for the player of an imported seat: `Betza` of `imported:white:Betza`
/// (and `Bea` of `imported:seat1:Bea`).
pub fn imported_name(id: &str) -> Option<&str> {
    id.strip_prefix(IMPORTED)?
        .split_once(':')
        .map(|(_, name)| name)
        .filter(|name| !name.is_empty())
}

/// Why a record cannot become a game.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RecordError {
    /// A half-turn the rules refuse: its number, its text, the position before it, why.
    #[error("{0}")]
    Illegal(#[from] ImportError),
    /// A record the rules read, but that is not a whole game of this server.
    #[error("{0}")]
    Unfit(String),
    /// Our own fault met while replaying the record: not the record's.
    #[error("{0}")]
    Fault(#[from] crate::Fault),
}

/// A record imported as a game log.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedRecord {
    pub log: GameLog,
    pub variant: Variant,
    pub final_fen: String,
    pub result: Option<RecordResult>,
    /// Where the record breaks, when it was imported up to its first illegal half-turn.
    pub broken: Option<ImportError>,
}

/// Reads a record of `variant` and writes it as the log of a finished game, decided command by
/// command as the service decides them. The record must end: by the rules, a resignation or a
/// result line (a lost game without mate reads as the loser's resignation, a draw as a draw by
/// agreement). `names` are the players at White and Black as the record names them (its tags,
/// checked by the caller), kept in the seats' ids.
///
/// The record's comments and annotation glyphs are kept in the game as the server's
/// `annotate` command, right after the seats are taken, so that its export writes them again.
///
/// With `up_to_error`, a record with an illegal half-turn N is not refused: the game is played
/// up to half-turn N - 1 and ends there, without a winner, by the server's `record_breaks`
/// command (event `record_broken`, then `finished` whose reason names N, its text and why),
/// which the log keeps and the audit decides again. A record that goes on after the game has
/// ended is still refused: it does not break, it is longer than its game.
pub fn import_record(
    registry: &Registry,
    text: &str,
    variant: Variant,
    names: [Option<&str>; 2],
    seed: Seed,
    now: DateTime<Utc>,
    up_to_error: bool,
) -> Result<ImportedRecord, RecordError> {
    let players = [imported_player(0, names[0]), imported_player(1, names[1])];
    let player = |seat: usize| players[seat.min(1)].as_str();
    let (imported, broken) = import_up_to_error(text, variant)?;
    if let Some(error) = &broken {
        if !up_to_error || imported.over_before_break || error.half_turn == 0 {
            return Err(RecordError::Illegal(error.clone()));
        }
    }
    if imported
        .tags
        .iter()
        .any(|(key, _)| key.eq_ignore_ascii_case("FEN"))
    {
        return Err(RecordError::Unfit(
            "A record from a set position (a FEN tag) cannot become a game here: games begin from the variant's start position.".into(),
        ));
    }
    let kind = registry
        .get(<AvalancheChess as crate::Engine>::ID)
        .ok_or_else(|| RecordError::Unfit("Avalanche Chess is not offered here.".into()))?;
    let unfit = |e: crate::Refusal| match e {
        crate::Refusal::Rule(e) => RecordError::Unfit(e.message),
        crate::Refusal::Fault(fault) => RecordError::Fault(fault),
    };
    let mut game = LogBuilder::create(
        kind,
        Some(variant.id().to_string()),
        None,
        2,
        seed,
        player(0),
        Some(0),
        now,
    )
    .map_err(unfit)?;
    game.play(player(1), json!({"type": "join", "seat": 1}), now)
        .map_err(unfit)?;
    if !imported.notes.is_empty() {
        let annotate = SystemCommand::Annotate {
            notes: imported.notes.clone(),
        };
        let command = serde_json::to_value(annotate).unwrap_or(Value::Null);
        game.system(command, now).map_err(unfit)?;
    }
    for (seat, command) in &imported.commands {
        let command = serde_json::to_value(command).unwrap_or(Value::Null);
        game.play(player(*seat), command, now).map_err(unfit)?;
    }
    if let Some(error) = &broken {
        let breaks = SystemCommand::RecordBreaks {
            half_turn: u32::try_from(error.half_turn).unwrap_or(u32::MAX),
            text: shortened(&error.text, MAX_BREAK_TEXT),
            reason: shortened(&error.reason, MAX_BREAK_REASON),
        };
        let command = serde_json::to_value(breaks).unwrap_or(Value::Null);
        game.system(command, now).map_err(unfit)?;
    } else if game.game().facts().status != Status::Finished {
        let resigned = imported.resigned.or(match imported.result {
            Some(RecordResult::WhiteWins) => Some(1),
            Some(RecordResult::BlackWins) => Some(0),
            _ => None,
        });
        if let Some(seat) = resigned {
            game.play(player(seat), json!({"type": "resign"}), now)
                .map_err(unfit)?;
        } else if imported.result == Some(RecordResult::Draw) {
            game.play(player(0), json!({"type": "offer_draw"}), now)
                .map_err(unfit)?;
            game.play(player(1), json!({"type": "accept_draw"}), now)
                .map_err(unfit)?;
        } else {
            return Err(RecordError::Unfit(format!(
                "The record does not end: no result, no resignation and no end by the rules (final position {}).",
                imported.final_fen
            )));
        }
    } else if let (Some(result), Some(outcome)) = (imported.result, game.game().facts().outcome) {
        let by_rules = if outcome.draw {
            RecordResult::Draw
        } else if outcome.winners == [0] {
            RecordResult::WhiteWins
        } else {
            RecordResult::BlackWins
        };
        if by_rules != result {
            return Err(RecordError::Unfit(format!(
                "The record gives the result {}, but the rules end the game {} ({}).",
                result.text(),
                by_rules.text(),
                outcome.reason
            )));
        }
    }
    Ok(ImportedRecord {
        log: game.finish(),
        variant,
        final_fen: imported.final_fen,
        result: imported.result,
        broken,
    })
}

/// `text` trimmed, and cut to `max` characters with `…` when longer.
fn shortened(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// Writes the stored events of an Avalanche Chess game as a record in the canonical notation,
/// with `tags` first. A game still running has no result line.
pub fn export_record(payloads: &[Value], tags: &[(String, String)]) -> Result<String, String> {
    export_record_saying(payloads, tags, |_| None)
}

/// [`export_record`] with what was said at the game's table as comments at their place, after
/// the half-turn before them: `words` gives the comment of a stored `said` event (such as
/// `Ana: good luck`), or `None` to leave it out (a hidden message, the spectators' room). A
/// comment holds no brace, so that the record reads again.
pub fn export_record_saying(
    payloads: &[Value],
    tags: &[(String, String)],
    words: impl Fn(&Value) -> Option<String>,
) -> Result<String, String> {
    let mut moves: Vec<Event> = Vec::new();
    let mut resigned = None;
    let mut drawn = false;
    let mut notes: Vec<RecordNote> = Vec::new();
    let mut broken = None;
    for (i, payload) in payloads.iter().enumerate() {
        let event: TableEvent<AvalancheChess> = serde_json::from_value(payload.clone())
            .map_err(|e| format!("event {} is not of Avalanche Chess: {e}", i + 1))?;
        match event {
            TableEvent::Game { event } => moves.push(event),
            TableEvent::Resigned { seat } => resigned = Some(seat),
            TableEvent::Finished { outcome } => drawn = outcome.draw,
            TableEvent::Annotated { notes: more } => notes.extend(more),
            TableEvent::RecordBroken {
                half_turn,
                text,
                reason,
            } => broken = Some(crate::table::record_break(half_turn, &text, &reason)),
            TableEvent::Said { .. } => {
                if let Some(comment) = words(payload) {
                    let played = moves
                        .iter()
                        .filter(|e| matches!(e, Event::TurnPlayed { .. }))
                        .count();
                    let comment: String = comment
                        .chars()
                        .map(|c| match c {
                            '{' => '(',
                            '}' => ')',
                            c if c.is_whitespace() => ' ',
                            c => c,
                        })
                        .collect();
                    notes.push(RecordNote {
                        after: u32::try_from(played).unwrap_or(u32::MAX),
                        glyph: None,
                        comment: Some(shortened(&comment, crate::table::MAX_COMMENT)),
                    });
                }
            }
            _ => {}
        }
    }
    // A record imported up to its break says where it broke, after its last half-turn, and
    // has no result (`*`).
    if let Some(broken) = broken {
        let played = moves
            .iter()
            .filter(|e| matches!(e, Event::TurnPlayed { .. }))
            .count();
        notes.push(RecordNote {
            after: u32::try_from(played).unwrap_or(u32::MAX),
            glyph: None,
            comment: Some(broken),
        });
        let mut text = export_annotated(&moves, tags, resigned, &notes);
        text.push_str("*\n");
        return Ok(text);
    }
    let mut text = export_annotated(&moves, tags, resigned, &notes);
    let ends_by_rules = moves.iter().any(|e| matches!(e, Event::GameEnded { .. }));
    if drawn && !ends_by_rules && resigned.is_none() {
        text.push_str(RecordResult::Draw.text());
        text.push('\n');
    }
    Ok(text)
}

/// Whether games of `kind` are written as records (Avalanche Chess only; every game exports
/// its log).
pub fn has_record_notation(kind: &str) -> bool {
    kind == AvalancheChess::ID
}

/// The tag pairs of a chess game's record: its id, its variant (`standard` when it has none),
/// and the names of the players at White and Black, where seated.
pub fn record_tags(
    game_id: &str,
    variant: Option<String>,
    white: Option<String>,
    black: Option<String>,
) -> Vec<(String, String)> {
    let mut tags = vec![
        ("Game".to_string(), game_id.to_string()),
        (
            "Variant".to_string(),
            variant.unwrap_or_else(|| Variant::Standard.id().to_string()),
        ),
    ];
    for (name, player) in [("White", white), ("Black", black)] {
        if let Some(player) = player {
            tags.push((name.to_string(), player));
        }
    }
    tags
}
