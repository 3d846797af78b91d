//! Private notes: a player's own words on a game ("she likes to push early"), kept in their
//! account and shown to nobody else. They are records of the player, never events of the game,
//! so they change no game, reach no other seat by any channel and are not in the game's log,
//! its replay or its record. Each note is sealed under the secrets key, bound to its player and
//! game, so a copy of the store alone (a backup, a dump) does not show it.

use crate::error::{ApiCode, ApiError};
use crate::sealing::SecretsKey;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use storage::Storage;
use utoipa::ToSchema;

/// The records tree of notes, keyed `<player>/<game>`.
const NOTES: &str = "notes";
/// The longest note, in characters: a page of text.
pub const NOTE_LIMIT: usize = 10_000;

/// A player's note on a game, as they wrote it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(example = json!({"game": "g-7Kq2mX9pLr", "text": "Keep the queen back until the bank run.",
    "updated_at": "2026-03-01T12:00:00Z"}))]
pub struct Note {
    pub game: String,
    /// The note; empty when the player wrote none (or cleared it).
    pub text: String,
    /// When it was last written; absent when there is no note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<DateTime<Utc>>,
}

/// A new text for a note: an empty one deletes the note.
#[derive(Clone, Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"text": "Keep the queen back until the bank run."}))]
pub struct NoteText {
    /// Up to 10 000 characters; line breaks and tabs are kept, other control characters and
    /// the characters that reorder text (bidirectional controls) are refused.
    pub text: String,
}

/// What is stored (then sealed): the text and when it was written.
#[derive(Serialize, Deserialize)]
struct Stored {
    text: String,
    updated_at: DateTime<Utc>,
}

pub struct Notes {
    store: Arc<dyn Storage>,
    key: Arc<SecretsKey>,
}

fn record_key(player: &str, game: &str) -> String {
    format!("{player}/{game}")
}

/// What a sealed note is bound to: its player and game, so notes cannot be swapped.
fn context(player: &str, game: &str) -> Vec<u8> {
    format!("note {player} {game}").into_bytes()
}

/// Whether `c` may stand in a note: no control character but line breaks and tabs, and none
/// of the invisible characters that reorder how the text around them reads.
fn allowed(c: char) -> bool {
    let bidi = matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2066}'..='\u{2069}');
    !bidi && (!c.is_control() || matches!(c, '\n' | '\r' | '\t'))
}

/// `text` checked for a note: at most [`NOTE_LIMIT`] characters, nothing that hides or
/// reorders text.
pub fn check_note(text: &str) -> Result<(), ApiError> {
    let length = text.chars().count();
    if length > NOTE_LIMIT {
        return Err(ApiError::new(
            ApiCode::NoteTooLong,
            format!("A note holds at most {NOTE_LIMIT} characters; this one has {length}."),
        ));
    }
    if let Some(c) = text.chars().find(|c| !allowed(*c)) {
        return Err(ApiError::new(
            ApiCode::InvalidText,
            format!(
                "The text holds the invisible character U+{:04X}: control characters (but line \
                 breaks and tabs) and bidirectional controls are refused.",
                c as u32
            ),
        ));
    }
    Ok(())
}

impl Notes {
    pub fn new(store: Arc<dyn Storage>, key: Arc<SecretsKey>) -> Notes {
        Notes { store, key }
    }

    /// `player`'s note on `game` (an empty one when they wrote none).
    pub fn get(&self, player: &str, game: &str) -> Result<Note, ApiError> {
        let stored = self
            .store
            .get_record(NOTES, &record_key(player, game))
            .map_err(ApiError::from)?;
        let Some(sealed) = stored else {
            return Ok(Note {
                game: game.to_string(),
                text: String::new(),
                updated_at: None,
            });
        };
        let plain = self
            .key
            .open(&context(player, game), &sealed)
            .map_err(|_| ApiError::internal("a note that this server's key does not open"))?;
        let stored: Stored = serde_json::from_slice(&plain)
            .map_err(|error| ApiError::internal(format!("a note not as stored: {error}")))?;
        Ok(Note {
            game: game.to_string(),
            text: stored.text,
            updated_at: Some(stored.updated_at),
        })
    }

    /// Writes `player`'s note on `game` (deletes it when `text` is empty, or only spaces).
    pub async fn put(
        &self,
        player: &str,
        game: &str,
        text: &str,
        now: DateTime<Utc>,
    ) -> Result<Note, ApiError> {
        check_note(text)?;
        let key = record_key(player, game);
        if text.trim().is_empty() {
            self.store
                .remove_record_async(NOTES, &key)
                .await
                .map_err(ApiError::from)?;
            return Ok(Note {
                game: game.to_string(),
                text: String::new(),
                updated_at: None,
            });
        }
        let stored = Stored {
            text: text.to_string(),
            updated_at: now,
        };
        let plain = serde_json::to_vec(&stored).map_err(|error| {
            ApiError::internal(format!("a note that cannot be written: {error}"))
        })?;
        let sealed = self
            .key
            .seal(&context(player, game), &plain)
            .map_err(|error| ApiError::internal(error.to_string()))?;
        self.store
            .put_record_async(NOTES, &key, &sealed)
            .await
            .map_err(ApiError::from)?;
        Ok(Note {
            game: game.to_string(),
            text: stored.text,
            updated_at: Some(now),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_keeps_line_breaks_and_refuses_what_hides_or_reorders_text() {
        assert!(check_note("first line\nsecond\tcolumn").is_ok());
        for bad in ["a\u{0007}b", "abc\u{202E}fed", "\u{2066}x", "x\u{200F}"] {
            let refused = check_note(bad).unwrap_err();
            assert_eq!(refused.code, ApiCode::InvalidText, "{bad:?}");
        }
        let long = "é".repeat(NOTE_LIMIT + 1);
        assert_eq!(check_note(&long).unwrap_err().code, ApiCode::NoteTooLong);
        assert!(check_note(&"é".repeat(NOTE_LIMIT)).is_ok());
    }
}
